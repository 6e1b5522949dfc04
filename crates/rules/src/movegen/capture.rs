//! Capture sequences (§0 "A capture move"): a depth-first search over jumps by one piece that
//! applies every capture rule of the variant: short and flying leaps, per-direction targets,
//! removal timing, the 180° rule, first-jump restrictions, the completion rule, king landing,
//! the halt rules and the three promotion modes.
//!
//! Sequences are not walked one by one, which would take minutes when a flying king meets many
//! kings (millions of sequences, a few dozen distinct moves):
//!
//! * Two sequences of one piece that stand on the same square having taken the same pieces have
//!   the same continuations (given the little else the rules look at: the piece's kind, the
//!   previous direction where the 180° rule or the sweep below depends on it, whether the last
//!   victim was a king under halt rule II). From the second jump on, where two routes can first
//!   meet, each such state is expanded once (`memo`).
//! * Under the majority rule the most valuable capture is found first, by a walk that stops as
//!   soon as a capture is worth all that the king can reach (under deferred removal the
//!   pairing test below is asked first for such a capture); the listing walk then leaves every
//!   state whose reachable pieces cannot make up that value (`reach`; for kings that make short
//!   leaps, the tighter parity bound on trails, `trail`).
//! * When that maximum is all a king can reach, every legal capture of that king takes the same
//!   pieces and differs only in where it ends: its listing walk stops once every square it could
//!   end on is listed, and leaves states from which no square not yet listed can be reached,
//!   that have taken every piece whose capture could be the last one landing on such a square,
//!   or every piece that could be taken just before such a last one (`last_jumps`), or
//!   (deferred removal) that cannot take every remaining piece (`JumpGraph`). Under deferred
//!   removal a parity argument over the jumps (`parity`) rules out, without a walk, squares
//!   where such a capture cannot end, from the start and from every state; a walk that runs
//!   long asks a stronger test, a matching that takes each piece by exactly one jump
//!   (`pairing`), which of the squares still open no capture can end on.
//!   Under immediate removal a flying king's listing is a dive instead (`layers::dive`): depth
//!   first over the layered walk's nodes, every square a jump lands on expanded at once.
//! * When a king can reach more than the maximum by a few pieces of equal value (deferred
//!   removal), each legal capture of it leaves some of those pieces out: for each such set the
//!   king is walked with those pieces made uncapturable, a targeted walk as above. Listing
//!   such a king, these walks take turns with one untargeted walk (the maximum as its floor),
//!   each within a budget that grows, until one completes (`listing`); budgets count the
//!   pairing test's matchings and the parity spans as the jumps they cost. When the search for
//!   the maximum gives up, the same walks find it, level by level from the top, taking turns
//!   with a listing that does without it, each within a budget that grows.
//!
//! A king that makes short leaps is walked as under deferred removal whatever the variant says
//! (`Rules::removal_changes_captures`): it never lands on a square a capture empties, so both
//! removals give it the same moves, and the deferred one a jump graph that does not change.
//!
//! Counting sinks (perft's "paths") get each state's outcomes with their numbers of sequences,
//! so they count without enumerating; only a walk without `merge` enumerates every sequence.
//!
//! This file holds the walk itself and the order of the passes; beside it, `first_jump` (which
//! pieces can capture at all), `maximum` (the majority rule's maximum and the search by levels),
//! `target` (what a targeted walk aims at, and its use of the pairing test) and `listing` (the
//! hand-over to the layered walk and the dive).

use crate::bitboard::Bits;
use crate::movegen::layers::{self, Aim, Dived, Layered};
use crate::movegen::memo::{Key, Memo, Outcome};
use crate::movegen::pairing::{Pairing, Witness};
use crate::movegen::parity::JumpSpan;
use crate::movegen::reach::{reach, value_of, JumpGraph, Reach};
use crate::movegen::route::{RouteFilter, DEAD};
use crate::movegen::sink::{MaxSink, Sink};
use crate::movegen::trail;
use crate::movegen::until::Until;
use crate::position::Position;
use crate::rules::{Rules, NO_SQUARE};
use crate::spec::{HaltRule, PromotionInCapture};

mod first_jump;
mod listing;
mod maximum;
mod target;
#[cfg(test)]
mod tests;

use first_jump::king_can_capture;
pub(crate) use first_jump::{capturing, has_capture, piece_can_capture, Capturing};
use maximum::{left_out_sets, majority_maximum, maximum_by_levels, Levels, Maximum};
use target::{last_pieces, pairing_captures_are_legal, Target};

/// The most jumps one move can make (every piece on the largest board).
pub(crate) const MAX_JUMPS: usize = 128;

/// States after this many jumps are merged: after one jump a state is reached by one route only.
const MERGE_FROM_JUMPS: u32 = 2;

/// Jumps a targeted walk under deferred removal makes before it asks the pairing test which of
/// the squares still open a capture can end on (`Search::ask_pairing`): most targeted walks end
/// sooner, and the test costs as much as some 30 jumps per matching.
const PAIRING_AFTER: u64 = 1 << 12;

/// Matchings the pairing test may make the first time a walk asks it; each time it runs out, the
/// walk asks again after twice `PAIRING_AFTER` jumps more (not after twice the jumps so far:
/// universal seed 23's last squares were settled after 127,000 jumps, not 61,000), with four
/// times the matchings, but not more than one per `JUMPS_PER_MATCHING` jumps the walk has made:
/// a matching costs some 8 µs, as much as 30 jumps, so where the test settles nothing a walk
/// pays up to about four times its own cost for it.
const FIRST_PAIRING_BUDGET: u32 = 64;

/// See `FIRST_PAIRING_BUDGET`.
const JUMPS_PER_MATCHING: u64 = 8;

// Tests ask the pairing test early to see it take ends from the walks.
limit_set_by_tests!(fn pairing_after() -> u64 = PAIRING_AFTER; PAIRING_AFTER_IN_TESTS);

/// Once a targeted walk has asked the pairing test, it asks it again at every state after this
/// many jumps or fewer, over the pieces still to take: near the start a state has most of the
/// walk below it (the audit's position with d6: 330,598 jumps, 67,573 asked up to 3 jumps).
const PAIRING_DEPTH: u32 = 3;

// Tests ask it at every state.
limit_set_by_tests!(fn pairing_depth() -> u32 = PAIRING_DEPTH; PAIRING_DEPTH_IN_TESTS);

/// Matchings the pairing test may make at one state.
const STATE_PAIRING_BUDGET: u32 = 16;

/// What a matching of the pairing test and a parity span cost, in jumps of the walk (a
/// matching some 8 µs, a span some 0.2 µs), where walks of different kinds take turns
/// (`Search::list_leaving_out`).
const MATCHING_COST: u64 = 30;
const SPAN_COST: u64 = 1;

// Tests count the captures the pairing test hands over.
#[cfg(test)]
thread_local! {
    static WITNESSES_IN_TESTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Jumps a capture walk first makes sequence by sequence, as cheaply as possible: nearly every
/// capture of a real game takes far fewer. A capture that needs more is walked again, merged.
const PLAIN_WALK_BUDGET: u64 = 1024;

// Tests set small budgets to see big captures' ways in small positions.
limit_set_by_tests!(fn plain_walk_budget() -> u64 = PLAIN_WALK_BUDGET; PLAIN_WALK_BUDGET_IN_TESTS);

/// A long walk looks at its stop condition once every this many jumps (a power of two).
const STOP_CHECK_EVERY: u64 = 1024;

/// How the walk treats sequences that reach the same state.
#[derive(Clone, Copy, Default)]
pub(crate) struct Walk<'a> {
    /// Expand each state once (distinct moves, or counts of sequences); without it every
    /// sequence is walked and handed to the sink (exponential in the worst case: for tests).
    pub merge: bool,
    pub filter: RouteFilter<'a>,
    /// When the caller gives the walk up.
    pub stop: Until<'a>,
}

/// The state of the capturing piece between jumps.
#[derive(Clone, Copy)]
struct Jumper<B: Bits> {
    sq: u8,
    /// Squares that block passage and landing.
    occupied: B,
    /// Enemy pieces that may still be jumped.
    capturable: B,
    captured: B,
    value: u32,
    jumps: u32,
    /// Direction of the previous jump (8 = none).
    prev: u8,
    /// The route filter's state.
    matched: u8,
}

/// A piece that can capture, with what its captures can be worth at most.
struct Capturer<B: Bits> {
    sq: u8,
    king: bool,
    reach: Reach<B>,
    /// What `reach` is worth before it is settled (see `settled_reach`).
    unsettled: u32,
}

/// The walk of the captures of one position. `MERGE`: states are expanded once (otherwise every
/// sequence is walked); `FILTER`: routes are matched against `filter`. Both are known at compile
/// time so that the common walk (neither) costs nothing for them.
struct Search<'a, B: Bits, S: Sink<B>, const MERGE: bool, const FILTER: bool> {
    rules: &'a Rules<B>,
    sink: &'a mut S,
    us: usize,
    enemy: B,
    enemy_kings: B,
    filter: RouteFilter<'a>,
    /// Made on the first merged state (a plain walk never needs it).
    memo: Option<Memo<B>>,
    /// The piece being walked.
    from: u8,
    started_as_king: bool,
    path: [u8; MAX_JUMPS],
    order: [u8; MAX_JUMPS],
    /// Captures worth less are not legal (the majority rule's maximum, once known; 0 = unknown).
    floor: u32,
    /// Whether `floor` is the maximum itself (the search for it settled it), not a bound.
    floor_exact: bool,
    target: Option<Target<B>>,
    /// Under deferred removal (or short leaps) and the majority rule, the jumps the king being
    /// walked can make, and the square it was made for.
    graph: Option<JumpGraph<B>>,
    graph_of: u8,
    /// Jumps walked, how many may be (the plain walk's budget), and how many this piece's walk
    /// may make (0 once it is over).
    visits: u64,
    budget: u64,
    limit: u64,
    /// When the caller gives the walk up, and whether it stopped this walk.
    stop: Until<'a>,
    stopped: bool,
    /// How the reach bound has done lately.
    reach_use: ReachUse,
    /// With `graph`, in a targeted walk: the parity test's span, made over the pieces still to
    /// take (made once per graph).
    span: Option<JumpSpan<B>>,
    /// With `graph`, in a targeted walk: the pairing test (made once per graph), the walk's work
    /// (`walk_work`) after which it asks it next (`u64::MAX`: never), and the matchings it may
    /// then make.
    pairing: Option<Pairing<B>>,
    pairing_at: u64,
    pairing_budget: u32,
    /// The walk's work (`walk_work`) when the targeted walk began.
    pairing_from_work: u64,
    /// Whether the walk asks the pairing test at its states near the start (it runs long).
    pairing_states: bool,
    /// Whether the kings' captures are bounded by the trail bound (`trail`): short leaps
    /// under the majority rule.
    trail: bool,
    /// The jumps `visits` counts for the pairing test's matchings and the parity spans: they
    /// count as the jumps they cost, so that the budgets of walks of different kinds compare
    /// like with like (`list_leaving_out`, the search by levels against the listing).
    charged: u64,
    /// The part of `charged` that is the pairing test's matchings.
    matchings_charged: u64,
    /// Whether the sink may hold captures of the piece being walked from an earlier walk of it
    /// given up (`list_leaving_out`).
    listed_before: bool,
}

/// How often the reach bound was asked, how often it left a state, and the states it let
/// through: how many and the jumps walked below them.
#[derive(Clone, Copy, Debug, Default)]
struct ReachUse {
    asked: u64,
    pruned: u64,
    through: u64,
    work: u64,
    /// Whether its last answer let the state through.
    said_through: bool,
}

impl<'a, B: Bits, S: Sink<B>, const MERGE: bool, const FILTER: bool>
    Search<'a, B, S, MERGE, FILTER>
{
    fn new(rules: &'a Rules<B>, pos: &Position<B>, sink: &'a mut S, walk: Walk<'a>) -> Self {
        let us = pos.side.index();
        Search {
            rules,
            sink,
            us,
            enemy: pos.pieces[us ^ 1],
            enemy_kings: pos.pieces[us ^ 1] & pos.kings,
            filter: walk.filter,
            memo: None,
            from: 0,
            started_as_king: false,
            path: [0; MAX_JUMPS],
            order: [0; MAX_JUMPS],
            floor: 0,
            floor_exact: false,
            target: None,
            graph: None,
            graph_of: NO_SQUARE,
            visits: 0,
            budget: u64::MAX,
            limit: u64::MAX,
            stop: walk.stop,
            stopped: false,
            reach_use: ReachUse::default(),
            span: None,
            pairing: None,
            pairing_at: u64::MAX,
            pairing_budget: 0,
            pairing_from_work: 0,
            pairing_states: false,
            trail: MERGE && rules.majority && trail::applies(rules, us),
            charged: 0,
            matchings_charged: 0,
            listed_before: false,
        }
    }

    /// Ends the walk of this piece (or, finding the maximum, the whole walk).
    #[inline(always)]
    fn stop(&mut self) {
        self.limit = 0;
    }

    /// Captures worth less are not wanted: the majority rule's maximum (or the bound found for
    /// it) and the most the sink has been handed.
    #[inline(always)]
    fn value_floor(&self) -> u32 {
        self.floor.max(self.sink.floor())
    }

    /// The jumps walked: `visits` without what the pairing test and the spans were counted as.
    fn jumps(&self) -> u64 {
        self.visits - self.charged
    }

    /// The walk's own work, what the pairing test's budget and the times it is asked are
    /// measured in: `visits` without the test's matchings, which must not buy it more.
    fn walk_work(&self) -> u64 {
        self.visits - self.matchings_charged
    }

    /// Whether the walk stopped for want of budget.
    fn over_budget(&self) -> bool {
        self.visits > self.budget
    }

    /// Walks every capture of the piece on `sq`; `reach` (known in big captures) says what its
    /// captures can be worth at most.
    #[inline(always)]
    fn walk_piece(&mut self, sq: u8, king: bool, reach: Option<&Reach<B>>, start: Jumper<B>) {
        self.from = sq;
        self.started_as_king = king;
        self.limit = if self.stopped { 0 } else { self.budget };
        if MERGE && king && self.rules.majority && !self.rules.removal_changes_captures() {
            // Made over every enemy piece, so that the walks of one king that leave some of them
            // alone share it (they ask it only about pieces they may take).
            if self.graph_of != sq {
                self.graph = Some(JumpGraph::new(
                    self.rules,
                    self.us,
                    start.occupied,
                    self.enemy,
                    self.enemy_kings,
                ));
                self.span = None;
                self.pairing = None;
                self.graph_of = sq;
            }
        } else if MERGE {
            self.graph = None;
            self.span = None;
            self.pairing = None;
            self.graph_of = NO_SQUARE;
        }
        // A listing of distinct moves whose every capture takes the same pieces is targeted.
        if MERGE {
            if let Some(reach) = reach {
                // The floor is the maximum or (the search for it given up) a capture's value:
                // either way a piece that can reach no more is worth the maximum or loses.
                let floor = self.value_floor();
                if !S::COUNTS && king && floor > 0 && reach.value == floor {
                    let mut target = Target::new(self.rules, reach, floor, start);
                    if let Some(graph) = &self.graph {
                        let size = self.rules.next.len();
                        let span = self
                            .span
                            .get_or_insert_with(|| JumpSpan::new(size, graph.jumps()));
                        span.make(reach.pieces);
                        target.open_ends = span.possible_ends(sq, target.open_ends);
                        self.pairing_at = self.walk_work().saturating_add(pairing_after());
                        self.pairing_budget = FIRST_PAIRING_BUDGET;
                        self.pairing_from_work = self.walk_work();
                        self.pairing_states = false;
                    }
                    target.ends_changed(self.rules, self.us, self.graph.as_ref());
                    self.target = Some(target);
                }
            }
        }
        if king {
            self.explore_king(start, 0, false, false);
        } else {
            self.explore_man(start, 0, false);
        }
        if MERGE {
            self.target = None;
            self.pairing_at = u64::MAX;
            self.pairing_states = false;
        }
    }

    /// Walks the captures of the king on `sq` that leave the pieces of `left_out` alone (they
    /// stay on the board but cannot be taken), and are worth the floor. With the floor the
    /// maximum, such a capture is legal as it is: one that could go on over a left-out piece
    /// would be worth more than the maximum.
    fn walk_without(&mut self, pos: &Position<B>, sq: u8, left_out: B) {
        let mut start = start(pos, sq);
        start.capturable &= !left_out;
        let reach = reach(
            self.rules,
            self.us,
            self.enemy_kings,
            sq,
            start.occupied,
            start.capturable,
        );
        if reach.value < self.floor {
            return;
        }
        // States of another walk of this king took other pieces as capturable (those of other
        // pieces differ in their key's square of departure).
        if let Some(memo) = &mut self.memo {
            memo.clear();
        }
        self.walk_piece(sq, true, Some(&reach), start);
    }

    /// Continues from a state reached after `depth` jumps; returns whether it has a jump (then
    /// the completion rule forbids stopping there). A state the route filter has ruled out is
    /// only probed for a jump.
    #[inline(always)]
    fn visit(&mut self, j: Jumper<B>, depth: usize, straight_done: bool, king: bool) -> bool {
        self.visits += 1;
        if self.visits > self.limit {
            // The walk is over; the answer is not used.
            return true;
        }
        if self.visits.is_multiple_of(STOP_CHECK_EVERY) && self.stop.reached() {
            self.stopped = true;
            self.stop();
            return true;
        }
        let dead = FILTER && j.matched == DEAD;
        if !MERGE || j.jumps < MERGE_FROM_JUMPS || dead {
            return self.expand(j, depth, straight_done, king, dead);
        }
        self.visit_merged(j, depth, straight_done, king)
    }

    /// `visit` in a merged walk: a state seen before is not expanded again (a counting sink gets
    /// its outcomes once more), and a state from which nothing legal and new can come is only
    /// probed for a jump.
    #[inline(never)]
    fn visit_merged(
        &mut self,
        j: Jumper<B>,
        depth: usize,
        straight_done: bool,
        king: bool,
    ) -> bool {
        // A state without a jump ends the capture there, and the caller hands it to the sink,
        // which lists each move once: such a state need not be remembered, only kept from the
        // sink when it is worth less than the majority rule's floor (as `fruitless` would). A
        // flying king lands on several squares after the last piece it takes, each such a
        // state: half the states of a big listing (Greek V: 507,000 of 1.05 million), each two
        // trips to a table that outgrows the caches, and under the majority rule a reach bound
        // asked for nothing. A probe for a jump decides it. Not after short leaps (fewer such
        // states: Modified Gothic II 18 %, and the probes made it 10 % slower), nor under
        // deferred removal with the majority rule, where the jump graph and the parity test
        // leave most states more cheaply (universal 15 % slower).
        if !S::COUNTS
            && king
            && self.rules.king_captures_fly
            && (!self.rules.majority || self.rules.removal_changes_captures())
            && !self.explore_king(j, depth, straight_done, true)
        {
            // Without the majority rule the floor is 0 (captures are handed over valued 0).
            return j.value < self.value_floor();
        }
        let key = self.key(&j, depth, straight_done, king);
        let memo = self.memo.get_or_insert_with(Memo::default);
        if let Some(entry) = memo.get(&key) {
            if S::COUNTS {
                for &o in memo.outcomes(entry) {
                    self.sink.capture(
                        self.from,
                        o.to,
                        o.captured,
                        o.value,
                        o.promotes,
                        &[],
                        &[],
                        o.sequences,
                    );
                }
                memo.replayed(entry);
            }
            return entry.found;
        }
        if self.walk_work() >= self.pairing_at {
            self.ask_pairing();
        }
        self.reach_use.said_through = false;
        if king && self.fruitless(&j) {
            // Every capture through here is worth less than the most valuable one, so a capture
            // that stops here would be too: whether it could go on does not matter.
            return true;
        }
        let let_through = self.reach_use.said_through;
        let mark = self.memo.get_or_insert_with(Memo::default).begin();
        let before = self.visits;
        let found = self.expand(j, depth, straight_done, king, false);
        let work = self.visits - before;
        if let_through {
            self.reach_use.through += 1;
            self.reach_use.work += work;
        }
        if let Some(memo) = &mut self.memo {
            if self.visits > self.limit {
                memo.abandon(mark);
            } else {
                memo.finish(key, mark, found, S::REMEMBERS, work);
            }
        }
        found
    }

    #[inline(always)]
    fn expand(
        &mut self,
        j: Jumper<B>,
        depth: usize,
        straight_done: bool,
        king: bool,
        probe: bool,
    ) -> bool {
        if king {
            self.explore_king(j, depth, straight_done, probe)
        } else {
            self.explore_man(j, depth, probe)
        }
    }

    /// Whether nothing the sink still wants can come from this king's state: the pieces within
    /// reach are worth too little, or (targeted) no square not yet listed can be reached, or
    /// every piece the last jump onto one could take is taken (or every piece the jump before
    /// it could), or not every piece that must be taken can be, or parity rules out every such
    /// square. Such a state is worth less than the
    /// most valuable capture.
    fn fruitless(&mut self, j: &Jumper<B>) -> bool {
        if let Some(target) = &self.target {
            let needed = target.needed & !j.captured;
            if needed.is_empty() {
                // Everything is taken: a legal capture ends here.
                return false;
            }
            let last = needed & target.last;
            if last.is_empty() {
                // Every piece the capture could take last to end on an open end is taken.
                return true;
            }
            if needed.count() >= 2
                && last
                    .squares()
                    .all(|v| (target.before_last[v as usize] & needed).is_empty())
            {
                // Nor any piece it could take just before such a last one.
                return true;
            }
            if self.trail && self.trail_value(j) < value_of(self.rules, needed, self.enemy_kings) {
                return true;
            }
            if let Some(graph) = &self.graph {
                if !graph.may_take_all(j.sq, needed, target.open_ends) {
                    return true;
                }
                // Landings of one jump share the pieces left: the span is made once for them.
                if let Some(span) = &mut self.span {
                    self.visits += SPAN_COST;
                    self.charged += SPAN_COST;
                    span.make(needed);
                    if !span.may_end_on(j.sq, target.open_ends) {
                        return true;
                    }
                }
                return self.pairing_states && j.jumps <= pairing_depth() && self.pairing_from(j);
            }
            let open_ends = target.open_ends;
            let Some(reach) = self.reach_if_useful(j) else {
                return false;
            };
            return self.reach_answered(
                (needed & !reach.pieces) != B::ZERO || (reach.landings & open_ends).is_empty(),
            );
        }
        let floor = self.value_floor();
        if floor == 0 {
            return false;
        }
        if self.trail {
            return j.value + self.trail_value(j) < floor;
        }
        if let Some(graph) = &self.graph {
            let within_reach = value_of(
                self.rules,
                graph.reachable(j.sq, j.capturable),
                self.enemy_kings,
            );
            return j.value + within_reach < floor;
        }

        let Some(reach) = self.reach_if_useful(j) else {
            return false;
        };
        self.reach_answered(j.value + reach.value < floor)
    }

    /// The reach bound, when it is worth asking. It costs as much as some 32 jumps (a search
    /// over the board), and where nearly everything is within reach (a flying king under
    /// immediate removal) it seldom leaves a state, or only states with a few jumps below them.
    /// So after its first 64 answers it is asked only while the states it left, counted at the
    /// mean work of the states it let through, outweigh its cost, and otherwise once per 64
    /// jumps, to notice when it becomes useful. The counts halve every 1,024 answers, so the
    /// recent past decides.
    fn reach_if_useful(&mut self, j: &Jumper<B>) -> Option<Reach<B>> {
        const COST_IN_JUMPS: u64 = 32;
        let u = &mut self.reach_use;
        let mean_work = u.work / u.through.max(1);
        let useful = u.asked < 64 || u.pruned * mean_work >= u.asked * COST_IN_JUMPS;
        if !useful && !self.visits.is_multiple_of(64) {
            return None;
        }
        u.asked += 1;
        if u.asked == 1024 {
            *u = ReachUse {
                asked: u.asked / 2,
                pruned: u.pruned / 2,
                through: u.through / 2,
                work: u.work / 2,
                said_through: false,
            };
        }
        Some(self.reach(j))
    }

    /// Notes an answer of the reach bound.
    fn reach_answered(&mut self, pruned: bool) -> bool {
        self.reach_use.pruned += u64::from(pruned);
        self.reach_use.said_through = !pruned;
        pruned
    }

    fn trail_value(&self, j: &Jumper<B>) -> u32 {
        trail::trail_value(
            self.rules,
            self.us,
            self.enemy_kings,
            j.sq,
            j.occupied,
            j.capturable,
        )
    }

    fn reach(&self, j: &Jumper<B>) -> Reach<B> {
        reach(
            self.rules,
            self.us,
            self.enemy_kings,
            j.sq,
            j.occupied,
            j.capturable,
        )
    }

    /// Whether a king on `j` could jump back along its last jump, were the 180° rule not there:
    /// otherwise the rule takes no jump away from it and its state need not hold the direction.
    #[inline(always)]
    fn may_turn_back(&self, j: &Jumper<B>, king: bool) -> bool {
        if !king || j.prev >= 8 {
            return j.prev < 8;
        }
        let r = self.rules;
        let back = (j.prev ^ 4) as usize;
        let victim = if r.king_captures_fly {
            match r.first_blocker(j.sq, back, j.occupied) {
                Some(v) => v,
                None => return false,
            }
        } else {
            r.next[j.sq as usize][back]
        };
        if victim == NO_SQUARE || !j.capturable.has(victim) {
            return false;
        }
        let behind = r.next[victim as usize][back];
        behind != NO_SQUARE && !j.occupied.has(behind)
    }

    /// Everything the continuations from `j` depend on besides the fixed start.
    fn key(&self, j: &Jumper<B>, depth: usize, straight_done: bool, king: bool) -> Key<B> {
        let r = self.rules;
        let prev = if straight_done || (r.no_reversal && self.may_turn_back(j, king)) {
            j.prev
        } else {
            8
        };
        let last_victim_king =
            r.halt == HaltRule::SequentialHalt2 && self.enemy_kings.has(self.order[depth - 1]);
        let packed = u32::from(j.sq)
            | u32::from(self.from) << 8
            | u32::from(prev) << 16
            | u32::from(king) << 20
            | u32::from(straight_done) << 21
            | u32::from(last_victim_king) << 22
            | u32::from(j.matched) << 24;
        (j.captured, packed)
    }

    /// The king's capture directions in the order to try them: the variant's, except that a
    /// targeted walk tries last the jumps over pieces behind which the capture could end on a
    /// square not yet listed (taking them early rules those squares out).
    #[inline(always)]
    fn king_order(&self, j: &Jumper<B>) -> ([u8; 8], usize) {
        let r = self.rules;
        let dirs = r.king_captures[self.us].as_slice();
        let mut order = [0u8; 8];
        order[..dirs.len()].copy_from_slice(dirs);
        if let Some(target) = &self.target {
            if !target.saved.is_empty() {
                // Stable: the other jumps first, in the variant's order.
                let saved = |d: u8| {
                    r.first_blocker(j.sq, d as usize, j.occupied)
                        .is_some_and(|v| target.saved.has(v))
                };
                let mut later = [0u8; 8];
                let (mut n, mut m) = (0, 0);
                for &d in dirs {
                    if saved(d) {
                        later[m] = d;
                        m += 1;
                    } else {
                        order[n] = d;
                        n += 1;
                    }
                }
                order[n..n + m].copy_from_slice(&later[..m]);
            }
        }
        (order, dirs.len())
    }

    /// The filter's state after a jump from `j` over `victim` to `landing`.
    #[inline(always)]
    fn advance(&self, j: &Jumper<B>, d: u8, victim: u8, landing: u8, depth: usize) -> u8 {
        if !FILTER {
            return 0;
        }
        self.filter.advance(
            self.rules, j.matched, j.sq, d, victim, landing, j.captured, depth,
        )
    }

    /// Explores every jump of a man from the jumper's square; returns whether there was one.
    /// Men always make short leaps, so there is one landing per jump, and the 180° rule and
    /// the removal timing cannot change their moves (§0, "Fact used below").
    fn explore_man(&mut self, j: Jumper<B>, depth: usize, probe: bool) -> bool {
        let r = self.rules;
        let dirs = if j.jumps == 0 {
            r.man_capture_first[self.us]
        } else {
            r.man_capture_later[self.us]
        };
        let mut found = false;
        for &d in dirs.as_slice() {
            let d = d as usize;
            let victim = r.next[j.sq as usize][d];
            if victim == NO_SQUARE || !j.capturable.has(victim) {
                continue;
            }
            let landing = r.next[victim as usize][d];
            if landing == NO_SQUARE || j.occupied.has(landing) {
                continue;
            }
            found = true;
            if probe {
                return true;
            }
            let mut next = self.after_jump(&j, victim, d as u8);
            next.sq = landing;
            next.matched = self.advance(&j, d as u8, victim, landing, depth);
            self.order[depth] = victim;
            self.path[depth] = landing;
            let promotes = r.promotion[self.us].has(landing);
            let continued = if promotes {
                match r.promotion_mode {
                    PromotionInCapture::Stop => false,
                    PromotionInCapture::PromoteAndContinue => {
                        self.visit(next, depth + 1, false, true)
                    }
                    PromotionInCapture::ContinueAsMan => self.visit(next, depth + 1, false, false),
                }
            } else {
                self.visit(next, depth + 1, false, false)
            };
            if !continued {
                self.emit(&next, depth, promotes);
            }
        }
        found
    }

    /// Explores every jump of a king (or a man crowned mid-capture) from the jumper's square.
    ///
    /// `straight_done` is set when an earlier landing of the same jump already explored going on
    /// in the same direction, which meets the same pieces from every landing. With deferred
    /// removal the king sweeps on without stopping: that is one sequence, written with the square
    /// right behind the captured piece (PDN), as dctl counts it. With immediate removal each
    /// capture is completed (the piece leaves the board) before the next, so every landing square
    /// is a stop of its own and a sequence of its own, as kish counts it. Only the "paths" count
    /// sees the difference: both give the same moves.
    fn explore_king(
        &mut self,
        j: Jumper<B>,
        depth: usize,
        straight_done: bool,
        probe: bool,
    ) -> bool {
        let r = self.rules;
        let flying = r.king_captures_fly;
        let mut found = false;
        let (order, count) = self.king_order(&j);
        for &d in &order[..count] {
            if r.no_reversal && j.prev == d ^ 4 {
                continue;
            }
            let di = d as usize;
            let mut targets = j.capturable;
            if r.kings_only[di] {
                if r.targets_first_jump_only && j.jumps > 0 {
                    continue;
                }
                targets &= self.enemy_kings;
            }
            let Some(victim) = r.king_victim(j.sq, di, j.occupied) else {
                continue;
            };
            if !targets.has(victim) {
                continue;
            }
            let after = self.after_jump(&j, victim, d);
            let first = r.next[victim as usize][di];
            if first == NO_SQUARE || after.occupied.has(first) {
                continue;
            }
            found = true;
            if probe {
                return true;
            }
            if straight_done && j.prev == d {
                // A legal continuation (so the completion rule holds), explored from the first landing.
                continue;
            }

            // Landing squares: the one behind the victim, or (flying, landing anywhere) every
            // empty square up to the next piece or the edge.
            let mut landings = [0u8; 16];
            let mut count = 0;
            let mut s = first;
            loop {
                landings[count] = s;
                count += 1;
                if !flying || r.landing_adjacent {
                    break;
                }
                s = r.next[s as usize][di];
                if s == NO_SQUARE || after.occupied.has(s) {
                    break;
                }
            }
            self.order[depth] = victim;

            // Completion rule: if some landing allows another jump, the piece must take one.
            let mut continued = false;
            for (i, &landing) in landings[..count].iter().enumerate() {
                self.path[depth] = landing;
                let mut next = after;
                next.sq = landing;
                next.matched = self.advance(&j, d, victim, landing, depth);
                continued |= self.visit(
                    next,
                    depth + 1,
                    i > 0 && !r.removal_changes_captures(),
                    true,
                );
            }
            if continued {
                continue;
            }

            // The move ends with this jump; a halt rule may pin the final landing behind the victim.
            let victim_is_king = self.enemy_kings.has(victim);
            let halt = match r.halt {
                HaltRule::None => false,
                HaltRule::Killer => victim_is_king,
                HaltRule::SequentialKiller => after.jumps >= 2 && victim_is_king,
                HaltRule::SequentialHalt => after.jumps >= 2,
                HaltRule::SequentialHalt2 => {
                    after.jumps >= 2
                        && victim_is_king
                        && self.enemy_kings.has(self.order[depth - 1])
                }
            };
            let finals = if halt && flying { 1 } else { count };
            for &landing in &landings[..finals] {
                self.path[depth] = landing;
                let mut end = after;
                end.sq = landing;
                end.matched = self.advance(&j, d, victim, landing, depth);
                // A man crowned during this capture (PromoteAndContinue) ends it as a new king.
                self.emit(&end, depth, !self.started_as_king);
            }
        }
        found
    }

    /// The jumper after capturing `victim` in direction `d` (its square is set by the caller).
    #[inline(always)]
    fn after_jump(&self, j: &Jumper<B>, victim: u8, d: u8) -> Jumper<B> {
        let r = self.rules;
        let bit = B::bit(victim);
        Jumper {
            sq: j.sq,
            occupied: if r.removal_changes_captures() {
                j.occupied ^ bit
            } else {
                j.occupied
            },
            capturable: j.capturable ^ bit,
            captured: j.captured | bit,
            value: j.value
                + if self.enemy_kings.has(victim) {
                    r.king_value
                } else {
                    r.man_value
                },
            jumps: j.jumps + 1,
            prev: d,
            matched: j.matched,
        }
    }

    /// Hands a complete sequence ending on `end.sq` to the sink.
    #[inline(always)]
    fn emit(&mut self, end: &Jumper<B>, depth: usize, promotes: bool) {
        if FILTER && !self.filter.accepts(end.matched, depth) {
            return;
        }
        let value = if self.rules.majority { end.value } else { 0 };
        self.sink.capture(
            self.from,
            end.sq,
            end.captured,
            value,
            promotes,
            &self.path[..=depth],
            &self.order[..=depth],
            1,
        );
        if let (true, true, Some(memo)) = (S::COUNTS, MERGE, &mut self.memo) {
            memo.record(Outcome {
                to: end.sq,
                promotes,
                captured: end.captured,
                value,
                sequences: 1,
            });
        }
        if let Some(target) = &mut self.target {
            if value == target.value && target.open_ends.has(end.sq) {
                target.open_ends &= !B::bit(end.sq);
                if target.open_ends.is_empty() {
                    self.limit = 0;
                }
                target.ends_changed(self.rules, self.us, self.graph.as_ref());
            }
        }
        if self.sink.satisfied() {
            self.stop();
        }
    }
}

/// The pieces of the side to move that can capture, men first, each lowest square first (the
/// order of the listing), with what their captures can be worth at most.
fn capturers<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    capturing: Capturing<B>,
) -> Vec<Capturer<B>> {
    let us = pos.side.index();
    let enemy = pos.pieces[us ^ 1];
    let enemy_kings = enemy & pos.kings;
    let all = value_of(rules, enemy, enemy_kings);
    let mut list: Vec<Capturer<B>> = capturing
        .men
        .squares()
        .map(|sq| Capturer {
            sq,
            king: false,
            reach: Reach {
                pieces: enemy,
                value: all,
                landings: rules.squares,
            },
            unsettled: all,
        })
        .collect();
    for sq in (pos.pieces[us] & pos.kings).squares() {
        if king_can_capture(rules, pos, sq) {
            let start = start(pos, sq);
            let first = reach(rules, us, enemy_kings, sq, start.occupied, start.capturable);
            list.push(Capturer {
                sq,
                king: true,
                unsettled: first.value,
                reach: settled_reach(rules, us, enemy_kings, sq, &start, first),
            });
        }
    }
    list
}

/// What a king on `sq` can reach (`first`, found by `reach`), the pieces it cannot reach
/// taken for what they are. Under immediate removal `reach` lets the king pass and land where
/// any piece it may take stands, as if it were gone; a piece that no capture can take never
/// goes, and a line may stop at it: reached again without such pieces until nothing changes.
fn settled_reach<B: Bits>(
    rules: &Rules<B>,
    us: usize,
    enemy_kings: B,
    sq: u8,
    start: &Jumper<B>,
    first: Reach<B>,
) -> Reach<B> {
    let mut reached = first;
    if !rules.removal_changes_captures() || reached.pieces == start.capturable {
        // Under deferred removal no piece leaves during a capture, and where every piece is
        // within reach none stays: nothing to settle.
        return reached;
    }
    loop {
        let again = reach(rules, us, enemy_kings, sq, start.occupied, reached.pieces);
        if again.pieces == reached.pieces {
            return again;
        }
        reached = again;
    }
}

/// The capturing piece on `sq` before its first jump.
fn start<B: Bits>(pos: &Position<B>, sq: u8) -> Jumper<B> {
    Jumper {
        sq,
        occupied: pos.occupied() ^ B::bit(sq),
        capturable: pos.pieces[pos.side.index() ^ 1],
        captured: B::ZERO,
        value: 0,
        jumps: 0,
        prev: 8,
        matched: 0,
    }
}

/// What a capture walk did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walked {
    /// False if the walk's stop condition gave it up (the sink then holds part).
    pub complete: bool,
    /// Jumps walked, every pass included: the walk's work, independent of the machine.
    pub jumps: u64,
}

/// Generates every complete capture sequence of the side to move into the sink (merged as `walk`
/// says).
pub(crate) fn generate_captures<B: Bits, S: Sink<B>>(
    rules: &Rules<B>,
    pos: &Position<B>,
    sink: &mut S,
    walk: Walk,
    capturing: Capturing<B>,
) -> Walked {
    let mut jumps = 0;
    let complete = match walk.filter {
        RouteFilter::Any => captures::<B, S, false>(rules, pos, sink, walk, capturing, &mut jumps),
        _ if walk.filter.impossible(MAX_JUMPS) => true,
        _ => captures::<B, S, true>(rules, pos, sink, walk, capturing, &mut jumps),
    };
    Walked { complete, jumps }
}

/// Jumps the first turn of the search by levels may make (see `captures`). Its targeted walks
/// pay where a level's sets are soon settled; where many sets of left-out pieces must each be
/// shown impossible they cost far more than the listing they save (a universal position of a
/// game's material, 48 moves: 203,607 jumps of levels, 330 ms in all; 37 ms without them).
/// Where the maximum is worth knowing, a listing without it can cost far more: another
/// universal position needs 32,768 to 49,152 jumps of levels, and without them its listing
/// made 18.2 million jumps (1.0 s against 0.17-0.24 s). docs/capture-trials.md, fifteenth and
/// sixteenth sessions.
const FIRST_LEVELS_BUDGET: u64 = 1 << 14;

// Tests set a small budget to see the turns of levels and listings given up.
limit_set_by_tests!(fn first_levels_budget() -> u64 = FIRST_LEVELS_BUDGET; LEVELS_BUDGET_IN_TESTS);

/// In each turn the listing may make this many times the jumps the levels could: a jump of the
/// levels' targeted walks (the jump graph and the parity test at every state) costs several of
/// the listing's, and with 8 a universal row whose levels are hopeless and whose listing makes
/// 3.9 million jumps took 3.6 times as long (docs/capture-trials.md, sixteenth session).
const LISTING_SHARE: u64 = 64;

/// Each turn both may make this many times the jumps of the last.
const TURN_GROWTH: u64 = 4;

fn captures<B: Bits, S: Sink<B>, const FILTER: bool>(
    rules: &Rules<B>,
    pos: &Position<B>,
    sink: &mut S,
    walk: Walk,
    capturing: Capturing<B>,
    jumps: &mut u64,
) -> bool {
    // First sequence by sequence, within a budget when merging is allowed.
    let mut search = Search::<B, S, false, FILTER>::new(rules, pos, sink, walk);
    if walk.merge {
        search.budget = plain_walk_budget();
    }
    for sq in capturing.men.squares() {
        search.walk_piece(sq, false, None, start(pos, sq));
    }
    for sq in capturing.kings.squares() {
        search.walk_piece(sq, true, None, start(pos, sq));
    }
    *jumps += search.jumps();
    if search.stopped {
        return false;
    }
    if !search.over_budget() {
        return true;
    }
    // A big capture: merged, and under the majority rule bounded by its maximum.
    let sink = search.sink;
    sink.reset();
    let capturers = capturers(rules, pos, capturing);
    let list = |sink: &mut S, maximum, budget, jumps: &mut u64| {
        merged_captures::<B, S, FILTER>(rules, pos, sink, walk, &capturers, maximum, budget, jumps)
    };
    let searched = rules.majority && capturers.iter().any(|c| c.king);
    let maximum = if searched {
        majority_maximum(rules, pos, &capturers, walk.stop, jumps)
    } else {
        Maximum::AtLeast(0)
    };
    let best = match maximum {
        Maximum::AtLeast(best) if searched => best,
        _ => return list(sink, maximum, NO_BUDGET, jumps) == Listing::Complete,
    };
    // The search for the maximum gave up at `best`. The search by levels may settle it, at a
    // cost that can be far above the listing's, and the listing from `best` may cost far more
    // than with the maximum known: the two take turns, each within a budget that grows, so
    // that whichever way is cheaper decides, at a few times its cost.
    let mut budget = first_levels_budget();
    let settled = loop {
        match maximum_by_levels(rules, pos, &capturers, best, walk.stop, budget, jumps) {
            Levels::Found(found) => break found,
            Levels::NotPossible => break maximum,
            Levels::GaveUp => {}
        }
        match list(sink, maximum, budget.saturating_mul(LISTING_SHARE), jumps) {
            Listing::Complete => return true,
            Listing::Stopped => return false,
            // What it listed may lack captures: the next turn lists again.
            Listing::OverBudget => sink.reset(),
        }
        budget = budget.saturating_mul(TURN_GROWTH);
    };
    list(sink, settled, NO_BUDGET, jumps) == Listing::Complete
}

/// No limit on a walk's jumps.
const NO_BUDGET: u64 = u64::MAX;

/// How a listing ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    Complete,
    /// The caller stopped it.
    Stopped,
    /// It made more jumps than its budget (the sink holds part).
    OverBudget,
}

/// The merged walk of every piece that can capture, under the majority rule bounded by what the
/// search for its maximum found, within `budget` jumps.
#[allow(clippy::too_many_arguments)]
fn merged_captures<B: Bits, S: Sink<B>, const FILTER: bool>(
    rules: &Rules<B>,
    pos: &Position<B>,
    sink: &mut S,
    walk: Walk,
    capturers: &[Capturer<B>],
    maximum: Maximum,
    budget: u64,
    jumps: &mut u64,
) -> Listing {
    let mut search = Search::<B, S, true, FILTER>::new(rules, pos, sink, walk);
    search.budget = budget;
    (search.floor, search.floor_exact) = match maximum {
        Maximum::Exact(max) => (max, true),
        Maximum::AtLeast(bound) => (bound, false),
        Maximum::Stopped => return Listing::Stopped,
    };
    let enemy_kings = pos.pieces[pos.side.index() ^ 1] & pos.kings;
    for piece in capturers {
        if piece.reach.value < search.floor {
            continue;
        }
        // A king that can reach more than the maximum: one targeted walk per set of pieces
        // its legal captures leave out (a listing only: counts need every state).
        let left_out =
            if search.floor_exact && piece.king && !S::COUNTS && piece.reach.value > search.floor {
                left_out_sets(rules, piece, search.floor, enemy_kings)
            } else {
                None
            };
        // A piece's moves are put in one order, whichever walk lists them.
        let mark = search.sink.mark();
        match left_out {
            Some(sets) => {
                if !search.list_leaving_out(pos, piece, &sets) {
                    break;
                }
            }
            None if !FILTER && layers::serves::<B, S>(rules) => {
                if !search.walk_layered(pos, piece) {
                    break;
                }
            }
            None => search.walk_piece(
                piece.sq,
                piece.king,
                Some(&piece.reach),
                start(pos, piece.sq),
            ),
        }
        if !FILTER {
            search.sink.order_since(mark);
        }
        if search.over_budget() {
            break;
        }
    }
    // The jumps walked: what the pairing test and the spans were counted as is left out.
    *jumps += search.jumps();
    if search.stopped {
        Listing::Stopped
    } else if search.over_budget() {
        Listing::OverBudget
    } else {
        Listing::Complete
    }
}
