//! Moves. `Move` is the compact form the generator, search and perft use: from, to, the set of
//! captured squares and whether the man is crowned. Two capture sequences with the same from,
//! to, captured set and resulting piece are the same `Move` (the FMJD convention). `MoveDetail`
//! adds the landing path and the capture order, for notation and display.

use crate::bitboard::Bits;
use crate::geometry::Square;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move<B: Bits> {
    pub(crate) from: u8,
    pub(crate) to: u8,
    pub(crate) captured: B,
    pub(crate) promotes: bool,
}

impl<B: Bits> Move<B> {
    pub fn new(from: Square, to: Square, captured: B, promotes: bool) -> Move<B> {
        Move {
            from: from.0,
            to: to.0,
            captured,
            promotes,
        }
    }

    pub fn from(&self) -> Square {
        Square(self.from)
    }

    pub fn to(&self) -> Square {
        Square(self.to)
    }

    /// The captured squares, as a bitboard.
    pub fn captured(&self) -> B {
        self.captured
    }

    pub fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }

    /// Number of pieces captured.
    pub fn capture_count(&self) -> u32 {
        self.captured.count()
    }

    /// Whether the moving man is crowned by this move.
    pub fn promotes(&self) -> bool {
        self.promotes
    }
}

/// A move with its full route.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveDetail<B: Bits> {
    pub mv: Move<B>,
    /// The landing squares in order; the last one is `to`. A quiet move's path is `[to]`.
    pub path: Vec<Square>,
    /// The captured squares in capture order.
    pub captures: Vec<Square>,
}
