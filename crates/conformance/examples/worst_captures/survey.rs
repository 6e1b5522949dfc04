//! The cost of move generation in positions reached by play, not searched for.
//!
//! The search finds the worst positions a board can hold; most of them can only be set up. The
//! survey asks the other question: how slow is `Rules::moves` in the positions games reach?
//!
//! * `--survey GAMES` plays, per variant, `GAMES` games from the start position, each move drawn
//!   at random among the legal ones, up to `--survey-plies`.
//! * `--survey-pdn FILE` replays the main line of every game of a PDN file (an engine's games,
//!   say `damspel atlas run`'s, or a collection of played games), each in the variant its tags
//!   name (`--variant` where none does).
//!
//! Every position is timed once (capped at `--cap-ms`); the eight slowest of each variant are
//! timed again (the median of five runs) and the slowest of those is shown.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use damspel_notation::pdn::{read_file_with, replay, ReadLimits, VariantDecider};
use damspel_notation::{parse_fen, write_fen};
use damspel_rules::{with_rules, Bits, Catalogue, Move, Position, Rules};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{RngExt, SeedableRng};

use crate::measure::{median, time_moves, Timing, Watchdog};
use crate::{variant_seed, Args, Rng};

/// Positions timed again (medians) to find a variant's slowest: a single timing can be a
/// hiccup of the machine.
const RETIMED: usize = 8;

/// The games a PDN survey reads at most.
const MAX_GAMES: usize = 1_000_000;

/// The timings of one variant's positions.
#[derive(Default)]
pub struct Tally {
    pub games: u64,
    /// Per position, its one timing.
    times: Vec<f64>,
    /// The slowest positions by their one timing: the timing, the FEN, the ply.
    worst: Vec<(f64, String, usize)>,
    /// Positions whose one timing the cap stopped.
    capped: usize,
}

impl Tally {
    /// Times the moves of `pos`, reached after `ply` plies; `list` gets them. Whether they were
    /// all found (the cap did not stop them).
    fn time<B: Bits>(
        &mut self,
        watchdog: &Watchdog,
        rules: &Rules<B>,
        pos: &Position<B>,
        ply: usize,
        list: &mut Vec<Move<B>>,
        cap: Duration,
    ) -> bool {
        let t = time_moves(watchdog, rules, pos, list, cap);
        self.times.push(t.seconds);
        if !t.complete {
            self.capped += 1;
        }
        if self.worst.len() < RETIMED || t.seconds > self.worst[RETIMED - 1].0 {
            let fen = write_fen(&rules.variant().geometry, pos);
            // A position met again keeps its slowest timing.
            match self.worst.iter_mut().find(|w| w.1 == fen) {
                Some(w) => w.0 = w.0.max(t.seconds),
                None => self.worst.push((t.seconds, fen, ply)),
            }
            self.worst.sort_by(|a, b| f64::total_cmp(&b.0, &a.0));
            self.worst.truncate(RETIMED);
        }
        t.complete
    }

    /// The slowest single timing so far, in seconds.
    fn slowest_once(&self) -> f64 {
        self.worst.first().map_or(0.0, |w| w.0)
    }
}

/// What one variant's positions showed.
pub struct Surveyed {
    pub id: String,
    pub games: u64,
    pub positions: usize,
    /// Per position, the one timing, sorted.
    times: Vec<f64>,
    /// The slowest position (by the median of five), its timing and its ply.
    pub slowest: Option<(String, Timing, usize)>,
    pub capped: usize,
}

impl Surveyed {
    /// The `q` quantile of the single timings, in seconds.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.times.is_empty() {
            return 0.0;
        }
        let i = ((self.times.len() - 1) as f64 * q).round() as usize;
        self.times[i]
    }
}

/// Times the tally's slowest positions again and keeps the slowest by its median.
fn finish<B: Bits>(
    rules: &Rules<B>,
    id: &str,
    mut tally: Tally,
    args: &Args,
    watchdog: &Watchdog,
) -> Surveyed {
    let final_cap = Duration::from_secs_f64(args.final_cap);
    let g = &rules.variant().geometry;
    let slowest = tally
        .worst
        .drain(..)
        .filter_map(|(_, fen, ply)| {
            let setup = parse_fen(g, &fen).ok()?;
            let pos = Position::from_setup(rules, &setup).ok()?;
            Some((fen, median(watchdog, rules, &pos, 5, final_cap, 1.0), ply))
        })
        // A stopped timing is the slowest.
        .max_by(|a, b| {
            (!a.1.complete)
                .cmp(&!b.1.complete)
                .then(f64::total_cmp(&a.1.seconds, &b.1.seconds))
        });
    tally.times.sort_by(f64::total_cmp);
    Surveyed {
        id: id.to_string(),
        games: tally.games,
        positions: tally.times.len(),
        times: tally.times,
        slowest,
        capped: tally.capped,
    }
}

fn bar(len: u64, prefix: &str) -> ProgressBar {
    let bar = ProgressBar::new(len).with_style(
        ProgressStyle::with_template("{prefix:>22} [{bar:25}] {pos}/{len} games {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(prefix.to_string());
    bar
}

/// Plays `games` random games of one variant, every position timed.
pub fn random_games<B: Bits>(
    rules: &Rules<B>,
    id: &str,
    args: &Args,
    games: u64,
    watchdog: &Watchdog,
) -> Surveyed {
    let mut rng = Rng::seed_from_u64(variant_seed(args.seed, id));
    let cap = Duration::from_millis(args.cap_ms);
    let bar = bar(games, id);
    let mut list: Vec<Move<B>> = Vec::new();
    let mut tally = Tally::default();
    for _ in 0..games {
        let mut pos = Position::start(rules);
        for ply in 0..args.survey_plies {
            // A game cannot go on without its moves.
            if !tally.time(watchdog, rules, &pos, ply, &mut list, cap) || list.is_empty() {
                break;
            }
            pos = pos.play(&list[rng.random_range(0..list.len())]);
        }
        tally.games += 1;
        bar.inc(1);
        bar.set_message(format!(
            "{} positions, slowest {:.3} ms",
            tally.times.len(),
            tally.slowest_once() * 1e3
        ));
    }
    bar.finish_and_clear();
    finish(rules, id, tally, args, watchdog)
}

/// Replays every game of the PDN file at `path`, every position of its main line timed; per
/// variant, what they showed. Games whose variant cannot be decided are counted and left.
pub fn pdn_games(
    catalogue: &Catalogue,
    path: &Path,
    args: &Args,
    watchdog: &Watchdog,
) -> Result<(Vec<Surveyed>, usize), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let limits = ReadLimits {
        max_bytes: bytes.len(),
        max_games: MAX_GAMES,
    };
    let file = read_file_with(&bytes, &limits).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut decider = VariantDecider::new(catalogue.clone());
    let choice = args.variant.first().map(String::as_str);
    let cap = Duration::from_millis(args.cap_ms);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut left = file.errors.len();
    let bar = bar(file.games.len() as u64, "PDN");
    for game in &file.games {
        bar.inc(1);
        let Some(id) = decider.decide(game, choice).variant else {
            left += 1;
            continue;
        };
        let variant = catalogue.get(&id).map_err(|e| e.to_string())?;
        let tally = tallies.entry(id).or_default();
        with_rules!(variant, |rules| {
            let rules = Arc::new(rules);
            let mut list = Vec::new();
            for (ply, pos) in replay(game, &rules).positions().enumerate() {
                tally.time(watchdog, &rules, pos, ply, &mut list, cap);
            }
        });
        tally.games += 1;
    }
    bar.finish_and_clear();
    let mut surveyed = Vec::new();
    for (id, tally) in tallies {
        let variant = catalogue.get(&id).map_err(|e| e.to_string())?;
        surveyed.push(with_rules!(variant, |rules| finish(
            &rules, &id, tally, args, watchdog
        )));
    }
    Ok((surveyed, left))
}

/// A timing in microseconds (">N" when the cap stopped it).
fn micros(t: &Timing) -> String {
    let us = t.seconds * 1e6;
    if t.complete {
        format!("{us:.1}")
    } else {
        format!(">{us:.0}")
    }
}

/// The survey's table, a row per variant (markdown).
pub fn report(rows: &[Surveyed]) -> String {
    let mut out = String::from(
        "| variant | games | positions | median µs | p99.9 µs | slowest µs (median of 5) | its moves | ply | FEN |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let (fen, slowest, moves, ply) = match &r.slowest {
            Some((fen, t, ply)) => (
                format!("`{fen}`"),
                micros(t),
                t.moves.to_string(),
                ply.to_string(),
            ),
            None => Default::default(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.1} | {slowest} | {moves} | {ply} | {fen} |\n",
            r.id,
            r.games,
            r.positions,
            r.quantile(0.5) * 1e6,
            r.quantile(0.999) * 1e6,
        ));
    }
    let positions: usize = rows.iter().map(|r| r.positions).sum();
    let capped: usize = rows.iter().map(|r| r.capped).sum();
    out.push_str(&format!(
        "\n{positions} positions in {} variants, {capped} stopped by the cap",
        rows.len()
    ));
    let worst = rows
        .iter()
        .filter_map(|r| r.slowest.as_ref().map(|(_, t, _)| (r.id.as_str(), t)))
        .max_by(|a, b| f64::total_cmp(&a.1.seconds, &b.1.seconds));
    if let Some((id, t)) = worst {
        out.push_str(&format!("; the slowest {} µs ({id})", micros(t)));
    }
    out.push('\n');
    out
}
