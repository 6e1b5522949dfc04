//! Property tests of the rules core, for every built-in variant (and one 10x10 all-squares user
//! variant, so that the `u128` instantiation is exercised too).
//!
//! Positions come from random play from the start position (the moves chosen by a
//! proptest-chosen seed) and from random placements checked with `Position::from_setup`. In each
//! position the move generator's entry points must agree with one another:
//!
//! * `count_moves` equals the length of `legal_moves`, for `Merge` and `Keep`;
//! * `legal_moves_detailed` lists the same moves in the same order, with consistent routes;
//! * `has_legal_move` and `has_capture` agree with the list;
//! * a `Merge` list has no duplicates and is the `Keep` list with its duplicates dropped (the
//!   merged walk against the one that enumerates every sequence);
//! * `legal_moves_counted` is the `Keep` list with each move counted;
//! * the incremental hash after `play` equals `compute_hash`;
//! * `perft(d)` equals the sum of `divide(d)`, and `perft(1)` equals `count_moves`;
//! * in crowded positions, where kings of the side to move face many enemy pieces (the captures
//!   with the most sequences, where the merged walk merges, bounds and stops early), all of the
//!   above, and `capture_routes` lists exactly the moves with a route its filter keeps.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use damspel_rules::direction::Dir;
use damspel_rules::{
    on_rules, perft, with_rules, AnyRules, Bits, Catalogue, Color, Duplicates, Move, MoveDetail,
    Perft, Piece, Position, RouteFilter, Rules, Setup, Square,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

/// Turkish draughts on a 10x10 board: 100 squares, so `Rules<u128>`.
const TURKISH_10X10: &str = r#"
id = "test-turkish-10x10"
extends = "turkish"
name = "Turkish draughts on 10x10"
aliases = []
block = "x"
description = "Turkish rules on a 10x10 board of all squares."

[board]
width = 10
height = 10
"#;

/// A small deterministic generator (SplitMix64), seeded by proptest.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn percent(&mut self, p: u32) -> bool {
        self.below(100) < p as usize
    }
}

/// Every built-in variant plus the 10x10 Turkish user variant, compiled once.
fn all_rules() -> &'static [AnyRules] {
    static RULES: OnceLock<Vec<AnyRules>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut catalogue = Catalogue::builtin();
        catalogue
            .add_source("test-turkish-10x10.toml", TURKISH_10X10)
            .expect("the 10x10 Turkish user variant checks");
        catalogue
            .variants()
            .expect("every variant checks")
            .into_iter()
            .map(|v| with_rules!(v, |rules| AnyRules::from(rules)))
            .collect()
    })
}

/// `cases` per property by default (CI); `PROPTEST_CASES=100000` for a long run.
fn config(cases: u32) -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(cases),
        // Failures are reported with their inputs; no regression files are written.
        failure_persistence: None,
        ..Config::default()
    }
}

fn id<B: Bits>(rules: &Rules<B>) -> &str {
    &rules.variant().id
}

/// How many checked positions had captures, and how many had duplicate capture sequences (so
/// that the figures show the interesting cases are reached).
static CAPTURE_POSITIONS: AtomicUsize = AtomicUsize::new(0);
static DUPLICATE_POSITIONS: AtomicUsize = AtomicUsize::new(0);
/// Crowded positions checked, and those skipped because enumerating their sequences for the
/// comparison would take too long.
static CROWDED_CHECKED: AtomicUsize = AtomicUsize::new(0);
static CROWDED_SKIPPED: AtomicUsize = AtomicUsize::new(0);

/// The most capture sequences a crowded position may have for the enumerating walk to compare.
const MAX_ENUMERATED: u64 = 4_000;

/// The list with later duplicates dropped (first occurrences, in order).
fn first_occurrences<B: Bits>(list: &[Move<B>]) -> Vec<Move<B>> {
    let mut seen = HashSet::new();
    list.iter().copied().filter(|m| seen.insert(*m)).collect()
}

/// Each distinct move of `list` in the order of its first occurrence, with its number of
/// occurrences.
fn counted<B: Bits>(list: &[Move<B>]) -> Vec<(Move<B>, u64)> {
    first_occurrences(list)
        .into_iter()
        .map(|m| (m, list.iter().filter(|&&k| k == m).count() as u64))
        .collect()
}

/// Every consistency property of one position's move generation.
fn check_position<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> Result<(), TestCaseError> {
    let v = id(rules);
    prop_assert_eq!(pos.hash(), pos.compute_hash(), "{}: stored hash", v);
    let us = pos.side_to_move();
    let them = !us;
    prop_assert!(
        (pos.pieces(us) & pos.pieces(them)).is_empty(),
        "{v}: a square holds both colours"
    );

    let mut keep = Vec::new();
    let mut merge = Vec::new();
    rules.legal_moves(pos, &mut keep, Duplicates::Keep);
    rules.legal_moves(pos, &mut merge, Duplicates::Merge);

    // count_moves agrees with the lists.
    prop_assert_eq!(
        rules.count_moves(pos, Duplicates::Keep),
        keep.len() as u64,
        "{}: count_moves(Keep)",
        v
    );
    prop_assert_eq!(
        rules.count_moves(pos, Duplicates::Merge),
        merge.len() as u64,
        "{}: count_moves(Merge)",
        v
    );
    prop_assert_eq!(
        &rules.moves(pos),
        &merge,
        "{}: moves() is the Merge list",
        v
    );
    // The mobility count (counted, not listed) is the number of quiet moves listed where no
    // capture is due; but for the Bahrain restriction, which forbids some quiet moves and which
    // mobility ignores.
    if !rules.variant().bahrain && !keep.iter().any(|m| m.is_capture()) {
        prop_assert_eq!(
            rules.quiet_move_count(pos) as usize,
            keep.len(),
            "{}: quiet_move_count",
            v
        );
    }
    let mut with_counts = Vec::new();
    rules.legal_moves_counted(pos, &mut with_counts);
    prop_assert_eq!(
        &with_counts,
        &counted(&keep),
        "{}: legal_moves_counted is the Keep list counted",
        v
    );

    // Merge: no duplicates, and the Keep list with its duplicates dropped.
    let merge_set: HashSet<Move<B>> = merge.iter().copied().collect();
    prop_assert_eq!(merge_set.len(), merge.len(), "{}: duplicates in Merge", v);
    let keep_set: HashSet<Move<B>> = keep.iter().copied().collect();
    prop_assert_eq!(&merge_set, &keep_set, "{}: Merge and Keep sets differ", v);
    // In the order of first occurrence when the plain sequence-by-sequence walk listed them
    // (at most 1,024 jumps: capture.rs's PLAIN_WALK_BUDGET); a bigger capture is listed by a
    // merged walk, whose targeted form tries the king's jumps in another order.
    if rules.capture_work(pos) <= 1024 {
        prop_assert_eq!(
            &first_occurrences(&keep),
            &merge,
            "{}: Merge is not Keep de-duplicated",
            v
        );
    }

    if keep.len() != merge.len() {
        DUPLICATE_POSITIONS.fetch_add(1, Relaxed);
    }

    // has_legal_move, has_capture.
    prop_assert_eq!(rules.has_legal_move(pos), !merge.is_empty(), "{}", v);
    let captures = merge.iter().filter(|m| m.is_capture()).count();
    prop_assert!(
        captures == 0 || captures == merge.len(),
        "{v}: captures and quiet moves mixed"
    );
    if captures > 0 {
        CAPTURE_POSITIONS.fetch_add(1, Relaxed);
    }
    prop_assert_eq!(
        rules.has_capture(pos),
        captures > 0,
        "{}: has_capture disagrees with the move list",
        v
    );

    // The detailed lists: same moves, same order, consistent routes.
    for (dups, list) in [(Duplicates::Keep, &keep), (Duplicates::Merge, &merge)] {
        let detailed = rules.legal_moves_detailed(pos, dups);
        let moves: Vec<Move<B>> = detailed.iter().map(|d| d.mv).collect();
        prop_assert_eq!(&moves, list, "{}: legal_moves_detailed({:?})", v, dups);
        for d in &detailed {
            prop_assert_eq!(d.path.last().copied(), Some(d.mv.to()), "{}: path end", v);
            let order: HashSet<Square> = d.captures.iter().copied().collect();
            prop_assert_eq!(
                order.len(),
                d.captures.len(),
                "{}: a piece captured twice",
                v
            );
            let bits: HashSet<Square> = d.mv.captured().squares().map(Square).collect();
            prop_assert_eq!(&order, &bits, "{}: capture order vs captured set", v);
            if d.mv.is_capture() {
                prop_assert_eq!(
                    d.path.len(),
                    d.captures.len(),
                    "{}: one landing per jump",
                    v
                );
            } else {
                prop_assert_eq!(d.path.len(), 1, "{}: quiet path", v);
            }
        }
    }

    // Each move: from is ours, victims are theirs, the result is a sound position.
    for mv in &keep {
        prop_assert!(
            pos.pieces(us).has(mv.from().0),
            "{v}: {mv:?} starts off our pieces"
        );
        prop_assert_eq!(
            mv.captured() & !pos.pieces(them),
            B::ZERO,
            "{}: {:?} captures a non-enemy square",
            v,
            mv
        );
        let after = pos.play(mv);
        prop_assert_eq!(
            after.hash(),
            after.compute_hash(),
            "{}: hash after {:?}",
            v,
            mv
        );
        prop_assert_eq!(after.side_to_move(), them);
        prop_assert_eq!(
            after.pieces(us).count(),
            pos.pieces(us).count(),
            "{}: {:?} changes the mover's piece count",
            v,
            mv
        );
        prop_assert_eq!(
            after.pieces(them).count(),
            pos.pieces(them).count() - mv.capture_count(),
            "{}: {:?} removes the wrong number of pieces",
            v,
            mv
        );
        prop_assert!(
            (after.men(us) & rules.promotion_squares(us)).is_empty(),
            "{v}: {mv:?} leaves a man on its promotion square"
        );
        prop_assert_eq!(
            after.kings(us).has(mv.to().0),
            pos.kings(us).has(mv.from().0) || mv.promotes(),
            "{}: {:?} crowning",
            v,
            mv
        );
    }
    Ok(())
}

/// perft(d) == sum of divide(d) and perft(1) == count_moves, for both duplicate conventions.
fn check_perft<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    max_depth: u32,
) -> Result<(), TestCaseError> {
    for dups in [Duplicates::Merge, Duplicates::Keep] {
        prop_assert_eq!(
            perft(rules, pos, 1, dups),
            rules.count_moves(pos, dups),
            "{}: perft(1) {:?}",
            id(rules),
            dups
        );
        for depth in 1..=max_depth {
            let total = perft(rules, pos, depth, dups);
            let divide = Perft::new(rules, dups).divide(pos, depth);
            let sum: u64 = divide.iter().map(|row| row.nodes).sum();
            prop_assert_eq!(
                total,
                sum,
                "{}: perft({}) vs divide, {:?}",
                id(rules),
                depth,
                dups
            );
            let mut list = Vec::new();
            rules.legal_moves(pos, &mut list, dups);
            let rows: Vec<(Move<B>, u64)> =
                divide.iter().map(|row| (row.mv, row.sequences)).collect();
            prop_assert_eq!(rows, counted(&list), "{}: divide's moves", id(rules));
        }
    }
    Ok(())
}

/// Plays up to `plies` random moves from `pos`, checking every position on the way; returns the
/// last position and the number of positions checked.
fn random_walk<B: Bits>(
    rules: &Rules<B>,
    mut pos: Position<B>,
    rng: &mut Rng,
    plies: usize,
) -> Result<(Position<B>, usize), TestCaseError> {
    let mut checked = 0;
    for _ in 0..plies {
        check_position(rules, &pos)?;
        checked += 1;
        let moves = rules.moves(&pos);
        if moves.is_empty() {
            return Ok((pos, checked));
        }
        pos = pos.play(&moves[rng.below(moves.len())]);
    }
    check_position(rules, &pos)?;
    Ok((pos, checked + 1))
}

/// A random placement: each square holds a piece with probability `density`%, a king with
/// probability `kings`% (a man on its own promotion square is made a king).
fn random_setup<B: Bits>(rules: &Rules<B>, rng: &mut Rng, density: u32, kings: u32) -> Setup {
    let g = &rules.variant().geometry;
    let mut pieces = Vec::new();
    for &sq in g.all_squares() {
        if !rng.percent(density) {
            continue;
        }
        let color = if rng.percent(50) {
            Color::White
        } else {
            Color::Black
        };
        let king = rng.percent(kings) || rules.promotion_squares(color).has(sq.0);
        pieces.push((sq, Piece { color, king }));
    }
    // The order of the pieces must not matter.
    for i in (1..pieces.len()).rev() {
        pieces.swap(i, rng.below(i + 1));
    }
    Setup {
        side_to_move: Some(if rng.percent(50) {
            Color::White
        } else {
            Color::Black
        }),
        pieces,
    }
}

fn random_game<B: Bits>(rules: &Rules<B>, seed: u64, plies: usize) -> Result<usize, TestCaseError> {
    let mut rng = Rng(seed);
    let start = Position::start(rules);
    prop_assert_eq!(start.side_to_move(), rules.variant().first_player);
    let (end, checked) = random_walk(rules, start, &mut rng, plies)?;
    check_perft(rules, &end, 3)?;
    Ok(checked)
}

fn random_placement<B: Bits>(
    rules: &Rules<B>,
    seed: u64,
    density: u32,
    kings: u32,
) -> Result<usize, TestCaseError> {
    let mut rng = Rng(seed);
    let setup = random_setup(rules, &mut rng, density, kings);
    let pos = match Position::from_setup(rules, &setup) {
        Ok(pos) => pos,
        Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", id(rules)))),
    };
    prop_assert_eq!(pos.hash(), pos.compute_hash());
    for &(sq, piece) in &setup.pieces {
        prop_assert_eq!(pos.piece_at(sq), Some(piece));
    }
    prop_assert_eq!(pos.occupied().count() as usize, setup.pieces.len());
    // to_setup / from_setup round trip.
    let again = Position::from_setup(rules, &pos.to_setup());
    prop_assert_eq!(
        again.as_ref().ok(),
        Some(&pos),
        "{}: to_setup round trip",
        id(rules)
    );
    // The other side to move: hash updated, nothing else changed.
    let other = pos.with_side_to_move(!pos.side_to_move());
    prop_assert_eq!(other.hash(), other.compute_hash());
    prop_assert_eq!(other.with_side_to_move(pos.side_to_move()), pos);
    check_position(rules, &other)?;
    check_perft(rules, &pos, 2)?;
    let (_, checked) = random_walk(rules, pos, &mut rng, 24)?;
    Ok(checked + 1)
}

/// Kings (and a few men) of the side to move among `enemies` enemy pieces, `enemy_kings`% of
/// them kings.
fn crowded_setup<B: Bits>(
    rules: &Rules<B>,
    rng: &mut Rng,
    own_kings: usize,
    enemies: usize,
    enemy_kings: u32,
) -> Setup {
    let g = &rules.variant().geometry;
    let mut squares: Vec<Square> = g.all_squares().to_vec();
    for i in (1..squares.len()).rev() {
        squares.swap(i, rng.below(i + 1));
    }
    let side = if rng.percent(50) {
        Color::White
    } else {
        Color::Black
    };
    let own_men = rng.below(3);
    let mut pieces = Vec::new();
    for (i, &sq) in squares.iter().enumerate() {
        let (color, king) = if i < own_kings {
            (side, true)
        } else if i < own_kings + own_men {
            (side, false)
        } else if i < own_kings + own_men + enemies {
            (!side, rng.percent(enemy_kings))
        } else {
            break;
        };
        let king = king || rules.promotion_squares(color).has(sq.0);
        pieces.push((sq, Piece { color, king }));
    }
    Setup {
        side_to_move: Some(side),
        pieces,
    }
}

/// Every square a route passes over or lands on, in order, captured squares aside (as move text
/// names them).
fn passed<B: Bits>(rules: &Rules<B>, detail: &MoveDetail<B>) -> Vec<Square> {
    let g = &rules.variant().geometry;
    let captured = detail.mv.captured();
    let mut out = Vec::new();
    let mut at = detail.mv.from();
    for &landing in &detail.path {
        let ((x0, y0), (x1, y1)) = (g.coords(at), g.coords(landing));
        let step = (
            (i32::from(x1) - i32::from(x0)).signum(),
            (i32::from(y1) - i32::from(y0)).signum(),
        );
        let dir = Dir::ALL
            .into_iter()
            .find(|d| d.vector() == step)
            .expect("a leg runs along a line");
        let mut s = at;
        while s != landing {
            s = g.step(s, dir).expect("a leg stays on the board");
            if !captured.has(s.0) {
                out.push(s);
            }
        }
        at = landing;
    }
    out
}

fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

/// A random subsequence of `squares`.
fn some_of(rng: &mut Rng, squares: &[Square]) -> Vec<Square> {
    squares
        .iter()
        .copied()
        .filter(|_| rng.percent(40))
        .collect()
}

/// `capture_routes` against every route: for a sample of routes and filters made from them, the
/// moves listed are exactly those with a route the filter keeps, each with such a route.
fn check_routes<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    rng: &mut Rng,
) -> Result<(), TestCaseError> {
    let v = id(rules);
    let routes = rules.legal_moves_detailed(pos, Duplicates::Keep);
    // The order of first occurrence holds where the plain walk lists the capture (see
    // check_position); a route filter only narrows that walk.
    let plain = rules.capture_work(pos) <= 1024;
    for _ in 0..3 {
        let route = &routes[rng.below(routes.len())];
        let landings = &route.path[..route.path.len() - 1];
        let in_order = some_of(rng, &route.path);
        let passed_over = some_of(rng, &passed(rules, route));
        type Keeps<B> = fn(&Rules<B>, &MoveDetail<B>, &[Square]) -> bool;
        let cases: [(RouteFilter, &[Square], Keeps<B>); 3] = [
            (RouteFilter::Landings(landings), landings, |_, d, s| {
                d.path.len() == s.len() + 1 && d.path[..s.len()] == *s
            }),
            (
                RouteFilter::LandingsInOrder(&in_order),
                &in_order,
                |_, d, s| is_subsequence(s, &d.path),
            ),
            (
                RouteFilter::PassedInOrder(&passed_over),
                &passed_over,
                |r, d, s| is_subsequence(s, &passed(r, d)),
            ),
        ];
        for (filter, squares, keeps) in cases {
            let listed = rules.capture_routes(pos, filter);
            let mut expected: Vec<Move<B>> = routes
                .iter()
                .filter(|d| keeps(rules, d, squares))
                .map(|d| d.mv)
                .collect();
            expected = first_occurrences(&expected);
            let moves: Vec<Move<B>> = listed.iter().map(|d| d.mv).collect();
            if plain {
                prop_assert_eq!(&moves, &expected, "{}: capture_routes({:?})", v, filter);
            } else {
                // Listed by the merged walk: the same moves, once each, in its own order.
                let set: HashSet<Move<B>> = moves.iter().copied().collect();
                let expected_set: HashSet<Move<B>> = expected.iter().copied().collect();
                prop_assert_eq!(set.len(), moves.len(), "{}: duplicates in {:?}", v, filter);
                prop_assert_eq!(&set, &expected_set, "{}: capture_routes({:?})", v, filter);
            }
            for d in &listed {
                prop_assert!(
                    keeps(rules, d, squares) && routes.contains(d),
                    "{v}: capture_routes({filter:?}) gives a route it should not: {d:?}"
                );
            }
        }
    }
    Ok(())
}

fn crowded_capture<B: Bits>(
    rules: &Rules<B>,
    seed: u64,
    own_kings: usize,
    enemies: usize,
    enemy_kings: u32,
) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let setup = crowded_setup(rules, &mut rng, own_kings, enemies, enemy_kings);
    let pos = Position::from_setup(rules, &setup)
        .map_err(|e| TestCaseError::fail(format!("{}: {e}", id(rules))))?;
    if !rules.has_capture(&pos) {
        return Ok(());
    }
    if rules.count_moves(&pos, Duplicates::Keep) > MAX_ENUMERATED {
        CROWDED_SKIPPED.fetch_add(1, Relaxed);
        return Ok(());
    }
    CROWDED_CHECKED.fetch_add(1, Relaxed);
    check_position(rules, &pos)?;
    check_perft(rules, &pos, 2)?;
    check_routes(rules, &pos, &mut rng)
}

proptest! {
    #![proptest_config(config(256))]

    /// Kings among many enemy pieces: the merged walk against the enumerating one.
    #[test]
    fn crowded_captures_are_consistent(
        which: prop::sample::Index,
        seed: u64,
        own_kings in 1usize..3,
        enemies in 4usize..24,
        enemy_kings in prop_oneof![Just(0u32), 0u32..100, Just(100u32)],
    ) {
        on_rules!(which.get(all_rules()), |rules| {
            crowded_capture(rules, seed, own_kings, enemies, enemy_kings)
        })?;
    }

    /// Random games from the start position of a variant.
    #[test]
    fn generation_is_consistent_along_random_games(
        which: prop::sample::Index,
        seed: u64,
        plies in 0usize..200,
    ) {
        on_rules!(which.get(all_rules()), |rules| random_game(rules, seed, plies))?;
    }

    /// Random placements (sparse to crowded, few to many kings) in a variant.
    #[test]
    fn generation_is_consistent_on_random_placements(
        which: prop::sample::Index,
        seed: u64,
        density in 5u32..60,
        kings in prop_oneof![Just(0u32), 0u32..30, 30u32..100],
    ) {
        on_rules!(which.get(all_rules()), |rules| random_placement(rules, seed, density, kings))?;
    }
}

/// Deterministic sweep over every variant, so that each is covered and the figures are known.
#[test]
fn sweep_of_random_games_and_placements() {
    let (mut games, mut placements) = (0, 0);
    for rules in all_rules() {
        for seed in 0..12u64 {
            games += on_rules!(rules, |rules| random_game(rules, seed * 7919 + 1, 250))
                .unwrap_or_else(|e| panic!("game seed {seed}: {e}"));
            let (density, kings) = (5 + 7 * seed as u32, 12 * seed as u32);
            placements += on_rules!(rules, |rules| random_placement(rules, seed, density, kings))
                .unwrap_or_else(|e| panic!("placement seed {seed}: {e}"));
        }
    }
    eprintln!(
        "sweep: {} variants, {games} positions along games and {placements} from placements checked; \
         so far in this run {} positions with captures, {} with duplicate sequences",
        all_rules().len(),
        CAPTURE_POSITIONS.load(Relaxed),
        DUPLICATE_POSITIONS.load(Relaxed)
    );
    assert!(
        games > 500 * all_rules().len() / 2,
        "only {games} positions checked"
    );
}

/// Deterministic sweep of crowded captures over every variant, with the figures.
#[test]
fn sweep_of_crowded_captures() {
    for rules in all_rules() {
        for seed in 0..16u64 {
            let (kings, enemies, enemy_kings) = (
                1 + seed as usize % 2,
                6 + seed as usize % 16,
                25 * (seed as u32 % 5),
            );
            on_rules!(rules, |rules| crowded_capture(
                rules,
                seed,
                kings,
                enemies,
                enemy_kings
            ))
            .unwrap_or_else(|e| panic!("crowded seed {seed}: {e}"));
        }
    }
    let (checked, skipped) = (CROWDED_CHECKED.load(Relaxed), CROWDED_SKIPPED.load(Relaxed));
    eprintln!("crowded captures so far in this run: {checked} checked, {skipped} skipped (more than {MAX_ENUMERATED} sequences)");
    assert!(
        checked > 10 * all_rules().len(),
        "only {checked} crowded captures checked"
    );
}

/// The start position: hash, perft vs divide and the first player of every variant.
#[test]
fn start_positions() {
    for rules in all_rules() {
        on_rules!(rules, |rules| {
            let start = Position::start(rules);
            check_position(rules, &start).unwrap();
            check_perft(rules, &start, 4).unwrap();
            assert!(rules.has_legal_move(&start), "{}", id(rules));
            assert!(!rules.has_capture(&start), "{}", id(rules));
        });
    }
}

/// An empty board (no pieces) and a lone piece: no legal move for the side without pieces.
#[test]
fn empty_and_lone_piece_positions() {
    for rules in all_rules() {
        on_rules!(rules, |rules| {
            for side in Color::BOTH {
                let setup = Setup {
                    side_to_move: Some(side),
                    pieces: Vec::new(),
                };
                let pos = Position::from_setup(rules, &setup).unwrap();
                check_position(rules, &pos).unwrap();
                assert!(!rules.has_legal_move(&pos));
                assert_eq!(perft(rules, &pos, 3, Duplicates::Keep), 0);
                let g = &rules.variant().geometry;
                for &sq in g.all_squares() {
                    for king in [false, true] {
                        if !king && rules.promotion_squares(side).has(sq.0) {
                            continue;
                        }
                        let setup = Setup {
                            side_to_move: Some(side),
                            pieces: vec![(sq, Piece { color: side, king })],
                        };
                        let pos = Position::from_setup(rules, &setup).unwrap();
                        check_position(rules, &pos).unwrap();
                        assert!(!rules.has_capture(&pos));
                        if king {
                            assert!(rules.has_legal_move(&pos), "{} lone king", id(rules));
                        }
                    }
                }
            }
        });
    }
}

/// A raised stop flag or a passed deadline gives up a long capture walk (the audit's universal
/// position: a king among 22 kings, millions of sequences) and never a short one; a lowered flag
/// changes nothing.
#[test]
fn a_stop_flag_gives_up_long_capture_walks_only() {
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    use damspel_rules::Until;
    let catalogue = Catalogue::builtin();
    let rules = Rules::<u64>::new(catalogue.get("universal").unwrap()).unwrap();
    let g = &rules.variant().geometry;
    let square = |name: &str| {
        g.all_squares()
            .iter()
            .copied()
            .find(|&s| g.name(s) == name)
            .unwrap()
    };
    let black = "a3 a6 b6 b8 c1 c2 c5 c6 d2 d7 e1 e2 e3 e4 e6 f2 f5 g2 g3 g5 g7 h5";
    let mut pieces = vec![(
        square("b7"),
        Piece {
            color: Color::White,
            king: true,
        },
    )];
    pieces.extend(black.split(' ').map(|s| {
        (
            square(s),
            Piece {
                color: Color::Black,
                king: true,
            },
        )
    }));
    let big = Position::from_setup(
        &rules,
        &Setup {
            side_to_move: Some(Color::White),
            pieces,
        },
    )
    .unwrap();
    let raised = AtomicBool::new(true);
    let lowered = AtomicBool::new(false);
    let mut list = Vec::new();
    assert_eq!(
        rules.legal_moves_until(&big, &mut list, Duplicates::Merge, &raised),
        Err(damspel_rules::Stopped)
    );
    assert!(list.is_empty());
    assert!(rules
        .legal_moves_detailed_until(&big, Duplicates::Merge, &raised)
        .is_err());
    rules
        .legal_moves_until(&big, &mut list, Duplicates::Merge, &lowered)
        .unwrap();
    assert_eq!(list, rules.moves(&big));
    let start = Position::start(&rules);
    rules
        .legal_moves_until(&start, &mut list, Duplicates::Merge, &raised)
        .unwrap();
    assert_eq!(list, rules.moves(&start));
    // A deadline already passed stops the big walk as the flag does; a later one lets it end.
    let passed = Until::deadline(Instant::now());
    assert_eq!(
        rules.legal_moves_until(&big, &mut list, Duplicates::Merge, passed),
        Err(damspel_rules::Stopped)
    );
    let later = Until::flag(&lowered).or_at(Instant::now() + Duration::from_secs(3600));
    rules
        .legal_moves_until(&big, &mut list, Duplicates::Merge, later)
        .unwrap();
    assert_eq!(list, rules.moves(&big));
}

/// A case the proptest found: two Universal kings among 13 men whose capture is listed by the
/// targeted walk (distinct moves in another order than the sequences' first occurrences).
#[test]
fn crowded_capture_listed_by_a_targeted_walk() {
    let rules = all_rules()
        .iter()
        .find(|r| on_rules!(r, |x| id(x) == "universal"))
        .unwrap();
    on_rules!(rules, |rules| {
        crowded_capture(rules, 16949124289022757084, 2, 13, 0).unwrap();
    });
}
