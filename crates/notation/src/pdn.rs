//! PDN 3.0 game text: the seven tag roster, GameType and FEN tags, numbered move text with the
//! moves in the variant's notation, and the result.

use damspel_rules::{Bits, Move, Position, Rules};

use crate::fen::write_fen;
use crate::movetext::format_move;

/// A finished or unfinished game to write as PDN.
pub struct PdnGame<'a, B: Bits> {
    pub rules: &'a Rules<B>,
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// "1-0", "0-1", "1/2-1/2" or "*".
    pub result: String,
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
        let v = self.rules.variant();
        let g = &v.geometry;
        let mut out = String::new();
        for (name, value) in [
            ("Event", &self.event),
            ("Site", &self.site),
            ("Date", &self.date),
            ("Round", &self.round),
            ("White", &self.white),
            ("Black", &self.black),
            ("Result", &self.result),
        ] {
            out.push_str(&tag(name, value));
        }
        out.push_str(&tag("Variant", &v.id));
        if let Some(game_type) = game_type(&v.id) {
            out.push_str(&tag("GameType", game_type));
        }
        if self.start != Position::start(self.rules) {
            out.push_str(&tag("SetUp", "1"));
        }
        out.push_str(&tag("FEN", &write_fen(g, &self.start)));
        for (name, value) in &self.extra {
            out.push_str(&tag(name, value));
        }
        out.push('\n');
        // Move numbers count pairs of moves from the first player's (Black in American checkers).
        let first = v.first_player;
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
        line.push_str(&self.result);
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }
}

/// The PDN GameType of the variants that have one (shared/reference/pdn-gametype.tsv), spelled
/// out with the notation Damspel writes: Russian and Brazilian are numbered (N2) like
/// International, not algebraic as their defaults say.
pub fn game_type(variant: &str) -> Option<&'static str> {
    match variant {
        "international" => Some("20,W,10,10,N2,0"),
        "american" => Some("21,B,8,8,N1,0"),
        "russian" => Some("25,W,8,8,N2,0"),
        "brazilian" => Some("26,W,8,8,N2,0"),
        "turkish" => Some("30,W,8,8,A0,0"),
        _ => None,
    }
}

/// One game read from PDN text: its tags and its move texts (not yet checked against the rules).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnRead {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    pub result: Option<String>,
}

impl PdnRead {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What is wrong with a PDN text, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad PDN at character {}: {reason}", offset + 1)]
pub struct PdnError {
    pub offset: usize,
    pub reason: String,
}

const RESULTS: [&str; 9] = [
    "1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*", "½-½",
];

/// Reads the first game of a PDN text: tags, then move text (move numbers, comments `{}`,
/// variations `()`, NAGs `$n`, move strength marks and `%` line comments are skipped).
pub fn read_game(text: &str) -> Result<PdnRead, PdnError> {
    let err = |offset: usize, reason: &str| PdnError {
        offset,
        reason: reason.to_string(),
    };
    let mut game = PdnRead::default();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    let mut depth = 0usize;
    let mut token_start: Option<usize> = None;
    let mut tokens: Vec<(usize, String)> = Vec::new();
    let flush = |start: &mut Option<usize>, end: usize, tokens: &mut Vec<(usize, String)>| {
        if let Some(s) = start.take() {
            tokens.push((s, text[s..end].to_string()));
        }
    };
    while i < chars.len() {
        let (at, c) = chars[i];
        match c {
            '[' if depth == 0 && tokens.is_empty() && token_start.is_none() => {
                let close = text[at..]
                    .find(']')
                    .ok_or_else(|| err(at, "a tag is not closed with ]"))?;
                let inner = text[at + 1..at + close].trim();
                let (name, value) = inner
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| err(at, "a tag needs a name and a quoted value"))?;
                let value = value.trim();
                if !(value.len() >= 2 && value.starts_with('"') && value.ends_with('"')) {
                    return Err(err(at, "a tag value must be in double quotes"));
                }
                let value = value[1..value.len() - 1]
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\");
                game.tags.push((name.to_string(), value));
                while i < chars.len() && chars[i].0 <= at + close {
                    i += 1;
                }
                continue;
            }
            '{' => {
                flush(&mut token_start, at, &mut tokens);
                let close = text[at..]
                    .find('}')
                    .ok_or_else(|| err(at, "a comment is not closed with }"))?;
                while i < chars.len() && chars[i].0 <= at + close {
                    i += 1;
                }
                continue;
            }
            '%' if token_start.is_none() => {
                while i < chars.len() && chars[i].1 != '\n' {
                    i += 1;
                }
                continue;
            }
            '(' => {
                flush(&mut token_start, at, &mut tokens);
                depth += 1;
            }
            ')' => {
                flush(&mut token_start, at, &mut tokens);
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| err(at, "a variation closes without opening"))?;
            }
            c if c.is_whitespace() => flush(&mut token_start, at, &mut tokens),
            _ if depth > 0 => {}
            _ => {
                if token_start.is_none() {
                    token_start = Some(at);
                }
            }
        }
        i += 1;
    }
    flush(&mut token_start, text.len(), &mut tokens);
    if depth > 0 {
        return Err(err(text.len(), "a variation is not closed"));
    }
    for (at, token) in tokens {
        // Move numbers may be glued to the move: "1.d3-d4", "12...32-28".
        let mut t = token.as_str();
        if let Some(dot) = t.rfind('.') {
            if t[..dot]
                .trim_end_matches('.')
                .bytes()
                .all(|b| b.is_ascii_digit())
            {
                t = &t[dot + 1..];
            }
        }
        let t = t.trim_end_matches(['!', '?']);
        if t.is_empty() || t.starts_with('$') {
            continue;
        }
        if RESULTS.contains(&t) {
            game.result = Some(t.to_string());
            break;
        }
        if !t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'x' | b'X' | b':'))
        {
            return Err(err(at, &format!("`{token}` is not a move")));
        }
        game.moves.push(t.to_string());
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_moves_and_skips_the_rest() {
        let g = read_game(
            "[Event \"x\"]\n[FEN \"W:W31-50:B1-20\"]\n\n1. 32-28 {good} 19-23 (2. 28x19) 2. 28x19 $1 14x23! 1-0",
        )
        .unwrap();
        assert_eq!(g.tag("fen"), Some("W:W31-50:B1-20"));
        assert_eq!(g.moves, ["32-28", "19-23", "28x19", "14x23"]);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        assert!(read_game("[Event \"x\"").is_err());
        assert!(read_game("1. 32-28 {open").is_err());
        assert!(read_game("1. 32-28 (19-23").is_err());
        assert!(read_game("1. 32-28 é4").is_err());
    }
}
