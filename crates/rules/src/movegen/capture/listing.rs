//! How a listing hands a piece to the layered walk or, for a flying king that must take all
//! it reaches under immediate removal, to the dive.

use super::*;

/// Jumps of a dive's first turn (see `Search::dive`).
pub(super) const FIRST_DIVE_TURN: u64 = 1 << 15;

// Tests set a small turn to see dives taken up again and handing over to the layered walk.
limit_set_by_tests!(fn first_dive_turn() -> u64 = FIRST_DIVE_TURN; pub(super) FIRST_DIVE_TURN_IN_TESTS);

/// Jumps of the first turn of `Search::list_leaving_out`'s walks; each turn may make this
/// many times the jumps of the last.
pub(super) const FIRST_LEFT_OUT_TURN: u64 = 1 << 12;
const LEFT_OUT_TURN_GROWTH: u64 = 4;

// Tests set a turn of one jump, to see the targeted walks list too.
limit_set_by_tests!(fn first_left_out_turn() -> u64 = FIRST_LEFT_OUT_TURN; pub(super) FIRST_LEFT_OUT_TURN_IN_TESTS);

/// Each turn of a dive may make this many times the jumps of the last (see `Search::dive`).
const DIVE_GROWTH: u64 = 2;

// Tests count the dives: those that list every end or show that none is left, those that hand
// over to the layered walk, and those that go on alone.
#[cfg(test)]
thread_local! {
    pub(super) static DIVES_IN_TESTS: std::cell::Cell<[u64; 3]> = const { std::cell::Cell::new([0; 3]) };
}

#[cfg(test)]
fn count_dive(outcome: usize) {
    DIVES_IN_TESTS.with(|d| {
        let mut counts = d.get();
        counts[outcome] += 1;
        d.set(counts);
    });
}

impl<'a, B: Bits, S: Sink<B>, const MERGE: bool, const FILTER: bool>
    Search<'a, B, S, MERGE, FILTER>
{
    /// Lists the captures of the king `piece` that can reach more than the maximum (the
    /// floor): each leaves out some of the pieces within its reach, one of `sets`. Either one
    /// targeted walk per set, with those pieces left alone (cut short by the jump graph,
    /// parity and the pairing test), or one untargeted walk with the maximum as its floor;
    /// which is cheaper depends on the position (a universal position of a game's material,
    /// 19 sets: the targeted walks 74 ms, the untargeted walk 210,000 jumps, 12 ms; the audit's
    /// rows the other way round, 1.6 ms against 230). So the two take turns, the untargeted
    /// walk first, each within a budget that grows, until one completes (the targeted walks'
    /// pairing test and spans count as the jumps they cost: `charged`). What an unfinished
    /// turn listed is legal (complete, worth the maximum), and the sink lists each move once.
    /// Returns false if stopped or over the listing's budget.
    pub(super) fn list_leaving_out(
        &mut self,
        pos: &Position<B>,
        piece: &Capturer<B>,
        sets: &[B],
    ) -> bool {
        let outer = self.budget;
        let untargeted = !FILTER && layers::serves::<B, S>(self.rules);
        let mut turn = first_left_out_turn();
        loop {
            if untargeted {
                // States the targeted walks left in the memo took some pieces as uncapturable
                // (a layered walk too big for its layers goes on merged).
                if let Some(memo) = &mut self.memo {
                    memo.clear();
                }
                self.budget = outer.min(self.visits.saturating_add(turn));
                let walked = self.walk_layered(pos, piece);
                let over = self.over_budget();
                self.budget = outer;
                if !walked || self.stopped || self.over_budget() {
                    self.listed_before = false;
                    return false;
                }
                if !over {
                    self.listed_before = false;
                    return true;
                }
            }
            if untargeted {
                self.budget = outer.min(self.visits.saturating_add(turn));
            }
            for &left_out in sets {
                self.walk_without(pos, piece.sq, left_out);
                if self.stopped || self.over_budget() {
                    break;
                }
            }
            // What it listed stays in the sink: the next untargeted walk may list it again.
            self.listed_before = true;
            let over = self.over_budget();
            self.budget = outer;
            if self.stopped || self.over_budget() || !over {
                self.listed_before = false;
                return !self.stopped && !self.over_budget();
            }
            turn = turn.saturating_mul(LEFT_OUT_TURN_GROWTH);
        }
    }

    /// Walks the captures of `piece` for a list of moves. When a king's must take all it can
    /// reach, under deferred removal the targeted walk lists them: it stops once every square
    /// they may end on is listed, often within a few thousand jumps, and the jump graph and
    /// parity cut it short where the layered walk would walk far more. Under immediate removal
    /// a dive lists them (`Search::dive`). Other captures go layered. Returns false if
    /// stopped.
    pub(super) fn walk_layered(&mut self, pos: &Position<B>, piece: &Capturer<B>) -> bool {
        let floor = self.value_floor();
        // Dived only where the first reach equals the floor too, unless the maximum is known:
        // a king whose reach comes down to a floor that is only a bound once settled has many
        // captures, and a dive finds their ends slowly (Turkthic `B:WKa1,...`: 346 -> 531 ms
        // dived, docs/capture-trials.md).
        let targeted = piece.king
            && floor > 0
            && piece.reach.value == floor
            && (self.floor_exact || piece.unsettled == floor);
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
    pub(super) fn walk_layers(
        &mut self,
        pos: &Position<B>,
        piece: &Capturer<B>,
        floor: u32,
    ) -> bool {
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
            self.listed_before,
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
    pub(super) fn dive(&mut self, pos: &Position<B>, piece: &Capturer<B>, floor: u32) -> bool {
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
                    false,
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
}
