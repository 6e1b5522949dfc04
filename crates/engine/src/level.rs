//! Playing levels for people: 1 (a beginner can win) to 8 (full strength).
//!
//! Levels 1 to 7 are bounded by nodes, not time, so the ladder is the same on any machine. Each
//! scores every root move with a short search of the position after it (through the engine's
//! public `search`), then draws its move with a seeded generator from the moves whose score is
//! within the level's margin of the best; the margin shrinks as the level rises. A second,
//! fixed search (the sanity check) keeps out absurd blunders at every level: see [`Level::choose`].
//! Level 8 is the engine's own search with the caller's limits.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use damspel_rules::{Bits, Game, Move, Outcome};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::score::Score;
use crate::search::{Engine, Limits, Reporter, SearchResult, Silent};

/// A playing level, 1..=8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// A level outside 1..=8, or not a number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the level must be a whole number from 1 to 8, not `{0}`")]
pub struct LevelError(pub String);

/// A move that loses this much (three quarters of a man) or more against the best alternative,
/// by the sanity check's scores, is an absurd blunder: it gives away a man for nothing, or takes
/// a man fewer than a capture on offer.
pub const BLUNDER: i32 = 75;

/// Depth of the sanity check's search of the position after each root move: the opponent's
/// reply, then the quiescence search over captures, which is what "loses material at once"
/// means (any deeper and level 1 would see more than a depth-2 search does).
pub const SANITY_DEPTH: u32 = 1;

/// Nodes of one sanity check search (a depth-1 search rarely needs a tenth of it).
const SANITY_NODES: u64 = 10_000;

/// What a level searches and how far from the best it may stray.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Depth of the search of each root move's position (None: nodes alone).
    pub depth: Option<u32>,
    /// Nodes of the search of each root move's position.
    pub nodes: u64,
    /// Moves scored within this many centi-men of the best may be drawn. With 0, the level's
    /// move is the best of one search of the root (stronger for the nodes than a search per
    /// root move), kept unless the sanity check calls it a blunder.
    pub margin: i32,
}

impl Level {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 8;
    /// Full strength.
    pub const FULL: Level = Level(8);

    pub fn new(n: u32) -> Result<Level, LevelError> {
        if (u32::from(Level::MIN)..=u32::from(Level::MAX)).contains(&n) {
            Ok(Level(n as u8))
        } else {
            Err(LevelError(n.to_string()))
        }
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The level's budget in the International, Gothic, irregular and German families; None for
    /// level 8 (the caller's limits, no imperfection).
    pub fn budget(self) -> Option<Budget> {
        // Calibrated by matches in International (docs/strength.md, 200 games a pair). Level 6
        // went from 100,000 nodes to 40,000 (its step over level 5 was +275) and level 7 from
        // 400,000 to 1,000,000 (its step over level 6 was +87): quadrupling one search's nodes
        // buys less than a level here.
        let (depth, nodes, margin) = match self.0 {
            1 => (Some(1), 1_000, 150),
            2 => (Some(2), 2_000, 80),
            3 => (Some(3), 5_000, 50),
            4 => (Some(4), 10_000, 30),
            5 => (Some(5), 20_000, 15),
            6 => (None, 40_000, 0),
            7 => (None, 1_000_000, 0),
            _ => return None,
        };
        Some(Budget {
            depth,
            nodes,
            margin,
        })
    }

    /// The level's budget in a variant of `family` (the rule book's family id, as in
    /// `Variant::family`); None for level 8.
    pub fn budget_for(self, family: &str) -> Option<Budget> {
        if family != "turkish" {
            return self.budget();
        }
        // Measured in Turkish (docs/strength.md): a depth-5 search of each root move is within
        // 63 Elo of one search of 100,000 nodes there, and more nodes buy little, so the ladder
        // climbs by depth one level later: levels 3-6 are the other families' 2-5, and level 2
        // is a depth-2 search drawing among moves within 2 men (+145 over level 1, 162 below
        // level 3, where the depth-2 level with 0.8 men was 350 above level 1). Levels 1, 7
        // and 8 are the others'.
        match self.0 {
            2 => Some(Budget {
                depth: Some(2),
                nodes: 2_000,
                margin: 200,
            }),
            3..=6 => Level(self.0 - 1).budget(),
            _ => self.budget(),
        }
    }

    /// The move to play in the game's current position at this level.
    ///
    /// Levels 1-7: every root move m gets two scores from searches of the position after it:
    /// `level(m)` with the level's budget and `sanity(m)` at [`SANITY_DEPTH`]. A move is an
    /// absurd blunder when `sanity(m) <= best_sanity - BLUNDER`, or when it is lost by force
    /// while another move is not. The move is drawn (from `seed` and the position, so a game
    /// repeats with its seed) among the moves that are not blunders and whose `level(m)` is
    /// within the level's margin of the best such score, the nearer the best the likelier.
    /// `limits` bound the level's searches in time, and the engine's stop flag stops them (the
    /// sanity check, one ply per move and bounded by nodes, always runs); a choice cut short
    /// picks among the moves the level has scored, or the sanity check's best.
    pub fn choose<B: Bits>(
        self,
        engine: &mut Engine<B>,
        game: &Game<B>,
        limits: &Limits,
        seed: u64,
        reporter: &mut dyn Reporter<B>,
    ) -> SearchResult<B> {
        let Some(budget) = self.budget_for(&game.rules().variant().family) else {
            return engine.search(game, limits, reporter);
        };
        let start = Instant::now();
        let moves = game.legal_moves();
        if moves.len() <= 1 {
            // Nothing to choose (or nothing at all): the engine's answer, at the level's budget.
            return engine.search(
                game,
                &level_limits(&budget, limits, Duration::ZERO),
                reporter,
            );
        }
        let stop = engine.stop_flag();
        let mut nodes = 0;
        // Margin 0: the level's scores are one search's (its best move scores 0 above the
        // others, which then all fall outside the margin).
        let root = (budget.margin == 0).then(|| {
            engine.search(
                game,
                &level_limits(&budget, limits, Duration::ZERO),
                &mut Silent,
            )
        });
        if let Some(r) = &root {
            nodes += r.nodes;
        }
        // First the sanity check of every move (one ply and captures: cheap, and bounded by
        // nodes), so that no time limit can leave a blunder unchecked; then the level's own
        // scores while time is left.
        let mut scored: Vec<Scored<B>> = Vec::with_capacity(moves.len());
        for mv in &moves {
            let mut after = game.clone();
            after.play_unchecked(mv);
            let ((sanity, line), n) = score_after(engine, &after, &sanity_limits());
            nodes += n;
            scored.push(Scored {
                mv: *mv,
                sanity,
                level: None,
                pv: line,
            });
        }
        for s in &mut scored {
            let elapsed = start.elapsed();
            let out_of_time = limits.hard_limit().is_some_and(|h| elapsed >= h);
            if let Some(r) = &root {
                // The search's move; the others rank below it by their sanity scores, for when
                // the sanity check rules the search's move out.
                let best = r.best == Some(s.mv);
                s.level = Some(if best {
                    r.score
                } else {
                    Score(s.sanity.0.saturating_sub(2 * Score::INFINITE.0))
                });
                s.pv = if best {
                    r.pv.get(1..).unwrap_or_default().to_vec()
                } else {
                    Vec::new()
                };
            } else if budget.depth == Some(SANITY_DEPTH) {
                s.level = Some(s.sanity);
            } else if !out_of_time && !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let mut after = game.clone();
                after.play_unchecked(&s.mv);
                let ((level, line), n) =
                    score_after(engine, &after, &level_limits(&budget, limits, elapsed));
                nodes += n;
                s.level = Some(level);
                s.pv = line;
            }
        }
        let pick = pick(&scored, budget.margin, seed ^ game.position().hash());
        let chosen = &scored[pick];
        let mut pv = vec![chosen.mv];
        pv.extend(chosen.pv.iter().copied());
        let result = SearchResult {
            best: Some(chosen.mv),
            ponder: chosen.pv.first().copied(),
            score: chosen.level.unwrap_or(chosen.sanity),
            depth: budget.depth.unwrap_or(0),
            nodes,
            elapsed: start.elapsed(),
            pv,
        };
        reporter.iteration(&crate::search::Info {
            depth: result.depth,
            seldepth: result.depth,
            score: result.score,
            nodes,
            elapsed: result.elapsed,
            pv: result.pv.clone(),
        });
        result
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Level {
    type Err = LevelError;

    fn from_str(text: &str) -> Result<Level, LevelError> {
        match text.trim().parse::<u32>() {
            Ok(n) => Level::new(n).map_err(|_| LevelError(text.trim().to_string())),
            Err(_) => Err(LevelError(text.trim().to_string())),
        }
    }
}

/// A root move and its scores for the mover.
struct Scored<B: Bits> {
    mv: Move<B>,
    sanity: Score,
    /// None when time ran out before the level's search of this move.
    level: Option<Score>,
    /// The level search's line after the move.
    pv: Vec<Move<B>>,
}

/// Whether a move with this sanity score is an absurd blunder when `best` is the best one.
pub fn is_blunder(score: Score, best: Score) -> bool {
    let lost = |s: Score| s.is_decisive() && s < Score::ZERO;
    match (lost(score), lost(best)) {
        (true, false) => true,
        // Every move loses: none is absurd.
        (true, true) => false,
        _ => score.0 <= best.0.saturating_sub(BLUNDER),
    }
}

/// The index of the move drawn: among the moves that are not blunders, those within `margin`
/// of the best level score, weighted by how near they are.
fn pick<B: Bits>(scored: &[Scored<B>], margin: i32, seed: u64) -> usize {
    let best_sanity = scored.iter().map(|s| s.sanity).max().unwrap_or(Score::ZERO);
    let sane: Vec<usize> = (0..scored.len())
        .filter(|&i| !is_blunder(scored[i].sanity, best_sanity))
        .collect();
    // The sanity check's best move is never a blunder, so `sane` is not empty.
    let best_level = sane.iter().filter_map(|&i| scored[i].level).max();
    let Some(best_level) = best_level else {
        // No level score (the time ran out first): the sanity check's best.
        return sane
            .iter()
            .copied()
            .max_by_key(|&i| scored[i].sanity)
            .unwrap_or(0);
    };
    let candidates: Vec<(usize, u64)> = sane
        .iter()
        .filter_map(|&i| {
            let gap = best_level.0.saturating_sub(scored[i].level?.0);
            (gap <= margin).then(|| (i, (margin - gap + 1) as u64))
        })
        .collect();
    let total: u64 = candidates.iter().map(|c| c.1).sum();
    if total == 0 {
        return sane.first().copied().unwrap_or(0);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut draw = rng.random_range(0..total);
    for &(i, weight) in &candidates {
        if draw < weight {
            return i;
        }
        draw -= weight;
    }
    candidates[candidates.len() - 1].0
}

/// The mover's score of a position reached by its move, its opponent to move, and the
/// opponent's expected line; with the nodes spent.
fn score_after<B: Bits>(
    engine: &mut Engine<B>,
    after: &Game<B>,
    limits: &Limits,
) -> ((Score, Vec<Move<B>>), u64) {
    if let Some(outcome) = after.outcome() {
        let mover = !after.position().side_to_move();
        let score = match outcome {
            Outcome::Win { winner, .. } if winner == mover => Score::win_in(1),
            Outcome::Win { .. } => Score::loss_in(1),
            Outcome::Draw(_) => Score::DRAW,
        };
        return ((score, Vec::new()), 0);
    }
    let r = engine.search(after, limits, &mut Silent);
    // One ply further from the root than the search's own forced results.
    let score = match r.score.flip().plies_to_result() {
        Some(n) if r.score.0 < 0 => Score::win_in(n + 1),
        Some(n) => Score::loss_in(n + 1),
        None => r.score.flip(),
    };
    ((score, r.pv), r.nodes)
}

/// The time a caller's limits leave after `elapsed`, as a move time (None: no time bound).
fn time_left(limits: &Limits, elapsed: Duration) -> Option<Duration> {
    limits
        .hard_limit()
        .map(|h| h.saturating_sub(elapsed).max(Duration::from_millis(1)))
}

fn sanity_limits() -> Limits {
    Limits {
        depth: Some(SANITY_DEPTH),
        nodes: Some(SANITY_NODES),
        ..Limits::default()
    }
}

fn level_limits(budget: &Budget, limits: &Limits, elapsed: Duration) -> Limits {
    Limits {
        depth: budget.depth,
        nodes: Some(budget.nodes),
        move_time: time_left(limits, elapsed),
        ..Limits::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_outside_one_to_eight_are_refused() {
        assert!(Level::new(0).is_err());
        assert!(Level::new(9).is_err());
        assert_eq!(Level::new(8).unwrap(), Level::FULL);
        assert_eq!("3".parse::<Level>().unwrap().number(), 3);
        let e = "x".parse::<Level>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "the level must be a whole number from 1 to 8, not `x`"
        );
        assert!("-1".parse::<Level>().is_err());
    }

    #[test]
    fn budgets_grow_and_margins_shrink_with_the_level() {
        for family in ["international", "turkish", "gothic"] {
            let budgets: Vec<Budget> = (1..=7)
                .map(|n| Level(n).budget_for(family).unwrap())
                .collect();
            for w in budgets.windows(2) {
                // More nodes, or the same search drawing nearer the best.
                assert!(
                    w[1].nodes > w[0].nodes
                        || (w[1].nodes == w[0].nodes && w[1].margin < w[0].margin),
                    "{family}: {w:?}"
                );
            }
            assert!(Level::FULL.budget_for(family).is_none());
        }
        assert_eq!(Level(4).budget_for("turkish"), Level(3).budget());
        assert_eq!(Level(4).budget_for("gothic"), Level(4).budget());
    }

    #[test]
    fn a_lost_move_is_a_blunder_beside_one_that_is_not() {
        assert!(is_blunder(Score::loss_in(3), Score(-400)));
        assert!(!is_blunder(Score::loss_in(3), Score::loss_in(5)));
        assert!(is_blunder(Score(-80), Score(0)));
        assert!(!is_blunder(Score(-70), Score(0)));
    }
}
