//! A stored game as PDN: the roster tags, the atlas's own tags, and move text with the engine's
//! evaluation after each of its moves as a `{[%eval M]}` comment (men, from the first player's
//! view): the comment command lichess writes and PGN tools read (`[%eval 0.17]`, in pawns from
//! White's view), so that the evaluations of an atlas game show in such tools.

use damspel_notation::format_move;
use damspel_notation::pdn::{game_type, write_result, GameResult};
use damspel_rules::{Bits, Move, Position, Rules};

/// Tags of a stored game beyond the moves.
pub struct Header<'a> {
    pub round: String,
    pub white: String,
    pub black: String,
    pub result: GameResult,
    pub extra: Vec<(&'a str, String)>,
}

fn tag(name: &str, value: &str) -> String {
    format!(
        "[{name} \"{}\"]\n",
        value.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

/// Numbered move text of `moves` from `start`, with each `evals[i]` (centi-men) as a comment
/// after move i; `end` (a result, or nothing) closes it. Lines stay within 79 characters.
pub fn movetext<B: Bits>(
    rules: &Rules<B>,
    start: &Position<B>,
    moves: &[Move<B>],
    evals: &[Option<i32>],
    end: &str,
) -> String {
    let first = rules.variant().first_player;
    let mut tokens = Vec::new();
    let mut pos = *start;
    let mut number = 1;
    for (i, mv) in moves.iter().enumerate() {
        let text = format_move(rules, &pos, mv);
        let mover = pos.side_to_move();
        tokens.push(if mover == first {
            format!("{number}. {text}")
        } else if i == 0 {
            format!("{number}... {text}")
        } else {
            text
        });
        if let Some(Some(eval)) = evals.get(i) {
            tokens.push(format!("{{[%eval {:.2}]}}", f64::from(*eval) / 100.0));
        }
        if mover != first {
            number += 1;
        }
        pos = pos.play(mv);
    }
    if !end.is_empty() {
        tokens.push(end.to_string());
    }
    let mut out = String::new();
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + token.len() + 1 > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out
}

/// The whole game as PDN, from the variant's start position (no FEN tag). No date or site: a
/// stored game must be the same on every machine.
pub fn game<B: Bits>(
    rules: &Rules<B>,
    header: &Header,
    moves: &[Move<B>],
    evals: &[Option<i32>],
) -> String {
    let v = rules.variant();
    let start = Position::start(rules);
    let result = write_result(v, header.result);
    let mut out = String::new();
    for (name, value) in [
        ("Event", "Damspel atlas"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", header.round.as_str()),
        ("White", header.white.as_str()),
        ("Black", header.black.as_str()),
        ("Result", result),
    ] {
        out.push_str(&tag(name, value));
    }
    out.push_str(&tag("Variant", &v.id));
    if let Some(t) = game_type(v) {
        out.push_str(&tag("GameType", &t));
    }
    for (name, value) in &header.extra {
        out.push_str(&tag(name, value));
    }
    out.push('\n');
    out.push_str(&movetext(rules, &start, moves, evals, result));
    out.push_str("\n\n");
    out
}
