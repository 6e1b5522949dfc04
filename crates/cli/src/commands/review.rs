//! `damspel review GAME.pdn [--game N] [--time T | --nodes N] [--out FILE]`: the engine reviews
//! every position of one game (damspel_review); the annotated PDN goes to FILE or stdout and a
//! one-screen summary to stderr.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use damspel_notation::pdn::VariantDecider;
use damspel_review::{annotate, review_game, Budget, Options, Review, Stopper};
use damspel_rules::Catalogue;
use indicatif::{ProgressBar, ProgressStyle};

use crate::options;

#[derive(clap::Args)]
pub struct Args {
    /// The PDN file (UTF-8, CP1251 or CP1252/Latin-1).
    file: PathBuf,
    /// Which game of the file, from 1.
    #[arg(long, default_value_t = 1, value_parser = options::count(1, 100_000))]
    game: usize,
    /// Seconds per position: 0.001 to 86400 (default 0.5 when --nodes is not given).
    #[arg(long, value_parser = options::seconds(), conflicts_with = "nodes")]
    time: Option<f64>,
    /// Nodes per position instead of a time: 1 to 10^12 (the same review on every machine).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=1_000_000_000_000))]
    nodes: Option<u64>,
    /// The variant of a game whose tags do not say (Variant or GameType tags win).
    #[arg(long)]
    variant: Option<String>,
    /// Write the annotated game here instead of to stdout (the file is opened before the
    /// review starts, so a path that cannot be written is said at once).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Search threads: 1 to 256, and at most four per core of the machine.
    #[arg(long, default_value_t = 1, value_parser = options::threads())]
    threads: usize,
    /// Transposition table size in MiB: 1 to 65536, and at most half the machine's memory.
    #[arg(long, default_value_t = 64, value_parser = options::hash())]
    hash: usize,
}

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    crate::machine::check_hash_mb(args.hash)?;
    crate::machine::check_threads(args.threads)?;
    if let Some(id) = &args.variant {
        catalogue.get(id)?;
    }
    let path = &args.file;
    let file = super::pdn::load(path)?;
    let Some(game) = file.games.iter().find(|g| g.number == args.game) else {
        if let Some(e) = file.errors.iter().find(|e| e.number == args.game) {
            bail!(
                "game {} of {} cannot be read: {}",
                args.game,
                path.display(),
                e.error
            );
        }
        bail!(
            "{} has {} game(s); there is no game {}",
            path.display(),
            file.count(),
            args.game
        );
    };
    let decision = VariantDecider::new(catalogue.clone()).decide(game, args.variant.as_deref());
    let Some(id) = decision.variant else {
        bail!("{}", decision.message);
    };
    let variant = catalogue.get(&id)?;
    let mut out = args
        .out
        .as_deref()
        .map(|out| crate::files::Output::open(out, &[path]))
        .transpose()?;
    let budget = match (args.nodes, args.time) {
        (Some(n), _) => Budget::Nodes(n),
        (None, t) => Budget::Time(Duration::from_secs_f64(t.unwrap_or(0.5))),
    };
    let options = Options {
        budget,
        hash_mb: args.hash,
        threads: args.threads,
    };
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(game.moves.len() as u64 + 1);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} positions {eta} {msg}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let review = review_game(variant, game, &options, &Stopper::new(), &mut |p| {
        bar.set_position(p.done as u64);
        bar.set_message(p.eval.text());
    });
    bar.finish_and_clear();
    let review = review.with_context(|| format!("cannot review game {}", args.game))?;
    let note = match budget {
        Budget::Time(t) => format!("Damspel review, {} s per position", t.as_secs_f64()),
        Budget::Nodes(n) => format!("Damspel review, {n} nodes per position"),
    };
    let pdn = annotate(game, &review, &note).to_pdn();
    match &mut out {
        Some(out) => out.replace(pdn.as_bytes())?,
        None => std::io::stdout().lock().write_all(pdn.as_bytes())?,
    }
    eprint!("{}", summary(game, &review, &note));
    Ok(())
}

/// The most marked moves listed (the annotated game has them all).
const MAX_LISTED: usize = 12;

fn summary(game: &damspel_notation::pdn::PdnRead, review: &Review, note: &str) -> String {
    let name = |tag: &str| {
        game.tag(tag)
            .map(str::trim)
            .filter(|n| !n.is_empty() && *n != "?")
            // The file's text on a terminal: its control characters are not obeyed.
            .map(|n| format!(" ({})", crate::files::printable(n)))
            .unwrap_or_default()
    };
    let mut out = format!("{note}: {} plies\n", review.plies.len());
    out.push_str(&format!(
        "{:<24} {:>8} {:>12} {:>9} {:>9} {:>9}\n",
        "", "accuracy", "inaccuracies", "mistakes", "blunders", "avg loss"
    ));
    for (side, s) in [
        ("White", &review.players.white),
        ("Black", &review.players.black),
    ] {
        let label: String = format!("{side}{}", name(side)).chars().take(24).collect();
        let accuracy = s
            .accuracy
            .map_or_else(|| "-".to_string(), |a| format!("{a:.1}%"));
        out.push_str(&format!(
            "{label:<24} {accuracy:>8} {:>12} {:>9} {:>9} {:>8.1}%\n",
            s.inaccuracies, s.mistakes, s.blunders, s.average_loss
        ));
    }
    let marked: Vec<_> = review.plies.iter().filter(|p| p.mark.is_some()).collect();
    for p in marked.iter().take(MAX_LISTED) {
        let mark = p.mark.map(|m| m.symbol()).unwrap_or_default();
        out.push_str(&format!(
            "  {} {}{mark}  {} (was {}); better {}\n",
            p.number,
            p.played,
            p.after.text(),
            p.before.text(),
            p.best.as_deref().unwrap_or("-")
        ));
    }
    if marked.len() > MAX_LISTED {
        out.push_str(&format!(
            "  ... and {} more in the annotated game\n",
            marked.len() - MAX_LISTED
        ));
    }
    out
}
