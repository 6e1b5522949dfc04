//! The dive: a king's captures that must take every piece of a set (`Aim`), depth-first over
//! the layered walk's nodes.
//!
//! The targeted merged walk (`capture`) finds such captures depth first, but pays for each
//! square a king stands on (a table of states); the layered walk pays per node, a set of
//! pieces taken with every square the king stands on having taken them, but has no capture
//! before it has walked every layer. The dive goes depth first like the one and expands squares
//! together like the other: it expands the squares a jump lands on at once, along every
//! direction, and remembers per node (and per slot, where the 180° rule keeps them apart) the
//! squares it has expanded, so that a node reached again is expanded only from squares new to
//! it. Its work is bounded by the merged walk's states, and like the layered walk it expands
//! only nodes from which a capture of the whole set can still end on an open end.
//!
//! A capture that takes the whole set is legal: every landing but the last has a jump, so the
//! completion rule holds, and after the last nothing within reach is left. Where the sink
//! wants routes, each capture's is found backwards through the squares expanded on the way to
//! it, as the layered walk finds its routes through its layers.
//!
//! Only flying kings are dived (immediate removal matters to no other: see
//! `Rules::removal_changes_captures`); their nodes' ends come as arrivals.

use rustc_hash::FxHashMap;

use super::{Aim, Arrival, Key, Layer, Routes, Walk, ENDS, KING, NO_DIRECTION};
use crate::bitboard::Bits;
use crate::movegen::sink::Sink;
use crate::movegen::until::Until;
use crate::position::Position;
use crate::rules::Rules;

/// Nodes (by slot) the dive remembers before it forgets them all (it then expands some squares
/// again): some 32 MB on boards of 64 squares, 48 MB on larger ones.
const MOST_NODES: usize = 1 << 20;

/// Where a slot goes in the flags of a key of `done` (above `KING` and `LAST_KING`).
const SLOT_SHIFT: u8 = 2;

// Tests forget often.
limit_set_by_tests!(fn most_nodes() -> usize = MOST_NODES; pub(crate) MOST_NODES_IN_TESTS);

/// Squares waiting to be expanded: those a jump landed on (in `slot`), having taken `key`.
#[derive(Clone, Copy)]
struct Pending<B: Bits> {
    key: Key<B>,
    slot: u8,
    squares: B,
    taken: u32,
}

/// How a dive stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dived {
    /// Every end still open is listed, or no capture of the whole set can end on one.
    Done,
    /// The caller's stop condition was reached.
    Stopped,
    /// It made more jumps than its caller allowed; it can be taken up again.
    OverBudget,
}

/// The dive of one king (see the module documentation), which can be taken up again.
pub(crate) struct Dive<'a, B: Bits> {
    walk: Walk<'a, B>,
    from: u8,
    /// What a capture of the whole set is worth.
    value: u32,
    /// Per node and slot (packed into the key's flags), the squares expanded.
    done: FxHashMap<Key<B>, B>,
    slots: usize,
    stack: Vec<Pending<B>>,
    /// The squares expanded on the way to the one being expanded, one entry per jump (for
    /// routes).
    branch: Vec<Pending<B>>,
    arrivals: Vec<Arrival<B>>,
    routes: Routes<B>,
}

impl<'a, B: Bits> Dive<'a, B> {
    /// The dive of the king on `from`, whose captures must take `aim.needed`, worth `value`.
    pub fn new(rules: &'a Rules<B>, pos: &Position<B>, from: u8, value: u32, aim: Aim<B>) -> Self {
        debug_assert!(rules.king_captures_fly);
        let walk = Walk::new(rules, pos, from, Some(aim));
        let slots = if walk.split { NO_DIRECTION + 1 } else { 1 };
        let start = Pending {
            key: (B::ZERO, KING),
            slot: walk.slot(NO_DIRECTION) as u8,
            squares: B::bit(from),
            taken: 0,
        };
        Dive {
            walk,
            from,
            value,
            done: FxHashMap::default(),
            slots,
            stack: vec![start],
            branch: Vec::new(),
            arrivals: Vec::new(),
            routes: Routes::default(),
        }
    }

    /// Its aim as it stands: the ends still open.
    pub fn aim(&self) -> Option<&Aim<B>> {
        self.walk.aim.as_ref()
    }

    /// Goes on for up to about `budget` jumps more; `jumps` counts the landings walked. Each
    /// capture found is handed to the sink once, and its end is no longer open; `ends_changed`
    /// then brings the rest of the aim up to date.
    pub fn resume<S: Sink<B>>(
        &mut self,
        sink: &mut S,
        stop: Until<'_>,
        budget: u64,
        jumps: &mut u64,
        mut ends_changed: impl FnMut(&mut Aim<B>),
    ) -> Dived {
        let before = self.walk.jumps;
        let budget = before.saturating_add(budget);
        let mut next_check = before + super::stop_check_every();
        let outcome = loop {
            let Some(p) = self.stack.pop() else {
                break Dived::Done;
            };
            if S::ROUTES {
                self.branch.truncate(p.taken as usize);
                self.branch.push(p);
            }
            let mut at = [B::ZERO; NO_DIRECTION + 1];
            at[usize::from(p.slot)] = p.squares;
            self.arrivals.clear();
            self.walk
                .expand::<false>(p.key, &at[..self.slots], p.taken, &mut self.arrivals);
            // Pushed in reverse, so that the first jump found is expanded first.
            for i in (0..self.arrivals.len()).rev() {
                let a = self.arrivals[i];
                let Some(aim) = self.walk.aim.as_mut() else {
                    break;
                };
                if a.slot == ENDS {
                    let ends = a.squares & aim.open_ends;
                    if a.key.0 != aim.needed || ends.is_empty() {
                        continue;
                    }
                    if S::ROUTES {
                        self.hand_over_with_routes(sink, a, ends);
                    } else {
                        for to in ends.squares() {
                            sink.new_capture(self.from, to, a.key.0, self.value, false);
                        }
                    }
                    let Some(aim) = self.walk.aim.as_mut() else {
                        break;
                    };
                    aim.open_ends &= !ends;
                    ends_changed(aim);
                    continue;
                }
                if !aim.may_come(a.key.0) {
                    continue;
                }
                // One entry per slot: a node is reached along one direction or few.
                let slotted = (a.key.0, a.key.1 | a.slot << SLOT_SHIFT);
                if self.done.len() >= most_nodes() && !self.done.contains_key(&slotted) {
                    self.done.clear();
                }
                let done = self.done.entry(slotted).or_insert(B::ZERO);
                let new = a.squares & !*done;
                if new.is_empty() {
                    continue;
                }
                *done |= new;
                self.stack.push(Pending {
                    key: a.key,
                    slot: a.slot,
                    squares: new,
                    taken: p.taken + 1,
                });
            }
            if self
                .walk
                .aim
                .as_ref()
                .is_none_or(|aim| aim.open_ends.is_empty())
            {
                break Dived::Done;
            }
            if self.walk.jumps >= next_check {
                next_check = self.walk.jumps + super::stop_check_every();
                if stop.reached() {
                    break Dived::Stopped;
                }
                if self.walk.jumps > budget {
                    break Dived::OverBudget;
                }
            }
        };
        *jumps += self.walk.jumps - before;
        outcome
    }

    /// Hands the captures of the arrival `a` that end on `ends` to the sink, each with a route:
    /// found backwards through the squares expanded on the way (`branch`), one node a layer, as
    /// the layered walk finds its routes through its layers. Every square of a node there was
    /// reached from a square of the node before, so a route is always found.
    fn hand_over_with_routes<S: Sink<B>>(&mut self, sink: &mut S, a: Arrival<B>, ends: B) {
        let mut history: Vec<Layer<B>> = self
            .branch
            .iter()
            .map(|p| {
                let mut layer = Layer::new(self.slots);
                let i = layer.push(p.key);
                layer.at[i * self.slots + usize::from(p.slot)] = p.squares;
                layer
            })
            .collect();
        let mut last = Layer::new(self.slots);
        let i = last.push(a.key);
        last.ends[i] = ends;
        history.push(last);
        let t = history.len() - 1;
        for to in ends.squares() {
            let found = self
                .routes
                .find::<false>(&mut self.walk, &history, self.from, t, i, to);
            debug_assert!(found, "a capture of the dive without a route");
            let (path, order): (&[u8], &[u8]) = if found {
                (&self.routes.path, &self.routes.order)
            } else {
                (&[], &[])
            };
            sink.capture(self.from, to, a.key.0, self.value, false, path, order, 1);
        }
    }
}
