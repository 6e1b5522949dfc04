//! Capture generation on the most expensive positions known (`data/worst-captures.tsv`: the
//! issue 10 audit's positions and the worst finds of the `worst_captures` search), against the
//! enumerating walk measured in the same run.
//!
//! Per row: the median of `runs` (default 5: `-- --runs 9`) timings of `Rules::moves` (the
//! merged walk, what the server, the engine and the Hub ask for), its jumps walked
//! (`capture_work`, machine-independent), and the median of the enumerating walk
//! (`legal_moves(.., Duplicates::Keep)`, every sequence, the generator before issue 10), stopped
//! after `--cap` seconds (default 5) and then shown as `>cap`. The two alternate; one thread.
//! Then the median of as many timings of the list with routes (`legal_moves_detailed(..,
//! Duplicates::Merge)`: what `damspel moves`, the server's move list and PDN import ask for).
//! `-- --over-ms 50` prints only rows whose median is above 50 ms; `-- --variant ID` keeps one
//! variant. The rows whose material a game can have (no side with more pieces than it starts
//! with, `damspel_conformance::material`) are counted apart: the others can only be set up.
//! Last, the Turkish rows against kish 1.1.7 (`kish::Board::actions`, the Turkish engine of
//! crates.io, which lists every sequence: tests/kish_oracle.rs checks it against Damspel), in
//! the same alternation; a row whose enumerating walk passes `--cap` is left out, since kish
//! cannot be stopped.
//!
//! `cargo bench -p damspel-conformance --bench captures`

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use damspel_conformance::material::within_start_counts;
use damspel_conformance::worst_table;
use damspel_notation::parse_fen;
use damspel_rules::{with_rules, Bits, Catalogue, Duplicates, Move, Position, Rules, Until};

#[path = "../tests/common/kish_board.rs"]
mod kish_board;
use kish_board::to_kish;

struct Options {
    runs: usize,
    cap: f64,
    over_ms: f64,
    variant: Option<String>,
}

fn options() -> Options {
    let mut o = Options {
        runs: 5,
        cap: 5.0,
        over_ms: 0.0,
        variant: None,
    };
    let args: Vec<String> = std::env::args().collect();
    let value = |i: usize| args.get(i + 1).cloned().unwrap_or_default();
    for (i, a) in args.iter().enumerate() {
        match a.as_str() {
            "--runs" => o.runs = value(i).parse().unwrap_or(5).max(1),
            "--cap" => o.cap = value(i).parse().unwrap_or(5.0),
            "--over-ms" => o.over_ms = value(i).parse().unwrap_or(0.0),
            "--variant" => o.variant = Some(value(i)),
            _ => {}
        }
    }
    o
}

/// Runs one generation with a stop flag raised after `cap` seconds; its wall time, or None when
/// stopped.
fn timed<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    dups: Duplicates,
    cap: f64,
    list: &mut Vec<Move<B>>,
) -> Option<f64> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let (s, d) = (Arc::clone(&stop), Arc::clone(&done));
    let timer = thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs_f64(cap);
        while !d.load(Ordering::Relaxed) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        s.store(true, Ordering::Relaxed);
    });
    let started = Instant::now();
    let result = rules.legal_moves_until(pos, list, dups, &stop);
    let seconds = started.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    timer.join().expect("the timer thread");
    result.ok().map(|_| seconds)
}

/// The wall time of the list with routes.
fn timed_detailed<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> f64 {
    let started = Instant::now();
    rules
        .legal_moves_detailed_until(
            pos,
            Duplicates::Merge,
            Until::deadline(started + Duration::from_secs(3600)),
        )
        .expect("done within an hour");
    started.elapsed().as_secs_f64()
}

/// The Turkish rows: Damspel's `Rules::moves` and its enumerating walk against kish's
/// `Board::actions`, medians of `runs`, alternating.
fn against_kish(table: &[worst_table::Row], catalogue: &Catalogue, o: &Options) {
    let variant = catalogue.get("turkish").expect("a built-in variant");
    let rules = Rules::<u64>::new(variant.clone()).expect("Turkish on 64 bits");
    println!();
    println!("Turkish rows against kish 1.1.7 (`Board::actions`, every sequence):");
    println!();
    println!("| moves() ms | enumerating ms | kish ms | kish / moves() | sequences (Damspel, kish) | FEN |");
    println!("|---:|---:|---:|---:|---|---|");
    for row in table.iter().filter(|r| r.variant == "turkish") {
        let fen = row.fen.as_str();
        let setup = parse_fen(&rules.variant().geometry, fen).expect("a valid FEN");
        let pos = Position::from_setup(&rules, &setup).expect("a legal setup");
        let board = to_kish(&pos);
        let mut list = Vec::new();
        let (mut merged, mut walked, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        let (mut sequences, mut actions) = (0, 0);
        for _ in 0..o.runs {
            merged.push(
                timed(&rules, &pos, Duplicates::Merge, 3600.0, &mut list)
                    .expect("done within an hour"),
            );
            let Some(w) = timed(&rules, &pos, Duplicates::Keep, o.cap, &mut list) else {
                break;
            };
            walked.push(w);
            sequences = list.len();
            let started = Instant::now();
            actions = board.actions().len();
            theirs.push(started.elapsed().as_secs_f64());
        }
        if theirs.is_empty() {
            println!(
                "| {} | >{} | (not run) | | | `{fen}` |",
                ms(median(merged)),
                ms(o.cap)
            );
            continue;
        }
        let (m, k) = (median(merged), median(theirs));
        println!(
            "| {} | {} | {} | {:.1} | {sequences}, {actions} | `{fen}` |",
            ms(m),
            ms(median(walked)),
            ms(k),
            k / m
        );
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(seconds: f64) -> String {
    if seconds < 0.01 {
        format!("{:.3}", seconds * 1e3)
    } else {
        format!("{:.1}", seconds * 1e3)
    }
}

fn main() {
    let o = options();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/worst-captures.tsv");
    let table = worst_table::read(&path).expect("data/worst-captures.tsv");
    let catalogue = Catalogue::builtin();
    println!(
        "captures benchmark: median of {} runs, single thread; reference: the enumerating walk, \
         stopped at {} s",
        o.runs, o.cap
    );
    println!();
    println!(
        "| variant | moves() ms | jumps walked | moves | enumerating ms | ratio | with routes ms | \
         game material | FEN |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|---|");
    let mut over = 0;
    let (mut game_rows, mut game_over, mut game_over_detailed) = (0, 0, 0);
    let mut over_detailed = 0;
    let mut rows = 0;
    for row in &table {
        let (id, fen) = (row.variant.as_str(), row.fen.as_str());
        if o.variant.as_deref().is_some_and(|v| v != id) {
            continue;
        }
        let variant = catalogue.get(id).expect("a built-in variant");
        rows += 1;
        with_rules!(variant, |rules| {
            let setup = parse_fen(&rules.variant().geometry, fen).expect("a valid FEN");
            let pos = Position::from_setup(&rules, &setup).expect("a legal setup");
            let mut list = Vec::new();
            let mut merged = Vec::new();
            let mut walked = Vec::new();
            let mut stopped = false;
            for _ in 0..o.runs {
                merged.push(
                    timed(&rules, &pos, Duplicates::Merge, 3600.0, &mut list)
                        .expect("done within an hour"),
                );
                if !stopped {
                    match timed(&rules, &pos, Duplicates::Keep, o.cap, &mut list) {
                        Some(s) => walked.push(s),
                        None => stopped = true,
                    }
                }
            }
            let detailed = median((0..o.runs).map(|_| timed_detailed(&rules, &pos)).collect());
            let moves = rules.moves(&pos).len();
            let m = median(merged);
            let game = within_start_counts(&rules, &pos);
            game_rows += usize::from(game);
            if m * 1e3 > 50.0 {
                over += 1;
                game_over += usize::from(game);
            }
            if detailed * 1e3 > 50.0 {
                over_detailed += 1;
                game_over_detailed += usize::from(game);
            }
            if m * 1e3 >= o.over_ms {
                let (reference, ratio) = if stopped {
                    (format!(">{}", ms(o.cap)), format!(">{:.0}", o.cap / m))
                } else {
                    let w = median(walked);
                    (ms(w), format!("{:.1}", w / m))
                };
                println!(
                    "| {id} | {} | {} | {moves} | {reference} | {ratio} | {} | {} | `{fen}` |",
                    ms(m),
                    rules.capture_work(&pos),
                    ms(detailed),
                    if game { "yes" } else { "no" }
                );
            }
        });
    }
    println!();
    println!("{rows} positions, {over} over 50 ms ({over_detailed} with routes)");
    println!(
        "{game_rows} with a game's material, {game_over} of them over 50 ms \
         ({game_over_detailed} with routes)"
    );
    if o.variant.as_deref().is_none_or(|v| v == "turkish") {
        against_kish(&table, &catalogue, &o);
    }
}
