//! `damspel tune ID`: fits the evaluation weights to self-play results (Texel's method).
//!
//! Damspel plays itself at a fixed depth from distinct random openings, on `--concurrency`
//! threads; every quiet position of those games (no capture for the side to move, past the
//! first plies) is labelled with the game's result for White; the weights are then fitted so
//! that `sigmoid(K · eval / 100)` predicts the results (see `damspel_engine::tune`). One game in
//! ten is held out to measure the fit on positions it never saw. The weights are written with
//! the command that reproduces them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use damspel_arena::{play_game, random_openings, Ending, EnginePlayer, GameRecord};
use damspel_engine::eval::FEATURES;
use damspel_engine::tune::{self, FitOptions, Progress, Sample};
use damspel_engine::{Evaluator, Limits, Weights};
use damspel_rules::{with_rules, Bits, Catalogue, Position, Rules};
use indicatif::{ProgressBar, ProgressStyle};

pub struct Args<'a> {
    pub id: &'a str,
    pub games: usize,
    pub depth: u32,
    pub out: Option<&'a str>,
    pub concurrency: usize,
    pub seed: u64,
    /// Weights the games are played with and the fit starts from (default: derived).
    pub weights: Option<&'a str>,
    /// Random plies of each opening.
    pub openings: usize,
    /// Plies after which a game is a draw.
    pub max_plies: usize,
    /// Plies at the start of each game whose positions are not used.
    pub skip: usize,
    /// Ridge strength pulling the weights toward the starting ones.
    pub ridge: f64,
}

/// One game in this many is held out for validation.
const HOLD_OUT: usize = 10;

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    if args.games < 2 {
        bail!("--games must be at least 2");
    }
    if args.depth == 0 {
        bail!("--depth must be at least 1");
    }
    if !(args.ridge.is_finite() && args.ridge >= 0.0) {
        bail!("--ridge must be a non-negative number");
    }
    let variant = catalogue.get(args.id)?;
    let start = match args.weights {
        Some(path) => {
            let text = crate::files::read_text(
                std::path::Path::new(path),
                super::matches::MAX_WEIGHTS_FILE_LEN,
                "weights file",
            )?;
            Weights::from_toml(path, &text, &variant.id)?
        }
        None => Weights::derived(&variant),
    };
    with_rules!(variant, |rules| tune_variant(Arc::new(rules), start, args))
}

/// The command line that reproduces a run (every option spelt out, `--out` left aside).
fn command_line(id: &str, args: &Args) -> String {
    let mut line = format!(
        "damspel tune {id} --games {} --depth {} --seed {} --openings {} --max-plies {} --skip {} --ridge {}",
        args.games, args.depth, args.seed, args.openings, args.max_plies, args.skip, args.ridge
    );
    if let Some(w) = args.weights {
        line.push_str(&format!(" --weights {w}"));
    }
    line
}

fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
    bar
}

fn tune_variant<B: Bits>(rules: Arc<Rules<B>>, start: Weights, args: &Args) -> Result<()> {
    let id = rules.variant().id.clone();
    // The weights file is opened before the self-play, which can take hours.
    let out_path = match args.out {
        Some(path) => path.to_string(),
        None => {
            std::fs::create_dir_all("weights").context("cannot create the folder weights/")?;
            format!("weights/{id}.toml")
        }
    };
    // The weights it starts from are not replaced: the command line written would name a file
    // that no longer holds them.
    let inputs: Vec<&std::path::Path> = args.weights.iter().map(std::path::Path::new).collect();
    let mut out = crate::files::Output::open(std::path::Path::new(&out_path), &inputs)?;
    let openings = random_openings(&rules, args.games, args.openings, args.seed);
    if openings.len() < args.games {
        eprintln!(
            "note: only {} distinct openings of {} plies; playing {} games",
            openings.len(),
            args.openings,
            openings.len()
        );
    }
    let records = self_play(&rules, &start, &openings, args);

    // Label the quiet positions.
    let evaluator = Evaluator::new(&rules, start.clone());
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    let (mut white, mut draws, mut black, mut limit) = (0, 0, 0, 0);
    for (i, record) in records.iter().enumerate() {
        let result = record.ending.white_score();
        match result {
            r if r > 0.75 => white += 1,
            r if r < 0.25 => black += 1,
            _ => draws += 1,
        }
        if matches!(record.ending, Ending::MoveLimit(_)) {
            limit += 1;
        }
        let set = if i % HOLD_OUT == HOLD_OUT - 1 {
            &mut validation
        } else {
            &mut train
        };
        let mut pos = Position::start(&rules);
        for (ply, mv) in record.opening.iter().chain(&record.moves).enumerate() {
            if ply >= args.skip && !rules.has_capture(&pos) && rules.has_legal_move(&pos) {
                let features = evaluator.features(&rules, &pos);
                set.push(Sample::new(
                    &features,
                    evaluator.phase(&pos),
                    evaluator.drawish_divisor(&pos),
                    result,
                ));
            }
            pos = pos.play(mv);
        }
    }
    println!(
        "{id}: {} self-play games at depth {}: White {white}, draws {draws} ({limit} at the {}-ply limit), Black {black}",
        records.len(),
        args.depth,
        args.max_plies
    );
    println!(
        "{} quiet positions for training, {} held out (one game in {HOLD_OUT})",
        train.len(),
        validation.len()
    );
    if train.is_empty() {
        bail!("no quiet positions to fit: play more games or skip fewer plies");
    }

    let options = FitOptions {
        ridge: args.ridge,
        ..FitOptions::default()
    };
    let fit_bar = bar(
        options.iterations as u64,
        "fitting {bar:40} {pos}/{len} steps  {msg}  [{elapsed_precise}]",
    );
    let fit = tune::fit(&train, &validation, &start, &options, &mut |p| match p {
        Progress::K(k) => fit_bar.set_message(format!("K = {k:.3}")),
        Progress::Step { step, error, .. } => {
            fit_bar.set_position(step as u64);
            fit_bar.set_message(format!("error {error:.6}"));
        }
        Progress::Polish { pass, of, error } => {
            fit_bar.set_message(format!("integer polish {pass}/{of}: error {error:.6}"));
        }
    });
    fit_bar.finish_and_clear();

    let made_by = command_line(&id, args);
    let weights = fit.weights(&made_by);
    println!("K = {:.4} ({} steps)", fit.k, fit.steps);
    println!(
        "mean squared error   train {:.6} -> {:.6}   validation {:.6} -> {:.6}",
        fit.train_before, fit.train_after, fit.validation_before, fit.validation_after
    );
    if validation.is_empty() {
        println!("warning: no position held out (too few games): the fit is unchecked");
    } else if fit.validation_after >= fit.validation_before {
        println!("warning: the fit does not improve the held-out positions");
    }
    println!(
        "{:<10} {:>8} {:>8}   {:>8} {:>8}",
        "feature", "opening", "(start)", "endgame", "(start)"
    );
    for (i, name) in FEATURES.iter().enumerate() {
        println!(
            "{:<10} {:>8} {:>8}   {:>8} {:>8}",
            name, weights.opening[i], start.opening[i], weights.endgame[i], start.endgame[i]
        );
    }
    out.replace(weights.to_toml(&id, &made_by).as_bytes())?;
    println!("weights written to {out_path}");
    Ok(())
}

/// Plays every opening once, Damspel against itself, on `--concurrency` threads; the records
/// come back in the openings' order whatever the threads did.
fn self_play<B: Bits>(
    rules: &Arc<Rules<B>>,
    weights: &Weights,
    openings: &[Vec<damspel_rules::Move<B>>],
    args: &Args,
) -> Vec<GameRecord<B>> {
    let progress = bar(
        openings.len() as u64,
        "self-play {bar:40} {pos}/{len} games  {msg}  [{elapsed_precise}, eta {eta}]",
    );
    let next = AtomicUsize::new(0);
    let records: Mutex<Vec<Option<GameRecord<B>>>> = Mutex::new(vec![None; openings.len()]);
    let limits = Limits::depth(args.depth);
    std::thread::scope(|scope| {
        for _ in 0..args.concurrency.max(1) {
            scope.spawn(|| {
                let player = || {
                    EnginePlayer::new(
                        "damspel".into(),
                        rules.clone(),
                        Some(weights.clone()),
                        limits.clone(),
                        16,
                    )
                };
                let (mut white, mut black) = (player(), player());
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= openings.len() {
                        break;
                    }
                    let record =
                        play_game(rules, &mut white, &mut black, &openings[i], args.max_plies);
                    records.lock().expect("no thread panicked")[i] = Some(record);
                    progress.inc(1);
                }
            });
        }
    });
    progress.finish_and_clear();
    records
        .into_inner()
        .expect("no thread panicked")
        .into_iter()
        .map(|r| r.expect("every game was played"))
        .collect()
}
