//! The positions whose legal-move generation costs most, searched for in every built-in variant.
//!
//! ```text
//! cargo run --release -p damspel-conformance --example worst_captures --features tools -- \
//!     [--variant ID]... [--seconds-per-variant N] [--seed S] [--out FILE]
//! cargo run --release -p damspel-conformance --example worst_captures --features tools -- --check FILE
//! cargo run --release -p damspel-conformance --example worst_captures --features tools -- \
//!     --survey GAMES | --survey-pdn FILE   [--variant ID]... [--out FILE]
//! ```
//!
//! The cost of a position is the wall time of `Rules::moves` (the distinct legal moves, the
//! merged walk): the fastest of three runs while searching, the median of five for the table.
//! Every evaluation is capped (`--cap-ms`): a watchdog thread raises the stop flag of
//! `legal_moves_until`, so one bad candidate cannot stall the search; a capped candidate ends its
//! climb and is kept as it is.
//!
//! The search, variant by variant: structured starts (`candidates`: kings of the side to move
//! among many enemy pieces, scattered or on a lattice, dense or sparse; men only; positions
//! reached by random play), each followed by a hill-climb of small edits (move, add, remove,
//! crown a piece, change the side to move) that keeps an edit when it does not make the position
//! cheaper; a climb ends after `--patience` edits without a gain of 5%. Some climbs restart from
//! the best found so far. The best of each climb is a finding; the most expensive `--keep` per
//! variant (and the issue's audit positions) go into the table, with their number of distinct
//! moves and of capture sequences (`count_moves(.., Duplicates::Keep)`, counted in a child
//! process that is killed after `--count-seconds`).
//!
//! With `--game-counts` every candidate keeps the material a game can have: a side with more
//! pieces than the variant's start gives it loses random pieces before it is measured
//! (`damspel_conformance::material`); such a position can only be set up, not played to.
//!
//! The candidates are drawn from a generator seeded by `--seed` and the variant id, so a
//! variant searched alone sees the same candidates as in a full run; which ones are kept depends
//! on measured times, so a busier or faster machine can keep others.
//!
//! `--survey GAMES` and `--survey-pdn FILE` time the positions games reach instead: random games
//! from the start position, or every game of a PDN file (`survey`).
//!
//! `--check FILE` checks `moves()` on every row against the counting walk, the enumerating walk
//! and the reference generator (`check`), and exits non-zero on any disagreement.

#[path = "worst_captures/board.rs"]
mod board;
#[path = "worst_captures/candidates.rs"]
mod candidates;
#[path = "worst_captures/check.rs"]
mod check;
#[path = "worst_captures/count.rs"]
mod count;
#[path = "worst_captures/measure.rs"]
mod measure;
#[path = "worst_captures/survey.rs"]
mod survey;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use damspel_notation::{parse_fen, write_fen};
use damspel_rules::{with_rules, Bits, Catalogue, Position, Rules};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{RngExt, SeedableRng};

use board::{Board, Shape};
use candidates::{mutate, start, Start};
use damspel_conformance::worst_table::{self as table, Row};
use measure::{cost, median, Timing, Watchdog};

pub type Rng = rand::rngs::Xoshiro256PlusPlus;

/// Positions of the issue's audit (finding 1) and of the capture rewrite's notes, always
/// measured and kept in the table.
const AUDIT: &[(&str, &str, &str)] = &[
    (
        "universal",
        "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,Kg3,\
         Kg5,Kg7,Kh5",
        "audit (issue 10, finding 1)",
    ),
    (
        "universal",
        "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,Kg3,\
         Kg5,Kg7,Kh5,Kh2",
        "audit + black king h2 (capture rewrite notes)",
    ),
    (
        "universal",
        "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,Kg3,\
         Kg5,Kg7,Kh5,Kb3",
        "audit + black king b3 (capture rewrite notes)",
    ),
];

#[derive(Parser)]
#[command(
    about = "Search every built-in variant for the positions whose move generation costs most"
)]
struct Args {
    /// Only this variant (id or alias); repeatable. Default: every built-in variant.
    #[arg(long)]
    variant: Vec<String>,
    /// Search time per variant.
    #[arg(long, default_value_t = 5.0)]
    seconds_per_variant: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give up an evaluation during the search after this many milliseconds.
    #[arg(long, default_value_t = 1000)]
    cap_ms: u64,
    /// Positions kept per variant.
    #[arg(long, default_value_t = 3)]
    keep: usize,
    /// Edits without a gain of 5% before a climb ends.
    #[arg(long, default_value_t = 150)]
    patience: u32,
    /// Cap of each timed run for the table, in seconds.
    #[arg(long, default_value_t = 120.0)]
    final_cap: f64,
    /// Give up counting the capture sequences of a position after this many seconds.
    #[arg(long, default_value_t = 120.0)]
    count_seconds: f64,
    /// Keep to positions a game could reach by their material: no side with more pieces than
    /// the variant's start gives it (`damspel_conformance::material`). Sources say "game counts".
    #[arg(long)]
    game_counts: bool,
    /// Add the positions kept to this table: a position already in it is measured again, every
    /// other row stays (the audit's and earlier searches', of any variant).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Check every row of this table instead of searching.
    #[arg(long)]
    check: Option<PathBuf>,
    /// With --check: cap of moves() and of the enumerating walk, in seconds.
    #[arg(long, default_value_t = 30.0)]
    walk_seconds: f64,
    /// With --check: the reference generator gives up past this many sequences before the
    /// majority rule (it holds them all: some 200 bytes each) or after --walk-seconds.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    reference_sequences: u64,
    /// Survey instead of searching: play this many random games per variant from the start
    /// position and time every position reached (see `survey`). With --out, the slowest
    /// position of each variant whose median is over --survey-keep-ms joins the table.
    #[arg(long, value_name = "GAMES", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    survey: Option<u64>,
    /// Survey the positions of every game of this PDN file instead (see `survey`); --variant
    /// names the variant of games whose tags do not.
    #[arg(long, value_name = "FILE", conflicts_with = "survey")]
    survey_pdn: Option<PathBuf>,
    /// With --survey: plies after which a game is left.
    #[arg(long, default_value_t = 400)]
    survey_plies: usize,
    /// With --survey or --survey-pdn, and --out: the median above which a variant's slowest
    /// position joins the table.
    #[arg(long, default_value_t = 20.0)]
    survey_keep_ms: f64,
    /// Internal: count the sequences of VARIANT FEN and print them (run as a child process).
    #[arg(long, num_args = 2, value_names = ["VARIANT", "FEN"], hide = true)]
    child_count: Option<Vec<String>>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let catalogue = Catalogue::builtin();
    let result = if let Some(child) = &args.child_count {
        child_count(&catalogue, &child[0], &child[1])
    } else if let Some(path) = &args.check {
        check_table(&catalogue, &args, path)
    } else if args.survey.is_some() || args.survey_pdn.is_some() {
        survey(&catalogue, &args)
    } else {
        search(&catalogue, &args)
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("worst_captures: {e}");
            ExitCode::from(2)
        }
    }
}

fn position<B: Bits>(rules: &Rules<B>, fen: &str) -> Result<Position<B>, String> {
    let setup = parse_fen(&rules.variant().geometry, fen).map_err(|e| format!("{fen}: {e}"))?;
    Position::from_setup(rules, &setup).map_err(|e| format!("{fen}: {e}"))
}

fn child_count(catalogue: &Catalogue, id: &str, fen: &str) -> Result<bool, String> {
    let variant = catalogue.get(id).map_err(|e| e.to_string())?;
    with_rules!(variant, |rules| {
        let pos = position(&rules, fen)?;
        count::child(&rules, &pos);
        Ok(true)
    })
}

// ------------------------------------------------------------------------------------------------
// The search

/// A position found, with what it cost.
#[derive(Clone)]
struct Found {
    board: Board,
    fen: String,
    cost: Timing,
    source: String,
    /// The climb whose structured start this position descends from.
    family: usize,
}

fn seconds_text(t: &Timing) -> String {
    if t.complete {
        format!("{:.3}", t.seconds * 1e3)
    } else {
        format!(">{:.0}", t.seconds * 1e3)
    }
}

/// A seed of the variant's own: the same candidates whether it is searched alone or not.
fn variant_seed(seed: u64, id: &str) -> u64 {
    id.bytes().fold(seed ^ 0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The variants asked for (every built-in one by default), by id.
fn variant_ids(catalogue: &Catalogue, args: &Args) -> Result<Vec<String>, String> {
    if args.variant.is_empty() {
        Ok(catalogue.ids())
    } else {
        args.variant
            .iter()
            .map(|v| catalogue.get(v).map(|v| v.id).map_err(|e| e.to_string()))
            .collect()
    }
}

fn search(catalogue: &Catalogue, args: &Args) -> Result<bool, String> {
    let ids = variant_ids(catalogue, args)?;
    let watchdog = Watchdog::start();
    let mut rows = Vec::new();
    println!(
        "worst_captures: seed {}, {} s per variant, evaluations capped at {} ms",
        args.seed, args.seconds_per_variant, args.cap_ms
    );
    for id in &ids {
        let variant = catalogue.get(id).map_err(|e| e.to_string())?;
        let found = with_rules!(variant, |rules| search_variant(&rules, id, args, &watchdog))?;
        rows.extend(found);
    }
    if let Some(path) = &args.out {
        let all = table::merge(table::read(path)?, rows, &catalogue.ids());
        table::write(path, &all)?;
        println!("wrote {}", path.display());
    }
    Ok(true)
}

/// `--survey GAMES` or `--survey-pdn FILE`: positions reached by play, timed (`survey`).
fn survey(catalogue: &Catalogue, args: &Args) -> Result<bool, String> {
    let watchdog = Watchdog::start();
    let mut surveyed = Vec::new();
    if let Some(path) = &args.survey_pdn {
        let (by_variant, left) = survey::pdn_games(catalogue, path, args, &watchdog)?;
        println!(
            "worst_captures --survey-pdn {}: every position of every game's main line timed once \
             (capped at {} ms)",
            path.display(),
            args.cap_ms
        );
        if left > 0 {
            println!("{left} games left: not readable, or of no variant Damspel has");
        }
        surveyed = by_variant;
    } else if let Some(games) = args.survey {
        let ids = variant_ids(catalogue, args)?;
        println!(
            "worst_captures --survey {games}: seed {}, {games} random games per variant of up to \
             {} plies, every position timed once (capped at {} ms)",
            args.seed, args.survey_plies, args.cap_ms
        );
        for id in ids {
            let variant = catalogue.get(&id).map_err(|e| e.to_string())?;
            surveyed.push(with_rules!(variant, |rules| survey::random_games(
                &rules, &id, args, games, &watchdog
            )));
        }
    }
    print!("{}", survey::report(&surveyed));
    let Some(path) = &args.out else {
        return Ok(true);
    };
    let source = match &args.survey_pdn {
        Some(file) => format!("play survey ({})", file.display()),
        None => format!("play survey seed {}", args.seed),
    };
    let mut rows = Vec::new();
    for s in &surveyed {
        let Some((fen, t, _)) = &s.slowest else {
            continue;
        };
        if t.complete && t.seconds * 1e3 <= args.survey_keep_ms {
            continue;
        }
        let counted = count::in_child(&s.id, fen, Duration::from_secs_f64(args.count_seconds));
        rows.push(Row {
            variant: s.id.clone(),
            fen: fen.clone(),
            source: source.clone(),
            median_ms: seconds_text(t),
            moves: if t.complete {
                t.moves.to_string()
            } else {
                "?".into()
            },
            sequences: counted.map_or("?".into(), |c| c.sequences.to_string()),
        });
    }
    let added = rows.len();
    let all = table::merge(table::read(path)?, rows, &catalogue.ids());
    table::write(path, &all)?;
    println!(
        "wrote {}: {added} positions over {} ms",
        path.display(),
        args.survey_keep_ms
    );
    Ok(true)
}

fn search_variant<B: Bits>(
    rules: &Rules<B>,
    id: &str,
    args: &Args,
    watchdog: &Watchdog,
) -> Result<Vec<Row>, String> {
    let mut shape = Shape::new(rules);
    if args.game_counts {
        shape.limits = Some(damspel_conformance::material::start_counts(rules));
    }
    let g = &rules.variant().geometry;
    let mut rng = Rng::seed_from_u64(variant_seed(args.seed, id));
    let cap = Duration::from_millis(args.cap_ms);
    let budget = Duration::from_secs_f64(args.seconds_per_variant);
    let bar = ProgressBar::new(budget.as_millis() as u64).with_style(
        ProgressStyle::with_template("{prefix:>22} [{bar:25}] {elapsed:>4} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(id.to_string());

    let mut list = Vec::new();
    let mut seen: HashMap<u64, f64> = HashMap::new();
    let mut evaluations = 0u64;
    let mut capped = 0u64;
    // The best position of each climb, most expensive first.
    let mut findings: Vec<Found> = Vec::new();
    let started = Instant::now();
    let mut climb = 0usize;
    let mut evaluate = |board: &Board, evaluations: &mut u64| -> Option<(Position<B>, Timing)> {
        let pos = board.position(&shape, rules)?;
        if let Some(&s) = seen.get(&pos.hash()) {
            // Seen in this search: its cost is known (a stopped one is not retried).
            return Some((
                pos,
                Timing {
                    seconds: s.abs(),
                    complete: s >= 0.0,
                    moves: 0,
                },
            ));
        }
        *evaluations += 1;
        let t = cost(watchdog, rules, &pos, &mut list, cap);
        seen.insert(pos.hash(), if t.complete { t.seconds } else { -t.seconds });
        Some((pos, t))
    };
    while started.elapsed() < budget {
        // A structured start, or (one climb in three) the best so far edited a little.
        let (mut current, kind, family) = if climb % 3 == 2 && !findings.is_empty() {
            let from = &findings[rng.random_range(0..findings.len().min(args.keep * 2))];
            let mut b = from.board.clone();
            for _ in 0..rng.random_range(2..=5) {
                mutate(&mut rng, &shape, &mut b);
            }
            b.trim(&shape, &mut rng);
            (b, from.source.clone(), from.family)
        } else {
            let kind = Start::ALL[[0, 0, 0, 1, 1, 1, 2, 3][rng.random_range(0..8)]];
            let mut b = start(kind, &mut rng, &shape, rules, watchdog);
            b.trim(&shape, &mut rng);
            let kind = if args.game_counts {
                format!("{kind}, game counts")
            } else {
                kind.to_string()
            };
            (b, kind, climb)
        };
        climb += 1;
        let Some((pos, mut now)) = evaluate(&current, &mut evaluations) else {
            continue;
        };
        let mut best = Found {
            board: current.clone(),
            fen: write_fen(g, &pos),
            cost: now,
            source: kind.clone(),
            family,
        };
        let mut stale = 0;
        while now.complete && stale < args.patience && started.elapsed() < budget {
            let mut next = current.clone();
            for _ in 0..rng.random_range(1..=3) {
                mutate(&mut rng, &shape, &mut next);
            }
            next.trim(&shape, &mut rng);
            let Some((pos, t)) = evaluate(&next, &mut evaluations) else {
                stale += 1;
                continue;
            };
            if !t.complete || t.seconds > now.seconds * 1.05 {
                stale = 0;
            } else {
                stale += 1;
            }
            if !t.complete || t.seconds >= now.seconds * 0.97 {
                current = next;
                now = t;
            }
            if !t.complete || t.seconds > best.cost.seconds {
                best = Found {
                    board: current.clone(),
                    fen: write_fen(g, &pos),
                    cost: t,
                    source: kind.clone(),
                    family,
                };
            }
            if !t.complete {
                capped += 1;
            }
        }
        if !findings.iter().any(|f| f.fen == best.fen) {
            findings.push(best);
            findings.sort_by(|a, b| {
                // Stopped ones first, then the slowest.
                a.cost
                    .complete
                    .cmp(&b.cost.complete)
                    .then(f64::total_cmp(&b.cost.seconds, &a.cost.seconds))
            });
            findings.truncate(64);
        }
        let top = &findings[0];
        bar.set_position(started.elapsed().as_millis() as u64);
        bar.set_message(format!(
            "{evaluations} evaluations, {climb} climbs, worst {} ms ({} moves)",
            seconds_text(&top.cost),
            top.cost.moves
        ));
    }
    bar.finish_and_clear();

    // The table's rows: the audit's positions and the most expensive findings, measured again.
    let mut rows = Vec::new();
    let mut chosen: Vec<(String, String)> = AUDIT
        .iter()
        .filter(|(v, _, _)| *v == id)
        .map(|(_, fen, source)| (fen.replace(char::is_whitespace, ""), source.to_string()))
        .collect();
    // The most expensive of distinct lineages (an edited copy of a finding is not news).
    let mut families = Vec::new();
    for f in &findings {
        if families.len() == args.keep {
            break;
        }
        if !families.contains(&f.family) {
            families.push(f.family);
            chosen.push((
                f.fen.clone(),
                format!("search seed {} ({})", args.seed, f.source),
            ));
        }
    }
    let final_cap = Duration::from_secs_f64(args.final_cap);
    println!(
        "{id}: {evaluations} evaluations in {climb} climbs, {capped} capped at {} ms",
        args.cap_ms
    );
    for (fen, source) in chosen {
        let pos = position(rules, &fen)?;
        let t = median(watchdog, rules, &pos, 5, final_cap, 1.0);
        let counted = count::in_child(id, &fen, Duration::from_secs_f64(args.count_seconds));
        let row = Row {
            variant: id.to_string(),
            fen,
            source,
            median_ms: seconds_text(&t),
            moves: if t.complete {
                t.moves.to_string()
            } else {
                "?".into()
            },
            sequences: counted
                .as_ref()
                .map_or("?".into(), |c| c.sequences.to_string()),
        };
        let counting = counted.map_or(format!(">{}", args.count_seconds), |c| {
            format!("{:.3}", c.seconds)
        });
        println!(
            "  {:>10} ms {:>5} moves {:>12} sequences (counted in {counting} s)  {}  [{}]",
            row.median_ms, row.moves, row.sequences, row.fen, row.source
        );
        rows.push(row);
    }
    Ok(rows)
}

// ------------------------------------------------------------------------------------------------
// Checking the table

fn check_table(catalogue: &Catalogue, args: &Args, path: &Path) -> Result<bool, String> {
    let rows = table::read(path)?;
    if rows.is_empty() {
        return Err(format!("{}: no rows", path.display()));
    }
    let watchdog = Watchdog::start();
    let limits = check::Limits {
        walk: Duration::from_secs_f64(args.walk_seconds),
        count: Duration::from_secs_f64(args.count_seconds),
        keep_sequences: 5_000_000,
        reference_sequences: args.reference_sequences as usize,
    };
    let mut bad = 0;
    for (i, row) in rows.iter().enumerate() {
        if !args.variant.is_empty() && !args.variant.contains(&row.variant) {
            continue;
        }
        let variant = catalogue.get(&row.variant).map_err(|e| e.to_string())?;
        let verdict = with_rules!(variant, |rules| {
            let pos = position(&rules, &row.fen)?;
            Ok::<_, String>(check::check(
                &watchdog,
                &rules,
                &pos,
                &row.variant,
                &row.fen,
                &limits,
            ))
        })?;
        println!("row {} {} {}", i + 2, row.variant, row.fen);
        for line in &verdict.lines {
            println!("    {line}");
        }
        if verdict.mismatch {
            bad += 1;
        }
    }
    println!(
        "{} rows checked, {bad} with a mismatch",
        rows.iter()
            .filter(|r| args.variant.is_empty() || args.variant.contains(&r.variant))
            .count()
    );
    Ok(bad == 0)
}
