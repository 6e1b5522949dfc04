//! Pieces: a man or a king of one colour.

use crate::Color;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub king: bool,
}

impl Piece {
    pub const fn man(color: Color) -> Piece {
        Piece { color, king: false }
    }

    pub const fn king(color: Color) -> Piece {
        Piece { color, king: true }
    }

    /// One-letter symbol as in Hub positions: `w`, `W`, `b`, `B`.
    pub fn symbol(self) -> char {
        match (self.color, self.king) {
            (Color::White, false) => 'w',
            (Color::White, true) => 'W',
            (Color::Black, false) => 'b',
            (Color::Black, true) => 'B',
        }
    }
}
