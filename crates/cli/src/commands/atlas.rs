//! `damspel atlas run|merge|diff`: the variant atlas's self-play runner, the merge of shard
//! databases and their comparison (damspel_atlas does the work; this parses and prints).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Result};
use clap::{Args as ClapArgs, Subcommand};
use damspel_atlas::{Budget, Progress, RunConfig, Shard, Store};
use damspel_rules::Catalogue;
use indicatif::{ProgressBar, ProgressStyle};

use crate::options;

#[derive(Subcommand)]
pub enum Action {
    /// Self-play from balanced random openings, each played twice (a pair, the engines'
    /// colours swapped); every game stored in SQLite with its plies. Resumable: games already
    /// in the database are skipped. See docs/atlas.md.
    Run(RunArgs),
    /// Join atlas databases (e.g. the shards of a run) into OUT: the union of their rows; the
    /// same game with different content is an error.
    Merge {
        /// The database to write (created if missing; its games are kept).
        out: PathBuf,
        /// The databases to merge into it.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
    /// Compare two atlas databases row by row (runs, games, plies); exits non-zero if they
    /// differ, naming the first differences.
    Diff {
        /// One atlas database.
        a: PathBuf,
        /// The other.
        b: PathBuf,
    },
    /// The atlas as a static HTML report with SVG plots (the variants side by side for each
    /// metric, each with its 95% interval); `damspel serve --atlas-db` shows the same at /atlas.
    Report(super::atlas_report::ReportArgs),
}

#[derive(ClapArgs)]
pub struct RunArgs {
    /// Variant ids or aliases.
    #[arg(required = true)]
    variants: Vec<String>,
    /// Games per variant (pairs of games from one opening): 1 to 10000000.
    #[arg(long, value_parser = options::count(1, 10_000_000))]
    games: usize,
    /// Nodes per engine move (reproducible on any machine): 100 to 1000000000. The default
    /// budget is --nodes 20000.
    #[arg(long, conflicts_with_all = ["time", "level"], value_parser = options::count(100, 1_000_000_000))]
    nodes: Option<usize>,
    /// Seconds per engine move (NOT reproducible: a loaded machine plays other games): 0.001
    /// to 3600.
    #[arg(long, conflicts_with = "level", value_parser = options::seconds())]
    time: Option<f64>,
    /// A playing level, 1 to 5 (node budgets, with a seeded draw among near-best moves).
    #[arg(long, value_parser = options::count(1, 5))]
    level: Option<usize>,
    /// Random plies of each opening: 0 to 40.
    #[arg(long, default_value_t = 6, value_parser = options::count(0, 40))]
    openings: usize,
    /// Master seed of the openings and games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play only shard I of N (pairs p with p % N == I - 1), e.g. 3/8.
    #[arg(long, default_value = "1/1", value_parser = |s: &str| s.parse::<Shard>().map_err(|e| e.to_string()))]
    shard: Shard,
    /// Games played at once (one search thread each): 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = options::count(1, 256))]
    threads: usize,
    /// Stop after this many new games (the rest are played by a later run).
    #[arg(long, value_parser = options::count(1, 1_000_000_000))]
    max_new: Option<usize>,
    /// The atlas database (SQLite; created if missing).
    #[arg(long)]
    db: PathBuf,
}

pub fn run(catalogue: &Catalogue, action: Action) -> Result<()> {
    match action {
        Action::Run(args) => run_games(catalogue, &args),
        Action::Report(args) => super::atlas_report::run(&args),
        Action::Merge { out, inputs } => {
            let inputs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
            let s = damspel_atlas::merge(&out, &inputs)?;
            println!(
                "merged {} databases into {}: {} games added, {} in all",
                s.inputs,
                out.display(),
                s.games_added,
                s.games_total
            );
            Ok(())
        }
        Action::Diff { a, b } => {
            let diffs = damspel_atlas::diff(&a, &b, 20)?;
            if diffs.is_empty() {
                println!(
                    "{} and {} hold the same runs, games and plies",
                    a.display(),
                    b.display()
                );
                Ok(())
            } else {
                for d in &diffs {
                    println!("{d}");
                }
                bail!("{} and {} differ", a.display(), b.display())
            }
        }
    }
}

fn run_games(catalogue: &Catalogue, args: &RunArgs) -> Result<()> {
    let budget = match (args.nodes, args.time, args.level) {
        (Some(n), _, _) => Budget::Nodes(n as u64),
        (_, Some(t), _) => Budget::Time(t),
        (_, _, Some(l)) => Budget::Level(damspel_engine::Level::new(l as u32)?),
        _ => Budget::Nodes(20_000),
    };
    let variants = args
        .variants
        .iter()
        .map(|id| catalogue.get(id))
        .collect::<Result<Vec<_>, _>>()?;
    let config = RunConfig {
        variants,
        games: args.games as u64,
        budget,
        opening_plies: args.openings,
        seed: args.seed,
        shard: args.shard,
        threads: args.threads,
        limit: args.max_new.map(|n| n as u64),
    };
    config.check()?;
    let mut store = Store::open(&args.db)?;
    // On a terminal a bar; otherwise (a batch job's log) a line per hundredth of the games.
    let terminal = std::io::stderr().is_terminal();
    let mut every = 1;
    let mut done = 0;
    let bar = ProgressBar::hidden();
    let stop = AtomicBool::new(false);
    let summary = damspel_atlas::run(&mut store, &config, &stop, &mut |p| match p {
        Progress::Planned { to_play, stored } => {
            every = (to_play / 100).max(1);
            if terminal {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            bar.set_length(to_play);
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} games, eta {eta} {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            if stored > 0 {
                let line = format!("{stored} games of this shard already stored");
                if terminal {
                    bar.println(line);
                } else {
                    eprintln!("{line}");
                }
            }
        }
        Progress::Stored(g) => {
            bar.inc(1);
            done += 1;
            if !terminal && (done % every == 0 || done == bar.length().unwrap_or(0)) {
                eprintln!(
                    "{done}/{} games, {} s",
                    bar.length().unwrap_or(0),
                    bar.elapsed().as_secs()
                );
            }
            bar.set_message(format!(
                "last: {} {}.{} {} ({}, {} plies)",
                g.variant,
                g.pair,
                g.game,
                g.result,
                g.reason,
                g.plies.len()
            ));
        }
    })?;
    bar.finish_and_clear();
    println!(
        "{}: {} games played, {} were already stored{}, {} left to play (shard {}, budget {}{})",
        args.db.display(),
        summary.played,
        summary.stored_before,
        if summary.stored_meanwhile > 0 {
            format!(
                ", {} stored meanwhile by another run (the same games)",
                summary.stored_meanwhile
            )
        } else {
            String::new()
        },
        summary.remaining,
        config.shard,
        config.budget,
        if config.budget.reproducible() {
            ""
        } else {
            "; time budgets are not reproducible"
        }
    );
    Ok(())
}
