//! Where generated moves go. The generator is generic over the sink, so counting, compact lists
//! and detailed lists share one implementation of the rules. Sinks apply the majority rule: a
//! sequence of higher value discards those of lower value (`value` is 0 under free choice).

use crate::bitboard::Bits;
use crate::geometry::Square;
use crate::mv::{Move, MoveDetail};

pub(crate) trait Sink<B: Bits> {
    /// A complete capture sequence: landing path and victims in capture order.
    #[allow(clippy::too_many_arguments)]
    fn capture(
        &mut self,
        from: u8,
        to: u8,
        captured: B,
        value: u32,
        promotes: bool,
        path: &[u8],
        order: &[u8],
    );

    fn quiet(&mut self, from: u8, to: u8, promotes: bool);
}

/// Whether capture sequences that make the same move are merged or counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Duplicates {
    /// Same from, to, captured set and resulting piece: one move (FMJD; perft "dedup").
    Merge,
    /// Every capture sequence is its own move (perft "paths", kish and dctl keep-duplicates).
    Keep,
}

/// Counts sequences (the "paths" convention).
#[derive(Default)]
pub(crate) struct CountSink {
    pub best: u32,
    pub count: u64,
}

impl<B: Bits> Sink<B> for CountSink {
    #[inline(always)]
    fn capture(&mut self, _: u8, _: u8, _: B, value: u32, _: bool, _: &[u8], _: &[u8]) {
        if value > self.best {
            self.best = value;
            self.count = 0;
        }
        if value == self.best {
            self.count += 1;
        }
    }

    #[inline(always)]
    fn quiet(&mut self, _: u8, _: u8, _: bool) {
        self.count += 1;
    }
}

/// Collects compact moves.
pub(crate) struct ListSink<'a, B: Bits> {
    pub list: &'a mut Vec<Move<B>>,
    pub best: u32,
    pub merge: bool,
}

impl<B: Bits> Sink<B> for ListSink<'_, B> {
    #[inline(always)]
    fn capture(
        &mut self,
        from: u8,
        to: u8,
        captured: B,
        value: u32,
        promotes: bool,
        _: &[u8],
        _: &[u8],
    ) {
        if value > self.best {
            self.best = value;
            self.list.clear();
        }
        if value < self.best {
            return;
        }
        let mv = Move {
            from,
            to,
            captured,
            promotes,
        };
        if self.merge && self.list.contains(&mv) {
            return;
        }
        self.list.push(mv);
    }

    #[inline(always)]
    fn quiet(&mut self, from: u8, to: u8, promotes: bool) {
        self.list.push(Move {
            from,
            to,
            captured: B::ZERO,
            promotes,
        });
    }
}

/// Collects moves with their routes.
pub(crate) struct DetailSink<B: Bits> {
    pub list: Vec<MoveDetail<B>>,
    pub best: u32,
    pub merge: bool,
}

impl<B: Bits> Sink<B> for DetailSink<B> {
    fn capture(
        &mut self,
        from: u8,
        to: u8,
        captured: B,
        value: u32,
        promotes: bool,
        path: &[u8],
        order: &[u8],
    ) {
        if value > self.best {
            self.best = value;
            self.list.clear();
        }
        if value < self.best {
            return;
        }
        let mv = Move {
            from,
            to,
            captured,
            promotes,
        };
        if self.merge && self.list.iter().any(|d| d.mv == mv) {
            return;
        }
        self.list.push(MoveDetail {
            mv,
            path: path.iter().map(|&s| Square(s)).collect(),
            captures: order.iter().map(|&s| Square(s)).collect(),
        });
    }

    fn quiet(&mut self, from: u8, to: u8, promotes: bool) {
        self.list.push(MoveDetail {
            mv: Move {
                from,
                to,
                captured: B::ZERO,
                promotes,
            },
            path: vec![Square(to)],
            captures: Vec::new(),
        });
    }
}
