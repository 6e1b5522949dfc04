//! Perft speed of Damspel against two independent engines, measured in the same run:
//!
//! a. Turkish perft(8) from the start, paths convention: Damspel (`Duplicates::Keep`) against
//!    kish 1.1.7 (`kish::Board::perft`, its single-threaded perft). Both must count 123290300.
//! b. International perft(9) from the start, dedup convention: Damspel (`Duplicates::Merge`)
//!    against the dame-rs engine (`dame perft 9`, PyPI package `dame-rs`), run as a subprocess;
//!    its own reported time is used, so process start-up is not counted. Both must count
//!    41022423. Skipped when no `dame` executable is found (`DAME_BIN`, else `dame` on `PATH`).
//!
//! Everything runs on one thread. The contenders alternate (A B, B A, A B, ...), each is
//! measured `runs` times (default 5: `PERFT_RUNS=9` or `-- --runs 9`), and the median is
//! reported. Expected node counts are the published rows of `data/perft.tsv`.
//!
//! `cargo bench -p damspel-conformance --bench perft`; `scripts/bench-perft.sh` installs dame-rs
//! into a venv under `target/` and runs this with `DAME_BIN` set.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use damspel_conformance::data::perft_rows;
use damspel_notation::{parse_fen, write_fen};
use damspel_rules::{perft, Catalogue, Duplicates, Position, Rules};

const TURKISH_DEPTH: u32 = 8;
const TURKISH_NODES: u64 = 123_290_300;
const INTERNATIONAL_DEPTH: u32 = 9;
const INTERNATIONAL_NODES: u64 = 41_022_423;

fn main() {
    let runs = runs();
    println!(
        "perft benchmark: {runs} runs per contender, alternating, single thread, median wall time"
    );
    if let Some(cpu) = cpu_model() {
        println!("cpu: {cpu}");
    }
    println!();

    let catalogue = Catalogue::builtin();
    let mut table = Vec::new();

    // a. Turkish, paths convention, against kish.
    {
        let rules =
            Rules::<u64>::new(catalogue.get("turkish").expect("turkish")).expect("8x8 fits u64");
        let start = Position::start(&rules);
        check_published(
            &rules,
            &start,
            "turkish",
            TURKISH_DEPTH,
            true,
            TURKISH_NODES,
        );
        let board = kish::Board::new_default();

        // Warm-up (page in code and tables), not timed.
        let _ = perft(&rules, &start, 6, Duplicates::Keep);
        let _ = board.perft(6);

        let title = format!("turkish perft({TURKISH_DEPTH}) from the start, paths convention");
        let [ours, theirs] = alternate(
            &title,
            runs,
            || perft(&rules, black_box(&start), TURKISH_DEPTH, Duplicates::Keep),
            || black_box(board).perft(u64::from(TURKISH_DEPTH)),
            "kish",
        );
        for (who, s) in [("damspel", &ours), ("kish", &theirs)] {
            assert!(
                s.nodes.iter().all(|&n| n == TURKISH_NODES),
                "{who} turkish perft({TURKISH_DEPTH}) = {:?}, published {TURKISH_NODES}",
                s.nodes
            );
        }
        table.push(Group {
            title,
            nodes: TURKISH_NODES,
            reference: "kish 1.1.7 Board::perft".to_string(),
            ours,
            theirs,
        });
    }

    // b. International, dedup convention, against dame-rs.
    match find_dame() {
        Err(why) => {
            println!(
                "SKIPPED international perft({INTERNATIONAL_DEPTH}) against dame-rs: {why}.\n  \
                 Install it with `python3 -m venv target/bench-venv && \
                 target/bench-venv/bin/pip install dame-rs` and set \
                 DAME_BIN=target/bench-venv/bin/dame (or put `dame` on PATH), or run \
                 scripts/bench-perft.sh, which does all of that.\n"
            );
        }
        Ok(dame) => {
            let version = dame_version(&dame);
            println!("dame: {} ({version})", dame.display());
            let rules = Rules::<u64>::new(catalogue.get("international").expect("international"))
                .expect("10x10 dark squares fit u64");
            let start = Position::start(&rules);
            check_published(
                &rules,
                &start,
                "international",
                INTERNATIONAL_DEPTH,
                false,
                INTERNATIONAL_NODES,
            );
            let _ = perft(&rules, &start, 7, Duplicates::Merge);
            let _ = run_dame(&dame, 7);

            let title = format!(
                "international perft({INTERNATIONAL_DEPTH}) from the start, dedup convention"
            );
            let mut startup = Vec::new();
            let [ours, theirs] = alternate_timed(
                &title,
                runs,
                || {
                    let t = Instant::now();
                    let n = perft(
                        &rules,
                        black_box(&start),
                        INTERNATIONAL_DEPTH,
                        Duplicates::Merge,
                    );
                    (n, t.elapsed().as_secs_f64())
                },
                || {
                    let r = run_dame(&dame, INTERNATIONAL_DEPTH);
                    startup.push(r.wall - r.seconds);
                    (r.nodes, r.seconds)
                },
                "dame",
            );
            for (who, s) in [("damspel", &ours), ("dame", &theirs)] {
                assert!(
                    s.nodes.iter().all(|&n| n == INTERNATIONAL_NODES),
                    "{who} international perft({INTERNATIONAL_DEPTH}) = {:?}, published \
                     {INTERNATIONAL_NODES}",
                    s.nodes
                );
            }
            println!(
                "  (dame's process wall time exceeds its reported time by a median {:.3} s: \
                 start-up, not counted)\n",
                median(&startup)
            );
            table.push(Group {
                title,
                nodes: INTERNATIONAL_NODES,
                reference: format!("{version} (dame-rs) `dame perft`"),
                ours,
                theirs,
            });
        }
    }

    print_table(&table);
}

/// The measured times and node counts of one contender.
struct Series {
    seconds: Vec<f64>,
    nodes: Vec<u64>,
}

struct Group {
    title: String,
    nodes: u64,
    reference: String,
    ours: Series,
    theirs: Series,
}

/// Times two in-process perfts alternately.
fn alternate(
    title: &str,
    runs: usize,
    mut ours: impl FnMut() -> u64,
    mut theirs: impl FnMut() -> u64,
    name: &str,
) -> [Series; 2] {
    let time = |f: &mut dyn FnMut() -> u64| {
        let t = Instant::now();
        let n = f();
        (n, t.elapsed().as_secs_f64())
    };
    alternate_timed(title, runs, || time(&mut ours), || time(&mut theirs), name)
}

/// Runs two timed measurements alternately, Damspel first on even runs, second on odd ones.
fn alternate_timed(
    title: &str,
    runs: usize,
    mut ours: impl FnMut() -> (u64, f64),
    mut theirs: impl FnMut() -> (u64, f64),
    name: &str,
) -> [Series; 2] {
    println!("{title}");
    let mut series = [(); 2].map(|_| Series {
        seconds: Vec::new(),
        nodes: Vec::new(),
    });
    for run in 0..runs {
        let order = if run % 2 == 0 { [0, 1] } else { [1, 0] };
        for who in order {
            let (n, s) = if who == 0 { ours() } else { theirs() };
            series[who].nodes.push(n);
            series[who].seconds.push(s);
            println!(
                "  run {}/{runs} {:<8} {n:>11} nodes {s:>8.3} s",
                run + 1,
                if who == 0 { "damspel" } else { name }
            );
        }
    }
    println!();
    series
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn print_table(groups: &[Group]) {
    println!(
        "{:<40} {:>11} {:>9} {:>9} {:>9} {:>9}",
        "contender", "nodes", "median s", "min s", "max s", "Mnodes/s"
    );
    for g in groups {
        println!("{}", g.title);
        let m_ours = median(&g.ours.seconds);
        let m_theirs = median(&g.theirs.seconds);
        for (who, s, m) in [
            ("damspel".to_string(), &g.ours, m_ours),
            (g.reference.clone(), &g.theirs, m_theirs),
        ] {
            let min = s.seconds.iter().copied().fold(f64::INFINITY, f64::min);
            let max = s.seconds.iter().copied().fold(0.0, f64::max);
            println!(
                "  {who:<38} {:>11} {m:>9.3} {min:>9.3} {max:>9.3} {:>9.1}",
                g.nodes,
                g.nodes as f64 / m / 1e6
            );
        }
        println!(
            "  ratio damspel time / reference time = {:.3}; speed-up of damspel \
             (reference time / damspel time) = {:.3}x",
            m_ours / m_theirs,
            m_theirs / m_ours
        );
    }
}

/// Runs per contender: `--runs N` (or a bare number) on the command line, else `PERFT_RUNS`,
/// else 5. Cargo's own `--bench` flag is ignored.
fn runs() -> usize {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut from_args = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--runs" | "-n" => {
                from_args = args.get(i + 1).cloned();
                i += 1;
            }
            a if a.starts_with("--runs=") => from_args = Some(a["--runs=".len()..].to_string()),
            a if a.parse::<usize>().is_ok() => from_args = Some(a.to_string()),
            _ => {}
        }
        i += 1;
    }
    let text = from_args.or_else(|| std::env::var("PERFT_RUNS").ok());
    match text {
        None => 5,
        Some(t) => match t.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => panic!("the number of runs must be a positive integer, not {t:?}"),
        },
    }
}

/// The published node count of the start position, checked against the constant used here.
fn check_published(
    rules: &Rules<u64>,
    start: &Position<u64>,
    variant: &str,
    depth: u32,
    paths: bool,
    nodes: u64,
) {
    let geometry = &rules.variant().geometry;
    let start_fen = write_fen(geometry, start);
    let canonical = |fen: &str| {
        let setup = parse_fen(geometry, fen).ok()?;
        Position::from_setup(rules, &setup)
            .ok()
            .map(|p| write_fen(geometry, &p))
    };
    let row = perft_rows()
        .into_iter()
        .find(|r| {
            r.variant == variant
                && r.depth == depth
                && r.paths == paths
                && canonical(&r.fen).as_deref() == Some(start_fen.as_str())
        })
        .unwrap_or_else(|| panic!("no published {variant} perft({depth}) row in perft.tsv"));
    assert_eq!(row.nodes, nodes, "perft.tsv: {row:?}");
}

fn find_dame() -> Result<PathBuf, String> {
    if let Some(bin) = std::env::var_os("DAME_BIN") {
        // Cargo runs benches in the package directory: a relative DAME_BIN is also tried
        // against the workspace root, where it was most likely written.
        let path = PathBuf::from(bin);
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        return [path.clone(), workspace.join(&path)]
            .into_iter()
            .find(|p| p.is_file())
            .map(|p| p.canonicalize().unwrap_or(p))
            .ok_or_else(|| format!("DAME_BIN={} is not a file", path.display()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("dame"))
        .find(|p| p.is_file())
        .ok_or_else(|| "DAME_BIN is not set and there is no `dame` on PATH".to_string())
}

fn dame_version(dame: &Path) -> String {
    Command::new(dame)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "version unknown".to_string())
}

struct DameRun {
    nodes: u64,
    /// The time dame reports for its perft.
    seconds: f64,
    /// Wall time of the whole process.
    wall: f64,
}

/// Runs `dame perft <depth>` and reads its line `perft(9) = 41022423 in 2.672s (15.4 Mnps)`.
fn run_dame(dame: &Path, depth: u32) -> DameRun {
    let t = Instant::now();
    let out = Command::new(dame)
        .args(["perft", &depth.to_string()])
        .env("NO_COLOR", "1")
        .env_remove("FORCE_COLOR")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", dame.display()));
    let wall = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} perft {depth} failed ({}): {text}{}",
        dame.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    parse_dame(&text, depth)
        .map(|(nodes, seconds)| DameRun {
            nodes,
            seconds,
            wall,
        })
        .unwrap_or_else(|| panic!("unexpected output of dame perft {depth}: {text:?}"))
}

fn parse_dame(text: &str, depth: u32) -> Option<(u64, f64)> {
    let prefix = format!("perft({depth}) = ");
    let line = text.lines().find_map(|l| l.trim().strip_prefix(&prefix))?;
    let (nodes, rest) = line.split_once(" in ")?;
    let time = rest.split_whitespace().next()?;
    let seconds = if let Some(ms) = time.strip_suffix("ms") {
        ms.parse::<f64>().ok()? / 1e3
    } else if let Some(us) = time.strip_suffix("µs").or_else(|| time.strip_suffix("us")) {
        us.parse::<f64>().ok()? / 1e6
    } else {
        time.strip_suffix('s')?.parse().ok()?
    };
    Some((nodes.trim().parse().ok()?, seconds))
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string())
}
