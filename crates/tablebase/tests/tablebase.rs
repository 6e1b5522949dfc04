//! Tablebase tests. Expected values come from an independent oracle written here: every
//! position of a material placed by plain loops over the board (not the crate's index), the
//! positions reachable from them collected through the rules core's legal moves, and values
//! settled by a naive level-by-level pass (lost in 0 = no legal move; won in d = a move to a
//! position lost in d - 1; lost in d = every move to a position won, the longest in d - 1),
//! with the rule book's position rules (one piece each draws in the Turkish family). Plus
//! rule-book facts. Never values read from a table.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use damspel_rules::spec::Range;
use damspel_rules::{Bits, Catalogue, Color, Piece, Position, Rules, Setup, Square};
use damspel_tablebase::{
    build, build_slice, plan, schedule, set_needs, solve_bytes, table_path, verify, Error, Indexer,
    Material, Tablebase, Value,
};

fn rules64(id: &str) -> Rules<u64> {
    Rules::new(Catalogue::builtin().get(id).unwrap()).unwrap()
}

fn no_progress(_: damspel_tablebase::Progress) -> bool {
    true
}

/// Every position of `material` with either side to move, by plain loops over the squares.
fn positions_of<B: Bits>(rules: &Rules<B>, material: Material) -> Vec<Position<B>> {
    let kinds = [
        Piece::man(Color::White),
        Piece::king(Color::White),
        Piece::man(Color::Black),
        Piece::king(Color::Black),
    ];
    let mut pieces = Vec::new();
    for (k, &n) in material.counts.iter().enumerate() {
        for _ in 0..n {
            pieces.push(kinds[k]);
        }
    }
    let squares: Vec<Square> = rules.variant().geometry.all_squares().to_vec();
    let mut out = Vec::new();
    let mut placed: Vec<(Square, Piece)> = Vec::new();
    fn place<B: Bits>(
        rules: &Rules<B>,
        squares: &[Square],
        pieces: &[Piece],
        placed: &mut Vec<(Square, Piece)>,
        out: &mut Vec<Position<B>>,
    ) {
        let i = placed.len();
        if i == pieces.len() {
            for side in Color::BOTH {
                let setup = Setup {
                    side_to_move: Some(side),
                    pieces: placed.clone(),
                };
                // Men on their own promotion squares are refused by the rules core.
                if let Ok(p) = Position::from_setup(rules, &setup) {
                    out.push(p);
                }
            }
            return;
        }
        for (j, &sq) in squares.iter().enumerate() {
            if placed.iter().any(|&(s, _)| s == sq) {
                continue;
            }
            // Identical pieces in increasing square order: each set once.
            if i > 0 && pieces[i - 1] == pieces[i] {
                let prev = squares.iter().position(|&s| s == placed[i - 1].0).unwrap();
                if j <= prev {
                    continue;
                }
            }
            placed.push((sq, pieces[i]));
            place(rules, squares, pieces, placed, out);
            placed.pop();
        }
    }
    place(rules, &squares, &pieces, &mut placed, &mut out);
    out
}

/// Oracle value of a position: Some((won?, plies)) or None for a draw.
type Oracle<B> = HashMap<Position<B>, Option<(bool, u32)>>;

fn oracle<B: Bits>(rules: &Rules<B>, roots: Vec<Position<B>>) -> Oracle<B> {
    let one_piece_each = rules.variant().draw.one_piece_each;
    let mut id: HashMap<Position<B>, usize> = HashMap::new();
    let mut list: Vec<Position<B>> = Vec::new();
    for p in roots {
        if let std::collections::hash_map::Entry::Vacant(e) = id.entry(p) {
            e.insert(list.len());
            list.push(p);
        }
    }
    // Successors; None marks a position decided by itself.
    let mut succ: Vec<Option<Vec<usize>>> = Vec::new();
    let mut fixed: Vec<Option<Option<(bool, u32)>>> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let pos = list[i];
        let side = pos.side_to_move();
        let moves = rules.moves(&pos);
        if pos.pieces(side).is_empty() || moves.is_empty() {
            fixed.push(Some(Some((false, 0))));
            succ.push(None);
        } else if one_piece_each
            && pos.pieces(Color::White).count() == 1
            && pos.pieces(Color::Black).count() == 1
        {
            fixed.push(Some(None));
            succ.push(None);
        } else {
            let mut s = Vec::new();
            for mv in &moves {
                let after = pos.play(mv);
                let k = *id.entry(after).or_insert_with(|| {
                    list.push(after);
                    list.len() - 1
                });
                s.push(k);
            }
            fixed.push(None);
            succ.push(Some(s));
        }
        i += 1;
    }
    let n = list.len();
    let mut value: Vec<Option<(bool, u32)>> = vec![None; n];
    let mut settled = vec![false; n];
    for i in 0..n {
        if let Some(v) = fixed[i] {
            value[i] = v;
            settled[i] = true;
        }
    }
    let mut d = 1;
    loop {
        let mut new = Vec::new();
        for i in 0..n {
            if settled[i] {
                continue;
            }
            let s = succ[i].as_ref().unwrap();
            if d % 2 == 1 {
                if s.iter()
                    .any(|&k| settled[k] && value[k] == Some((false, d - 1)))
                {
                    new.push((i, (true, d)));
                }
            } else if s
                .iter()
                .all(|&k| settled[k] && matches!(value[k], Some((true, e)) if e < d))
                && s.iter().any(|&k| value[k] == Some((true, d - 1)))
            {
                new.push((i, (false, d)));
            }
        }
        if new.is_empty() {
            break;
        }
        for (i, v) in new {
            value[i] = Some(v);
            settled[i] = true;
        }
        d += 1;
    }
    list.into_iter().zip(value).collect()
}

/// Every position of the materials, compared with the tables.
fn check_against_oracle<B: Bits>(rules: &Rules<B>, tb: &Tablebase<B>, materials: &[Material]) {
    let mut roots = Vec::new();
    for &m in materials {
        roots.extend(positions_of(rules, m));
    }
    let oracle = oracle(rules, roots);
    assert!(oracle.len() > 100);
    let mut decided = 0;
    for (pos, want) in &oracle {
        let got = tb
            .probe(pos)
            .expect("every position of the oracle is in the tables");
        let got = match got.value {
            Value::Draw => None,
            Value::Win => Some((true, got.distance)),
            Value::Loss => Some((false, got.distance)),
        };
        assert_eq!(got, *want, "{:?}", pos.to_setup());
        if want.is_some() {
            decided += 1;
        }
    }
    assert!(decided > 0);
}

#[test]
fn russian_three_pieces_agree_with_the_oracle() {
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    build(&rules, 3, dir.path(), 2, &no_progress).unwrap();
    let tb = Tablebase::open(dir.path(), &rules).unwrap();
    assert_eq!(tb.complete_up_to(), 3);
    check_against_oracle(&rules, &tb, &Material::all_up_to(3));
}

#[test]
fn american_three_pieces_agree_with_the_oracle() {
    // Short kings, men capture forward only: other move tables than Russian's.
    let rules = rules64("american");
    let dir = tempfile::tempdir().unwrap();
    build(&rules, 3, dir.path(), 2, &no_progress).unwrap();
    let tb = Tablebase::open(dir.path(), &rules).unwrap();
    check_against_oracle(&rules, &tb, &Material::all_up_to(3));
}

#[test]
fn turkish_two_kings_against_one_win_only_by_tactics() {
    let rules = rules64("turkish");
    let dir = tempfile::tempdir().unwrap();
    let kk_k = Material::new(0, 2, 0, 1);
    for wave in plan(3) {
        for m in wave {
            if m.men(Color::White) + m.men(Color::Black) == 0 {
                build_slice(&rules, m, dir.path(), 2, &no_progress).unwrap();
            }
        }
    }
    let tb = Tablebase::open(dir.path(), &rules).unwrap();
    // One piece each: a draw by the rule book (Turkish D22), whoever is to move.
    check_against_oracle(&rules, &tb, &[Material::new(0, 1, 0, 1), kk_k]);
    // ... and the game is over there: no move is offered, even a capture.
    let g = &rules.variant().geometry;
    let one_each = Setup {
        side_to_move: Some(Color::White),
        pieces: vec![
            (g.parse_square("a1").unwrap(), Piece::king(Color::White)),
            (g.parse_square("a3").unwrap(), Piece::king(Color::Black)),
        ],
    };
    let pos = Position::from_setup(&rules, &one_each).unwrap();
    assert!(!rules.moves(&pos).is_empty());
    assert_eq!(tb.probe(&pos).unwrap().value, Value::Draw);
    assert!(tb.probe_moves(&pos).unwrap().is_empty());
    // The published 3-piece Turkish table's author: two kings cannot force a win against one;
    // only immediate tactics win. So with the lone king not attacked at once (no capture for
    // the two kings) and either side to move, most positions are drawn, and no win is longer
    // than a few plies.
    let positions = positions_of(&rules, kk_k);
    let (mut quiet, mut quiet_wins) = (0, 0);
    for pos in &positions {
        let p = tb.probe(pos).unwrap();
        let strong_to_move = pos.side_to_move() == Color::White;
        if strong_to_move && !rules.has_capture(pos) {
            quiet += 1;
            if p.value == Value::Win {
                quiet_wins += 1;
                assert!(p.distance <= 7, "a long forced win: {:?}", pos.to_setup());
            }
        }
    }
    assert!(quiet_wins * 2 < quiet, "{quiet_wins} wins of {quiet}");
}

#[test]
fn a_side_without_pieces_has_lost() {
    // Rule book: a player with no piece left (or no legal move) loses.
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(dir.path(), &rules).unwrap();
    let g = &rules.variant().geometry;
    let setup = Setup {
        side_to_move: Some(Color::Black),
        pieces: vec![(g.all_squares()[5], Piece::king(Color::White))],
    };
    let pos = Position::from_setup(&rules, &setup).unwrap();
    let p = tb.probe(&pos).unwrap();
    assert_eq!((p.value, p.distance), (Value::Loss, 0));
    let p = tb.probe(&pos.with_side_to_move(Color::White)).unwrap();
    assert_eq!(p.value, Value::Win);
    // A material that was never built: no answer.
    let setup = Setup {
        side_to_move: Some(Color::White),
        pieces: vec![
            (g.all_squares()[5], Piece::king(Color::White)),
            (g.all_squares()[20], Piece::king(Color::Black)),
        ],
    };
    assert!(tb
        .probe(&Position::from_setup(&rules, &setup).unwrap())
        .is_none());
}

#[test]
fn sliced_wave_by_wave_build_equals_the_whole_build() {
    let rules = rules64("russian");
    let whole = tempfile::tempdir().unwrap();
    let sliced = tempfile::tempdir().unwrap();
    build(&rules, 3, whole.path(), 2, &no_progress).unwrap();
    let waves = plan(3);
    for wave in &waves {
        for &m in wave {
            // One thread, as a cluster task with one core would run it.
            build_slice(&rules, m, sliced.path(), 1, &no_progress).unwrap();
        }
    }
    let mut files = 0;
    for m in waves.iter().flatten() {
        let a = std::fs::read(table_path(whole.path(), rules.variant(), *m)).unwrap();
        let b = std::fs::read(table_path(sliced.path(), rules.variant(), *m)).unwrap();
        assert!(a == b, "{m} differs");
        files += 1;
    }
    assert_eq!(files, Material::all_up_to(3).len());
    // A slice whose dependencies are missing is refused, naming them.
    let empty = tempfile::tempdir().unwrap();
    let err = build_slice(
        &rules,
        "KKvK".parse().unwrap(),
        empty.path(),
        1,
        &no_progress,
    )
    .unwrap_err();
    assert!(matches!(err, Error::Dependency { .. }), "{err}");
}

#[test]
fn a_table_is_refused_for_changed_rules_or_damage() {
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    build(&rules, 2, dir.path(), 1, &no_progress).unwrap();
    assert!(Tablebase::open(dir.path(), &rules).is_ok());
    // Same id, short kings instead of flying ones: the tables must not be used.
    let mut changed = rules.variant().clone();
    changed.kings.move_range = Range::Short;
    let changed: Rules<u64> = Rules::new(changed).unwrap();
    match Tablebase::open(dir.path(), &changed) {
        Err(Error::VariantChanged { .. }) => {}
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a table of other rules was accepted"),
    }
    // One flipped byte in the body: the checksum catches it.
    let path = table_path(dir.path(), rules.variant(), "KvK".parse().unwrap());
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 20;
    bytes[at] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    match Tablebase::open(dir.path(), &rules) {
        Err(Error::Corrupt { .. }) => {}
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a damaged table was accepted"),
    }
}

/// A build over a folder keeps the tables it can read and builds the others again; a file it
/// does not keep is said with why (before, it was rebuilt without a word: a variant file
/// changed since, or tables of an older program, went unnoticed).
#[test]
fn a_build_says_why_it_replaces_a_file() {
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    build(&rules, 2, dir.path(), 1, &no_progress).unwrap();
    let path = |m: &str| table_path(dir.path(), rules.variant(), m.parse().unwrap());
    // KvK of other rules (short kings), KvM with a flipped byte, MvK removed, MvM kept.
    let mut short = rules.variant().clone();
    short.kings.move_range = Range::Short;
    let short: Rules<u64> = Rules::new(short).unwrap();
    let other = tempfile::tempdir().unwrap();
    build(&short, 2, other.path(), 1, &no_progress).unwrap();
    std::fs::copy(
        table_path(other.path(), short.variant(), "KvK".parse().unwrap()),
        path("KvK"),
    )
    .unwrap();
    let mut bytes = std::fs::read(path("KvM")).unwrap();
    let at = bytes.len() - 20;
    bytes[at] ^= 0x40;
    std::fs::write(path("KvM"), &bytes).unwrap();
    std::fs::remove_file(path("MvK")).unwrap();
    let built = build(&rules, 2, dir.path(), 1, &no_progress).unwrap();
    let of = |m: &str| {
        built
            .iter()
            .find(|b| b.material.to_string() == m)
            .unwrap()
            .clone()
    };
    let kvk = of("KvK").replaced.unwrap();
    assert!(kvk.contains("other rules"), "{kvk}");
    let kvm = of("KvM").replaced.unwrap();
    assert!(kvm.contains("damaged"), "{kvm}");
    assert_eq!(of("MvK").replaced, None, "no file was there");
    assert!(!of("MvK").reused);
    assert!(of("MvM").reused && of("MvM").replaced.is_none());
    assert!(Tablebase::open(dir.path(), &rules).is_ok());
}

#[test]
fn verify_passes_on_a_built_set() {
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    build(&rules, 3, dir.path(), 2, &no_progress).unwrap();
    let report = verify(&rules, dir.path(), 3, 30, 5, 2, &AtomicBool::new(false)).unwrap();
    assert!(!report.failed, "{:?}", report.errors);
    assert!(report.searched > 0);
    assert_eq!(report.tables, Material::all_up_to(3).len());
}

#[test]
fn the_limit_marks_cursed_wins() {
    // International: FMJD limits, two kings against a king within 5 moves each (10 plies).
    let variant = Catalogue::builtin().get("international").unwrap();
    let rules: Rules<u64> = Rules::new(variant).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for wave in plan(3) {
        for m in wave {
            if m.men(Color::White) + m.men(Color::Black) == 0 {
                build_slice(&rules, m, dir.path(), 2, &no_progress).unwrap();
            }
        }
    }
    let tb = Tablebase::open(dir.path(), &rules).unwrap();
    let mut seen = 0;
    for pos in positions_of(&rules, Material::new(0, 2, 0, 1))
        .iter()
        .step_by(97)
    {
        let p = tb.probe(pos).unwrap();
        assert_eq!(p.limit, Some(10));
        assert_eq!(p.cursed, p.value != Value::Draw && p.distance > 10);
        seen += 1;
    }
    assert!(seen > 100);
}

#[test]
fn both_board_widths_give_the_same_files() {
    // Boards over 64 bits use Rules<u128>; the same variant compiled for u128 must give the
    // same tables byte for byte.
    let variant = Catalogue::builtin().get("russian").unwrap();
    let narrow: Rules<u64> = Rules::new(variant.clone()).unwrap();
    let wide: Rules<u128> = Rules::new(variant).unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    build(&narrow, 3, a.path(), 2, &no_progress).unwrap();
    build(&wide, 3, b.path(), 2, &no_progress).unwrap();
    for m in Material::all_up_to(3) {
        let x = std::fs::read(table_path(a.path(), narrow.variant(), m)).unwrap();
        let y = std::fs::read(table_path(b.path(), wide.variant(), m)).unwrap();
        assert!(x == y, "{m} differs");
    }
}

#[test]
fn a_build_can_be_stopped() {
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    let err = build(&rules, 3, dir.path(), 1, &|_| false).unwrap_err();
    assert!(matches!(err, Error::Stopped), "{err}");
}

/// A table cut short or copied over while a program has it open: its probes say "not in the
/// tables" until the file is whole again, then answer as before. Before, the tables were
/// memory-mapped, and reading a page past the file's new end killed the program (SIGBUS: the
/// web server with every game it held).
#[test]
fn a_table_cut_short_while_open_is_not_in_the_tables() {
    let rules = rules64("russian");
    let dir = tempfile::tempdir().unwrap();
    build(&rules, 3, dir.path(), 2, &no_progress).unwrap();
    let materials: Vec<Material> = Material::all_up_to(3)
        .into_iter()
        .filter(|m| m.total() >= 2)
        .collect();
    let whole = Tablebase::open(dir.path(), &rules).unwrap();
    let expected: Vec<_> = materials
        .iter()
        .flat_map(|&m| positions_of(&rules, m))
        .map(|pos| whole.probe(&pos).map(|p| (p.value, p.distance)))
        .collect();
    assert!(expected.len() > 1000 && expected.iter().all(Option::is_some));
    let probed = Tablebase::open(dir.path(), &rules).unwrap();
    let mut files = Vec::new();
    for &m in &materials {
        let path = table_path(dir.path(), rules.variant(), m);
        files.push((path.clone(), std::fs::read(&path).unwrap()));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(64)
            .unwrap();
    }
    for &m in &materials {
        for pos in positions_of(&rules, m) {
            assert!(probed.probe(&pos).is_none(), "{m}: {pos:?}");
        }
    }
    // Written again in place, as `cp` over the folder does.
    for (path, bytes) in &files {
        std::fs::write(path, bytes).unwrap();
    }
    let again: Vec<_> = materials
        .iter()
        .flat_map(|&m| positions_of(&rules, m))
        .map(|pos| probed.probe(&pos).map(|p| (p.value, p.distance)))
        .collect();
    assert!(
        again == expected,
        "the tables answer otherwise once whole again"
    );
}

/// A set with a table past the 2^32 slots the builder indexes is refused before anything is
/// built. Before, the build went through every wave before it (for Turkish 6 pieces, a
/// 5-piece set of 1.1e10 positions) and failed only on reaching that table.
#[test]
fn a_set_too_large_to_index_is_refused_before_anything_is_built() {
    let rules = rules64("turkish");
    let dir = tempfile::tempdir().unwrap();
    // Stopping at the first progress report bounds the old code's run (it would build for
    // days); the check comes before any table is started.
    let err = build(&rules, 6, dir.path(), 1, &|_| false).unwrap_err();
    // KKMvKKM on 64 squares: far past 2^32 slots (docs/tablebases.md: 2.1e10).
    assert!(
        matches!(err, Error::TooLarge { slots, .. } if slots > u32::MAX as u64),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The earlier tables of the set up to `pieces` that step `step` of the build order or a
/// later step depends on (a move from it reaches them), from the dependency relation alone.
fn still_needed(order: &[Material], step: usize) -> Vec<Material> {
    order[..step]
        .iter()
        .copied()
        .filter(|m| {
            order[step..]
                .iter()
                .any(|later| later.successors().contains(m))
        })
        .collect()
}

/// The build holds at each step exactly the earlier tables that step or a later one depends
/// on: every dependency of the table being solved, and nothing no later step needs.
#[test]
fn a_build_holds_only_the_tables_still_needed() {
    for pieces in 2..=6 {
        let order: Vec<Material> = plan(pieces).into_iter().flatten().collect();
        let steps = schedule(pieces);
        assert_eq!(
            steps.iter().map(|s| s.0).collect::<Vec<_>>(),
            order,
            "{pieces} pieces"
        );
        for (step, (material, held)) in steps.iter().enumerate() {
            for dep in material.successors() {
                assert!(held.contains(&dep), "{material} needs {dep}");
            }
            let mut held = held.clone();
            held.sort();
            let mut expected = still_needed(&order, step);
            expected.sort();
            assert_eq!(held, expected, "{material}, {pieces} pieces");
        }
    }
}

/// The memory estimate of a set is its largest step: solving one table beside the earlier
/// tables still needed (2 bytes a slot), not beside every table built before it. Before, it
/// counted every table built before (Turkish 5 pieces: 22 GB by the last table).
#[test]
fn the_memory_estimate_of_a_set_is_its_largest_working_set() {
    let rules = rules64("turkish");
    let pieces = 5;
    let order: Vec<Material> = plan(pieces).into_iter().flatten().collect();
    let table = |m: Material| Indexer::new(&rules, m).len() * 2;
    let mut largest = 0;
    let mut sum_before = 0;
    for step in 0..order.len() {
        let solving = solve_bytes(&rules, order[step]);
        let held: u64 = still_needed(&order, step).into_iter().map(table).sum();
        largest = largest.max(solving + held);
        let all_before: u64 = order[..step].iter().map(|&m| table(m)).sum();
        sum_before = sum_before.max(solving + all_before);
    }
    let needs = set_needs(&rules, pieces).unwrap().unwrap();
    assert_eq!(needs.bytes, largest);
    // A set of no table (one piece) needs nothing, and is no panic of the library.
    assert_eq!(set_needs(&rules, 1).unwrap(), None);
    // The largest table's own solve dominates (KKMvKM, ~120 GB estimated): the held tables
    // are 6.5 GB of it now against 8.9 before.
    assert!(largest < sum_before, "{largest} against {sum_before}");
}
