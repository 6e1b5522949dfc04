//! The review itself: one search per position of the main line, then each move judged from the
//! evaluations before and after it (see `chances`).

use std::sync::Arc;
use std::time::Duration;

use damspel_engine::{Engine, Info, Limits, Reporter, Score, TableError};
use damspel_notation::format_move;
use damspel_notation::pdn::{replay, PdnRead, Replay, ReplayError, ReplayPly};
use damspel_rules::{with_rules, Bits, Color, Game, Move, Position, Rules, Variant};
use serde::Serialize;

use crate::chances::{move_accuracy, win_percent, Mark};
use crate::stop::Stopper;

/// What each position may cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    Time(Duration),
    /// Nodes per position: the same review on every machine (with one thread).
    Nodes(u64),
}

#[derive(Clone, Debug)]
pub struct Options {
    pub budget: Budget,
    pub hash_mb: usize,
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: Budget::Time(Duration::from_millis(200)),
            hash_mb: 32,
            threads: 1,
        }
    }
}

/// An evaluation from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Eval {
    /// Men (None for a forced result).
    pub men: Option<f64>,
    /// Plies to a forced result (0: the game is over), and who wins it.
    pub mate: Option<u32>,
    pub winner: Option<&'static str>,
    /// White's winning chances, 0..=100.
    pub white_win: f64,
}

impl Eval {
    /// From a search score, which is the side to move's.
    pub fn from_score(score: Score, side_to_move: Color) -> Eval {
        let white = if side_to_move == Color::White {
            score
        } else {
            score.flip()
        };
        match white.plies_to_result() {
            Some(n) => {
                let winner = if white.0 > 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let sign = if winner == Color::White { 1.0 } else { -1.0 };
                Eval {
                    men: None,
                    mate: Some(n),
                    winner: Some(winner.name()),
                    white_win: win_percent(sign * 1e9),
                }
            }
            None => Eval {
                men: Some(f64::from(white.0) / 100.0),
                mate: None,
                winner: None,
                white_win: win_percent(f64::from(white.0)),
            },
        }
    }

    /// The winning chances of `side`.
    pub fn win_for(&self, side: Color) -> f64 {
        match side {
            Color::White => self.white_win,
            Color::Black => 100.0 - self.white_win,
        }
    }

    /// `+1.50`, `White wins in 7`, `Black has won`.
    pub fn text(&self) -> String {
        let who = |w: &str| if w == "white" { "White" } else { "Black" };
        match (self.men, self.mate, self.winner) {
            (_, Some(0), Some(w)) => format!("{} has won", who(w)),
            (_, Some(n), Some(w)) => format!("{} wins in {n}", who(w)),
            (Some(m), _, _) => format!("{m:+.2}"),
            _ => String::new(),
        }
    }
}

/// One move of the game, judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlyReview {
    /// From 1.
    pub ply: usize,
    /// The move number as PDN writes it: `12.` or `12...`.
    pub number: String,
    pub side: &'static str,
    /// The move as the game wrote it.
    pub played: String,
    /// Before and after the move.
    pub before: Eval,
    pub after: Eval,
    /// The engine's choice in the position before, and its line from there.
    pub best: Option<String>,
    pub line: Vec<String>,
    /// The only legal move: never judged.
    pub forced: bool,
    /// Winning chances (percentage points) the move lost; 0 for the engine's own choice.
    pub loss: f64,
    /// lichess's move accuracy; None for a forced move.
    pub accuracy: Option<f64>,
    pub mark: Option<Mark>,
}

/// One player's figures over the moves that were theirs to choose.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayerSummary {
    /// Moves judged (forced ones left out).
    pub moves: usize,
    /// None when no move was judged.
    pub accuracy: Option<f64>,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    /// Average winning chances lost per judged move, in percentage points.
    pub average_loss: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Players {
    pub white: PlayerSummary,
    pub black: PlayerSummary,
}

/// A whole game reviewed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    pub variant: String,
    /// Every position's evaluation: the start, then after each ply.
    pub evals: Vec<Eval>,
    pub plies: Vec<PlyReview>,
    pub players: Players,
}

/// Progress after each position: `done` of `total` positions analysed.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub eval: Eval,
    /// The move that led here, once judged (none for the start).
    pub ply: Option<&'a PlyReview>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("the review was stopped")]
    Stopped,
    #[error("the game does not replay: {0}")]
    Replay(ReplayError),
    #[error("the game has no moves to review")]
    Empty,
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Reviews the main line of a PDN game of `variant`.
pub fn review_game(
    variant: Variant,
    game: &PdnRead,
    options: &Options,
    stopper: &Stopper,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Review, ReviewError> {
    with_rules!(variant, |rules| {
        let rules = Arc::new(rules);
        let replayed = replay(game, &rules);
        if let Some(e) = replayed.error {
            return Err(ReviewError::Replay(e));
        }
        let mut engine = Engine::try_new(rules.clone(), options.hash_mb)?;
        engine.set_threads(options.threads);
        review(&mut engine, &replayed, options, stopper, progress)
    })
}

/// Counts the root's legal moves (the search generates them anyway).
struct RootMoves(usize);

impl<B: Bits> Reporter<B> for RootMoves {
    fn iteration(&mut self, _: &Info<B>) {}

    fn root_moves(&mut self, moves: &[Move<B>]) {
        self.0 = moves.len();
    }
}

/// One position's analysis.
struct Analysis<B: Bits> {
    eval: Eval,
    best: Option<Move<B>>,
    pv: Vec<Move<B>>,
    legal: usize,
}

/// Reviews a replayed game with `engine` (its table is cleared first).
pub fn review<B: Bits>(
    engine: &mut Engine<B>,
    game: &Replay<B>,
    options: &Options,
    stopper: &Stopper,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Review, ReviewError> {
    if game.plies.is_empty() {
        return Err(ReviewError::Empty);
    }
    stopper.attach(engine.stop_flag());
    engine.new_game();
    let rules = engine.rules().clone();
    let limits = match options.budget {
        Budget::Time(t) => Limits::move_time(t),
        Budget::Nodes(n) => Limits {
            nodes: Some(n),
            ..Limits::default()
        },
    };
    let total = game.plies.len() + 1;
    let mut state = Game::from_position(rules.clone(), game.start);
    let mut analyses: Vec<Analysis<B>> = Vec::with_capacity(total);
    let mut plies = Vec::with_capacity(game.plies.len());
    let mut evals = Vec::with_capacity(total);
    let numbers = move_numbers(&rules, &game.plies);
    for i in 0..total {
        if i > 0 {
            let ply = &game.plies[i - 1];
            // A setup command starts the history afresh.
            if ply.before != *state.position() {
                state = Game::from_position(rules.clone(), ply.before);
            }
            state.play_unchecked(&ply.mv);
        }
        if stopper.is_stopped() {
            return Err(ReviewError::Stopped);
        }
        let mut root = RootMoves(0);
        let result = engine.search(&state, &limits, &mut root);
        if stopper.is_stopped() {
            return Err(ReviewError::Stopped);
        }
        let pos = *state.position();
        let analysis = Analysis {
            eval: Eval::from_score(result.score, pos.side_to_move()),
            best: result.best,
            pv: result.pv,
            legal: root.0,
        };
        evals.push(analysis.eval);
        if i > 0 {
            let ply = &game.plies[i - 1];
            let judged = judge(
                &rules,
                i,
                &numbers[i - 1],
                ply.text.clone(),
                &ply.before,
                &ply.mv,
                &analyses[i - 1],
                &analysis,
            );
            plies.push(judged);
        }
        analyses.push(analysis);
        progress(&Progress {
            done: i + 1,
            total,
            eval: evals[i],
            ply: plies.last().filter(|_| i > 0),
        });
    }
    let players = Players {
        white: summary(&plies, Color::White),
        black: summary(&plies, Color::Black),
    };
    Ok(Review {
        variant: rules.variant().id.clone(),
        evals,
        plies,
        players,
    })
}

/// `12.` / `12...` for each ply, counted as the PDN writer counts them.
fn move_numbers<B: Bits>(rules: &Rules<B>, plies: &[ReplayPly<B>]) -> Vec<String> {
    let first = rules.variant().first_player;
    let mut number = 1;
    let mut out = Vec::with_capacity(plies.len());
    for ply in plies {
        if ply.before.side_to_move() == first {
            out.push(format!("{number}."));
        } else {
            out.push(format!("{number}..."));
            number += 1;
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn judge<B: Bits>(
    rules: &Rules<B>,
    ply: usize,
    number: &str,
    played: String,
    before_pos: &Position<B>,
    mv: &Move<B>,
    before: &Analysis<B>,
    after: &Analysis<B>,
) -> PlyReview {
    let mover = before_pos.side_to_move();
    let forced = before.legal == 1;
    let is_best = before.best.as_ref() == Some(mv);
    let (wp_before, wp_after) = (before.eval.win_for(mover), after.eval.win_for(mover));
    let loss = if is_best {
        0.0
    } else {
        (wp_before - wp_after).max(0.0)
    };
    let mut pos = *before_pos;
    let line: Vec<String> = before
        .pv
        .iter()
        .map(|m| {
            let text = format_move(rules, &pos, m);
            pos = pos.play(m);
            text
        })
        .collect();
    PlyReview {
        ply,
        number: number.to_string(),
        side: mover.name(),
        played,
        before: before.eval,
        after: after.eval,
        best: line.first().cloned(),
        line,
        forced,
        loss: round2(loss),
        accuracy: (!forced).then(|| round2(move_accuracy(wp_before, wp_before - loss))),
        mark: if forced { None } else { Mark::of_loss(loss) },
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A player's figures. Accuracy follows lichess's game accuracy (the mean of a weighted mean and
/// the harmonic mean of the move accuracies), with equal weights instead of its volatility
/// weights, and each move counted as at least 1 in the harmonic mean so one 0 does not make it 0.
fn summary(plies: &[PlyReview], side: Color) -> PlayerSummary {
    let judged: Vec<&PlyReview> = plies
        .iter()
        .filter(|p| p.side == side.name() && !p.forced)
        .collect();
    let mut s = PlayerSummary {
        moves: judged.len(),
        ..PlayerSummary::default()
    };
    for p in &judged {
        match p.mark {
            Some(Mark::Inaccuracy) => s.inaccuracies += 1,
            Some(Mark::Mistake) => s.mistakes += 1,
            Some(Mark::Blunder) => s.blunders += 1,
            None => {}
        }
    }
    if judged.is_empty() {
        return s;
    }
    let n = judged.len() as f64;
    let accuracies: Vec<f64> = judged.iter().filter_map(|p| p.accuracy).collect();
    let mean = accuracies.iter().sum::<f64>() / n;
    let harmonic = n / accuracies.iter().map(|a| 1.0 / a.max(1.0)).sum::<f64>();
    s.accuracy = Some(round2((mean + harmonic) / 2.0));
    s.average_loss = round2(judged.iter().map(|p| p.loss).sum::<f64>() / n);
    s
}
