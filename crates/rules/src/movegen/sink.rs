//! Where generated moves go. The generator is generic over the sink, so counting, compact lists
//! and detailed lists share one implementation of the rules. Sinks apply the majority rule: a
//! sequence of higher value discards those of lower value (`value` is 0 under free choice).

use rustc_hash::FxHashMap;

use crate::bitboard::Bits;
use crate::geometry::Square;
use crate::movegen::memo::Counts;
use crate::mv::{Move, MoveDetail};

pub(crate) trait Sink<B: Bits> {
    /// Whether the sink counts sequences. A merged walk then hands it, for a state reached again,
    /// every outcome of that state with its number of sequences (and no route); a sink that does
    /// not count only ever sees each move's first route.
    const COUNTS: bool;

    /// Whether the sink keeps a route of each capture (`path` and `order`): the layered walk,
    /// which finds moves without one, cannot serve it.
    const ROUTES: bool = false;

    /// What a merged walk must remember of each state for this sink.
    const REMEMBERS: Counts = if Self::COUNTS {
        Counts::PerMove
    } else {
        Counts::Nothing
    };

    /// `sequences` capture sequences with these ends and victims; `path` (landings) and `order`
    /// (victims in capture order) give one of them, or are empty when the walk reuses a state.
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
        sequences: u64,
    );

    /// A capture that no capture handed over before can equal (the layered walk lists each
    /// move once, with no route): a sink that merges moves need not look for it.
    #[inline(always)]
    fn new_capture(&mut self, from: u8, to: u8, captured: B, value: u32, promotes: bool) {
        self.capture(from, to, captured, value, promotes, &[], &[], 1);
    }

    fn quiet(&mut self, from: u8, to: u8, promotes: bool);

    /// The value below which the sink discards a capture (the majority rule's best so far).
    fn floor(&self) -> u32;

    /// Forgets everything received (the walk starts again).
    fn reset(&mut self);

    /// Where the list of captures stands, for `order_since`: its length and value.
    #[inline(always)]
    fn mark(&self) -> (usize, u32) {
        (0, 0)
    }

    /// Puts the captures received since `mark` (all of them if a more valuable capture came
    /// since) in the order of their pieces taken, then their end: the walks of one piece's big
    /// captures (layered for lists of moves, merged for lists with routes or counts) find them
    /// in different orders, and every list of the legal moves must have the same order.
    #[inline(always)]
    fn order_since(&mut self, _mark: (usize, u32)) {}

    /// Whether the sink needs nothing more (the walk may stop).
    #[inline(always)]
    fn satisfied(&self) -> bool {
        false
    }
}

/// Whether capture sequences that make the same move are merged or counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Duplicates {
    /// Same from, to, captured set and resulting piece: one move (FMJD; perft "dedup").
    Merge,
    /// Every capture sequence is its own move (perft "paths", kish and dctl keep-duplicates).
    Keep,
}

/// Where the captures received since `mark` start in a list whose value is now `best`: a
/// more valuable capture emptied the list.
fn since(mark: (usize, u32), best: u32) -> usize {
    if best == mark.1 {
        mark.0
    } else {
        0
    }
}

/// The order of `order_since`: one piece's moves (the same `from`) by the pieces they take,
/// then their end (which decides whether a man's capture promotes).
#[inline(always)]
fn order<B: Bits>(a: &Move<B>, b: &Move<B>) -> std::cmp::Ordering {
    a.captured.cmp(&b.captured).then(a.to.cmp(&b.to))
}

/// Where each distinct move listed so far is: found by a scan while there are few, by a hash map
/// once there are many (a king among many pieces can have tens of thousands of distinct
/// captures, and a scan per capture would make listing them quadratic).
#[derive(Default)]
pub(crate) struct Listed<B: Bits> {
    at: FxHashMap<Move<B>, u32>,
    /// How many of the listed moves are in `at`.
    indexed: usize,
}

impl<B: Bits> Listed<B> {
    const SCAN: usize = 32;

    pub fn clear(&mut self) {
        self.at.clear();
        self.indexed = 0;
    }

    /// Where `mv` is among the `len` moves listed so far (`nth(i)` is the i-th), if it is.
    #[inline(always)]
    pub fn find(
        &mut self,
        len: usize,
        nth: impl Fn(usize) -> Move<B>,
        mv: &Move<B>,
    ) -> Option<usize> {
        if len <= Self::SCAN {
            return (0..len).find(|&i| nth(i) == *mv);
        }
        for i in self.indexed..len {
            self.at.entry(nth(i)).or_insert(i as u32);
        }
        self.indexed = len;
        self.at.get(mv).map(|&i| i as usize)
    }
}

/// Counts sequences (the "paths" convention).
#[derive(Default)]
pub(crate) struct CountSink {
    pub best: u32,
    pub count: u64,
}

impl<B: Bits> Sink<B> for CountSink {
    const COUNTS: bool = true;
    const REMEMBERS: Counts = Counts::Total;

    fn reset(&mut self) {
        *self = CountSink::default();
    }

    #[inline(always)]
    fn floor(&self) -> u32 {
        self.best
    }

    #[inline(always)]
    fn capture(&mut self, _: u8, _: u8, _: B, value: u32, _: bool, _: &[u8], _: &[u8], n: u64) {
        if value > self.best {
            self.best = value;
            self.count = 0;
        }
        if value == self.best {
            self.count = self.count.saturating_add(n);
        }
    }

    #[inline(always)]
    fn quiet(&mut self, _: u8, _: u8, _: bool) {
        self.count += 1;
    }
}

/// Collects compact moves: each distinct move once (`merge`), or once per sequence.
pub(crate) struct ListSink<'a, B: Bits> {
    pub list: &'a mut Vec<Move<B>>,
    pub best: u32,
    pub merge: bool,
    pub listed: Listed<B>,
}

impl<'a, B: Bits> ListSink<'a, B> {
    /// A sink that lists into `list`, each distinct move once if `merge`.
    pub fn new(list: &'a mut Vec<Move<B>>, merge: bool) -> Self {
        ListSink {
            list,
            best: 0,
            merge,
            listed: Listed::default(),
        }
    }
}

impl<B: Bits> Sink<B> for ListSink<'_, B> {
    const COUNTS: bool = false;

    fn reset(&mut self) {
        self.list.clear();
        self.listed.clear();
        self.best = 0;
    }

    fn mark(&self) -> (usize, u32) {
        (self.list.len(), self.best)
    }

    fn order_since(&mut self, mark: (usize, u32)) {
        let start = since(mark, self.best);
        self.list[start..].sort_unstable_by(order);
        self.listed.clear();
    }

    #[inline(always)]
    fn floor(&self) -> u32 {
        self.best
    }

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
        _: u64,
    ) {
        if value > self.best {
            self.best = value;
            self.list.clear();
            self.listed.clear();
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
        if self.merge {
            let list = &*self.list;
            if self.listed.find(list.len(), |i| list[i], &mv).is_some() {
                return;
            }
        }
        self.list.push(mv);
    }

    #[inline(always)]
    fn new_capture(&mut self, from: u8, to: u8, captured: B, value: u32, promotes: bool) {
        if value > self.best {
            self.best = value;
            self.list.clear();
            self.listed.clear();
        }
        if value == self.best {
            // `listed` indexes it when it next looks for a move.
            self.list.push(Move {
                from,
                to,
                captured,
                promotes,
            });
        }
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

/// Counts distinct moves without allocating for the usual few (perft's last ply).
pub(crate) struct DistinctCountSink<B: Bits> {
    first: [Move<B>; 32],
    len: usize,
    more: Vec<Move<B>>,
    listed: Listed<B>,
    pub best: u32,
}

impl<B: Bits> DistinctCountSink<B> {
    pub fn new() -> Self {
        let none = Move {
            from: 0,
            to: 0,
            captured: B::ZERO,
            promotes: false,
        };
        DistinctCountSink {
            first: [none; 32],
            len: 0,
            more: Vec::new(),
            listed: Listed::default(),
            best: 0,
        }
    }

    pub fn count(&self) -> u64 {
        (self.len + self.more.len()) as u64
    }

    #[inline(always)]
    fn push(&mut self, mv: Move<B>) {
        if self.len < self.first.len() {
            self.first[self.len] = mv;
            self.len += 1;
        } else {
            self.more.push(mv);
        }
    }
}

impl<B: Bits> Sink<B> for DistinctCountSink<B> {
    const COUNTS: bool = false;

    fn reset(&mut self) {
        self.len = 0;
        self.more.clear();
        self.listed.clear();
        self.best = 0;
    }

    #[inline(always)]
    fn floor(&self) -> u32 {
        self.best
    }

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
        _: u64,
    ) {
        if value > self.best {
            self.reset();
            self.best = value;
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
        let (first, more) = (&self.first, &self.more);
        let nth = |i: usize| {
            if i < first.len() {
                first[i]
            } else {
                more[i - first.len()]
            }
        };
        if self.listed.find(self.len + more.len(), nth, &mv).is_some() {
            return;
        }
        self.push(mv);
    }

    #[inline(always)]
    fn new_capture(&mut self, from: u8, to: u8, captured: B, value: u32, promotes: bool) {
        if value > self.best {
            self.reset();
            self.best = value;
        }
        if value == self.best {
            self.push(Move {
                from,
                to,
                captured,
                promotes,
            });
        }
    }

    #[inline(always)]
    fn quiet(&mut self, _: u8, _: u8, _: bool) {
        unreachable!("only captures are counted this way")
    }
}

/// Collects each distinct move with its number of capture sequences.
pub(crate) struct CountedSink<'a, B: Bits> {
    pub list: &'a mut Vec<(Move<B>, u64)>,
    pub best: u32,
    pub listed: Listed<B>,
}

impl<B: Bits> Sink<B> for CountedSink<'_, B> {
    const COUNTS: bool = true;

    fn reset(&mut self) {
        self.list.clear();
        self.listed.clear();
        self.best = 0;
    }

    #[inline(always)]
    fn floor(&self) -> u32 {
        self.best
    }

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
        sequences: u64,
    ) {
        if value > self.best {
            self.best = value;
            self.list.clear();
            self.listed.clear();
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
        let list = &*self.list;
        match self.listed.find(list.len(), |i| list[i].0, &mv) {
            Some(i) => self.list[i].1 = self.list[i].1.saturating_add(sequences),
            None => self.list.push((mv, sequences)),
        }
    }

    #[inline(always)]
    fn quiet(&mut self, from: u8, to: u8, promotes: bool) {
        let mv = Move {
            from,
            to,
            captured: B::ZERO,
            promotes,
        };
        self.list.push((mv, 1));
    }
}

/// Collects moves with their routes.
pub(crate) struct DetailSink<B: Bits> {
    pub list: Vec<MoveDetail<B>>,
    pub best: u32,
    pub merge: bool,
    pub listed: Listed<B>,
}

impl<B: Bits> Sink<B> for DetailSink<B> {
    const COUNTS: bool = false;
    const ROUTES: bool = true;

    fn reset(&mut self) {
        self.list.clear();
        self.listed.clear();
        self.best = 0;
    }

    fn mark(&self) -> (usize, u32) {
        (self.list.len(), self.best)
    }

    fn order_since(&mut self, mark: (usize, u32)) {
        let start = since(mark, self.best);
        self.list[start..].sort_by(|a, b| order(&a.mv, &b.mv));
        self.listed.clear();
    }

    #[inline(always)]
    fn floor(&self) -> u32 {
        self.best
    }

    fn capture(
        &mut self,
        from: u8,
        to: u8,
        captured: B,
        value: u32,
        promotes: bool,
        path: &[u8],
        order: &[u8],
        _: u64,
    ) {
        if value > self.best {
            self.best = value;
            self.list.clear();
            self.listed.clear();
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
        if self.merge {
            let list = &self.list;
            if self.listed.find(list.len(), |i| list[i].mv, &mv).is_some() {
                return;
            }
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

/// Finds the most valuable capture (the majority rule's maximum), and stops the walk once it
/// reaches `ceiling`, a value nothing can exceed.
pub(crate) struct MaxSink {
    pub best: u32,
    pub ceiling: u32,
}

impl<B: Bits> Sink<B> for MaxSink {
    const COUNTS: bool = false;

    fn reset(&mut self) {
        self.best = 0;
    }

    #[inline(always)]
    fn floor(&self) -> u32 {
        self.best + 1
    }

    #[inline(always)]
    fn satisfied(&self) -> bool {
        self.best >= self.ceiling
    }

    #[inline(always)]
    fn capture(&mut self, _: u8, _: u8, _: B, value: u32, _: bool, _: &[u8], _: &[u8], _: u64) {
        self.best = self.best.max(value);
    }

    fn quiet(&mut self, _: u8, _: u8, _: bool) {}
}
