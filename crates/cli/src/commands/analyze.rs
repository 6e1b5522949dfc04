//! `damspel analyze ID --fen FEN [--time S | --depth D] [--json]`: one line per iteration.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use damspel_engine::{Engine, Info, Limits, Reporter, ScoreKind};
use damspel_notation::{format_among, format_move};
use damspel_rules::{with_rules, Bits, Catalogue, Game, Move, Position, Rules};
use serde_json::json;

pub struct Args<'a> {
    pub id: &'a str,
    pub fen: Option<&'a str>,
    pub time: Option<f64>,
    pub depth: Option<u32>,
    pub threads: usize,
    pub hash: usize,
    pub json: bool,
    pub tb_dir: Option<&'a std::path::Path>,
}

/// The limits of `--time` / `--depth` (default: 5 seconds).
pub fn limits(time: Option<f64>, depth: Option<u32>) -> Result<Limits> {
    let mut limits = Limits::default();
    match (time, depth) {
        (Some(t), _) if !(t.is_finite() && t > 0.0 && t < 1e6) => {
            anyhow::bail!("--time must be a positive number of seconds, not {t}")
        }
        (Some(t), d) => {
            limits.move_time = Some(Duration::from_secs_f64(t));
            limits.depth = d;
        }
        (None, Some(0)) => anyhow::bail!("--depth must be at least 1"),
        (None, Some(d)) => limits.depth = Some(d),
        (None, None) => limits.move_time = Some(Duration::from_secs(5)),
    }
    Ok(limits)
}

/// Moves of a line in notation, each in the position it is played from. `known` holds the
/// legal moves of `start` when the caller has them (a search's root), so that naming the first
/// move lists no moves again unless only its full path names it; empty, they are listed.
pub fn line_notation<B: Bits>(
    rules: &Rules<B>,
    start: &Position<B>,
    known: &[Move<B>],
    line: &[Move<B>],
) -> Vec<String> {
    let geometry = &rules.variant().geometry;
    let mut pos = *start;
    line.iter()
        .enumerate()
        .map(|(i, mv)| {
            let named = if i == 0 {
                format_among(geometry, mv, known)
            } else {
                None
            };
            let text = named.unwrap_or_else(|| format_move(rules, &pos, mv));
            pos = pos.play(mv);
            text
        })
        .collect()
}

/// The score as the analysis shows it: men, or a forced result in plies.
pub fn score_text(kind: ScoreKind) -> String {
    match kind {
        ScoreKind::Men(m) => format!("{m:+.2}"),
        ScoreKind::WinIn(n) => format!("win in {n}"),
        ScoreKind::LossIn(n) => format!("loss in {n}"),
    }
}

pub fn score_json(kind: ScoreKind) -> serde_json::Value {
    match kind {
        ScoreKind::Men(m) => json!({ "men": (m * 100.0).round() / 100.0 }),
        ScoreKind::WinIn(n) => json!({ "win_in_plies": n }),
        ScoreKind::LossIn(n) => json!({ "loss_in_plies": n }),
    }
}

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    crate::machine::check_hash_mb(args.hash)?;
    crate::machine::check_threads(args.threads)?;
    let variant = catalogue.get(args.id)?;
    let limits = limits(args.time, args.depth)?;
    with_rules!(variant, |rules| analyze(Arc::new(rules), args, &limits))
}

fn analyze<B: Bits>(rules: Arc<Rules<B>>, args: &Args, limits: &Limits) -> Result<()> {
    let pos = super::position(&rules, args.fen)?;
    let game = Game::from_position(rules.clone(), pos);
    if let Some(outcome) = game.outcome() {
        // A finished game is an answer, not an error, for a program reading JSON.
        if args.json {
            println!(
                "{}",
                json!({ "bestmove": null, "outcome": outcome.to_string() })
            );
            return Ok(());
        }
        anyhow::bail!("the game is over in this position: {outcome}");
    }
    let mut engine = Engine::try_new(rules.clone(), args.hash)?;
    engine.set_threads(args.threads);
    engine.set_tablebase(super::tables(&rules, args.tb_dir)?);
    let mut report = Report {
        rules: &rules,
        pos,
        json: args.json,
        root: Vec::new(),
    };
    let result = engine.search(&game, limits, &mut report);
    let best = result.best.map(|mv| report.line(&[mv]).remove(0));
    if args.json {
        let ponder = match (result.best, result.ponder) {
            (Some(best), Some(ponder)) => Some(report.line(&[best, ponder]).remove(1)),
            _ => None,
        };
        println!(
            "{}",
            json!({
                "bestmove": best.unwrap_or_default(),
                "ponder": ponder,
                "score": score_json(result.score.kind()),
                "depth": result.depth,
                "nodes": result.nodes,
                "time": result.elapsed.as_secs_f64(),
            })
        );
    } else {
        println!("bestmove {}", best.unwrap_or_default());
    }
    Ok(())
}

/// Prints each iteration, naming the moves of the root from the list the engine made of them:
/// a position whose listing takes long is listed once, by the search.
struct Report<'a, B: Bits> {
    rules: &'a Rules<B>,
    pos: Position<B>,
    json: bool,
    root: Vec<Move<B>>,
}

impl<B: Bits> Report<'_, B> {
    fn line(&self, line: &[Move<B>]) -> Vec<String> {
        line_notation(self.rules, &self.pos, &self.root, line)
    }
}

impl<B: Bits> Reporter<B> for Report<'_, B> {
    fn root_moves(&mut self, moves: &[Move<B>]) {
        self.root = moves.to_vec();
    }

    fn iteration(&mut self, info: &Info<B>) {
        let pv = self.line(&info.pv);
        if self.json {
            let line = json!({
                "depth": info.depth,
                "seldepth": info.seldepth,
                "score": score_json(info.score.kind()),
                "nodes": info.nodes,
                "nps": info.nps(),
                "time": info.elapsed.as_secs_f64(),
                "pv": pv,
            });
            println!("{line}");
        } else {
            println!(
                "depth {:>2}/{:<2}  score {:>12}  nodes {:>11}  nps {:>9}  pv {}",
                info.depth,
                info.seldepth,
                score_text(info.score.kind()),
                info.nodes,
                info.nps(),
                pv.join(" ")
            );
        }
    }
}
