//! Writing a game as PDN 3.0: the seven tag roster, the GameType tag, a FEN tag only for a
//! position other than the standard start (pydraughts mis-reads one given for the start), numbered
//! move text with the moves in the variant's notation (algebraic for Russian and Brazilian), and
//! the result in the variant's ecosystem's convention (see `result`).

use damspel_rules::{Bits, Move, Position, Rules, SquareNames, Variant};

use super::result::{write_result, GameResult};
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
        let v = self.rules.variant();
        let g = &v.geometry;
        let result = write_result(v, self.result);
        let mut out = String::new();
        for (name, value) in [
            ("Event", &self.event),
            ("Site", &self.site),
            ("Date", &self.date),
            ("Round", &self.round),
            ("White", &self.white),
            ("Black", &self.black),
            ("Result", &result.to_string()),
        ] {
            out.push_str(&tag(name, value));
        }
        out.push_str(&tag("Variant", &v.id));
        if let Some(game_type) = game_type(v) {
            out.push_str(&tag("GameType", &game_type));
        }
        if self.start != Position::start(self.rules) {
            out.push_str(&tag("SetUp", "1"));
            out.push_str(&tag("FEN", &write_fen(g, &self.start)));
        }
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
        line.push_str(result);
        out.push_str(&line);
        out.push_str("\n\n");
        out
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
