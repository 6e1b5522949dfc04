//! The majority rule's maximum: a search for the most valuable capture, and, when it gives
//! up, a search level by level over the sets of pieces a king's capture leaves out.

use super::*;

/// Jumps the search for the majority rule's maximum may make. When a capture is worth all that
/// its piece can reach, it is found within a few thousand; otherwise showing that nothing is
/// worth more takes a walk as long as the listing itself, which then does it instead.
pub(super) const MAXIMUM_BUDGET: u64 = 1 << 15;

// Tests set a small budget to see the search by levels and the listing take turns.
limit_set_by_tests!(fn maximum_budget() -> u64 = MAXIMUM_BUDGET; pub(super) MAXIMUM_BUDGET_IN_TESTS);

/// What the search for the majority rule's maximum found.
#[derive(Clone, Copy)]
pub(super) enum Maximum {
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
pub(super) fn majority_maximum<B: Bits>(
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
    *jumps += search.jumps();
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
pub(super) const WHOLE_REACH_PAIRING_BUDGET: u32 = 128;

// Tests turn it off to see the search for the maximum give up.
limit_set_by_tests!(fn whole_reach_pairing_budget() -> u32 = WHOLE_REACH_PAIRING_BUDGET; pub(super) WHOLE_REACH_BUDGET_IN_TESTS);

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
    pub(super) static WHOLE_REACH_IN_TESTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
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

/// What the search by levels found.
pub(super) enum Levels {
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
pub(super) fn left_out_sets<B: Bits>(
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
pub(super) fn maximum_by_levels<B: Bits>(
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
        *jumps += search.jumps();
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
        *jumps += search.jumps();
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
