//! `Position<B>`: a checked position. Copy-make: `play` returns the successor, with its Zobrist
//! hash updated incrementally.

use crate::bitboard::Bits;
use crate::geometry::Square;
use crate::mv::Move;
use crate::rules::Rules;
use crate::setup::{PositionError, Setup, SetupIssue};
use crate::zobrist::{piece_key, side_key};
use crate::{Color, Piece};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position<B: Bits> {
    pub(crate) pieces: [B; 2],
    pub(crate) kings: B,
    pub(crate) side: Color,
    pub(crate) hash: u64,
}

impl<B: Bits> Position<B> {
    /// The variant's start position.
    pub fn start(rules: &Rules<B>) -> Position<B> {
        let v = rules.variant();
        let mut pos = Position {
            pieces: [B::from_u128(v.setup[0]), B::from_u128(v.setup[1])],
            kings: B::ZERO,
            side: v.first_player,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        pos
    }

    /// Checks a setup against the variant, listing every problem.
    pub fn from_setup(rules: &Rules<B>, setup: &Setup) -> Result<Position<B>, PositionError> {
        let g = &rules.variant().geometry;
        let mut issues = Vec::new();
        let mut pos = Position {
            pieces: [B::ZERO; 2],
            kings: B::ZERO,
            side: setup.side_to_move.unwrap_or(Color::White),
            hash: 0,
        };
        if setup.side_to_move.is_none() {
            issues.push(SetupIssue::UnknownSideToMove);
        }
        for &(sq, piece) in &setup.pieces {
            if !g.contains(sq) {
                issues.push(SetupIssue::NotOnBoard(sq));
                continue;
            }
            let bit = B::bit(sq.0);
            if !((pos.pieces[0] | pos.pieces[1]) & bit).is_empty() {
                issues.push(SetupIssue::Occupied { square: g.name(sq) });
                continue;
            }
            if !piece.king && rules.promotion[piece.color.index()].has(sq.0) {
                issues.push(SetupIssue::ManOnPromotionSquare {
                    square: g.name(sq),
                    color: piece.color,
                });
            }
            pos.pieces[piece.color.index()] |= bit;
            if piece.king {
                pos.kings |= bit;
            }
        }
        if !issues.is_empty() {
            return Err(PositionError { issues });
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The position as an unchecked setup.
    pub fn to_setup(&self) -> Setup {
        let mut pieces = Vec::new();
        for color in Color::BOTH {
            for sq in self.pieces[color.index()].squares() {
                pieces.push((
                    Square(sq),
                    Piece {
                        color,
                        king: self.kings.has(sq),
                    },
                ));
            }
        }
        Setup {
            side_to_move: Some(self.side),
            pieces,
        }
    }

    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The Zobrist hash (pieces and side to move).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn pieces(&self, color: Color) -> B {
        self.pieces[color.index()]
    }

    pub fn men(&self, color: Color) -> B {
        self.pieces[color.index()] & !self.kings
    }

    pub fn kings(&self, color: Color) -> B {
        self.pieces[color.index()] & self.kings
    }

    pub fn occupied(&self) -> B {
        self.pieces[0] | self.pieces[1]
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.pieces[0].has(sq.0) {
            Color::White
        } else if self.pieces[1].has(sq.0) {
            Color::Black
        } else {
            return None;
        };
        Some(Piece {
            color,
            king: self.kings.has(sq.0),
        })
    }

    /// The same pieces with the other side to move.
    pub fn with_side_to_move(&self, side: Color) -> Position<B> {
        let mut pos = *self;
        pos.hash ^= side_key(pos.side) ^ side_key(side);
        pos.side = side;
        pos
    }

    /// The hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut hash = side_key(self.side);
        for color in Color::BOTH {
            for sq in self.pieces[color.index()].squares() {
                hash ^= piece_key(
                    sq,
                    Piece {
                        color,
                        king: self.kings.has(sq),
                    },
                );
            }
        }
        hash
    }

    /// The position after a move of the side to move. The move must be legal here.
    #[inline]
    pub fn play(&self, mv: &Move<B>) -> Position<B> {
        let us = self.side;
        let them = !us;
        let mut pos = *self;
        let mut hash = self.hash ^ side_key(us) ^ side_key(them);
        // Captured pieces go first: with immediate removal the mover may end on a captured square.
        if !mv.captured.is_empty() {
            let captured_kings = mv.captured & self.kings;
            for sq in mv.captured.squares() {
                hash ^= piece_key(
                    sq,
                    Piece {
                        color: them,
                        king: captured_kings.has(sq),
                    },
                );
            }
            pos.pieces[them.index()] &= !mv.captured;
            pos.kings &= !mv.captured;
        }
        let from = B::bit(mv.from);
        let to = B::bit(mv.to);
        let was_king = self.kings.has(mv.from);
        let is_king = was_king || mv.promotes;
        hash ^= piece_key(
            mv.from,
            Piece {
                color: us,
                king: was_king,
            },
        );
        hash ^= piece_key(
            mv.to,
            Piece {
                color: us,
                king: is_king,
            },
        );
        pos.pieces[us.index()] = (pos.pieces[us.index()] & !from) | to;
        pos.kings &= !from;
        if is_king {
            pos.kings |= to;
        }
        pos.side = them;
        pos.hash = hash;
        pos
    }
}
