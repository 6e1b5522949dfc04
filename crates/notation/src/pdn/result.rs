//! Game results as each ecosystem writes them in PDN, per variant: shared by the writer and the
//! reader so that a result written is read back as the same outcome.
//!
//! - International draughts (PDN GameType 20) and Brazilian: `2-0`, `0-2`, `1-1`, the PDN
//!   standard's "International" result type (points out of two, as FMJD scores games).
//! - American checkers: CheckerBoard's convention, where the first number is the score of the
//!   side that moves first, Black: `1-0` is a win for Black. CheckerBoard.c,
//!   `pdn_result_to_string` and `string_to_pdn_result` (github:eygilbert/CheckerBoard@691ab49,
//!   lines 1730-1780): `1-0` when the winner is `get_startcolor(gametype)`, Black for English.
//! - Every other variant: `1-0` White wins, `0-1` Black wins, `1/2-1/2`.

use damspel_rules::{Color, Outcome, Variant};

/// How a game ended, whatever the way of writing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win(Color),
    Draw,
    /// Not finished (or not known): `*`.
    Unfinished,
}

impl GameResult {
    /// The result of a game the rules have ended, or `Unfinished`.
    pub fn from_outcome(outcome: Option<&Outcome>) -> GameResult {
        match outcome {
            None => GameResult::Unfinished,
            Some(Outcome::Win { winner, .. }) => GameResult::Win(*winner),
            Some(Outcome::Draw(_)) => GameResult::Draw,
        }
    }

    /// The result given White's score (1, ½ or 0), as match records keep it.
    pub fn from_white_score(score: f64) -> GameResult {
        if score > 0.75 {
            GameResult::Win(Color::White)
        } else if score < 0.25 {
            GameResult::Win(Color::Black)
        } else {
            GameResult::Draw
        }
    }
}

/// A way of writing results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultStyle {
    /// `1-0` White wins, `0-1` Black wins, `1/2-1/2`.
    WhiteFirst,
    /// `2-0` White wins, `0-2` Black wins, `1-1`.
    International,
    /// `1-0` the first player wins, `0-1` the second, `1/2-1/2` (CheckerBoard).
    FirstPlayerFirst,
}

/// The result style of a variant's PDN ecosystem.
pub fn result_style(variant: &Variant) -> ResultStyle {
    match variant.id.as_str() {
        "international" | "brazilian" => ResultStyle::International,
        "american" => ResultStyle::FirstPlayerFirst,
        _ => ResultStyle::WhiteFirst,
    }
}

/// The result as the variant's ecosystem writes it.
pub fn write_result(variant: &Variant, result: GameResult) -> &'static str {
    let first = variant.first_player;
    match (result_style(variant), result) {
        (_, GameResult::Unfinished) => "*",
        (ResultStyle::International, GameResult::Draw) => "1-1",
        (_, GameResult::Draw) => "1/2-1/2",
        (ResultStyle::International, GameResult::Win(Color::White)) => "2-0",
        (ResultStyle::International, GameResult::Win(Color::Black)) => "0-2",
        (ResultStyle::WhiteFirst, GameResult::Win(Color::White)) => "1-0",
        (ResultStyle::WhiteFirst, GameResult::Win(Color::Black)) => "0-1",
        (ResultStyle::FirstPlayerFirst, GameResult::Win(c)) if c == first => "1-0",
        (ResultStyle::FirstPlayerFirst, GameResult::Win(_)) => "0-1",
    }
}

/// Reads a result in the variant's convention. The two-point and one-point forms are both
/// read on every board (`2-0` and `1-0` are a win for the same side) except where the style
/// puts the first player first, where `1-0` is the first player's win as CheckerBoard means it.
/// Results outside these (`4-6`, `1.01-0.99`, ...) are `None`: the caller keeps their text.
pub fn read_result(variant: &Variant, text: &str) -> Option<GameResult> {
    let style = result_style(variant);
    let first = variant.first_player;
    let (one, other) = match style {
        ResultStyle::FirstPlayerFirst => (first, !first),
        _ => (Color::White, Color::Black),
    };
    Some(match text.trim() {
        "*" => GameResult::Unfinished,
        "1/2-1/2" | "1-1" | "½-½" => GameResult::Draw,
        "1-0" | "2-0" => GameResult::Win(one),
        "0-1" | "0-2" => GameResult::Win(other),
        _ => return None,
    })
}
