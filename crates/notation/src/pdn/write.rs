//! Writing a game as PDN 3.0: the seven tag roster, the GameType tag, a FEN tag only for a
//! position other than the standard start (pydraughts mis-reads one given for the start), numbered
//! move text with the moves in the variant's notation (algebraic for Russian and Brazilian), and
//! the result in the variant's ecosystem's convention (see `result`).

use damspel_rules::{Bits, Move, Position, Rules, SquareNames, Variant};

use super::replay::position_for;
use super::result::{write_result, GameResult};
use super::tree::{Item, Line, MoveNode};
use crate::fen::write_fen;
use crate::movetext::{format_move, parse_move};

/// A finished or unfinished game to write as PDN.
pub struct PdnGame<'a, B: Bits> {
    pub rules: &'a Rules<B>,
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// Written in the variant's convention: `2-0` in International, `1-0` in Russian, ...
    pub result: GameResult,
    pub start: Position<B>,
    pub moves: Vec<Move<B>>,
    /// Extra tags, written after the roster (e.g. ("Termination", "time forfeit")).
    pub extra: Vec<(String, String)>,
}

fn tag(name: &str, value: &str) -> String {
    format!(
        "[{name} \"{}\"]\n",
        value.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

impl<B: Bits> PdnGame<'_, B> {
    pub fn to_pdn(&self) -> String {
        let result = write_result(self.rules.variant(), self.result);
        let mut out = self.header(result);
        // Move numbers count pairs of moves from the first player's (Black in American checkers).
        let first = self.rules.variant().first_player;
        let mut pos = self.start;
        let mut line = String::new();
        let mut number = 1;
        for (i, mv) in self.moves.iter().enumerate() {
            let text = format_move(self.rules, &pos, mv);
            let mover = pos.side_to_move();
            let token = if mover == first {
                format!("{number}. {text}")
            } else if i == 0 {
                format!("{number}... {text}")
            } else {
                text
            };
            if mover != first {
                number += 1;
            }
            if line.len() + token.len() + 1 > 79 {
                out.push_str(line.trim_end());
                out.push('\n');
                line.clear();
            }
            line.push_str(&token);
            line.push(' ');
            pos = pos.play(mv);
        }
        line.push_str(result);
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }

    /// The game with move text written elsewhere (`write_movetext`; the server's tree), wrapped
    /// at 79 columns between words, a comment's line breaks becoming spaces; no line starts
    /// with `[` (a reader takes such a line for the next game's tag, even inside a comment,
    /// which could end one game and forge another). `moves` is not used.
    pub fn to_pdn_with(&self, movetext: &str) -> String {
        let result = write_result(self.rules.variant(), self.result);
        self.to_pdn_with_result(movetext, result, result)
    }

    /// As `to_pdn_with`, with the result as a file wrote it: `tag` in the Result tag, `token`
    /// (a result token the reader took) ending the move text. A result no convention reads
    /// (`0-0`, `4-6`) is kept so, not written as `*` (`self.result` is not used).
    pub fn to_pdn_with_result(&self, movetext: &str, tag: &str, token: &str) -> String {
        let mut out = self.header(tag);
        let mut line = String::new();
        for word in movetext.split_whitespace().chain([token]) {
            if !line.is_empty() && line.len() + word.len() + 1 > 79 && !word.starts_with('[') {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }

    /// The tags, and the empty line before the move text. Each name is written once
    /// (case-insensitive, as readers match tags): a reader takes a repeated tag for the start of
    /// the next game's (ours does, see `read`), which would part the tags from the moves. The
    /// roster and the tags the writer decides come first and stand; of repeated extra tags, the
    /// first.
    fn header(&self, result: &str) -> String {
        let v = self.rules.variant();
        let g = &v.geometry;
        let mut tags: Vec<(&str, String)> = vec![
            ("Event", self.event.clone()),
            ("Site", self.site.clone()),
            ("Date", self.date.clone()),
            ("Round", self.round.clone()),
            ("White", self.white.clone()),
            ("Black", self.black.clone()),
            ("Result", result.to_string()),
            ("Variant", v.id.clone()),
        ];
        if let Some(game_type) = game_type(v) {
            tags.push(("GameType", game_type));
        }
        if self.start != Position::start(self.rules) {
            tags.push(("SetUp", "1".to_string()));
            tags.push(("FEN", write_fen(g, &self.start)));
        }
        tags.extend(self.extra.iter().map(|(n, v)| (n.as_str(), v.clone())));
        let mut out = String::new();
        for (i, (name, value)) in tags.iter().enumerate() {
            if !tags[..i].iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                out.push_str(&tag(name, value));
            }
        }
        out.push('\n');
        out
    }
}

/// A game's move text as read (`line`) written again from `start`: every move in the variant's
/// notation, numbered anew, with the comments, NAGs, strength marks and variations read. The
/// main line's moves are `main` (as replayed); a variation's are read here from the position
/// it starts in, and one that cannot be read is kept as written, with the rest of its line.
/// A setup command before the main line's first move is the start (written as its FEN tag);
/// one later is written where it was, and the moves after it from the position it sets up.
pub fn write_movetext<B: Bits>(
    rules: &Rules<B>,
    start: &Position<B>,
    line: &Line,
    main: &[Move<B>],
) -> String {
    let offset = usize::from(start.side_to_move() != rules.variant().first_player);
    let mut out = String::new();
    write_line(rules, Some(*start), offset, line, Some(main), &mut out);
    out
}

/// Writes `line`, whose first move is ply `k` counted from the first player's first move (even:
/// the first player's), from `pos` (None: not known, moves kept as written). Depth is bounded
/// by the reader.
fn write_line<B: Bits>(
    rules: &Rules<B>,
    mut pos: Option<Position<B>>,
    mut k: usize,
    line: &Line,
    main: Option<&[Move<B>]>,
    out: &mut String,
) {
    let mut number_next = true;
    let mut played = 0;
    // The last move with the position before it, its ply and the items written after it: its
    // variations are written in the places they were read (`32-28 {c} (...)`).
    let mut last: Option<(&MoveNode, Option<Position<B>>, usize, usize)> = None;
    for (i, item) in line.items.iter().enumerate() {
        // After the items that follow a move (comments, NAGs), the variations written there.
        if let Some((m, before, ply, n)) = &mut last {
            let end = !matches!(item, Item::Comment { .. } | Item::Nag { .. });
            for v in m.variations_at(*n, end) {
                out.push_str(" (");
                write_line(rules, *before, *ply, v, None, out);
                out.push(')');
                number_next = true;
            }
            *n += 1;
            if end {
                last = None;
            }
        }
        if matches!(item, Item::Setup { .. }) && main.is_some() && played == 0 {
            continue;
        }
        if !out.is_empty() && !out.ends_with([' ', '(']) {
            out.push(' ');
        }
        match item {
            Item::Move(m) => {
                let before = pos;
                let mv = before.and_then(|p| match main {
                    Some(main) => main.get(played).copied(),
                    None => parse_move(rules, &p, &m.text).ok(),
                });
                if k.is_multiple_of(2) {
                    out.push_str(&format!("{}. ", k / 2 + 1));
                } else if number_next {
                    out.push_str(&format!("{}... ", k / 2 + 1));
                }
                match (before, mv) {
                    (Some(p), Some(mv)) => {
                        out.push_str(&format_move(rules, &p, &mv));
                        pos = Some(p.play(&mv));
                    }
                    _ => {
                        out.push_str(&m.text);
                        pos = None;
                    }
                }
                if let Some(s) = &m.strength {
                    out.push_str(s);
                }
                for nag in &m.nags {
                    out.push(' ');
                    out.push_str(nag);
                }
                number_next = false;
                last = Some((m, before, k, 0));
                k += 1;
                played += 1;
            }
            Item::Comment { text } => {
                out.push('{');
                out.push_str(text);
                out.push('}');
                number_next = true;
            }
            Item::Nag { nag } => out.push_str(nag),
            Item::Setup { fen } => {
                out.push_str(&format!("/FEN \"{fen}\"/"));
                // The moves go on from the position set up (the move after it says whose turn
                // it is where the FEN does not), numbered for the side to move there.
                let next = line.items[i + 1..].iter().find_map(|item| match item {
                    Item::Move(m) => Some(Some(m.text.as_str())),
                    Item::Setup { .. } => Some(None),
                    _ => None,
                });
                pos = position_for(rules, fen, next.flatten()).ok();
                if let Some(p) = pos {
                    let first = p.side_to_move() == rules.variant().first_player;
                    if k.is_multiple_of(2) != first {
                        k += 1;
                    }
                }
                number_next = true;
            }
        }
    }
    if let Some((m, before, ply, n)) = last {
        for v in m.variations_at(n, true) {
            out.push_str(" (");
            write_line(rules, before, ply, v, None, out);
            out.push(')');
        }
    }
}

/// The PDN GameType of the variants that have one (shared/reference/pdn-gametype.tsv), spelled
/// out in full; the notation field says how the squares are written: numbers (`N2` FMJD, `N1`
/// American), or `A0` algebraic (Russian and Brazilian by default, as their players write them).
pub fn game_type(variant: &Variant) -> Option<String> {
    let (number, first, size, numbers) = match variant.id.as_str() {
        "international" => (20, 'W', 10, "N2"),
        "american" => (21, 'B', 8, "N1"),
        "russian" => (25, 'W', 8, "N2"),
        "brazilian" => (26, 'W', 8, "N2"),
        "turkish" => (30, 'W', 8, "A0"),
        _ => return None,
    };
    let notation = match variant.geometry.names() {
        SquareNames::Numbers => numbers,
        SquareNames::Algebraic => "A0",
    };
    Some(format!("{number},{first},{size},{size},{notation},0"))
}
