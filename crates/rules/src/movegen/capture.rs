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
//!   king is walked with those pieces made uncapturable, a targeted walk as above. When the
//!   search for the maximum gives up, the same walks find it, level by level from the top,
//!   taking turns with a listing that does without it, each within a budget that grows.
//!
//! A king that makes short leaps is walked as under deferred removal whatever the variant says
//! (`Rules::removal_changes_captures`): it never lands on a square a capture empties, so both
//! removals give it the same moves, and the deferred one a jump graph that does not change.
//!
//! Counting sinks (perft's "paths") get each state's outcomes with their numbers of sequences,
//! so they count without enumerating; only a walk without `merge` enumerates every sequence.

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

/// The most jumps one move can make (every piece on the largest board).
pub(crate) const MAX_JUMPS: usize = 128;

/// States after this many jumps are merged: after one jump a state is reached by one route only.
const MERGE_FROM_JUMPS: u32 = 2;

/// Jumps of a dive's first turn (see `Search::dive`).
const FIRST_DIVE_TURN: u64 = 1 << 15;

// Tests set a small turn to see dives taken up again and handing over to the layered walk.
limit_set_by_tests!(fn first_dive_turn() -> u64 = FIRST_DIVE_TURN; FIRST_DIVE_TURN_IN_TESTS);

/// Each turn of a dive may make this many times the jumps of the last (see `Search::dive`).
const DIVE_GROWTH: u64 = 2;

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

// Tests count the dives: those that list every end or show that none is left, those that hand
// over to the layered walk, and those that go on alone.
#[cfg(test)]
thread_local! {
    static DIVES_IN_TESTS: std::cell::Cell<[u64; 3]> = const { std::cell::Cell::new([0; 3]) };
}

#[cfg(test)]
fn count_dive(outcome: usize) {
    DIVES_IN_TESTS.with(|d| {
        let mut counts = d.get();
        counts[outcome] += 1;
        d.set(counts);
    });
}

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
}

/// The aim of a targeted walk (see the module documentation).
struct Target<B: Bits> {
    /// What the capture is worth.
    value: u32,
    /// The pieces every legal capture takes.
    needed: B,
    /// Squares where a legal capture may end and none listed yet does.
    open_ends: B,
    /// Pieces behind which the capture could end on an open end: tried last.
    saved: B,
    /// The squares the capture's last jump leaves occupied: the pieces it does not take and
    /// (under deferred removal) those it takes.
    blocked: B,
    /// Pieces the capture could take last to end on an open end (see `last_jumps`), and per
    /// such piece, those it could take just before it.
    last: B,
    before_last: Vec<B>,
}

impl<B: Bits> Target<B> {
    /// The aim of a king's captures worth `value`, all it can reach (`reach`), from `start`
    /// (`ends_changed` completes it).
    fn new(rules: &Rules<B>, reach: &Reach<B>, value: u32, start: Jumper<B>) -> Self {
        Target {
            value,
            needed: reach.pieces,
            open_ends: reach.landings,
            saved: B::ZERO,
            blocked: if rules.removal_changes_captures() {
                start.occupied & !reach.pieces
            } else {
                start.occupied
            },
            last: B::ZERO,
            before_last: Vec::new(),
        }
    }

    /// What the layered walk and the dive aim at.
    fn aim(&self) -> Aim<B> {
        Aim {
            needed: self.needed,
            open_ends: self.open_ends,
            last: self.last,
            before_last: self.before_last.clone(),
        }
    }

    /// Brings what depends on the open ends up to date.
    fn ends_changed(&mut self, rules: &Rules<B>, us: usize, graph: Option<&JumpGraph<B>>) {
        self.last = last_pieces(
            rules,
            us,
            self.open_ends,
            self.needed,
            self.blocked,
            &mut self.before_last,
        );
        self.saved = match graph {
            Some(graph) => self
                .needed
                .squares()
                .filter(|&u| !(graph.landings_behind(u) & self.open_ends).is_empty())
                .fold(B::ZERO, |acc, u| acc | B::bit(u)),
            None => B::ZERO,
        };
    }
}

/// The pieces a capture that takes every piece of `needed` could take last to end on one of
/// `open_ends` (see `last_jumps`; `blocked` stands on the board at its last jump), and per such
/// piece (in `before_last`, by square) those it could take just before it.
fn last_pieces<B: Bits>(
    rules: &Rules<B>,
    us: usize,
    open_ends: B,
    needed: B,
    blocked: B,
    before_last: &mut Vec<B>,
) -> B {
    let mut last = B::ZERO;
    before_last.clear();
    before_last.resize(rules.next.len(), B::ZERO);
    for end in open_ends.squares() {
        last_jumps(rules, us, end, needed, blocked, |victim, from| {
            last |= B::bit(victim);
            // The jump before lands on `from`, the last victim still on the board.
            let others = needed & !B::bit(victim);
            let stands = blocked | B::bit(victim);
            last_jumps(rules, us, from, others, stands, |before, _| {
                before_last[victim as usize] |= B::bit(before);
            });
        });
    }
    last
}

/// Whether a capture the pairing test builds for a king of player `us` (each piece taken by
/// one jump of the jump graph, the jumps in one trail) is legal as it is: under deferred
/// removal, no halt rule pins its last landing and no direction takes kings on the first jump
/// only (the jump graph has those jumps at any point). Every landing but the last goes on, and
/// after the last nothing is left within reach, so the completion rule holds; the 180° rule
/// forbids no jump of it (going back, the king meets the piece it has just taken).
fn pairing_captures_are_legal<B: Bits>(rules: &Rules<B>, us: usize) -> bool {
    !rules.removal_changes_captures()
        && rules.halt == HaltRule::None
        && !rules.king_captures[us]
            .as_slice()
            .iter()
            .any(|&d| rules.kings_only[d as usize])
}

/// The last jumps of a capture that takes every piece of `needed` and lands on `end`, when
/// `blocked` is what stands on the board at that jump besides its victim: `jump(victim, from)`
/// for each victim and each square the king could jump it from. The king comes over the victim
/// along a capture direction, from beyond it over squares empty then, and lands on `end` over
/// squares empty then: under immediate removal every other piece of `needed` is gone by then,
/// so the victim may stand behind some of them (under deferred removal `blocked` holds
/// `needed`, and the first piece on the way is the only one).
fn last_jumps<B: Bits>(
    rules: &Rules<B>,
    us: usize,
    end: u8,
    needed: B,
    blocked: B,
    mut jump: impl FnMut(u8, u8),
) {
    let flies = rules.king_captures_fly;
    for &d in rules.king_captures[us].as_slice() {
        let back = (d ^ 4) as usize;
        let mut s = rules.next[end as usize][back];
        while s != NO_SQUARE {
            if needed.has(s) {
                let mut from = rules.next[s as usize][back];
                while from != NO_SQUARE && !blocked.has(from) {
                    jump(s, from);
                    if !flies {
                        break;
                    }
                    from = rules.next[from as usize][back];
                }
            }
            if blocked.has(s) || !flies || rules.landing_adjacent {
                break;
            }
            s = rules.next[s as usize][back];
        }
    }
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
    /// With `graph`, in a targeted walk: the pairing test (made once per graph), the jumps after
    /// which the walk asks it next (`u64::MAX`: never), and the matchings it may then make.
    pairing: Option<Pairing<B>>,
    pairing_at: u64,
    pairing_budget: u32,
    /// The jumps walked when the targeted walk began.
    pairing_from_visits: u64,
    /// Whether the walk asks the pairing test at its states near the start (it runs long).
    pairing_states: bool,
    /// Whether the kings' captures are bounded by the trail bound (`trail`): short leaps
    /// under the majority rule.
    trail: bool,
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
            pairing_from_visits: 0,
            pairing_states: false,
            trail: MERGE && rules.majority && trail::applies(rules, us),
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
                        self.pairing_at = self.visits.saturating_add(pairing_after());
                        self.pairing_budget = FIRST_PAIRING_BUDGET;
                        self.pairing_from_visits = self.visits;
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

    /// Takes from the open ends of a targeted walk under deferred removal those where the
    /// pairing test says no capture of all its pieces can end (the walk would have to be walked
    /// to its end to find that none does). The test does not change during the walk, so it is
    /// asked again only when its budget ran out.
    #[inline(never)]
    fn ask_pairing(&mut self) {
        self.pairing_at = u64::MAX;
        self.pairing_states = true;
        let witnesses = self.witnesses_are_captures();
        let (Some(target), Some(graph)) = (&mut self.target, &self.graph) else {
            return;
        };
        let size = self.rules.next.len();
        let pairing = self
            .pairing
            .get_or_insert_with(|| Pairing::new(size, graph.jumps()));
        let mut budget = self.pairing_budget;
        let settled = pairing.settle(
            target.needed,
            self.from,
            target.open_ends,
            &mut budget,
            witnesses,
        );
        let possible = settled.possible;
        if budget == 0 {
            let walked = self.visits - self.pairing_from_visits;
            let most = u32::try_from(walked / JUMPS_PER_MATCHING).unwrap_or(u32::MAX);
            self.pairing_budget = (self.pairing_budget.saturating_mul(4))
                .min(most)
                .max(FIRST_PAIRING_BUDGET);
            self.pairing_at = self
                .visits
                .saturating_add(pairing_after().saturating_mul(2));
        }
        if possible != target.open_ends {
            target.open_ends = possible;
            if possible.is_empty() {
                self.limit = 0;
            }
            target.ends_changed(self.rules, self.us, self.graph.as_ref());
        }
        for witness in settled.witnesses {
            self.emit_witness(&witness, 0);
        }
    }

    /// The pairing test at a state of a long targeted walk, over the pieces still to take:
    /// hands over the captures it finds (the route so far, then theirs), and returns whether
    /// no open end can be reached from the state.
    #[inline(never)]
    fn pairing_from(&mut self, j: &Jumper<B>) -> bool {
        let witnesses = self.witnesses_are_captures();
        let (Some(target), Some(pairing)) = (&self.target, &self.pairing) else {
            return false;
        };
        let needed = target.needed & !j.captured;
        let mut budget = STATE_PAIRING_BUDGET;
        let settled = pairing.settle(needed, j.sq, target.open_ends, &mut budget, witnesses);
        for witness in &settled.witnesses {
            self.emit_witness(witness, j.jumps as usize);
        }
        let open_ends = self.target.as_ref().map_or(B::ZERO, |t| t.open_ends);
        (settled.possible & open_ends).is_empty()
    }

    /// Whether the captures the pairing test builds are handed to the sink as they are (see
    /// `pairing_captures_are_legal`; a route filter wants them walked).
    fn witnesses_are_captures(&self) -> bool {
        !FILTER && pairing_captures_are_legal(self.rules, self.us)
    }

    /// Hands a capture the pairing test found to the sink, as `emit` does a walked one: the
    /// first `after` jumps of the walk's route, then the witness's (every piece still needed, in
    /// one trail).
    fn emit_witness(&mut self, witness: &Witness, after: usize) {
        let Some(target) = &self.target else {
            return;
        };
        #[cfg(test)]
        WITNESSES_IN_TESTS.with(|w| w.set(w.get() + 1));
        let r = self.rules;
        let direction = |victim: u8, landing: u8| {
            r.king_captures[self.us]
                .as_slice()
                .iter()
                .copied()
                .find(|&d| {
                    let mut s = r.next[victim as usize][d as usize];
                    while s != NO_SQUARE && s != landing {
                        s = r.next[s as usize][d as usize];
                    }
                    s == landing
                })
        };
        // The walk asked from some state: its route so far is put back after.
        let (path, order) = (self.path, self.order);
        let jumps = after + witness.jumps.len();
        let depth = jumps - 1;
        for (i, &(victim, landing)) in witness.jumps.iter().enumerate() {
            self.order[after + i] = victim;
            self.path[after + i] = landing;
        }
        let mut came = None;
        for i in (after.saturating_sub(1)..jumps).rev() {
            let (victim, landing) = (self.order[i], self.path[i]);
            let d = direction(victim, landing);
            // A capture that goes on straight is walked from the first square behind the
            // piece (the same jumps follow from any of them): its route says so too.
            if let Some(d) = d.filter(|&d| Some(d) == came) {
                self.path[i] = r.next[victim as usize][d as usize];
            }
            came = d;
        }
        let end = Jumper {
            sq: witness.end,
            occupied: B::ZERO,
            capturable: B::ZERO,
            captured: target.needed,
            value: target.value,
            jumps: jumps as u32,
            prev: 8,
            matched: 0,
        };
        self.emit(&end, depth, false);
        (self.path, self.order) = (path, order);
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

    /// Walks the captures of `piece` for a list of moves. When a king's must take all it can
    /// reach, under deferred removal the targeted walk lists them: it stops once every square
    /// they may end on is listed, often within a few thousand jumps, and the jump graph and
    /// parity cut it short where the layered walk would walk far more. Under immediate removal
    /// a dive lists them (`Search::dive`). Other captures go layered. Returns false if
    /// stopped.
    fn walk_layered(&mut self, pos: &Position<B>, piece: &Capturer<B>) -> bool {
        let floor = self.value_floor();
        let targeted = piece.king && floor > 0 && piece.reach.value == floor;
        if !targeted {
            return self.walk_layers(pos, piece, floor);
        }
        if !self.rules.removal_changes_captures() {
            self.walk_piece(piece.sq, true, Some(&piece.reach), start(pos, piece.sq));
            return !self.stopped;
        }
        self.dive(pos, piece, floor)
    }

    /// The layered walk of `piece`, listing its captures worth `floor` or more. A walk too big
    /// for the layers is walked by the merged walk. Returns false if stopped.
    fn walk_layers(&mut self, pos: &Position<B>, piece: &Capturer<B>, floor: u32) -> bool {
        let budget = self.budget.saturating_sub(self.visits);
        match layers::walk_piece(
            self.rules,
            pos,
            piece.sq,
            piece.king,
            floor,
            None,
            self.sink,
            self.stop,
            budget,
            &mut self.visits,
        ) {
            // The caller sees the budget overrun.
            Layered::Done | Layered::OverBudget => true,
            Layered::Stopped => {
                self.stopped = true;
                false
            }
            Layered::TooBig => {
                self.walk_piece(
                    piece.sq,
                    piece.king,
                    Some(&piece.reach),
                    start(pos, piece.sq),
                );
                !self.stopped
            }
        }
    }

    /// Lists the captures of the king `piece` that take all it can reach, worth `floor`, under
    /// immediate removal: a dive (depth first, every square a jump lands on at once: see
    /// `layers::Dive`) in turns that grow, while each turn lists some end not listed before.
    /// After a turn that lists none, what is left is most often to show that no capture ends
    /// on the ends still open, which the layered walk does at some half the dive's cost a jump
    /// (it expands each node once, with all its squares), aimed at those ends. Returns false if
    /// stopped.
    fn dive(&mut self, pos: &Position<B>, piece: &Capturer<B>, floor: u32) -> bool {
        let mut target = Target::new(self.rules, &piece.reach, floor, start(pos, piece.sq));
        target.ends_changed(self.rules, self.us, None);
        let (rules, us, blocked) = (self.rules, self.us, target.blocked);
        let refresh = |aim: &mut Aim<B>| {
            aim.last = last_pieces(
                rules,
                us,
                aim.open_ends,
                aim.needed,
                blocked,
                &mut aim.before_last,
            );
        };
        let aim = target.aim();
        let mut dive = layers::Dive::new(rules, pos, piece.sq, floor, aim);
        let budget = self.budget;
        let mut turn = first_dive_turn();
        let mut alone = false;
        loop {
            let open = dive.aim().map_or(0, |aim| aim.open_ends.count());
            let share = if alone { NO_BUDGET } else { turn };
            let share = share.min(budget.saturating_sub(self.visits));
            match dive.resume(self.sink, self.stop, share, &mut self.visits, refresh) {
                Dived::Done => {
                    #[cfg(test)]
                    count_dive(if alone { 2 } else { 0 });
                    return true;
                }
                Dived::Stopped => {
                    self.stopped = true;
                    return false;
                }
                // Over the walk's own budget, the caller sees it.
                Dived::OverBudget if self.over_budget() || alone => return true,
                Dived::OverBudget => {}
            }
            let Some(aim) = dive.aim() else {
                return true;
            };
            if aim.open_ends.count() == open {
                // A turn without a new end: what is left is to show that none can be reached.
                #[cfg(test)]
                count_dive(1);
                let aim = Some(aim.clone());
                let share = budget.saturating_sub(self.visits);
                match layers::walk_piece(
                    rules,
                    pos,
                    piece.sq,
                    true,
                    floor,
                    aim,
                    self.sink,
                    self.stop,
                    share,
                    &mut self.visits,
                ) {
                    // The caller sees the budget overrun.
                    Layered::Done | Layered::OverBudget => return true,
                    Layered::Stopped => {
                        self.stopped = true;
                        return false;
                    }
                    // The dive goes on alone, its memory bounded by forgetting.
                    Layered::TooBig => alone = true,
                }
            }
            turn = turn.saturating_mul(DIVE_GROWTH);
        }
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
        if self.visits >= self.pairing_at {
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

/// Men that have a first jump, found for all men at once.
#[inline(always)]
fn men_that_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> B {
    let us = pos.side.index();
    let men = pos.pieces[us] & !pos.kings;
    let enemy = pos.pieces[us ^ 1];
    let empty = rules.squares & !pos.occupied();
    let mut able = B::ZERO;
    for &d in rules.man_capture_first[us].as_slice() {
        let d = d as usize;
        let delta = rules.delta[d];
        let landings = ((men & rules.jump_src[d]).shift(delta) & enemy).shift(delta) & empty;
        able |= landings.shift(-2 * delta);
    }
    able
}

/// Whether a king on `sq` has a first jump.
#[inline(always)]
fn king_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>, sq: u8) -> bool {
    let us = pos.side.index();
    let enemy = pos.pieces[us ^ 1];
    let occupied = pos.occupied();
    let enemy_kings = enemy & pos.kings;
    for &d in rules.king_captures[us].as_slice() {
        let di = d as usize;
        let Some(victim) = rules.king_victim(sq, di, occupied) else {
            continue;
        };
        let targets = if rules.kings_only[di] {
            enemy_kings
        } else {
            enemy
        };
        if !targets.has(victim) {
            continue;
        }
        let behind = rules.next[victim as usize][di];
        if behind != NO_SQUARE && !occupied.has(behind) {
            return true;
        }
    }
    false
}

/// The pieces of the side to move that have a first jump.
#[derive(Clone, Copy)]
pub(crate) struct Capturing<B: Bits> {
    men: B,
    kings: B,
}

impl<B: Bits> Capturing<B> {
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        (self.men | self.kings).is_empty()
    }
}

/// Which pieces of the side to move have a first jump.
#[inline(always)]
pub(crate) fn capturing<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> Capturing<B> {
    let kings = pos.pieces[pos.side.index()] & pos.kings;
    Capturing {
        men: men_that_can_capture(rules, pos),
        kings: kings
            .squares()
            .filter(|&k| king_can_capture(rules, pos, k))
            .fold(B::ZERO, |acc, k| acc | B::bit(k)),
    }
}

/// Whether the side to move has a capture.
pub(crate) fn has_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> bool {
    if !men_that_can_capture(rules, pos).is_empty() {
        return true;
    }
    let kings = pos.pieces[pos.side.index()] & pos.kings;
    kings.squares().any(|k| king_can_capture(rules, pos, k))
}

/// Whether the piece on `sq` (of the side to move) has a first jump.
pub(crate) fn piece_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>, sq: u8) -> bool {
    if pos.kings.has(sq) {
        king_can_capture(rules, pos, sq)
    } else {
        men_that_can_capture(rules, pos).has(sq)
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
    let mut list: Vec<Capturer<B>> = capturing
        .men
        .squares()
        .map(|sq| Capturer {
            sq,
            king: false,
            reach: Reach {
                pieces: enemy,
                value: value_of(rules, enemy, enemy_kings),
                landings: rules.squares,
            },
        })
        .collect();
    for sq in (pos.pieces[us] & pos.kings).squares() {
        if king_can_capture(rules, pos, sq) {
            let start = start(pos, sq);
            list.push(Capturer {
                sq,
                king: true,
                reach: reach(rules, us, enemy_kings, sq, start.occupied, start.capturable),
            });
        }
    }
    list
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

/// Jumps the search for the majority rule's maximum may make. When a capture is worth all that
/// its piece can reach, it is found within a few thousand; otherwise showing that nothing is
/// worth more takes a walk as long as the listing itself, which then does it instead.
const MAXIMUM_BUDGET: u64 = 1 << 15;

// Tests set a small budget to see the search by levels and the listing take turns.
limit_set_by_tests!(fn maximum_budget() -> u64 = MAXIMUM_BUDGET; MAXIMUM_BUDGET_IN_TESTS);

/// What the search for the majority rule's maximum found.
#[derive(Clone, Copy)]
enum Maximum {
    /// The maximum.
    Exact(u32),
    /// A lower bound (the search gave up).
    AtLeast(u32),
    /// The caller stopped the search.
    Stopped,
}

/// The majority rule's maximum, or a lower bound of it: the value of the most valuable capture
/// found. The walk stops as soon as a capture is worth all that some piece can reach, or when it
/// has made `MAXIMUM_BUDGET` jumps, and skips pieces that cannot beat the best found (the search
/// by levels may then settle it: see `captures`).
fn majority_maximum<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    capturers: &[Capturer<B>],
    stop: Until<'_>,
    jumps: &mut u64,
) -> Maximum {
    let ceiling = capturers.iter().map(|c| c.reach.value).max().unwrap_or(0);
    let whole = capturers
        .iter()
        .filter(|c| c.king && c.reach.value == ceiling);
    for c in whole {
        if takes_all_it_reaches(rules, pos, c) {
            return Maximum::Exact(ceiling);
        }
    }
    let mut sink = MaxSink { best: 0, ceiling };
    let mut order: Vec<&Capturer<B>> = capturers.iter().collect();
    order.sort_by_key(|c| std::cmp::Reverse(c.reach.value));
    let walk = Walk {
        merge: true,
        filter: RouteFilter::Any,
        stop,
    };
    let mut search = Search::<_, _, true, false>::new(rules, pos, &mut sink, walk);
    search.budget = maximum_budget();
    for piece in order {
        if piece.reach.value <= search.sink.best || search.sink.best >= ceiling {
            break;
        }
        search.walk_piece(
            piece.sq,
            piece.king,
            Some(&piece.reach),
            start(pos, piece.sq),
        );
    }
    *jumps += search.visits;
    if search.stopped {
        return Maximum::Stopped;
    }
    let gave_up = search.over_budget() && sink.best < ceiling;
    if gave_up {
        Maximum::AtLeast(sink.best)
    } else {
        Maximum::Exact(sink.best)
    }
}

/// Matchings the pairing test may make, before the search for the majority rule's maximum, to
/// find a capture of all that a king can reach: that search may walk tens of thousands of
/// jumps before it finds one, or give up (universal seed 23: 32,768 jumps, then the search by
/// levels; the pairing test finds one within 128 matchings).
const WHOLE_REACH_PAIRING_BUDGET: u32 = 128;

// Tests turn it off to see the search for the maximum give up.
limit_set_by_tests!(fn whole_reach_pairing_budget() -> u32 = WHOLE_REACH_PAIRING_BUDGET; WHOLE_REACH_BUDGET_IN_TESTS);

/// Whether the pairing test finds a legal capture of the king `c` that takes every piece it
/// can reach (then no capture of it is worth more).
fn takes_all_it_reaches<B: Bits>(rules: &Rules<B>, pos: &Position<B>, c: &Capturer<B>) -> bool {
    let us = pos.side.index();
    let mut budget = whole_reach_pairing_budget();
    if budget == 0 || !pairing_captures_are_legal(rules, us) {
        return false;
    }
    let start = start(pos, c.sq);
    let enemy = start.capturable;
    let graph = JumpGraph::new(rules, us, start.occupied, enemy, enemy & pos.kings);
    let pairing = Pairing::new(rules.next.len(), graph.jumps());
    let found = pairing.capture(c.reach.pieces, c.sq, c.reach.landings, &mut budget);
    #[cfg(test)]
    WHOLE_REACH_IN_TESTS.with(|w| w.set(w.get() + u64::from(found.is_some())));
    found.is_some()
}

// Tests count the maxima it settles.
#[cfg(test)]
thread_local! {
    static WHOLE_REACH_IN_TESTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// At most this many pieces within a king's reach that the search by levels and the listing
/// leave out. The targeted walks of short leaps are cut short by the trail bound as well (some
/// 25 jumps each in Turkthic II's worst row), and pay for a piece more than those of flying
/// kings (a third piece made International's rows twice as slow).
fn most_left_out<B: Bits>(rules: &Rules<B>) -> u32 {
    if rules.king_captures_fly {
        2
    } else {
        3
    }
}

/// At most this many walks of kings the search by levels may make.
const MOST_LEVEL_WALKS: usize = 1024;

/// Jumps the first turn of the search by levels may make (see `captures`). Its targeted walks
/// pay where a level's sets are soon settled; where many sets of left-out pieces must each be
/// shown impossible they cost far more than the listing they save (a universal position of a
/// game's material, 48 moves: 203,607 jumps of levels, 330 ms in all; 37 ms without them).
/// Where the maximum is worth knowing, a listing without it can cost far more: another
/// universal position needs 32,768 to 49,152 jumps of levels, and without them its listing
/// made 18.2 million jumps (1.0 s against 0.17-0.24 s). docs/performance.md, fifteenth and
/// sixteenth sessions.
const FIRST_LEVELS_BUDGET: u64 = 1 << 14;

// Tests set a small budget to see the turns of levels and listings given up.
limit_set_by_tests!(fn first_levels_budget() -> u64 = FIRST_LEVELS_BUDGET; LEVELS_BUDGET_IN_TESTS);

/// In each turn the listing may make this many times the jumps the levels could: a jump of the
/// levels' targeted walks (the jump graph and the parity test at every state) costs several of
/// the listing's, and with 8 a universal row whose levels are hopeless and whose listing makes
/// 3.9 million jumps took 3.6 times as long (docs/performance.md, sixteenth session).
const LISTING_SHARE: u64 = 64;

/// Each turn both may make this many times the jumps of the last.
const TURN_GROWTH: u64 = 4;

/// What the search by levels found.
enum Levels {
    /// The maximum, or the caller stopped it.
    Found(Maximum),
    /// No search by levels is possible here (some king could leave out pieces of unequal
    /// values, or too many).
    NotPossible,
    /// It made more jumps than its budget.
    GaveUp,
}

/// The sets of pieces a capture of the king `piece` worth exactly `value` must leave out of its
/// reach, when every piece within its reach is worth the same (`None` otherwise, or when it
/// would leave out more than `most_left_out`).
fn left_out_sets<B: Bits>(
    rules: &Rules<B>,
    piece: &Capturer<B>,
    value: u32,
    enemy_kings: B,
) -> Option<Vec<B>> {
    // The targeted walks pay under deferred removal (or short leaps), where the jump graph and
    // parity cut them short; a flying king's under immediate removal cost more than the walk
    // they replace.
    if rules.removal_changes_captures() {
        return None;
    }
    if piece.reach.value < value {
        return Some(Vec::new());
    }
    let pieces = piece.reach.pieces;
    let kings = pieces & enemy_kings;
    let unit = if kings.is_empty() {
        rules.man_value
    } else if kings == pieces || rules.king_value == rules.man_value {
        rules.king_value
    } else {
        return None;
    };
    if !(piece.reach.value - value).is_multiple_of(unit) {
        return Some(Vec::new());
    }
    let count = (piece.reach.value - value) / unit;
    if count > most_left_out(rules) {
        return None;
    }
    let squares: Vec<u8> = pieces.squares().collect();
    let mut sets = Vec::new();
    choose(&squares, count, B::ZERO, &mut sets);
    Some(sets)
}

/// Every set of `count` squares of `squares`, each added to `chosen`.
fn choose<B: Bits>(squares: &[u8], count: u32, chosen: B, sets: &mut Vec<B>) {
    if count == 0 {
        sets.push(chosen);
        return;
    }
    for (i, &s) in squares.iter().enumerate() {
        choose(&squares[i + 1..], count - 1, chosen | B::bit(s), sets);
    }
}

/// The majority rule's maximum when the search for it gave up at `best`, level by level: for
/// each value above `best` that a capture could have, from the highest, whether some capture is
/// worth it. A king's capture worth less than all it can reach leaves some of those pieces out;
/// for each such set its capture is a targeted walk (every piece still capturable must be
/// taken), which the bounds of `reach` and `parity` cut short. Its kings' walks may make
/// `budget` jumps.
fn maximum_by_levels<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    capturers: &[Capturer<B>],
    best: u32,
    stop: Until<'_>,
    budget: u64,
    jumps: &mut u64,
) -> Levels {
    let enemy_kings = pos.pieces[pos.side.index() ^ 1] & pos.kings;
    // The walks of the levels above `best`: (value, king, pieces left out).
    let mut planned: Vec<(u32, u8, B)> = Vec::new();
    let mut walks = 0;
    // A capture worth `best` is known, so its level is not searched; but should no level above
    // hold one, the listing walks that level. For flying kings, whose targeted walks cost more,
    // the search is not worth making when that level's walks are too many or not possible
    // (Croda's worst row: 8 ms without the search, 20 with it); the walks of short leaps are
    // cheap enough to search the levels above in any case (Modified Gothic: 233 -> 3 ms).
    let lowest = if rules.king_captures_fly {
        best
    } else {
        best + 1
    };
    for piece in capturers.iter().filter(|c| c.king && c.reach.value > best) {
        for value in lowest..=piece.reach.value {
            let Some(sets) = left_out_sets(rules, piece, value, enemy_kings) else {
                return Levels::NotPossible;
            };
            walks += sets.len();
            if value > best {
                planned.extend(sets.into_iter().map(|set| (value, piece.sq, set)));
            }
        }
    }
    if planned.is_empty() || walks > MOST_LEVEL_WALKS {
        return Levels::NotPossible;
    }
    // The highest level first; within one, the kings in the listing's order (a stable sort).
    planned.sort_by_key(|&(value, _, _)| std::cmp::Reverse(value));
    let walk = Walk {
        merge: true,
        filter: RouteFilter::Any,
        stop,
    };
    // Men first: their walks are not targeted, and they set the floor for the kings.
    let mut floor = best;
    for piece in capturers.iter().filter(|c| !c.king) {
        if piece.reach.value <= floor {
            continue;
        }
        let mut sink = MaxSink {
            best: floor,
            ceiling: piece.reach.value,
        };
        let mut search = Search::<_, _, true, false>::new(rules, pos, &mut sink, walk);
        search.walk_piece(piece.sq, false, Some(&piece.reach), start(pos, piece.sq));
        *jumps += search.visits;
        if search.stopped {
            return Levels::Found(Maximum::Stopped);
        }
        floor = sink.best;
    }
    let mut spent = 0;
    for level in planned.chunk_by(|a, b| a.0 == b.0) {
        let value = level[0].0;
        if value <= floor {
            break;
        }
        let mut sink = MaxSink {
            best: 0,
            ceiling: value,
        };
        let mut search = Search::<_, _, true, false>::new(rules, pos, &mut sink, walk);
        search.floor = value;
        search.budget = budget.saturating_sub(spent);
        for &(_, sq, left_out) in level {
            search.walk_without(pos, sq, left_out);
            if search.stopped || search.sink.best >= value || search.over_budget() {
                break;
            }
        }
        *jumps += search.visits;
        spent += search.visits;
        if search.stopped {
            return Levels::Found(Maximum::Stopped);
        }
        let gave_up = search.over_budget();
        // A capture found with pieces left out is one of the full position or the start of
        // one worth more, and no level above holds one: the maximum is this level.
        if sink.best >= value {
            return Levels::Found(Maximum::Exact(value));
        }
        // Whether this level holds a capture is not known.
        if gave_up {
            return Levels::GaveUp;
        }
    }
    Levels::Found(Maximum::Exact(floor))
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
    *jumps += search.visits;
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
    let exact = match maximum {
        Maximum::Exact(max) => {
            search.floor = max;
            true
        }
        Maximum::AtLeast(bound) => {
            search.floor = bound;
            false
        }
        Maximum::Stopped => return Listing::Stopped,
    };
    let enemy_kings = pos.pieces[pos.side.index() ^ 1] & pos.kings;
    for piece in capturers {
        if piece.reach.value < search.floor {
            continue;
        }
        // A king that can reach more than the maximum: one targeted walk per set of pieces
        // its legal captures leave out (a listing only: counts need every state).
        let left_out = if exact && piece.king && !S::COUNTS && piece.reach.value > search.floor {
            left_out_sets(rules, piece, search.floor, enemy_kings)
        } else {
            None
        };
        // A piece's moves are put in one order, whichever walk lists them.
        let mark = search.sink.mark();
        match left_out {
            Some(sets) => {
                for left_out in sets {
                    search.walk_without(pos, piece.sq, left_out);
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
    *jumps += search.visits;
    if search.stopped {
        Listing::Stopped
    } else if search.over_budget() {
        Listing::OverBudget
    } else {
        Listing::Complete
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::movegen::sink::{CountSink, DetailSink, ListSink};
    use crate::movegen::testing::{all_variants, crowded};
    use crate::mv::{Move, MoveDetail};

    /// The variants whose listings may go by left-out sets: the majority rule, and deferred
    /// removal or kings that make short leaps (for which both removals are one).
    fn deferred_majority() -> Vec<Rules<u128>> {
        all_variants()
            .into_iter()
            .filter(|r| r.majority && !r.removal_changes_captures())
            .collect()
    }

    /// The distinct captures and the majority rule's maximum by the walk that enumerates every
    /// sequence (the oracle), or `None` if it takes too long.
    fn enumerated(rules: &Rules<u128>, pos: &Position<u128>) -> Option<(HashSet<Move<u128>>, u32)> {
        let mut list = Vec::new();
        let mut sink = ListSink::new(&mut list, true);
        let walk = Walk {
            merge: false,
            filter: RouteFilter::Any,
            stop: Until::deadline(Instant::now() + Duration::from_secs(2)),
        };
        let walked = generate_captures(rules, pos, &mut sink, walk, capturing(rules, pos));
        let best = sink.best;
        walked.complete.then(|| (list.into_iter().collect(), best))
    }

    /// A position of a test, with its distinct captures and maximum by the enumerating walk.
    struct Case<'a> {
        seed: u64,
        rules: &'a Rules<u128>,
        pos: Position<u128>,
        capturing: Capturing<u128>,
        expected: HashSet<Move<u128>>,
        max: u32,
    }

    /// Per seed, a crowded position of the variants in turn (`pieces(seed)` pieces, drawn with
    /// `mix`) whose side to move must capture; those the enumerating walk cannot walk in time
    /// are left out.
    fn cases<'a>(
        variants: &'a [Rules<u128>],
        seeds: std::ops::Range<u64>,
        mix: u64,
        pieces: impl Fn(u64) -> usize + 'a,
    ) -> impl Iterator<Item = Case<'a>> + 'a {
        seeds.filter_map(move |seed| {
            let rules = &variants[seed as usize % variants.len()];
            let pos = crowded(rules, seed.wrapping_mul(mix), pieces(seed));
            let capturing = capturing(rules, &pos);
            if capturing.is_empty() {
                return None;
            }
            let (expected, max) = enumerated(rules, &pos)?;
            Some(Case {
                seed,
                rules,
                pos,
                capturing,
                expected,
                max,
            })
        })
    }

    /// Hands the captures `merged_captures` lists from `maximum`, without a budget, to `sink`.
    fn list_into<S: Sink<u128>>(
        case: &Case,
        capturers: &[Capturer<u128>],
        maximum: Maximum,
        sink: &mut S,
    ) {
        let walk = Walk {
            merge: true,
            ..Walk::default()
        };
        merged_captures::<_, _, false>(
            case.rules, &case.pos, sink, walk, capturers, maximum, NO_BUDGET, &mut 0,
        );
    }

    /// The moves `merged_captures` lists from `maximum`, without a budget.
    fn listed(case: &Case, capturers: &[Capturer<u128>], maximum: Maximum) -> Vec<Move<u128>> {
        let mut list = Vec::new();
        list_into(
            case,
            capturers,
            maximum,
            &mut ListSink::new(&mut list, true),
        );
        list
    }

    fn detail_sink(merge: bool) -> DetailSink<u128> {
        DetailSink {
            list: Vec::new(),
            best: 0,
            merge,
            listed: Default::default(),
        }
    }

    /// `listed`, with routes (each move's first).
    fn listed_with_routes(
        case: &Case,
        capturers: &[Capturer<u128>],
        maximum: Maximum,
    ) -> Vec<Move<u128>> {
        let mut sink = detail_sink(true);
        list_into(case, capturers, maximum, &mut sink);
        sink.list.iter().map(|d| d.mv).collect()
    }

    /// Lists the case's captures with routes from its maximum, keeping every route handed over
    /// (not only each move's first), and asserts that the moves are the case's and that every
    /// route is a sequence the enumerating walk walks. Returns the routes checked, or `None`
    /// where the enumerating walk does not finish in time.
    fn routes_walked(case: &Case, capturers: &[Capturer<u128>]) -> Option<usize> {
        let (rules, pos, seed) = (case.rules, &case.pos, case.seed);
        let id = &rules.variant().id;
        let route = |d: &MoveDetail<u128>| (d.mv, d.path.clone(), d.captures.clone());
        let mut every = detail_sink(false);
        let walk = Walk {
            merge: false,
            filter: RouteFilter::Any,
            stop: Until::deadline(Instant::now() + Duration::from_secs(2)),
        };
        if !generate_captures(rules, pos, &mut every, walk, case.capturing).complete {
            return None;
        }
        let walked: HashSet<_> = every.list.iter().map(route).collect();
        let mut sink = detail_sink(false);
        list_into(case, capturers, Maximum::Exact(case.max), &mut sink);
        let listed: HashSet<Move<u128>> = sink.list.iter().map(|d| d.mv).collect();
        assert_eq!(listed, case.expected, "{id} {seed}: the moves with routes");
        for d in &sink.list {
            assert!(
                walked.contains(&route(d)),
                "{id} {seed}: {d:?} is no route walked"
            );
        }
        Some(sink.list.len())
    }

    /// Asserts that `list` holds each of the case's moves once and nothing else.
    fn assert_lists_expected(list: &[Move<u128>], case: &Case, what: &str) {
        let got: HashSet<Move<u128>> = list.iter().copied().collect();
        let id = &case.rules.variant().id;
        let seed = case.seed;
        assert_eq!(got.len(), list.len(), "{id} {seed}: a move listed twice");
        assert_eq!(got, case.expected, "{id} {seed}: {what}");
    }

    /// Positions where a king's every legal capture takes all it can reach, under either
    /// removal: the targeted listing (which stops once every end is listed and leaves states
    /// from which no end not yet listed can be reached) against the enumerating walk. In two
    /// halves, which the test harness runs side by side.
    #[test]
    fn targeted_walks_list_what_the_enumerating_walk_lists() {
        targeted_walks(0..3000);
    }

    #[test]
    fn targeted_walks_list_what_the_enumerating_walk_lists_second_half() {
        targeted_walks(3000..6000);
    }

    fn targeted_walks(seeds: std::ops::Range<u64>) {
        let variants: Vec<Rules<u128>> =
            all_variants().into_iter().filter(|r| r.majority).collect();
        let mut targeted = [0; 2];
        for case in cases(&variants, seeds, 0xD1B5_4A32_D192_ED03, |seed| {
            10 + seed as usize % 16
        }) {
            let (seed, rules, max) = (case.seed, case.rules, case.max);
            // Under immediate removal: every other position with dives in turns of 4, 8, 16...
            // jumps, half of those with the budget looked at every jump (not every 1,024), one
            // dive in three that forgets what it expanded after a few nodes, and one position
            // in four with layered walks too big after a few arrivals (given back to the
            // merged walk, or the dive goes on alone).
            let turn = if seed % 2 == 0 { FIRST_DIVE_TURN } else { 4 };
            FIRST_DIVE_TURN_IN_TESTS.with(|b| b.set(turn));
            let check = if seed % 4 == 1 {
                1
            } else {
                layers::STOP_CHECK_EVERY
            };
            layers::STOP_CHECK_IN_TESTS.with(|c| c.set(check));
            let nodes = if seed % 3 == 2 { 4 } else { usize::MAX };
            layers::dive::MOST_NODES_IN_TESTS.with(|m| m.set(nodes));
            let arrivals = if seed % 4 == 3 { 8 } else { usize::MAX };
            crate::movegen::layers::MAX_ARRIVALS_IN_TESTS.with(|m| m.set(arrivals));
            // One position in three asks the pairing test at the first state (deferred
            // removal): the ends it takes from the walk must be none a capture ends on.
            let pairing = if seed % 3 == 1 { 0 } else { PAIRING_AFTER };
            PAIRING_AFTER_IN_TESTS.with(|p| p.set(pairing));
            let capturers = capturers(rules, &case.pos, case.capturing);
            // Walks with at least two jumps to go (the targeted tests start after two).
            if capturers
                .iter()
                .any(|c| c.king && c.reach.value == max && max >= 3 * rules.man_value)
            {
                targeted[usize::from(rules.immediate_removal)] += 1;
            }
            let list = listed(&case, &capturers, Maximum::Exact(max));
            assert_lists_expected(&list, &case, "the listing");
            // A list with routes (the dive finds them backwards).
            let list = listed_with_routes(&case, &capturers, Maximum::Exact(max));
            assert_lists_expected(&list, &case, "the listing with routes");
        }
        // Each half must reach these (the whole, 100 of each kind and 50, 20, 3 dives, at
        // least).
        assert!(
            targeted.iter().all(|&n| n >= 50),
            "targeted walks (deferred, immediate removal): {targeted:?}"
        );
        // Dives that list every end, that hand over to the layered walk, and that go on alone.
        let dives = DIVES_IN_TESTS.with(|d| d.get());
        assert!(
            dives[0] >= 25 && dives[1] >= 10 && dives[2] >= 2,
            "dives (done, handed over, alone): {dives:?}"
        );
    }

    /// Dives under the 180° rule on sparse boards, against the enumerating walk: there a
    /// square reached along two directions may go on only along the one its first arrival
    /// forbade, and few other routes make up for a jump the dive would leave out. Their routes
    /// too.
    #[test]
    fn dives_under_the_180_degree_rule_list_what_the_enumerating_walk_lists() {
        let variants: Vec<Rules<u128>> = all_variants()
            .into_iter()
            .filter(|r| {
                r.majority && r.no_reversal && r.removal_changes_captures() && r.king_captures_fly
            })
            .collect();
        let before = DIVES_IN_TESTS.with(|d| d.get());
        let (mut dived, mut routed) = (0, 0);
        for case in cases(&variants, 0..20000, 0x9E6C_63D0_676A_9A99, |seed| {
            4 + seed as usize % 9
        }) {
            let capturers = capturers(case.rules, &case.pos, case.capturing);
            let max = case.max;
            if !capturers
                .iter()
                .any(|c| c.king && c.reach.value == max && max >= 3 * case.rules.man_value)
            {
                continue;
            }
            dived += 1;
            let list = listed(&case, &capturers, Maximum::Exact(max));
            assert_lists_expected(&list, &case, "the dive");
            // Every route the dive hands over is a sequence the enumerating walk walks.
            routed += routes_walked(&case, &capturers).unwrap_or(0);
        }
        let after = DIVES_IN_TESTS.with(|d| d.get());
        assert!(dived >= 1000, "{dived} positions with a dive");
        assert!(routed >= 1000, "{routed} routes checked");
        assert!(after[0] - before[0] >= 1000, "dives: {after:?}");
    }

    /// The pairing test against the enumerating walk: where every legal capture of a king takes
    /// all it can reach (deferred removal), every square such a capture ends on is among those
    /// the test keeps, which are among those parity keeps, and on some positions fewer.
    #[test]
    fn the_pairing_test_keeps_every_square_a_capture_ends_on() {
        let variants = deferred_majority();
        let (mut kings, mut fewer) = (0, 0);
        for case in cases(&variants, 0..3000, 0x2545_F491_4F6C_DD1D, |seed| {
            8 + seed as usize % 14
        }) {
            let (rules, pos) = (case.rules, &case.pos);
            let id = &rules.variant().id;
            let us = pos.side.index();
            let enemy = pos.pieces[us ^ 1];
            let size = rules.next.len();
            for c in capturers(rules, pos, case.capturing)
                .iter()
                .filter(|c| c.king && c.reach.value == case.max)
            {
                let occupied = start(pos, c.sq).occupied;
                let graph = JumpGraph::new(rules, us, occupied, enemy, enemy & pos.kings);
                let mut span = JumpSpan::new(size, graph.jumps());
                span.make(c.reach.pieces);
                let by_parity = span.possible_ends(c.sq, c.reach.landings);
                let mut budget = u32::MAX;
                let by_pairing = Pairing::new(size, graph.jumps()).possible_ends(
                    c.reach.pieces,
                    c.sq,
                    c.reach.landings,
                    &mut budget,
                );
                let ends = case
                    .expected
                    .iter()
                    .filter(|m| m.from == c.sq)
                    .fold(0u128, |acc, m| acc | 1 << m.to);
                let seed = case.seed;
                assert_eq!(ends & !by_pairing, 0, "{id} {seed}: an end left out");
                assert_eq!(
                    by_pairing & !by_parity,
                    0,
                    "{id} {seed}: an end parity rules out"
                );
                kings += 1;
                fewer += usize::from(by_pairing != by_parity);
            }
        }
        assert!(
            kings >= 500 && fewer >= 100,
            "kings {kings}, fewer ends {fewer}"
        );
    }

    /// Captures the pairing test hands over (its jumps one trail, asked at the first state):
    /// the list with routes against the enumerating walk's sequences, every route one of them.
    #[test]
    fn captures_the_pairing_test_finds_have_routes_the_enumerating_walk_walks() {
        let variants = deferred_majority();
        PAIRING_AFTER_IN_TESTS.with(|p| p.set(0));
        WITNESSES_IN_TESTS.with(|w| w.set(0));
        for case in cases(&variants, 0..2000, 0x5851_F42D_4C95_7F2D, |seed| {
            8 + seed as usize % 12
        }) {
            // Every other position asks it at every state, not only near the start.
            let depth = if case.seed % 2 == 0 {
                PAIRING_DEPTH
            } else {
                MAX_JUMPS as u32
            };
            PAIRING_DEPTH_IN_TESTS.with(|d| d.set(depth));
            let capturers = capturers(case.rules, &case.pos, case.capturing);
            routes_walked(&case, &capturers);
        }
        PAIRING_AFTER_IN_TESTS.with(|p| p.set(PAIRING_AFTER));
        PAIRING_DEPTH_IN_TESTS.with(|d| d.set(PAIRING_DEPTH));
        let witnesses = WITNESSES_IN_TESTS.with(|w| w.get());
        assert!(
            witnesses >= 100,
            "captures the pairing test found: {witnesses}"
        );
    }

    /// Positions where a king can reach more than the maximum and its listing goes by left-out
    /// sets: the listing and the search by levels against the enumerating walk.
    #[test]
    fn left_out_sets_list_what_the_enumerating_walk_lists() {
        let variants = deferred_majority();
        let ids: Vec<&str> = variants.iter().map(|r| r.variant().id.as_str()).collect();
        for id in [
            "universal",
            "international",
            "babylonian",
            "hoogland-10",
            "gothic",
            "modified-gothic",
            "turkthic-2",
        ] {
            assert!(ids.contains(&id), "{id} is missing from {ids:?}");
        }
        // Flying kings, short leaps.
        let (mut by_sets, mut levelled, mut given_up) = ([0; 2], [0; 2], 0);
        for case in cases(&variants, 0..4800, 0x9E37_79B9_7F4A_7C15, |seed| {
            6 + seed as usize % 7
        }) {
            let (seed, rules, pos, max) = (case.seed, case.rules, &case.pos, case.max);
            let id = &rules.variant().id;
            let capturers = capturers(rules, pos, case.capturing);
            let enemy_kings = pos.pieces[1] & pos.kings;
            if capturers.iter().any(|c| {
                c.king && c.reach.value > max && left_out_sets(rules, c, max, enemy_kings).is_some()
            }) {
                by_sets[usize::from(!rules.king_captures_fly)] += 1;
            }
            let list = listed(&case, &capturers, Maximum::Exact(max));
            assert_lists_expected(&list, &case, "the listing");
            // The search by levels, from a value some capture may not have; one position in
            // three with a budget of a few jumps, given up, and the listing from that value.
            let budget = if seed % 3 == 2 { 6 } else { NO_BUDGET };
            let unit = rules.man_value.min(rules.king_value);
            for best in (max.saturating_sub(2 * unit)..=max).step_by(unit as usize) {
                let levels =
                    maximum_by_levels(rules, pos, &capturers, best, Until::NEVER, budget, &mut 0);
                match levels {
                    Levels::Found(Maximum::Exact(found)) => {
                        assert_eq!(found, max, "{id} {seed}: the maximum from {best}");
                        levelled[usize::from(!rules.king_captures_fly)] += 1;
                    }
                    Levels::Found(_) => panic!("stopped"),
                    Levels::GaveUp => {
                        assert!(budget < NO_BUDGET, "{id} {seed}: gave up");
                        let got: HashSet<Move<u128>> =
                            listed(&case, &capturers, Maximum::AtLeast(best))
                                .into_iter()
                                .collect();
                        assert_eq!(
                            got, case.expected,
                            "{id} {seed}: the listing from {best}, the levels given up"
                        );
                        given_up += 1;
                    }
                    Levels::NotPossible => {}
                }
            }
        }
        assert!(given_up >= 100, "searches by levels given up: {given_up}");
        assert!(
            by_sets[0] >= 1000 && by_sets[1] >= 100,
            "listings by left-out sets (flying kings, short leaps): {by_sets:?}"
        );
        assert!(
            levelled[0] >= 2000 && levelled[1] >= 500,
            "searches by levels (flying kings, short leaps): {levelled:?}"
        );
    }

    /// Positions of the variants whose captures the pairing test builds (deferred removal or
    /// short leaps, the majority rule, no halt rule): where it finds a capture of all that a
    /// king can reach before the search for the maximum, the maximum it gives is the
    /// enumerating walk's, and so are the moves listed from it.
    #[test]
    fn a_capture_of_a_whole_reach_found_by_pairing_is_the_maximum() {
        let variants: Vec<Rules<u128>> = deferred_majority()
            .into_iter()
            .filter(|r| pairing_captures_are_legal(r, 0) && pairing_captures_are_legal(r, 1))
            .collect();
        let (mut settled, mut positions) = (0, 0);
        for case in cases(&variants, 0..2000, 0x94D0_49BB_1331_11EB, |seed| {
            8 + seed as usize % 14
        }) {
            let (seed, rules, pos) = (case.seed, case.rules, &case.pos);
            let id = &rules.variant().id;
            let capturers = capturers(rules, pos, case.capturing);
            positions += 1;
            let before = WHOLE_REACH_IN_TESTS.with(|w| w.get());
            let maximum = majority_maximum(rules, pos, &capturers, Until::NEVER, &mut 0);
            if WHOLE_REACH_IN_TESTS.with(|w| w.get()) == before {
                continue;
            }
            settled += 1;
            let Maximum::Exact(max) = maximum else {
                panic!("{id} {seed}: a capture of a whole reach leaves the maximum open");
            };
            assert_eq!(max, case.max, "{id} {seed}: the maximum");
            assert_lists_expected(&listed(&case, &capturers, maximum), &case, "the listing");
        }
        assert!(
            settled >= 100,
            "maxima settled by pairing: {settled} of {positions} positions"
        );
    }

    /// Positions whose search for the maximum gives up (its budget and the plain walk's cut to
    /// a few jumps), in the variants where the search by levels is possible, so that it and the
    /// listing take turns; with a first
    /// budget of two jumps, turns are given up and taken again. The distinct moves, and the
    /// number of sequences (to which a listing given up and not forgotten would add its own),
    /// against the enumerating walk.
    #[test]
    fn levels_and_listings_by_turns_list_what_the_enumerating_walk_lists() {
        PLAIN_WALK_BUDGET_IN_TESTS.with(|b| b.set(4));
        MAXIMUM_BUDGET_IN_TESTS.with(|b| b.set(32));
        LEVELS_BUDGET_IN_TESTS.with(|b| b.set(1));
        // The search for the maximum must give up: no capture of a whole reach found first.
        WHOLE_REACH_BUDGET_IN_TESTS.with(|b| b.set(0));
        // Where the search by levels is possible.
        let variants = deferred_majority();
        let merged = Walk {
            merge: true,
            ..Walk::default()
        };
        let mut taken_again = 0;
        for case in cases(&variants, 0..3000, 0xA24B_AED4_963E_E407, |seed| {
            8 + seed as usize % 10
        }) {
            let (seed, rules, pos, capturing) = (case.seed, case.rules, &case.pos, case.capturing);
            let mut every = CountSink::default();
            let enumerating = Walk {
                merge: false,
                ..Walk::default()
            };
            generate_captures(rules, pos, &mut every, enumerating, capturing);
            let id = &rules.variant().id;

            let mut list = Vec::new();
            let mut sink = ListSink::new(&mut list, true);
            assert!(generate_captures(rules, pos, &mut sink, merged, capturing).complete);
            assert_lists_expected(&list, &case, "the listing");
            let mut counted = CountSink::default();
            generate_captures(rules, pos, &mut counted, merged, capturing);
            assert_eq!(
                (counted.best, counted.count),
                (case.max, every.count),
                "{id} {seed}: the count of sequences"
            );

            // Whether the first turn was given up: the levels and the listing over budget.
            let capturers = capturers(rules, pos, capturing);
            if !capturers.iter().any(|c| c.king) {
                continue;
            }
            let first = majority_maximum(rules, pos, &capturers, Until::NEVER, &mut 0);
            let Maximum::AtLeast(best) = first else {
                continue;
            };
            let budget = first_levels_budget();
            let levels =
                maximum_by_levels(rules, pos, &capturers, best, Until::NEVER, budget, &mut 0);
            if matches!(levels, Levels::GaveUp) {
                let mut part = CountSink::default();
                let listing = merged_captures::<_, _, false>(
                    rules,
                    pos,
                    &mut part,
                    merged,
                    &capturers,
                    first,
                    budget * LISTING_SHARE,
                    &mut 0,
                );
                taken_again += usize::from(listing == Listing::OverBudget);
            }
        }
        PLAIN_WALK_BUDGET_IN_TESTS.with(|b| b.set(PLAIN_WALK_BUDGET));
        MAXIMUM_BUDGET_IN_TESTS.with(|b| b.set(MAXIMUM_BUDGET));
        LEVELS_BUDGET_IN_TESTS.with(|b| b.set(FIRST_LEVELS_BUDGET));
        WHOLE_REACH_BUDGET_IN_TESTS.with(|b| b.set(WHOLE_REACH_PAIRING_BUDGET));
        assert!(
            taken_again >= 100,
            "positions with a second turn: {taken_again}"
        );
    }
}
