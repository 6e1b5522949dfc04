//! What a targeted walk aims at (the pieces every legal capture takes, the squares it may
//! still end on, the pieces it could take last) and how it asks the pairing test.

use super::*;

/// The aim of a targeted walk (see the documentation of `capture`).
pub(super) struct Target<B: Bits> {
    /// What the capture is worth.
    pub(super) value: u32,
    /// The pieces every legal capture takes.
    pub(super) needed: B,
    /// Squares where a legal capture may end and none listed yet does.
    pub(super) open_ends: B,
    /// Pieces behind which the capture could end on an open end: tried last.
    pub(super) saved: B,
    /// The squares the capture's last jump leaves occupied: the pieces it does not take and
    /// (under deferred removal) those it takes.
    pub(super) blocked: B,
    /// Pieces the capture could take last to end on an open end (see `last_jumps`), and per
    /// such piece, those it could take just before it.
    pub(super) last: B,
    pub(super) before_last: Vec<B>,
}

impl<B: Bits> Target<B> {
    /// The aim of a king's captures worth `value`, all it can reach (`reach`), from `start`
    /// (`ends_changed` completes it).
    pub(super) fn new(rules: &Rules<B>, reach: &Reach<B>, value: u32, start: Jumper<B>) -> Self {
        // What stands on the board at the last jump is never landed on: under immediate
        // removal the pieces the king cannot reach stay (a first reach lets it land where any
        // piece it might take stands; a settled one, as `capturers` gives, already does not).
        let blocked = if rules.removal_changes_captures() {
            start.occupied & !reach.pieces
        } else {
            start.occupied
        };
        Target {
            value,
            needed: reach.pieces,
            open_ends: reach.landings & !blocked,
            saved: B::ZERO,
            blocked,
            last: B::ZERO,
            before_last: Vec::new(),
        }
    }

    /// What the layered walk and the dive aim at.
    pub(super) fn aim(&self) -> Aim<B> {
        Aim {
            needed: self.needed,
            open_ends: self.open_ends,
            last: self.last,
            before_last: self.before_last.clone(),
        }
    }

    /// Brings what depends on the open ends up to date.
    pub(super) fn ends_changed(
        &mut self,
        rules: &Rules<B>,
        us: usize,
        graph: Option<&JumpGraph<B>>,
    ) {
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
pub(super) fn last_pieces<B: Bits>(
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
pub(super) fn pairing_captures_are_legal<B: Bits>(rules: &Rules<B>, us: usize) -> bool {
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

impl<'a, B: Bits, S: Sink<B>, const MERGE: bool, const FILTER: bool>
    Search<'a, B, S, MERGE, FILTER>
{
    /// Takes from the open ends of a targeted walk under deferred removal those where the
    /// pairing test says no capture of all its pieces can end (the walk would have to be walked
    /// to its end to find that none does). The test does not change during the walk, so it is
    /// asked again only when its budget ran out.
    #[inline(never)]
    pub(super) fn ask_pairing(&mut self) {
        self.pairing_at = u64::MAX;
        self.pairing_states = true;
        let witnesses = self.witnesses_are_captures();
        let (Some(target), Some(graph)) = (&self.target, &self.graph) else {
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
        self.charge_matchings(self.pairing_budget - budget);
        let possible = settled.possible;
        if budget == 0 {
            let walked = self.walk_work() - self.pairing_from_work;
            let most = u32::try_from(walked / JUMPS_PER_MATCHING).unwrap_or(u32::MAX);
            self.pairing_budget = (self.pairing_budget.saturating_mul(4))
                .min(most)
                .max(FIRST_PAIRING_BUDGET);
            self.pairing_at = self
                .walk_work()
                .saturating_add(pairing_after().saturating_mul(2));
        }
        if let Some(target) = self.target.as_mut().filter(|t| t.open_ends != possible) {
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
    pub(super) fn pairing_from(&mut self, j: &Jumper<B>) -> bool {
        let witnesses = self.witnesses_are_captures();
        let (Some(target), Some(pairing)) = (&self.target, &self.pairing) else {
            return false;
        };
        let needed = target.needed & !j.captured;
        let mut budget = STATE_PAIRING_BUDGET;
        let settled = pairing.settle(needed, j.sq, target.open_ends, &mut budget, witnesses);
        self.charge_matchings(STATE_PAIRING_BUDGET - budget);
        for witness in &settled.witnesses {
            self.emit_witness(witness, j.jumps as usize);
        }
        let open_ends = self.target.as_ref().map_or(B::ZERO, |t| t.open_ends);
        (settled.possible & open_ends).is_empty()
    }

    /// Counts `matchings` of the pairing test as the jumps they cost.
    fn charge_matchings(&mut self, matchings: u32) {
        let cost = u64::from(matchings) * MATCHING_COST;
        self.visits += cost;
        self.charged += cost;
        self.matchings_charged += cost;
    }

    /// Whether the captures the pairing test builds are handed to the sink as they are (see
    /// `pairing_captures_are_legal`; a route filter wants them walked).
    pub(super) fn witnesses_are_captures(&self) -> bool {
        !FILTER && pairing_captures_are_legal(self.rules, self.us)
    }

    /// Hands a capture the pairing test found to the sink, as `emit` does a walked one: the
    /// first `after` jumps of the walk's route, then the witness's (every piece still needed, in
    /// one trail).
    pub(super) fn emit_witness(&mut self, witness: &Witness, after: usize) {
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
}
