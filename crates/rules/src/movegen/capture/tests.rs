//! The capture walks against the enumerating walk (every sequence), on crowded positions of
//! every variant, with budgets and turns made small so that every pass and hand-over is seen.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::listing::{
    DIVES_IN_TESTS, FIRST_DIVE_TURN, FIRST_DIVE_TURN_IN_TESTS, FIRST_LEFT_OUT_TURN,
    FIRST_LEFT_OUT_TURN_IN_TESTS,
};
use super::maximum::{
    MAXIMUM_BUDGET, MAXIMUM_BUDGET_IN_TESTS, WHOLE_REACH_BUDGET_IN_TESTS, WHOLE_REACH_IN_TESTS,
    WHOLE_REACH_PAIRING_BUDGET,
};
use super::*;
use crate::movegen::sink::{CountSink, DetailSink, ListSink};
use crate::movegen::testing::{all_variants, crowded};
use crate::mv::{Move, MoveDetail};
use crate::Color;

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
    let variants: Vec<Rules<u128>> = all_variants().into_iter().filter(|r| r.majority).collect();
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
        // Half the listings begin with turns of one jump, so that the targeted walks list
        // too, after an untargeted walk given up (`Search::list_leaving_out`).
        let turn = if seed % 2 == 0 {
            1
        } else {
            FIRST_LEFT_OUT_TURN
        };
        FIRST_LEFT_OUT_TURN_IN_TESTS.with(|t| t.set(turn));
        let list = listed(&case, &capturers, Maximum::Exact(max));
        FIRST_LEFT_OUT_TURN_IN_TESTS.with(|t| t.set(FIRST_LEFT_OUT_TURN));
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
        // Half the listings begin with turns of one jump, so that the targeted walks list
        // too, after an untargeted walk given up (`Search::list_leaving_out`).
        let turn = if seed % 2 == 0 {
            1
        } else {
            FIRST_LEFT_OUT_TURN
        };
        FIRST_LEFT_OUT_TURN_IN_TESTS.with(|t| t.set(turn));
        let list = listed(&case, &capturers, Maximum::Exact(max));
        FIRST_LEFT_OUT_TURN_IN_TESTS.with(|t| t.set(FIRST_LEFT_OUT_TURN));
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
        let levels = maximum_by_levels(rules, pos, &capturers, best, Until::NEVER, budget, &mut 0);
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

/// Under immediate removal a piece the king cannot take stays on the board to the end, so no
/// capture ends on its square, and a dive does not aim there. A position of a game's material
/// (Babylonian C, a row of the capture benchmark): White's man on 50, in a corner, has no
/// square behind it along any line, so no capture takes it (§0: a jump lands on an empty
/// square beyond the piece); Black's king on 19 takes the 19 other white pieces. The dive
/// aimed at 50 too, listed every other end, and then handed over to the layered walk to show
/// that no capture ends on 50 (2.7 million jumps).
#[test]
fn a_dive_does_not_aim_where_a_piece_it_cannot_take_stands() {
    let rules = all_variants::<u128>()
        .into_iter()
        .find(|r| r.variant().id == "babylonian-c")
        .unwrap();
    let geometry = &rules.variant().geometry;
    let squares = |numbers: &[usize]| {
        numbers.iter().fold(0u128, |acc, &n| {
            acc | 1 << geometry.numbered(n).unwrap().index()
        })
    };
    let white = squares(&[
        3, 7, 10, 11, 13, 15, 17, 18, 20, 22, 23, 24, 27, 29, 30, 33, 40, 43, 47, 50,
    ]);
    let white_kings = squares(&[3, 7, 11, 13, 15, 20, 23, 24, 33, 40]);
    let black = squares(&[19, 38]);
    let pos = Position {
        pieces: [white, black],
        kings: white_kings | black,
        side: Color::Black,
        hash: 0,
    };
    let corner = geometry.numbered(50).unwrap().index();
    let king = geometry.numbered(19).unwrap().index();
    let capturers = capturers(&rules, &pos, capturing(&rules, &pos));
    let piece = capturers.iter().find(|c| c.sq == king).unwrap();
    assert!(
        !piece.reach.pieces.has(corner),
        "the man on 50 cannot be taken"
    );
    assert_eq!(piece.reach.value, 19);
    let target = Target::new(&rules, &piece.reach, 19, start(&pos, king));
    assert!(
        !target.open_ends.has(corner),
        "a capture cannot end on 50, where White's man stays"
    );
    // The dive lists every end without the layered walk.
    let before = DIVES_IN_TESTS.with(|d| d.get());
    let mut list = Vec::new();
    let walk = Walk {
        merge: true,
        ..Walk::default()
    };
    let mut sink = ListSink::new(&mut list, true);
    merged_captures::<_, _, false>(
        &rules,
        &pos,
        &mut sink,
        walk,
        std::slice::from_ref(piece),
        Maximum::Exact(19),
        NO_BUDGET,
        &mut 0,
    );
    let after = DIVES_IN_TESTS.with(|d| d.get());
    assert_eq!(after[1], before[1], "no dive handed over: {after:?}");
    assert_eq!(after[0], before[0] + 1, "one dive listed it all: {after:?}");
    // Every square but the other black king's and the man's (its own too: the king may come
    // back to it), as `worst_captures --check` found with the enumerating walk and the
    // reference generator.
    let ends: HashSet<u8> = list.iter().map(|m| m.to).collect();
    assert_eq!((list.len(), ends.len()), (48, 48), "{ends:?}");
    assert!(!ends.contains(&corner));
}

/// The reach settled (`settled_reach`) against the enumerating walk: under immediate removal
/// every capture of a king takes only pieces within it, and on some crowded positions it holds
/// fewer pieces than the first reach (a piece no capture takes stays, and a line stops at it).
#[test]
fn a_settled_reach_holds_every_piece_a_capture_takes() {
    let variants: Vec<Rules<u128>> = all_variants()
        .into_iter()
        .filter(|r| r.removal_changes_captures())
        .collect();
    let (mut kings, mut tighter) = (0, 0);
    for case in cases(&variants, 0..6000, 0x5DEE_CE66_D1CE_4E5B, |seed| {
        6 + seed as usize % 14
    }) {
        let us = case.pos.side.index();
        let enemy_kings = case.pos.pieces[us ^ 1] & case.pos.kings;
        for piece in capturers(case.rules, &case.pos, case.capturing) {
            if !piece.king {
                continue;
            }
            kings += 1;
            let start = start(&case.pos, piece.sq);
            let first = reach(
                case.rules,
                us,
                enemy_kings,
                piece.sq,
                start.occupied,
                start.capturable,
            );
            assert_eq!(piece.unsettled, first.value);
            assert_eq!(
                piece.reach.pieces & !first.pieces,
                0,
                "settling only takes away"
            );
            if piece.reach.pieces != first.pieces {
                tighter += 1;
            }
            for m in case.expected.iter().filter(|m| m.from == piece.sq) {
                assert_eq!(
                    m.captured & !piece.reach.pieces,
                    0,
                    "{} {}: a capture of the king on {} takes a piece out of its reach",
                    case.rules.variant().id,
                    case.seed,
                    piece.sq
                );
            }
        }
    }
    assert!(kings >= 1000, "{kings} kings");
    assert!(
        tighter >= 20,
        "{tighter} of {kings} reaches settled to fewer pieces"
    );
}
