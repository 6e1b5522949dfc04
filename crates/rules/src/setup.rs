//! `Setup`: a position as read from text, not yet checked. `Position::from_setup` checks it
//! against a variant and lists every problem it finds.

use std::fmt;

use crate::geometry::Square;
use crate::{Color, Piece};

/// An unchecked position: the side to move and the pieces on their squares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    pub side_to_move: Option<Color>,
    pub pieces: Vec<(Square, Piece)>,
}

/// One thing wrong with a setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupIssue {
    /// The square is not a square of the variant's board.
    NotOnBoard(Square),
    /// Two pieces are given on one square.
    Occupied { square: String },
    /// A man stands on one of its own promotion squares, where it would have been crowned.
    ManOnPromotionSquare { square: String, color: Color },
    /// The side to move is unknown (`?`).
    UnknownSideToMove,
}

impl fmt::Display for SetupIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupIssue::NotOnBoard(sq) => write!(f, "square index {} is not on the board", sq.0),
            SetupIssue::Occupied { square } => write!(f, "square {square} is given twice"),
            SetupIssue::ManOnPromotionSquare { square, color } => write!(
                f,
                "a {color} man stands on {square}, one of its promotion squares (it would be a king)"
            ),
            SetupIssue::UnknownSideToMove => f.write_str("the side to move is unknown"),
        }
    }
}

/// Every problem found in a setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    pub issues: Vec<SetupIssue>,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A pasted list can repeat one mistake thousands of times: say each distinct one once
        // (there are at most a few per square of the board).
        let mut parts: Vec<String> = Vec::new();
        for issue in &self.issues {
            let text = issue.to_string();
            if !parts.contains(&text) {
                parts.push(text);
            }
        }
        write!(f, "illegal position: {}", parts.join("; "))
    }
}

impl std::error::Error for PositionError {}
