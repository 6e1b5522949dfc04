//! Differential test: the fast move generator against the reference generator
//! (`damspel_conformance::reference`), on thousands of seeded random positions per variant.
//!
//! Positions: random placements of men and kings (mostly clustered in a small window so that
//! captures, multi-captures and king captures are frequent; men never on their own promotion
//! squares), and every position of random games played from the start position. Each position
//! is compared in both conventions: `Duplicates::Keep` (a multiset of (from, to, captured set,
//! promotes), one per sequence) and `Duplicates::Merge` (a set), and the detailed sequences
//! (landing path and capture order) are compared as a multiset too.
//!
//! Besides the built-in catalogue, the test checks test-local variant files for the rule book
//! blocks that are not built in yet (every rule dimension of §7), and checks the reference
//! generator itself against the published legal-move and perft data.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use crate::common;

use damspel_conformance::data::{legal_moves_rows, perft_rows};
use damspel_conformance::reference::{
    all_capture_sequences, reference_moves, reference_moves_within, square_of, Bounds, Cell,
    OverBounds, RefBoard, RefSequence,
};
use damspel_notation::{parse_fen, write_fen};
use damspel_rules::{
    with_rules, Bits, Catalogue, Color, Duplicates, Move, Piece, Position, Rules, Setup, Square,
    Squares, Variant,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

type Rng = Xoshiro256PlusPlus;

/// (from, to, captured set, promotes), in layout indices.
type Key = (u8, u8, u128, bool);
/// (from, landing path, captures in order, promotes), in layout indices.
type PathKey = (u8, Vec<u8>, Vec<u8>, bool);

/// How many positions each variant gets.
#[derive(Clone, Copy)]
struct Budget {
    placements: usize,
    games: usize,
    max_plies: usize,
}

const BUILTIN: Budget = Budget {
    placements: 6000,
    games: 12,
    max_plies: 150,
};

/// Placements shared out among the built-in variants.
const BUILTIN_PLACEMENTS: usize = 36_000;

const EXTRA: Budget = Budget {
    placements: 1000,
    games: 3,
    max_plies: 120,
};

/// Stop collecting failures of a variant after this many.
const MAX_FAILURES: usize = 5;

#[derive(Default, Debug)]
struct Stats {
    positions: usize,
    placed: usize,
    played: usize,
    /// Positions whose legal moves are captures.
    captures: usize,
    /// ... of which some legal sequence captures two or more pieces.
    multi_captures: usize,
    /// ... of which some legal sequence is made by a king.
    king_captures: usize,
    /// Positions with a legal capture that crowns the man.
    capture_promotions: usize,
    /// Positions where the majority rule removed some complete sequence.
    majority_cuts: usize,
    /// Positions with a legal quiet move that crowns.
    quiet_promotions: usize,
    /// Positions with a legal line-leap.
    line_leaps: usize,
    /// Sequences compared (Keep convention).
    sequences: usize,
    most_sequences: usize,
    /// For each non-default rule of the variant: the positions where flipping that rule changes
    /// the reference's answer, i.e. where the comparison actually tests the rule.
    rule_hits: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

impl Stats {
    fn line(&self, id: &str, seconds: f64) -> String {
        format!(
            "{id:<24} {:>6} positions ({:>5} placed, {:>5} played)  captures {:>5}  multi {:>5}  \
             king {:>5}  crown-in-capture {:>4}  majority-cut {:>4}  quiet-crown {:>4}  \
             line-leap {:>4}  sequences {:>7} (max {:>4})  {seconds:.2}s",
            self.positions,
            self.placed,
            self.played,
            self.captures,
            self.multi_captures,
            self.king_captures,
            self.capture_promotions,
            self.majority_cuts,
            self.quiet_promotions,
            self.line_leaps,
            self.sequences,
            self.most_sequences,
        )
    }

    fn rules_line(&self) -> String {
        let hits: Vec<String> = self
            .rule_hits
            .iter()
            .map(|(rule, n)| format!("{rule} {n}"))
            .collect();
        format!(
            "{:<24} rules exercised (positions where flipping the rule changes the answer, \
             every third position sampled): {}",
            "",
            hits.join(", ")
        )
    }
}

/// The variant with each of its non-default rules flipped, one at a time.
fn flipped_rules(variant: &Variant) -> Vec<(&'static str, Variant)> {
    use damspel_rules::direction::DirSet;
    use damspel_rules::spec::{
        HaltRule, Landing, LineLeap, Precedence, PromotionInCapture, Removal, Reversal, Targets,
    };
    let mut out = Vec::new();
    let mut flip = |label: &'static str, change: &dyn Fn(&mut Variant)| {
        let mut v = variant.clone();
        change(&mut v);
        out.push((label, v));
    };
    let c = variant.capture;
    let k = variant.kings;
    if c.precedence == Precedence::Majority {
        flip("majority", &|v| v.capture.precedence = Precedence::Free);
    }
    if c.king_value != c.man_value {
        flip("values", &|v| v.capture.king_value = v.capture.man_value);
    }
    if c.halt != HaltRule::None {
        flip("halt", &|v| v.capture.halt = HaltRule::None);
    }
    if c.reversal == Reversal::Forbidden {
        flip("180", &|v| v.capture.reversal = Reversal::Allowed);
    }
    flip("removal", &|v| {
        v.capture.removal = match c.removal {
            Removal::Immediate => Removal::Deferred,
            Removal::Deferred => Removal::Immediate,
        }
    });
    for (label, other) in [
        ("promotion:stop", PromotionInCapture::Stop),
        ("promotion:as-man", PromotionInCapture::ContinueAsMan),
        ("promotion:pac", PromotionInCapture::PromoteAndContinue),
    ] {
        if c.promotion != other {
            flip(label, &|v| v.capture.promotion = other);
        }
    }
    if k.landing == Landing::Adjacent {
        flip("landing", &|v| v.kings.landing = Landing::Any);
    }
    if k.orth_targets == Targets::Kings || k.diag_targets == Targets::Kings {
        flip("targets", &|v| {
            v.kings.orth_targets = Targets::Any;
            v.kings.diag_targets = Targets::Any;
            v.kings.targets_first_jump_only = false;
        });
    }
    if k.targets_first_jump_only {
        flip("targets-first-only", &|v| {
            v.kings.targets_first_jump_only = false
        });
    }
    if !variant.men.first_jump_forbidden.is_empty() {
        flip("first-jump", &|v| v.men.first_jump_forbidden = DirSet::NONE);
    }
    if variant.men.line_leap != LineLeap::None {
        flip("line-leap", &|v| v.men.line_leap = LineLeap::None);
    }
    if variant.bahrain {
        flip("bahrain", &|v| v.bahrain = false);
    }
    out
}

fn move_key<B: Bits>(mv: &Move<B>) -> Key {
    (
        mv.from().0,
        mv.to().0,
        mv.captured().to_u128(),
        mv.promotes(),
    )
}

fn ref_key(variant: &Variant, seq: &RefSequence) -> Key {
    (
        square_of(variant, seq.from).0,
        square_of(variant, seq.to()).0,
        seq.captured_mask(variant),
        seq.promotes,
    )
}

fn ref_path_key(variant: &Variant, seq: &RefSequence) -> PathKey {
    let sq = |c: &Cell| square_of(variant, *c).0;
    (
        sq(&seq.from),
        seq.landings.iter().map(sq).collect(),
        seq.captured.iter().map(sq).collect(),
        seq.promotes,
    )
}

fn count<K: Ord>(keys: impl IntoIterator<Item = K>) -> BTreeMap<K, usize> {
    let mut map = BTreeMap::new();
    for k in keys {
        *map.entry(k).or_insert(0) += 1;
    }
    map
}

/// The entries of `a` not matched in `b`, with their surplus multiplicity.
fn surplus<K: Ord + Clone>(a: &BTreeMap<K, usize>, b: &BTreeMap<K, usize>) -> Vec<(K, usize)> {
    a.iter()
        .filter_map(|(k, &n)| {
            let m = b.get(k).copied().unwrap_or(0);
            (n > m).then(|| (k.clone(), n - m))
        })
        .collect()
}

fn name(variant: &Variant, index: u8) -> String {
    variant.geometry.name(Square(index))
}

fn show_key(variant: &Variant, (from, to, captured, promotes): &Key) -> String {
    let caps: Vec<String> = (0..128u8)
        .filter(|i| captured >> i & 1 == 1)
        .map(|i| name(variant, i))
        .collect();
    let sep = if caps.is_empty() { "-" } else { "x" };
    let mut text = format!("{}{sep}{}", name(variant, *from), name(variant, *to));
    if !caps.is_empty() {
        write!(text, " [captures {}]", caps.join(",")).unwrap();
    }
    if *promotes {
        text.push_str(" (crowns)");
    }
    text
}

fn show_path(variant: &Variant, (from, path, captures, promotes): &PathKey) -> String {
    let sep = if captures.is_empty() { "-" } else { "x" };
    let mut text = name(variant, *from);
    for &l in path {
        text.push_str(sep);
        text.push_str(&name(variant, l));
    }
    if !captures.is_empty() {
        let caps: Vec<String> = captures.iter().map(|&c| name(variant, c)).collect();
        write!(text, " [captures in order {}]", caps.join(",")).unwrap();
    }
    if *promotes {
        text.push_str(" (crowns)");
    }
    text
}

fn list<K>(variant: &Variant, items: &[(K, usize)], show: fn(&Variant, &K) -> String) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items
        .iter()
        .map(|(k, n)| {
            if *n > 1 {
                format!("{} (x{n})", show(variant, k))
            } else {
                show(variant, k)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether `to - from` is one unit step (so a quiet man move that is not one is a line-leap).
fn is_unit_step(board_dark: bool, from: Cell, to: Cell) -> bool {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let orth = if board_dark { 2 } else { 1 };
    (dx.abs() == 1 && dy.abs() == 1)
        || (dx == 0 && dy.abs() == orth)
        || (dy == 0 && dx.abs() == orth)
}

/// Compares the fast generator with the reference on one position; returns a failure report.
fn compare<B: Bits>(
    rules: &Rules<B>,
    variant: &Variant,
    flipped: &[(&'static str, Variant)],
    pos: &Position<B>,
    stats: &mut Stats,
) -> Option<String> {
    let board = RefBoard::from_position(variant, pos);
    let reference = reference_moves(variant, &board);
    let answer = count(reference.iter().map(|s| ref_path_key(variant, s)));
    // The rule statistics are sampled (every third position) to keep the test fast.
    let flipped = if stats.positions.is_multiple_of(3) {
        flipped
    } else {
        &[]
    };
    for (rule, other) in flipped {
        let changed = count(
            reference_moves(other, &board)
                .iter()
                .map(|s| ref_path_key(variant, s)),
        );
        if changed != answer {
            *stats.rule_hits.entry(rule).or_insert(0) += 1;
        }
    }

    // The reference's own invariant: one entry per distinct series of landings.
    let ref_paths = count(reference.iter().map(|s| ref_path_key(variant, s)));
    assert_eq!(
        ref_paths.len(),
        reference.len(),
        "{}: the reference produced the same sequence twice in {}",
        variant.id,
        write_fen(&variant.geometry, pos)
    );

    stats.positions += 1;
    stats.sequences += reference.len();
    stats.most_sequences = stats.most_sequences.max(reference.len());
    if reference.iter().any(RefSequence::is_capture) {
        stats.captures += 1;
        if reference.iter().any(|s| s.captured.len() >= 2) {
            stats.multi_captures += 1;
        }
        if reference
            .iter()
            .any(|s| board.get(s.from).is_some_and(|p| p.king))
        {
            stats.king_captures += 1;
        }
        if reference.iter().any(|s| s.promotes) {
            stats.capture_promotions += 1;
        }
        let all = all_capture_sequences(variant, &board, board.side_to_move);
        if all.len() > reference.len() {
            stats.majority_cuts += 1;
        }
    } else {
        if reference.iter().any(|s| s.promotes) {
            stats.quiet_promotions += 1;
        }
        let dark = variant.geometry.squares_kind() == Squares::Dark;
        if reference.iter().any(|s| {
            board.get(s.from).is_some_and(|p| !p.king) && !is_unit_step(dark, s.from, s.to())
        }) {
            stats.line_leaps += 1;
        }
    }

    let mut keep = Vec::new();
    rules.legal_moves(pos, &mut keep, Duplicates::Keep);
    let mut merge = Vec::new();
    rules.legal_moves(pos, &mut merge, Duplicates::Merge);
    let detailed = rules.legal_moves_detailed(pos, Duplicates::Keep);

    let ref_keep = count(reference.iter().map(|s| ref_key(variant, s)));
    let fast_keep = count(keep.iter().map(move_key));
    let ref_merge: BTreeMap<Key, usize> = ref_keep.keys().map(|k| (*k, 1)).collect();
    let fast_merge = count(merge.iter().map(move_key));
    let fast_paths = count(detailed.iter().map(|d| {
        (
            d.mv.from().0,
            d.path.iter().map(|s| s.0).collect::<Vec<u8>>(),
            d.captures.iter().map(|s| s.0).collect::<Vec<u8>>(),
            d.mv.promotes(),
        )
    }));

    let mut report = String::new();
    if fast_keep != ref_keep {
        writeln!(
            report,
            "  Keep: missing (reference only): {}\n  Keep: extra (fast only): {}",
            list(variant, &surplus(&ref_keep, &fast_keep), show_key),
            list(variant, &surplus(&fast_keep, &ref_keep), show_key),
        )
        .unwrap();
    }
    if fast_merge != ref_merge {
        writeln!(
            report,
            "  Merge: missing (reference only): {}\n  Merge: extra or repeated (fast only): {}",
            list(variant, &surplus(&ref_merge, &fast_merge), show_key),
            list(variant, &surplus(&fast_merge, &ref_merge), show_key),
        )
        .unwrap();
    }
    if fast_paths != ref_paths {
        writeln!(
            report,
            "  Detailed: missing (reference only): {}\n  Detailed: extra (fast only): {}",
            list(variant, &surplus(&ref_paths, &fast_paths), show_path),
            list(variant, &surplus(&fast_paths, &ref_paths), show_path),
        )
        .unwrap();
    }
    if report.is_empty() {
        return None;
    }
    Some(format!(
        "variant {}: FEN {}\n{report}",
        variant.id,
        write_fen(&variant.geometry, pos)
    ))
}

/// A random placement: men and kings of both sides, usually clustered in a small window of the
/// board so that pieces touch, with a share of kings drawn per position. Men never stand on their
/// own promotion squares (they would be kings there).
fn random_setup(variant: &Variant, rng: &mut Rng) -> Setup {
    let g = &variant.geometry;
    let (w, h) = (g.width() as i32, g.height() as i32);
    let squares: Vec<Square> = g.all_squares().to_vec();
    let big = g.len() > 64;

    let side_to_move = if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    let mut pool: Vec<Square> = if rng.random_bool(0.8) {
        let size = rng.random_range(3..=if big { 6 } else { 5 });
        let x0 = rng.random_range(0..=w - size);
        // A third of the windows touch the far rank of the side to move, where men are crowned
        // (during captures too).
        let y0 = match (rng.random_bool(0.33), side_to_move) {
            (true, Color::White) => h - size,
            (true, Color::Black) => 0,
            (false, _) => rng.random_range(0..=h - size),
        };
        squares
            .iter()
            .copied()
            .filter(|&sq| {
                let (x, y) = g.coords(sq);
                let (x, y) = (x as i32, y as i32);
                x >= x0 && x < x0 + size && y >= y0 && y < y0 + size
            })
            .collect()
    } else {
        squares.clone()
    };
    shuffle(&mut pool, rng);
    let in_pool = pool.len();
    // A few pieces anywhere on the board, behind the clustered ones.
    let mut rest: Vec<Square> = squares.into_iter().filter(|s| !pool.contains(s)).collect();
    shuffle(&mut rest, rng);
    pool.extend(rest);

    let max_side = if big { 14 } else { 10 };
    let near = rng.random_range(2..=in_pool.clamp(2, 2 * max_side));
    let far = rng.random_range(0..=4);
    let total = (near + far).min(pool.len());

    let king_share = [0.0, 0.1, 0.25, 0.5, 0.8, 1.0][rng.random_range(0..6)];
    let max_kings = if big { 5 } else { 6 };
    let mut kings = [0usize; 2];
    let mut pieces = Vec::new();
    for (i, &sq) in pool[..total].iter().enumerate() {
        // Alternate colours at random, but give each side at least one piece.
        let color = match i {
            0 => Color::White,
            1 => Color::Black,
            _ if rng.random_bool(0.5) => Color::White,
            _ => Color::Black,
        };
        let on_promotion = variant.promotion[color.index()] >> sq.0 & 1 == 1;
        let mut king = on_promotion || rng.random_bool(king_share);
        if king && kings[color.index()] >= max_kings {
            if on_promotion {
                continue;
            }
            king = false;
        }
        if king {
            kings[color.index()] += 1;
        }
        pieces.push((sq, Piece { color, king }));
    }
    Setup {
        side_to_move: Some(side_to_move),
        pieces,
    }
}

fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
}

/// Runs one variant: random placements, then random games from the start position.
fn run_variant<B: Bits>(rules: &Rules<B>, variant: &Variant, budget: Budget, seed: u64) -> Stats {
    let mut stats = Stats::default();
    let flipped = flipped_rules(variant);
    for (rule, _) in &flipped {
        stats.rule_hits.insert(rule, 0);
    }
    let mut rng = Rng::seed_from_u64(seed);
    let record = |stats: &mut Stats, failure: Option<String>| {
        if let Some(f) = failure {
            if stats.failures.len() < MAX_FAILURES {
                stats.failures.push(f);
            }
        }
    };

    // The Bahrain restriction needs a rare constellation (no capture for the mover, a threatened
    // man, a quiet move creating a threat): give it more positions.
    let placements = budget.placements * if variant.bahrain { 4 } else { 1 };
    for _ in 0..placements {
        let setup = random_setup(variant, &mut rng);
        let pos = Position::from_setup(rules, &setup).expect("a valid random placement");
        // The conversions must round-trip.
        let board = RefBoard::from_position(variant, &pos);
        assert_eq!(board, RefBoard::from_setup(variant, &setup));
        let back = Position::from_setup(rules, &board.to_setup(variant)).expect("round trip");
        assert_eq!(back, pos);
        let failure = compare(rules, variant, &flipped, &pos, &mut stats);
        stats.placed += 1;
        record(&mut stats, failure);
    }

    for _ in 0..budget.games {
        let mut pos = Position::start(rules);
        let mut board = RefBoard::from_position(variant, &pos);
        for _ in 0..budget.max_plies {
            let failure = compare(rules, variant, &flipped, &pos, &mut stats);
            stats.played += 1;
            record(&mut stats, failure);
            let mut moves = Vec::new();
            rules.legal_moves(&pos, &mut moves, Duplicates::Merge);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            pos = pos.play(&mv);
            // The reference's own `play` must reach the same position (when it agrees on the
            // move, which `compare` has checked).
            if let Some(seq) = reference_moves(variant, &board)
                .into_iter()
                .find(|s| ref_key(variant, s) == move_key(&mv))
            {
                board = board.play(&seq);
                assert_eq!(
                    board,
                    RefBoard::from_position(variant, &pos),
                    "{}: the reference's play differs from the fast one",
                    variant.id
                );
            } else {
                board = RefBoard::from_position(variant, &pos);
            }
        }
    }
    stats
}

fn run_all(variants: Vec<Variant>, budget: Budget, seed: u64) {
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut lines = Vec::new();
    for (i, variant) in variants.into_iter().enumerate() {
        let t = Instant::now();
        let id = variant.id.clone();
        let seed = seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let stats = with_rules!(variant.clone(), |rules| run_variant(
            &rules, &variant, budget, seed
        ));
        lines.push(stats.line(&id, t.elapsed().as_secs_f64()));
        lines.push(stats.rules_line());
        if stats.positions == 0 || stats.captures == 0 {
            failures.push(format!("variant {id}: no capture position was generated"));
        }
        failures.extend(stats.failures);
    }
    println!("{}", lines.join("\n"));
    println!("total {:.2}s", started.elapsed().as_secs_f64());
    if !failures.is_empty() {
        panic!(
            "{} disagreement(s) between the fast generator and the reference (at most {MAX_FAILURES} per variant shown):\n\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn builtin_variants_agree_with_the_reference() {
    let catalogue = Catalogue::builtin();
    let variants: Vec<Variant> = catalogue
        .ids()
        .iter()
        .map(|id| catalogue.get(id).expect("a built-in variant"))
        .collect();
    assert!(!variants.is_empty());
    // Keep the whole file within ~10 s as the catalogue grows towards the ~50 blocks of the rule
    // book: the placements are shared out, with at least 1000 per variant.
    let budget = Budget {
        placements: (BUILTIN_PLACEMENTS / variants.len()).clamp(1000, BUILTIN.placements),
        ..BUILTIN
    };
    // One round in CI; `DAMSPEL_REFERENCE_ROUNDS=20` for a long run over other seeds.
    let rounds = common::rounds("DAMSPEL_REFERENCE_ROUNDS");
    for round in 0..rounds {
        run_all(
            variants.clone(),
            budget,
            0x00da_5e11 ^ round.wrapping_mul(0x2545_f491_4f6c_dd1d),
        );
    }
}

// ------------------------------------------------------------------------------------------------
// Test-local variant files for the rule book blocks that are not built in yet: every rule
// dimension of §7 is exercised now, before the real files arrive. Their ids start with "x-" so
// that they never clash with the built-in files (the built-ins are the authority once they exist).

/// A test-local file that extends another variant: `(id, block, extends, body)`.
const EXTENDING: &[(&str, &str, &str, &str)] = &[
    (
        "modified-turkish",
        "1.02",
        "turkish",
        "[setup]\nwhite = { ranks = [1, 2] }\n[men]\nline_leap = \"first-rank\"\nline_leap_over = \"pieces\"\n",
    ),
    (
        "armenian",
        "1.03",
        "turkish",
        "[men]\nstep = \"five\"\n[kings]\nmove = \"all8\"\n",
    ),
    (
        "armenian-2",
        "1.04",
        "turkish",
        "[men]\ncapture = [\"F\", \"L\", \"R\", \"B\"]\nfirst_jump_forbidden = \"B\"\n",
    ),
    (
        "armenian-3",
        "1.05",
        "x-armenian",
        "[capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "gothic",
        "1.06",
        "turkish",
        "[setup]\nwhite = { ranks = [1, 2] }\n[men]\nstep = \"diag-forward\"\ncapture = \"five\"\n\
         [kings]\nmove_range = \"short\"\nmove = \"all8\"\ncapture_range = \"short\"\ncapture = \"all8\"\n\
         [capture]\npromotion = \"stop\"\n",
    ),
    (
        "modified-gothic",
        "1.07",
        "x-gothic",
        "[men]\nline_leap = \"first-rank\"\nline_leap_over = \"pieces\"\n",
    ),
    (
        "modified-gothic-2",
        "1.08",
        "x-modified-gothic",
        "[capture]\nprecedence = \"free\"\n",
    ),
    (
        "adigha",
        "1.09",
        "turkish",
        "[capture]\nremoval = \"deferred\"\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "croda",
        "1.10",
        "turkish",
        "[setup]\nwhite = { ranks = [1, 2, 3] }\n[men]\nstep = \"fwd3\"\ncapture = \"orth\"\n\
         [capture]\nremoval = \"deferred\"\n",
    ),
    (
        "modern-gothic",
        "1.11",
        "turkish",
        "[setup]\nwhite = { ranks = [1, 2, 3] }\n[men]\nstep = \"diag-forward\"\ncapture = \"orth\"\n\
         line_leap = \"first-rank\"\nline_leap_over = \"men\"\n[capture]\nremoval = \"deferred\"\n",
    ),
    (
        "modern-gothic-2",
        "1.12",
        "x-modern-gothic",
        "[setup]\nwhite = { ranks = [1, 2] }\n",
    ),
    (
        "teutonic",
        "1.13",
        "x-modern-gothic",
        "[men]\ncapture = \"five\"\n",
    ),
    (
        "teutonic-2",
        "1.14",
        "x-teutonic",
        "[setup]\nwhite = { ranks = [1, 2] }\n",
    ),
    (
        "greek",
        "1.15",
        "turkish",
        "[kings]\nlanding = \"adjacent\"\n",
    ),
    (
        "greek-2",
        "1.16",
        "x-greek",
        "[capture]\nprecedence = \"free\"\n",
    ),
    (
        "greek-3",
        "1.17",
        "turkish",
        "[capture]\nprecedence = \"free\"\n",
    ),
    (
        "greek-4",
        "1.18",
        "turkish",
        "[capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "greek-5",
        "1.19",
        "x-greek-4",
        "[capture]\nprecedence = \"free\"\n",
    ),
    (
        "greek-6",
        "1.20",
        "x-greek",
        "[capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "greek-7",
        "1.21",
        "x-greek-6",
        "[capture]\nprecedence = \"free\"\n",
    ),
    (
        "universal",
        "1.22",
        "turkish",
        "[setup]\nwhite = { ranks = [1, 2, 3] }\n[men]\nstep = \"five\"\ncapture = \"all8\"\n\
         [kings]\nmove = \"all8\"\ncapture = \"all8\"\n[capture]\nremoval = \"deferred\"\n",
    ),
    (
        "turkthic",
        "1.24",
        "turkish",
        "[men]\nstep = \"five\"\ncapture = \"five\"\n[kings]\nmove = \"all8\"\ncapture = \"all8\"\n\
         landing = \"adjacent\"\n[capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "turkthic-2",
        "1.25",
        "x-turkthic",
        "[kings]\nmove_range = \"short\"\ncapture_range = \"short\"\nlanding = \"any\"\n",
    ),
    (
        "ossetian-keny",
        "1.26",
        "turkish",
        "[capture]\nreversal = \"allowed\"\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "ossetian-keny-2",
        "1.27",
        "turkish",
        "[capture]\nreversal = \"allowed\"\n",
    ),
    (
        "bahrain",
        "1.29",
        "turkish",
        "[special]\nbahrain = true\n",
    ),
    (
        "bosnian",
        "1.30",
        "turkish",
        "[men]\ncapture = [\"F\", \"L\", \"R\", \"B\"]\n",
    ),
    (
        "siberian",
        "2.01",
        "brazilian",
        "[setup]\nwhite = { ranks = [1, 2] }\n[men]\ncapture = \"turk-man\"\n\
         [kings]\ncapture = \"orth\"\n\
         [capture]\nremoval = \"immediate\"\nreversal = \"allowed\"\nprecedence = \"free\"\npromotion = \"stop\"\n",
    ),
    (
        "eurasian",
        "2.02",
        "x-siberian",
        "[setup]\nwhite = { ranks = [1, 2, 3] }\n[men]\ncapture = \"orth\"\n\
         [capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "hoogland",
        "2.03",
        "brazilian",
        "[kings]\ncapture = \"all8\"\north_targets = \"kings\"\ndiag_targets = \"any\"\n",
    ),
    (
        "hoogland-10",
        "2.04",
        "international",
        "[kings]\ncapture = \"all8\"\north_targets = \"kings\"\ndiag_targets = \"any\"\n",
    ),
    (
        "hoogland-first",
        "2.03 (first-jump-only switch)",
        "x-hoogland",
        "[kings]\ntargets_first_jump_only = true\n",
    ),
    (
        "babylonian",
        "2.05",
        "international",
        "[men]\ncapture = \"orth\"\n[kings]\ncapture = \"orth\"\n",
    ),
    (
        "babylonian-a",
        "2.06",
        "x-babylonian",
        "[kings]\nmove = \"all8\"\ncapture = \"all8\"\n",
    ),
    (
        "babylonian-b",
        "2.07",
        "x-babylonian",
        "[capture]\nremoval = \"immediate\"\nreversal = \"allowed\"\n",
    ),
    (
        "babylonian-c",
        "2.08",
        "x-babylonian-a",
        "[capture]\nremoval = \"immediate\"\nreversal = \"allowed\"\n",
    ),
    (
        "altdeutsche",
        "3.01",
        "x-gothic",
        "[men]\nstep = \"five\"\n",
    ),
    (
        "tama",
        "3.03",
        "x-armenian",
        "[capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "deferred",
        "4.02",
        "international",
        "[men]\nfirst_jump_forbidden = [\"BL\", \"BR\"]\n",
    ),
    (
        "deferred-killer",
        "4.03",
        "x-deferred",
        "[capture]\nhalt = \"killer\"\n",
    ),
    (
        "deferred-killer-light",
        "4.04",
        "x-deferred",
        "[capture]\nhalt = \"sequential-killer\"\n",
    ),
    (
        "deferred-halt",
        "4.05",
        "x-deferred",
        "[capture]\nhalt = \"sequential-halt\"\n",
    ),
    (
        "deferred-halt-2",
        "4.06",
        "x-deferred",
        "[capture]\nhalt = \"sequential-halt-2\"\n",
    ),
    // Parameter points no block uses yet, for the generic machinery.
    (
        "turkish-weighted",
        "D18 (king_value 3)",
        "turkish",
        "[capture]\nking_value = 3\nman_value = 2\n",
    ),
    (
        "international-weighted",
        "D18 (king_value 2)",
        "international",
        "[capture]\nking_value = 2\n",
    ),
    (
        "turkish-10",
        "D1 (10x10, all squares: 128-bit boards)",
        "turkish",
        "[board]\nwidth = 10\nheight = 10\n[setup]\nwhite = { ranks = [2, 3] }\n",
    ),
    (
        "bahrain-greek-pac",
        "D21 with D14 and D19",
        "x-bahrain",
        "[kings]\nlanding = \"adjacent\"\n[capture]\npromotion = \"promote-and-continue\"\n",
    ),
    (
        "russian-deferred-free-stop",
        "D19 Stop with flying kings",
        "russian",
        "[capture]\npromotion = \"stop\"\n",
    ),
];

/// Files with their own setup (setups cannot be overridden through `extends`, which merges
/// tables key by key).
const FULL: &[(&str, &str)] = &[
    (
        "dameo",
        "id = \"x-dameo\"\nname = \"x-dameo\"\naliases = []\nfamily = \"test\"\nblock = \"1.23\"\n\
         seed = \"test\"\ndescription = \"Test-local file for rule book block 1.23.\"\nsources = []\n\
         [board]\nwidth = 8\nheight = 8\nsquares = \"all\"\n\
         [setup]\nwhite = { squares = [\"a1\", \"b1\", \"c1\", \"d1\", \"e1\", \"f1\", \"g1\", \"h1\", \
         \"b2\", \"c2\", \"d2\", \"e2\", \"f2\", \"g2\", \"c3\", \"d3\", \"e3\", \"f3\"] }\n\
         first_player = \"white\"\n\
         [men]\nstep = \"fwd3\"\ncapture = \"orth\"\nfirst_jump_forbidden = \"none\"\n\
         line_leap = \"anywhere\"\nline_leap_over = \"men\"\n\
         [kings]\nmove_range = \"flying\"\nmove = \"all8\"\ncapture_range = \"flying\"\ncapture = \"orth\"\n\
         landing = \"any\"\north_targets = \"any\"\ndiag_targets = \"any\"\ntargets_first_jump_only = false\n\
         [capture]\nremoval = \"deferred\"\nreversal = \"forbidden\"\nprecedence = \"majority\"\n\
         man_value = 1\nking_value = 1\npromotion = \"continue-as-man\"\nhalt = \"none\"\n\
         [promotion]\nsquares = \"far-rank\"\n[special]\nbahrain = false\n\
         [draw]\none_piece_each = false\nrepetition = 3\nno_progress_moves = 0\nfmjd_endgame = false\n",
    ),
    (
        "harzdame",
        "id = \"x-harzdame\"\nname = \"x-harzdame\"\naliases = []\nfamily = \"test\"\nblock = \"1.28\"\n\
         seed = \"test\"\ndescription = \"Test-local file for rule book block 1.28.\"\nsources = []\n\
         [board]\nwidth = 8\nheight = 8\nsquares = \"all\"\n\
         [setup]\nwhite = { squares = [\"a1\", \"b1\", \"c1\", \"d1\", \"e1\", \"f1\", \"a2\", \"b2\", \
         \"c2\", \"d2\", \"e2\", \"a3\", \"b3\", \"c3\", \"d3\", \"a4\", \"b4\", \"c4\", \"a5\", \"b5\", \"a6\"] }\n\
         first_player = \"white\"\n\
         [men]\nstep = [\"F\", \"R\"]\ncapture = \"orth\"\nfirst_jump_forbidden = \"none\"\n\
         line_leap = \"none\"\nline_leap_over = \"pieces\"\n\
         [kings]\nmove_range = \"flying\"\nmove = \"orth\"\ncapture_range = \"flying\"\ncapture = \"orth\"\n\
         landing = \"any\"\north_targets = \"any\"\ndiag_targets = \"any\"\ntargets_first_jump_only = false\n\
         [capture]\nremoval = \"deferred\"\nreversal = \"forbidden\"\nprecedence = \"majority\"\n\
         man_value = 1\nking_value = 1\npromotion = \"continue-as-man\"\nhalt = \"none\"\n\
         [promotion]\nsquares = [\"c8\", \"d8\", \"e8\", \"f8\", \"g8\", \"h8\", \"h3\", \"h4\", \"h5\", \"h6\", \"h7\"]\n\
         [special]\nbahrain = false\n\
         [draw]\none_piece_each = false\nrepetition = 3\nno_progress_moves = 0\nfmjd_endgame = false\n",
    ),
];

/// The test-local files whose block is not built in yet. A test-local file whose parent block
/// is built in extends the built-in file instead.
fn extra_variants() -> Vec<Variant> {
    let mut catalogue = Catalogue::builtin();
    let builtin = catalogue.ids();
    let is_builtin = |id: &str| builtin.iter().any(|b| b == id);
    let mut files: Vec<(String, String)> = EXTENDING
        .iter()
        .filter(|(id, ..)| !is_builtin(id))
        .map(|(id, block, extends, body)| {
            let extends = match extends.strip_prefix("x-") {
                Some(parent) if is_builtin(parent) => parent,
                _ => extends,
            };
            (
                format!("x-{id}.toml"),
                format!(
                    "id = \"x-{id}\"\nname = \"x-{id}\"\naliases = []\nblock = \"{block}\"\n\
                     description = \"Test-local file for rule book block {block}.\"\n\
                     extends = \"{extends}\"\n{body}"
                ),
            )
        })
        .collect();
    files.extend(
        FULL.iter()
            .filter(|(id, _)| !is_builtin(id))
            .map(|(id, text)| (format!("x-{id}.toml"), text.to_string())),
    );
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    let ids = catalogue
        .add_sources(&refs)
        .unwrap_or_else(|e| panic!("a test-local variant file does not check: {e}"));
    ids.iter()
        .map(|id| catalogue.get(id).expect("just added"))
        .collect()
}

#[test]
fn every_rule_dimension_agrees_with_the_reference() {
    // A block whose real file is built in is checked by the test above, from that file; the
    // parameter points that no block uses yet always run.
    run_all(extra_variants(), EXTRA, 0x0be7_a11d);
}

// ------------------------------------------------------------------------------------------------
// The oracle itself against the published data (shared/reference, copied to data/): the reference
// generator must reproduce the published legal-move counts and the small perft numbers.

fn reference_perft(variant: &Variant, board: &RefBoard, depth: u32, paths: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = reference_moves(variant, board);
    if !paths {
        // Merge: one representative per (from, to, captured set, promotes), which all lead to
        // the same position.
        let mut seen = Vec::new();
        moves.retain(|s| {
            let key = ref_key(variant, s);
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
    }
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|s| reference_perft(variant, &board.play(s), depth - 1, paths))
        .sum()
}

#[test]
fn the_reference_reproduces_the_published_data() {
    check_published_data(300_000);
}

/// The deeper published perft rows (minutes): `cargo test --release -p damspel-conformance
/// --test conformance reference_generator:: -- --ignored`.
#[test]
#[ignore]
fn the_reference_reproduces_the_deeper_published_perft() {
    check_published_data(20_000_000);
}

fn check_published_data(max_nodes: u64) {
    let catalogue = Catalogue::builtin();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in legal_moves_rows() {
        let variant = catalogue.get(&row.variant).expect("a built-in variant");
        let setup = parse_fen(&variant.geometry, &row.fen).expect("a published FEN");
        let board = RefBoard::from_setup(&variant, &setup);
        let moves = reference_moves(&variant, &board);
        let merged: std::collections::BTreeSet<Key> =
            moves.iter().map(|s| ref_key(&variant, s)).collect();
        checked += 1;
        if merged.len() != row.count {
            let shown: Vec<String> = moves.iter().map(RefSequence::describe).collect();
            failures.push(format!(
                "{} {}: published {} legal moves, the reference finds {} ({}) [{}]",
                row.variant,
                row.fen,
                row.count,
                merged.len(),
                shown.join(", "),
                row.source
            ));
        }
    }
    for row in perft_rows() {
        if row.nodes > max_nodes {
            continue;
        }
        let variant = catalogue.get(&row.variant).expect("a built-in variant");
        let setup = parse_fen(&variant.geometry, &row.fen).expect("a published FEN");
        let board = RefBoard::from_setup(&variant, &setup);
        let nodes = reference_perft(&variant, &board, row.depth, row.paths);
        checked += 1;
        if nodes != row.nodes {
            failures.push(format!(
                "{} {} depth {} ({}): published {}, the reference counts {} [{}]",
                row.variant,
                row.fen,
                row.depth,
                if row.paths { "paths" } else { "dedup" },
                row.nodes,
                nodes,
                row.source
            ));
        }
    }
    println!("{checked} published rows reproduced by the reference");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reference generator holds every capture sequence before the majority rule keeps the most
/// valuable: bounded, it gives up past its bounds instead of growing without end (the worst
/// captures' check once grew it to 19 GB), and within them it gives every sequence.
#[test]
fn the_reference_gives_up_past_its_bounds() {
    let catalogue = Catalogue::builtin();
    let board_of = |id: &str, fen: &str| {
        let variant = catalogue.get(id).expect("a built-in variant");
        let setup = parse_fen(&variant.geometry, fen).expect("a valid FEN");
        let board = RefBoard::from_setup(&variant, &setup);
        (variant, board)
    };
    // legal-moves.tsv, dctl international.cpp [FrenchTutorial]: W:WK46:B23 has the four
    // captures 46x19 46x14 46x10 46x05, each a single jump: four sequences.
    let (variant, board) = board_of("international", "W:WK46:B23");
    let within = |sequences| {
        let bounds = Bounds {
            sequences,
            deadline: None,
        };
        reference_moves_within(&variant, &board, bounds)
    };
    assert_eq!(within(4).map(|moves| moves.len()), Ok(4));
    assert_eq!(within(3).map(|moves| moves.len()), Err(OverBounds));
    // The audit's universal position (8.2 million capture paths): a deadline already passed
    // stops it within its first states.
    let (variant, board) = board_of(
        "universal",
        "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,\
         Kg3,Kg5,Kg7,Kh5",
    );
    let started = Instant::now();
    let bounds = Bounds {
        sequences: usize::MAX,
        deadline: Some(started),
    };
    let given_up = reference_moves_within(&variant, &board, bounds).map(|moves| moves.len());
    assert_eq!(given_up, Err(OverBounds));
}
