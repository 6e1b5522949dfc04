//! The layered walk: the captures of one piece, breadth-first by the set of pieces taken.
//!
//! The merged walk (`capture`) expands each state, a square and the pieces taken, once. A
//! flying king lands on several squares behind each piece, and on a crowded board it comes to
//! one set of pieces taken on several squares: many states share a set (Greek V's worst
//! position: 364,000 states over 89,000 sets; Babylonian C's: 164,000 over 21,000). Here a
//! node is a set of pieces taken with every square the king can stand on having taken them,
//! and the jumps of all those squares are found at once, with shifts along each direction.
//!
//! Every jump takes one piece, so a node is complete once every node with one piece fewer has
//! been expanded: the walk goes layer by layer (the number of pieces taken) and keeps two
//! layers, a table that stays in the caches where the merged walk's grows to tens of
//! megabytes.
//!
//! A node keeps its squares by the direction of the last jump where the 180° rule forbids
//! jumping back, and the squares where a capture ends. The completion rule is kept per jump:
//! when some square behind the piece it takes lets the king go on, it must land on one of
//! those; otherwise every such square ends a capture (or only the first one, under a halt
//! rule). A man's node also says whether it was crowned on the way (where the variant goes
//! on as a king). The walk lists moves; under the majority rule, where a piece's legal captures
//! are few, it keeps its layers and finds a route for each move backwards, node by node (see
//! `Routes`). Sinks that want a count of sequences, or routes without the majority rule, use
//! the merged walk.
//!
//! The same nodes, walked depth first, list the captures of a king that must take all it can
//! reach under immediate removal (`dive`).

use crate::bitboard::Bits;
use crate::movegen::reach::{run, step, value_of};
use crate::movegen::sink::Sink;
use crate::movegen::until::Until;
use crate::position::Position;
use crate::rules::{Rules, NO_SQUARE};
use crate::spec::{HaltRule, PromotionInCapture};

pub(crate) mod dive;
mod routes;
#[cfg(test)]
mod tests;

pub(crate) use dive::{Dive, Dived};
use routes::Routes;

/// The most arrivals one layer may make; a walk that needs more is given back to the merged
/// walk, whose memory is bounded by forgetting. An arrival takes 24 bytes (48 on boards over 64
/// squares) and is written twice, and a node takes up to 11 bitboards: some 250 MB at most on
/// boards of 64 squares.
const MAX_ARRIVALS: usize = 1 << 21;

// Tests set a small cap to see walks given back to the merged walk.
limit_set_by_tests!(fn max_arrivals() -> usize = MAX_ARRIVALS; pub(crate) MAX_ARRIVALS_IN_TESTS);

/// A walk looks at its stop condition and its budget once every this many jumps.
pub(crate) const STOP_CHECK_EVERY: u64 = 1024;

// Tests look every jump, to see walks taken up again many times.
limit_set_by_tests!(fn stop_check_every() -> u64 = STOP_CHECK_EVERY; pub(crate) STOP_CHECK_IN_TESTS);

/// The slot of the squares reached without a jump (the start) where squares are kept by
/// direction: every direction may leave it.
const NO_DIRECTION: usize = 8;

/// The slot of an arrival that ends captures.
const ENDS: u8 = u8::MAX;

/// Arrivals of a layer gathered into nodes with one table: more are first split by their
/// pieces into parts of about this many, each gathered with a table that stays in the caches.
const GATHER_PART: usize = 1 << 11;

/// A node's key: the pieces taken, and `KING` and `LAST_KING` flags.
type Key<B> = (B, u8);

/// The piece captures as a king (it was one, or a man crowned during the capture goes on as
/// one).
const KING: u8 = 1;

/// The last piece taken was a king (kept where halt rule II asks).
const LAST_KING: u8 = 2;

/// The nodes of one layer. A node is a set of pieces taken (with whether the piece is a king
/// now, and whether the last piece taken was one where halt rule II asks), the squares the
/// piece stands on and can jump from having taken them, and the squares where such a capture
/// ends. Where the 180° rule forbids jumping back, the squares are kept by the direction of
/// the jump that brought the king there (and the start apart, which every direction may
/// leave): `slots` sets per node.
struct Layer<B: Bits> {
    keys: Vec<Key<B>>,
    ends: Vec<B>,
    at: Vec<B>,
    slots: usize,
    /// How its nodes were gathered: by parts of `part_bits` bits of a hash of their key, the
    /// nodes of part `p` from `part_starts[p]` on (to find a node by its key).
    part_bits: u32,
    part_starts: Vec<u32>,
}

impl<B: Bits> Layer<B> {
    fn new(slots: usize) -> Self {
        Layer {
            keys: Vec::new(),
            ends: Vec::new(),
            at: Vec::new(),
            slots,
            part_bits: 0,
            part_starts: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.ends.clear();
        self.at.clear();
        self.part_bits = 0;
        self.part_starts.clear();
    }

    /// The memory its nodes take.
    fn bytes(&self) -> usize {
        self.keys.len() * std::mem::size_of::<Key<B>>()
            + (self.ends.len() + self.at.len()) * std::mem::size_of::<B>()
            + self.part_starts.len() * 4
    }

    /// The node of `key`, if any.
    fn find(&self, key: Key<B>) -> Option<usize> {
        let range = if self.part_bits == 0 {
            0..self.keys.len()
        } else {
            let p = (hash(key, PART_SALT) >> (64 - self.part_bits)) as usize;
            self.part_starts[p] as usize..self.part_starts[p + 1] as usize
        };
        range.into_iter().find(|&i| self.keys[i] == key)
    }

    /// Room for `nodes` more (their squares too, where a node keeps one set).
    fn reserve(&mut self, nodes: usize) {
        self.keys.reserve(nodes);
        self.ends.reserve(nodes);
        if self.slots == 1 {
            self.at.reserve(nodes);
        }
    }

    /// A new empty node.
    #[inline(always)]
    fn push(&mut self, key: Key<B>) -> usize {
        self.keys.push(key);
        self.ends.push(B::ZERO);
        self.at.extend(std::iter::repeat_n(B::ZERO, self.slots));
        self.keys.len() - 1
    }

    fn squares(&self, i: usize) -> &[B] {
        &self.at[i * self.slots..(i + 1) * self.slots]
    }
}

/// A jump's landing squares, as they go into a node of the next layer: those the king goes on
/// from (kept in `slot`), or those where captures end (`slot` is `ENDS`).
#[derive(Clone, Copy)]
struct Arrival<B: Bits> {
    key: Key<B>,
    slot: u8,
    squares: B,
}

/// Gathers a layer's arrivals into its nodes. A table of every node of a big layer outgrows
/// the caches, and a lookup that misses them costs more than the rest of a jump; so the
/// arrivals are written down as they come, split by a hash of their pieces, and each part is
/// gathered with a small table.
#[derive(Default)]
struct Gather<B: Bits> {
    arrivals: Vec<Arrival<B>>,
    split: Vec<Arrival<B>>,
    starts: Vec<usize>,
    table: Table<B>,
}

/// A hash of a node's key; `salt` picks one of two independent ones (the parts and the table
/// must not use the same bits).
#[inline(always)]
fn hash<B: Bits>(key: Key<B>, salt: u64) -> u64 {
    let v = key.0.to_u128();
    ((v as u64) ^ ((v >> 64) as u64).rotate_left(29) ^ u64::from(key.1)).wrapping_mul(salt)
}

const PART_SALT: u64 = 0x9E37_79B9_7F4A_7C15;
const TABLE_SALT: u64 = 0xD6E8_FEB8_6659_FD93;

impl<B: Bits> Gather<B> {
    /// Makes `next` of the arrivals written down, and forgets them.
    fn make(&mut self, next: &mut Layer<B>) {
        next.clear();
        let n = self.arrivals.len();
        next.reserve(n);
        if n <= GATHER_PART {
            self.table.gather(&self.arrivals, next);
            self.arrivals.clear();
            return;
        }
        // At least two parts (n is over one part's size).
        let bits = n.div_ceil(GATHER_PART).next_power_of_two().trailing_zeros();
        next.part_bits = bits;
        let part = |a: &Arrival<B>| (hash(a.key, PART_SALT) >> (64 - bits)) as usize;
        let parts = 1usize << bits;
        self.starts.clear();
        self.starts.resize(parts + 1, 0);
        for a in &self.arrivals {
            self.starts[part(a) + 1] += 1;
        }
        for i in 0..parts {
            self.starts[i + 1] += self.starts[i];
        }
        self.split.clear();
        self.split.resize(
            n,
            Arrival {
                key: (B::ZERO, 0),
                slot: 0,
                squares: B::ZERO,
            },
        );
        let mut fill = self.starts.clone();
        for a in &self.arrivals {
            let p = part(a);
            self.split[fill[p]] = *a;
            fill[p] += 1;
        }
        for p in 0..parts {
            next.part_starts.push(next.len() as u32);
            let arrivals = &self.split[self.starts[p]..self.starts[p + 1]];
            self.table.gather(arrivals, next);
        }
        next.part_starts.push(next.len() as u32);
        self.arrivals.clear();
    }
}

/// An open-addressed table from a node's key to its index in the next layer, for one part of
/// a layer's arrivals. A slot is in use only if it carries the part's number, so moving to
/// the next part clears nothing.
#[derive(Default)]
struct Table<B: Bits> {
    slots: Vec<Slot<B>>,
    part: u32,
}

#[derive(Clone, Copy, Default)]
struct Slot<B: Bits> {
    key: Key<B>,
    part: u32,
    node: u32,
}

impl<B: Bits> Table<B> {
    /// Adds the nodes of `arrivals` (no other part shares one) to `next`.
    fn gather(&mut self, arrivals: &[Arrival<B>], next: &mut Layer<B>) {
        // Half full at most.
        let size = (2 * arrivals.len()).next_power_of_two().max(16);
        if self.slots.len() < size || self.part == u32::MAX {
            self.slots.clear();
            self.slots.resize(size, Slot::default());
            self.part = 0;
        }
        self.part += 1;
        let mask = size - 1;
        let shift = 64 - size.trailing_zeros();
        for a in arrivals {
            let mut at = (hash(a.key, TABLE_SALT) >> shift) as usize;
            let i = loop {
                let slot = &mut self.slots[at];
                if slot.part != self.part {
                    let i = next.push(a.key);
                    *slot = Slot {
                        key: a.key,
                        part: self.part,
                        node: i as u32,
                    };
                    break i;
                }
                if slot.key == a.key {
                    break slot.node as usize;
                }
                at = (at + 1) & mask;
            };
            if a.slot == ENDS {
                next.ends[i] |= a.squares;
            } else {
                next.at[i * next.slots + usize::from(a.slot)] |= a.squares;
            }
        }
    }
}

/// What every legal capture of a king takes when it must take all it can reach (see the
/// dives of `capture`): nodes from which none can come are not expanded.
#[derive(Clone)]
pub(crate) struct Aim<B: Bits> {
    /// The pieces every legal capture takes.
    pub needed: B,
    /// The squares where such a capture may end and none listed yet does.
    pub open_ends: B,
    /// The pieces such a capture could take last (to end on an open end), and per such piece,
    /// those it could take just before it.
    pub last: B,
    pub before_last: Vec<B>,
}

impl<B: Bits> Aim<B> {
    /// Whether a capture that took `captured` can still be one of them.
    fn may_come(&self, captured: B) -> bool {
        let needed = self.needed & !captured;
        if needed.is_empty() {
            return true;
        }
        let last = needed & self.last;
        if last.is_empty() {
            return false;
        }
        needed.count() < 2
            || last
                .squares()
                .any(|v| !(self.before_last[v as usize] & needed).is_empty())
    }
}

/// How a layered walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layered {
    /// Every capture was handed to the sink.
    Done,
    /// The caller's stop condition was reached.
    Stopped,
    /// A layer grew past `MAX_ARRIVALS`, or the layers kept for routes past `MAX_KEPT_BYTES`
    /// (without the majority rule, some captures may have been handed to the sink).
    TooBig,
    /// The walk made more jumps than its caller allowed (as for `TooBig`).
    OverBudget,
}

/// Whether the layered walk can serve this sink: it lists moves, with a route each only under
/// the majority rule (without it a piece may have hundreds of thousands of moves, each a walk
/// back through the layers), and counts no sequences.
pub(crate) fn serves<B: Bits, S: Sink<B>>(rules: &Rules<B>) -> bool {
    !S::COUNTS && (!S::ROUTES || rules.majority)
}

/// The most memory the layers kept for routes may take; a walk that needs more is given back
/// to the merged walk (which finds routes as it goes).
const MAX_KEPT_BYTES: usize = 1 << 28;

#[cfg(not(test))]
fn max_kept_bytes() -> usize {
    MAX_KEPT_BYTES
}

// Tests set a small cap to see walks given back to the merged walk.
#[cfg(test)]
thread_local! {
    pub(crate) static MAX_KEPT_BYTES_IN_TESTS: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_KEPT_BYTES) };
}

#[cfg(test)]
fn max_kept_bytes() -> usize {
    MAX_KEPT_BYTES_IN_TESTS.with(|m| m.get())
}

/// The walk of one piece's captures.
struct Walk<'a, B: Bits> {
    rules: &'a Rules<B>,
    aim: Option<Aim<B>>,
    us: usize,
    /// The enemy's kings at the start.
    enemy_kings: B,
    /// What blocks at the start (the piece's own square is free).
    occupied: B,
    /// The pieces it may take.
    capturable: B,
    /// Whether squares are kept by the direction of the last jump (the 180° rule).
    split: bool,
    /// Whether a captured piece leaves the board before the next jump matters to this king.
    immediate: bool,
    /// Whether the last victim's kind is part of a node (halt rule II).
    last_kind: bool,
    /// For a king that makes short leaps over any piece, its neighbours by square.
    short: Option<Short<B>>,
    jumps: u64,
    /// Whether the sink may hold captures of this piece already (an earlier walk of it given
    /// up): every capture is then handed over as one that may equal another.
    dedup: bool,
}

/// Where a king that makes short leaps finds its victims: per square, the squares next to it
/// along its capture directions, and the direction of each step by its layout delta (one
/// delta per direction).
struct Short<B: Bits> {
    around: Vec<B>,
    direction: [u8; 256],
}

impl<B: Bits> Short<B> {
    /// None where some direction takes kings only (the victims are then looked at one by one).
    fn new(rules: &Rules<B>, us: usize) -> Option<Self> {
        let dirs = rules.king_captures[us].as_slice();
        if dirs.iter().any(|&d| rules.kings_only[d as usize]) {
            return None;
        }
        let mut direction = [u8::MAX; 256];
        for &d in dirs {
            direction[rules.delta[d as usize] as u8 as usize] = d;
        }
        let around = rules
            .next
            .iter()
            .map(|next| {
                dirs.iter()
                    .map(|&d| next[d as usize])
                    .filter(|&n| n != NO_SQUARE)
                    .fold(B::ZERO, |acc, n| acc | B::bit(n))
            })
            .collect();
        Some(Short { around, direction })
    }
}

impl<'a, B: Bits> Walk<'a, B> {
    /// The walk of the captures of the piece on `from`.
    fn new(rules: &'a Rules<B>, pos: &Position<B>, from: u8, aim: Option<Aim<B>>) -> Self {
        let us = pos.side.index();
        Walk {
            rules,
            aim,
            us,
            enemy_kings: pos.pieces[us ^ 1] & pos.kings,
            occupied: pos.occupied() ^ B::bit(from),
            capturable: pos.pieces[us ^ 1],
            // With deferred removal or short leaps the way back is over the piece just taken.
            split: rules.no_reversal && rules.removal_changes_captures(),
            immediate: rules.removal_changes_captures(),
            last_kind: rules.halt == HaltRule::SequentialHalt2,
            short: (!rules.king_captures_fly)
                .then(|| Short::new(rules, us))
                .flatten(),
            jumps: 0,
            dedup: false,
        }
    }

    /// The slot of squares reached by a jump along `d` (or none: `NO_DIRECTION`).
    #[inline(always)]
    fn slot(&self, d: usize) -> usize {
        if self.split {
            d
        } else {
            0
        }
    }

    /// Whether a king on `sq` that came along `came` (`NO_DIRECTION` for none) has a jump when
    /// `occupied` blocks and `capturable` may be taken, after its first jump.
    #[inline(always)]
    fn can_jump(&self, sq: u8, came: usize, occupied: B, capturable: B) -> bool {
        let r = self.rules;
        r.king_captures[self.us].as_slice().iter().any(|&d| {
            let d = d as usize;
            !(r.no_reversal && came == d ^ 4) && self.can_jump_along(sq, d, occupied, capturable)
        })
    }

    /// Whether a king on `sq` has a jump along `d` when `occupied` blocks and `capturable` may
    /// be taken, after its first jump.
    #[inline(always)]
    fn can_jump_along(&self, sq: u8, d: usize, occupied: B, capturable: B) -> bool {
        let r = self.rules;
        let Some(targets) = self.later_targets(d, capturable) else {
            return false;
        };
        let Some(victim) = r.king_victim(sq, d, occupied) else {
            return false;
        };
        let behind = r.next[victim as usize][d];
        targets.has(victim) && behind != NO_SQUARE && !occupied.has(behind)
    }

    /// The pieces of `capturable` a king may take along `d` after its first jump, if any.
    #[inline(always)]
    fn later_targets(&self, d: usize, capturable: B) -> Option<B> {
        let r = self.rules;
        if !r.kings_only[d] {
            Some(capturable)
        } else if r.targets_first_jump_only {
            None
        } else {
            Some(capturable & self.enemy_kings)
        }
    }
}

/// Walks the captures of the piece on `from` (a king if `king`), layer by layer, and hands each
/// distinct one to the sink (without a route). Under the majority rule only the most valuable
/// captures of this piece are handed over, once the last layer is walked, and none worth less
/// than `floor`; with an aim, only nodes from which such a capture can come are expanded, and
/// only captures that end on its open ends are handed over. It walks up to about `budget` jumps
/// (looked at every `STOP_CHECK_EVERY`); `jumps` counts the landings walked.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_piece<B: Bits, S: Sink<B>>(
    rules: &Rules<B>,
    pos: &Position<B>,
    from: u8,
    king: bool,
    floor: u32,
    aim: Option<Aim<B>>,
    sink: &mut S,
    stop: Until<'_>,
    budget: u64,
    jumps: &mut u64,
    listed_before: bool,
) -> Layered {
    let mut walk = Walk::new(rules, pos, from, aim);
    walk.dedup = listed_before;
    // Monomorphised by the kind of piece: a king's walk has no man's case to test.
    let outcome = if king {
        walk.run::<S, false>(from, floor, sink, stop, budget)
    } else {
        walk.run::<S, true>(from, floor, sink, stop, budget)
    };
    *jumps += walk.jumps;
    outcome
}

impl<B: Bits> Walk<'_, B> {
    fn run<S: Sink<B>, const MAN: bool>(
        &mut self,
        from: u8,
        floor: u32,
        sink: &mut S,
        stop: Until<'_>,
        budget: u64,
    ) -> Layered {
        let r = self.rules;
        let slots = if self.split { NO_DIRECTION + 1 } else { 1 };
        let mut layer = Layer::new(slots);
        let mut next = Layer::new(slots);
        let mut gather = Gather::default();
        let start = layer.push((B::ZERO, if MAN { 0 } else { KING }));
        layer.at[start * slots + self.slot(NO_DIRECTION)] = B::bit(from);
        // Under the majority rule, the most valuable ends found so far: (pieces and flags,
        // squares, the node's layer and index).
        let mut best = floor;
        let mut kept: Vec<(Key<B>, B, usize, usize)> = Vec::new();
        // The layers walked, where a route is wanted.
        let mut history: Vec<Layer<B>> = Vec::new();
        let mut history_bytes = 0;
        let mut taken = 0u32;
        let mut next_check = stop_check_every();
        while layer.len() > 0 {
            for i in 0..layer.len() {
                let key = layer.keys[i];
                let captured = key.0;
                let mut ends = layer.ends[i];
                if self.aim.as_ref().is_none_or(|aim| aim.may_come(captured)) {
                    ends |= self.expand::<MAN>(key, layer.squares(i), taken, &mut gather.arrivals);
                }
                if let Some(aim) = &self.aim {
                    // A dive before this walk listed the ends no longer open.
                    ends &= aim.open_ends;
                }
                if ends != B::ZERO {
                    if r.majority {
                        let value = value_of(r, captured, self.enemy_kings);
                        if value > best {
                            best = value;
                            kept.clear();
                        }
                        if value == best {
                            kept.push((key, ends, taken as usize, i));
                        }
                    } else {
                        self.hand_over::<S, MAN>(sink, from, key, ends, 0);
                    }
                }
                if self.jumps >= next_check {
                    next_check = self.jumps + stop_check_every();
                    if stop.reached() {
                        return Layered::Stopped;
                    }
                    if self.jumps > budget {
                        return Layered::OverBudget;
                    }
                }
                if gather.arrivals.len() > max_arrivals() {
                    return Layered::TooBig;
                }
            }
            gather.make(&mut next);
            if S::ROUTES {
                history_bytes += layer.bytes();
                if history_bytes > max_kept_bytes() {
                    return Layered::TooBig;
                }
                let next = std::mem::replace(&mut next, Layer::new(slots));
                history.push(std::mem::replace(&mut layer, next));
            } else {
                std::mem::swap(&mut layer, &mut next);
            }
            taken += 1;
        }
        if S::ROUTES {
            // Every route is found before any move is handed over, so that a walk given back
            // to the merged walk has handed over nothing.
            let mut routes = Routes::default();
            let mut found = Vec::new();
            for (key, ends, t, i) in kept {
                if stop.reached() {
                    return Layered::Stopped;
                }
                for to in ends.squares() {
                    if !routes.find::<MAN>(self, &history, from, t, i, to) {
                        // Never expected: every node was reached from the start.
                        return Layered::TooBig;
                    }
                    found.push((key, to, routes.path.clone(), routes.order.clone()));
                }
            }
            for (key, to, path, order) in found {
                let promotes = MAN && (key.1 & KING != 0 || r.promotion[self.us].has(to));
                sink.capture(from, to, key.0, best, promotes, &path, &order, 1);
            }
            return Layered::Done;
        }
        for (key, ends, _, _) in kept {
            self.hand_over::<S, MAN>(sink, from, key, ends, best);
        }
        Layered::Done
    }

    /// Hands the captures of `from` of the node `key` that end on `ends` to the sink. A man's
    /// capture promotes if it ends a king (crowned on the way) or on a promotion square. Each is
    /// new unless nodes are told apart by their last victim's kind (halt rule II).
    fn hand_over<S: Sink<B>, const MAN: bool>(
        &self,
        sink: &mut S,
        from: u8,
        key: Key<B>,
        ends: B,
        value: u32,
    ) {
        let promotion = self.rules.promotion[self.us];
        for to in ends.squares() {
            let promotes = MAN && (key.1 & KING != 0 || promotion.has(to));
            if self.last_kind || self.dedup {
                sink.capture(from, to, key.0, value, promotes, &[], &[], 1);
            } else {
                sink.new_capture(from, to, key.0, value, promotes);
            }
        }
    }

    /// Every jump from the squares of the node `key` (which took `taken` pieces), into the
    /// nodes of the next layer; returns the squares where captures end found on the way (short
    /// leaps).
    #[inline(always)]
    fn expand<const MAN: bool>(
        &mut self,
        key: Key<B>,
        at: &[B],
        taken: u32,
        next: &mut Vec<Arrival<B>>,
    ) -> B {
        let (captured, flags) = key;
        let occupied = if self.immediate {
            self.occupied & !captured
        } else {
            self.occupied
        };
        let capturable = self.capturable & !captured;
        let node = Node {
            captured,
            flags,
            taken,
            occupied,
            capturable,
        };
        if MAN && flags & KING == 0 {
            let squares = at.iter().fold(B::ZERO, |acc, &s| acc | s);
            self.expand_man(&node, squares, next)
        } else if self.rules.king_captures_fly {
            self.expand_flying(&node, at, next);
            B::ZERO
        } else {
            self.expand_short(&node, at.iter().fold(B::ZERO, |acc, &s| acc | s), next)
        }
    }

    /// The jumps of a man, square by square (a short leap along its capture directions). On a
    /// promotion square the capture ends, or goes on as a king, or as a man, as the variant
    /// says; elsewhere a square is the end of a capture exactly when it has no jump, which its
    /// own expansion finds. Returns those squares.
    #[inline(never)]
    fn expand_man(&mut self, node: &Node<B>, at: B, next: &mut Vec<Arrival<B>>) -> B {
        let r = self.rules;
        let dirs = if node.taken == 0 {
            r.man_capture_first[self.us]
        } else {
            r.man_capture_later[self.us]
        };
        let mut ends = B::ZERO;
        for sq in at.squares() {
            let mut found = false;
            for &d in dirs.as_slice() {
                let d = d as usize;
                let Some((victim, landing)) =
                    self.short_leap(sq, d, node.capturable, node.occupied)
                else {
                    continue;
                };
                self.jumps += 1;
                found = true;
                let key = self.key(node, victim);
                let square = B::bit(landing);
                if !r.promotion[self.us].has(landing) {
                    next.push(Arrival {
                        key,
                        slot: self.slot(NO_DIRECTION) as u8,
                        squares: square,
                    });
                    continue;
                }
                match r.promotion_mode {
                    PromotionInCapture::Stop => next.push(Arrival {
                        key,
                        slot: ENDS,
                        squares: square,
                    }),
                    PromotionInCapture::ContinueAsMan => next.push(Arrival {
                        key,
                        slot: self.slot(NO_DIRECTION) as u8,
                        squares: square,
                    }),
                    PromotionInCapture::PromoteAndContinue => {
                        let key = (key.0, key.1 | KING);
                        // A short king's square ends the capture when it has no jump, which
                        // its expansion finds; a flying king's ends are decided per jump.
                        let going_on = !r.king_captures_fly || {
                            let bit = B::bit(victim);
                            let occupied = if self.immediate {
                                node.occupied & !bit
                            } else {
                                node.occupied
                            };
                            self.can_jump(landing, d, occupied, node.capturable & !bit)
                        };
                        next.push(Arrival {
                            key,
                            slot: if going_on { self.slot(d) as u8 } else { ENDS },
                            squares: square,
                        });
                    }
                }
            }
            if !found && node.taken > 0 {
                ends |= B::bit(sq);
            }
        }
        ends
    }

    /// The jumps of a flying king, found along each direction for all the node's squares at
    /// once.
    #[inline(always)]
    fn expand_flying(&mut self, node: &Node<B>, at: &[B], next: &mut Vec<Arrival<B>>) {
        let r = self.rules;
        let empty = r.squares & !node.occupied;
        // The squares kept in one slot and in two or more (by direction, a square reached one
        // way only may not turn back).
        let (once, twice) = at.iter().fold((B::ZERO, B::ZERO), |(once, twice), &s| {
            (once | s, twice | (once & s))
        });
        if once.is_empty() {
            return;
        }
        let dirs = r.king_captures[self.us].as_slice();
        // Per direction, the squares from which a king goes on that way after a jump: the
        // first piece it meets may be taken and has a free square behind it. The landings of
        // a jump along `d` lie on the line of the piece it takes, which no other direction's
        // line from them crosses: for them these hold as they are, but back along `d`. Found
        // for all squares at once, they pay where a jump has several landings; a king that
        // lands right behind its victim has about two landings a node, each looked at alone.
        let fills = !r.landing_adjacent;
        let mut onward = [B::ZERO; 8];
        for &e in dirs.iter().filter(|_| fills) {
            let e = e as usize;
            if let Some(targets) = self.later_targets(e, node.capturable) {
                let victims = targets & step(r, empty, e ^ 4);
                onward[e] = run(r, victims, empty, e ^ 4);
            }
        }
        for &d in dirs {
            let d = d as usize;
            let Some(targets) = self.targets(d, node) else {
                continue;
            };
            let sources = if self.split {
                twice | (once & !at[d ^ 4])
            } else {
                once
            };
            // The first piece along `d` from each source, when it can be taken and the square
            // behind it is free.
            let passed = sources | run(r, sources, empty, d);
            let victims = step(r, passed, d) & targets & step(r, empty, d ^ 4);
            if victims.is_empty() {
                continue;
            }
            let ahead = dirs
                .iter()
                .filter(|&&e| usize::from(e) != d ^ 4)
                .fold(B::ZERO, |acc, &e| acc | onward[e as usize]);
            // Back along `d` the 180° rule forbids going on, and under deferred removal the
            // piece just taken blocks the line; otherwise the line runs on over its square, the
            // same from every landing.
            let back = !r.no_reversal && self.immediate;
            for victim in victims.squares() {
                let bit = B::bit(victim);
                let occupied = if self.immediate {
                    node.occupied & !bit
                } else {
                    node.occupied
                };
                let landings = if r.landing_adjacent {
                    B::bit(r.next[victim as usize][d])
                } else {
                    r.slide(victim, d, occupied)
                };
                self.jumps += u64::from(landings.count());
                let capturable = node.capturable & !bit;
                let going_on = if fills {
                    let ahead = landings & ahead;
                    if back
                        && ahead != landings
                        && self.can_jump_along(victim, d ^ 4, occupied, capturable)
                    {
                        landings
                    } else {
                        ahead
                    }
                } else {
                    landings
                        .squares()
                        .filter(|&l| self.can_jump(l, d, occupied, capturable))
                        .fold(B::ZERO, |acc, l| acc | B::bit(l))
                };
                self.arrive(node, victim, d, landings, going_on, next);
            }
        }
    }

    /// The jumps of a king that makes short leaps, square by square: a node holds one square
    /// or few (the pieces a trail takes fix where it ends). A short leap lands on one square,
    /// where the capture goes on if it can: so each square of a node is the end of a capture
    /// exactly when it has no jump, which its own expansion finds. Returns those squares.
    #[inline(always)]
    fn expand_short(&mut self, node: &Node<B>, at: B, next: &mut Vec<Arrival<B>>) -> B {
        let r = self.rules;
        let mut ends = B::ZERO;
        if let Some(short) = &self.short {
            for sq in at.squares() {
                let mut found = false;
                for victim in (short.around[sq as usize] & node.capturable).squares() {
                    let delta = (i16::from(victim) - i16::from(sq)) as u8;
                    let d = short.direction[delta as usize] as usize;
                    let landing = r.next[victim as usize][d];
                    if landing == NO_SQUARE || node.occupied.has(landing) {
                        continue;
                    }
                    self.jumps += 1;
                    found = true;
                    next.push(Arrival {
                        key: self.key(node, victim),
                        slot: 0,
                        squares: B::bit(landing),
                    });
                }
                if !found && node.taken > 0 {
                    ends |= B::bit(sq);
                }
            }
            return ends;
        }
        for sq in at.squares() {
            let mut found = false;
            for &d in r.king_captures[self.us].as_slice() {
                let d = d as usize;
                let Some(targets) = self.targets(d, node) else {
                    continue;
                };
                let Some((victim, landing)) = self.short_leap(sq, d, targets, node.occupied) else {
                    continue;
                };
                self.jumps += 1;
                found = true;
                next.push(Arrival {
                    key: self.key(node, victim),
                    slot: 0,
                    squares: B::bit(landing),
                });
            }
            if !found && node.taken > 0 {
                ends |= B::bit(sq);
            }
        }
        ends
    }

    /// A short leap from `sq` along `d` over a piece of `targets` onto a square free in
    /// `occupied`: (the piece, the landing).
    #[inline(always)]
    fn short_leap(&self, sq: u8, d: usize, targets: B, occupied: B) -> Option<(u8, u8)> {
        let r = self.rules;
        let victim = r.next[sq as usize][d];
        if victim == NO_SQUARE || !targets.has(victim) {
            return None;
        }
        let landing = r.next[victim as usize][d];
        (landing != NO_SQUARE && !occupied.has(landing)).then_some((victim, landing))
    }

    /// The key of the node a jump from `node` over `victim` arrives at (the piece still a man
    /// or a king: the caller crowns it).
    #[inline(always)]
    fn key(&self, node: &Node<B>, victim: u8) -> Key<B> {
        let last_king = self.last_kind && self.enemy_kings.has(victim);
        (
            node.captured | B::bit(victim),
            (node.flags & KING) | if last_king { LAST_KING } else { 0 },
        )
    }

    /// The pieces a king of `node` may take along `d`, if any way.
    #[inline(always)]
    fn targets(&self, d: usize, node: &Node<B>) -> Option<B> {
        if node.taken > 0 {
            return self.later_targets(d, node.capturable);
        }
        Some(if self.rules.kings_only[d] {
            node.capturable & self.enemy_kings
        } else {
            node.capturable
        })
    }

    /// The jump over `victim` along `d` from `node`, landing on `landings`, going on from
    /// `going_on` of them: into the next layer.
    #[inline(always)]
    fn arrive(
        &self,
        node: &Node<B>,
        victim: u8,
        d: usize,
        landings: B,
        going_on: B,
        next: &mut Vec<Arrival<B>>,
    ) {
        let r = self.rules;
        let victim_is_king = self.enemy_kings.has(victim);
        let key = self.key(node, victim);
        if !going_on.is_empty() {
            next.push(Arrival {
                key,
                slot: self.slot(d) as u8,
                squares: going_on,
            });
            return;
        }
        // The capture ends with this jump; a halt rule may pin it behind the victim.
        let jumps = node.taken + 1;
        let halt = match r.halt {
            HaltRule::None => false,
            HaltRule::Killer => victim_is_king,
            HaltRule::SequentialKiller => jumps >= 2 && victim_is_king,
            HaltRule::SequentialHalt => jumps >= 2,
            HaltRule::SequentialHalt2 => {
                jumps >= 2 && victim_is_king && node.flags & LAST_KING != 0
            }
        };
        next.push(Arrival {
            key,
            slot: ENDS,
            squares: if halt && r.king_captures_fly {
                B::bit(r.next[victim as usize][d])
            } else {
                landings
            },
        });
    }
}

/// A node being expanded: the pieces it took (and its flags), how many, and the board then.
struct Node<B: Bits> {
    captured: B,
    flags: u8,
    taken: u32,
    occupied: B,
    capturable: B,
}
