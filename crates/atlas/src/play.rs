//! One self-play game: the opening, then two engines (one per colour, each with its own table)
//! until the rules end the game or the ply cap does; a record per ply.
//!
//! The two games of a pair start from the same opening with the engines' colours swapped. With
//! one budget for both sides they would be copies of each other, so each engine move searches a
//! node budget drawn from the game's seed within ±1/8 of the nominal one (`nodes_for`); the two
//! games draw different budgets, their searches soon differ, and so do the games. The budget
//! is the same on average for both colours, so it favours neither. At a level, the level's own
//! seeded draw among near-best moves does the same, seeded per game and ply.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use damspel_engine::{Engine, Limits, Score, SearchResult, Silent};
use damspel_rules::{Bits, Color, DrawReason, Game, Move, Outcome, Position, Rules};

use crate::budget::Budget;
use crate::seed::mix;

/// Table size of each engine. Fixed: the table's size changes what a node-bounded search finds.
pub const HASH_MB: usize = 16;
/// Plies (opening included) after which a game is a draw by the atlas's cap: reason 'ply-cap'.
pub const PLY_CAP: usize = 400;
/// Stored evaluations are clamped to this (forced wins and losses become ±10000).
pub const EVAL_CLAMP: i32 = 10_000;

/// One ply as the `plies` table stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    pub mover_first: bool,
    pub legal: u32,
    pub captured: u32,
    pub promotes: bool,
    /// Centi-men from the first player's view; None for opening plies.
    pub eval: Option<i32>,
    pub men_first: u32,
    pub kings_first: u32,
    pub men_second: u32,
    pub kings_second: u32,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Played<B: Bits> {
    pub moves: Vec<Move<B>>,
    pub opening_len: usize,
    pub records: Vec<PlyRecord>,
    /// 'first' | 'second' | 'draw'.
    pub result: &'static str,
    pub reason: &'static str,
    /// The winner's colour, if any (for the PDN result).
    pub winner: Option<Color>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the engine returned no move at ply {0}")]
    NoMove(usize),
    /// The run was stopped; the game is dropped (it is played again by the next run).
    #[error("stopped")]
    Stopped,
}

/// The node budget of the engine move at `ply`: within ±1/8 of `nodes`, drawn from `seed`.
pub fn nodes_for(nodes: u64, seed: u64, ply: usize) -> u64 {
    let spread = nodes / 4;
    nodes - nodes / 8 + mix(seed, ply as u64) % (spread + 1)
}

/// Plays `opening` then the engines; `seed` is the game's own seed. `stop` is looked at before
/// every engine move (a search is bounded by its budget, so a stop takes effect within one).
pub fn play<B: Bits>(
    rules: &Arc<Rules<B>>,
    opening: &[Move<B>],
    budget: Budget,
    seed: u64,
    stop: &AtomicBool,
) -> Result<Played<B>, PlayError> {
    let first = rules.variant().first_player;
    let mut game = Game::new(rules.clone());
    let mut records = Vec::new();
    for mv in opening {
        let legal = game.legal_moves().len() as u32;
        let before = *game.position();
        game.play_unchecked(mv);
        records.push(record(first, &before, mv, legal, None, &game));
    }
    let mut engines = [
        Engine::new(rules.clone(), HASH_MB),
        Engine::new(rules.clone(), HASH_MB),
    ];
    for e in &mut engines {
        e.new_game();
    }
    let outcome = loop {
        if let Some(outcome) = game.outcome() {
            break Some(outcome);
        }
        let ply = game.moves().len();
        if ply >= PLY_CAP {
            break None;
        }
        if stop.load(Ordering::Relaxed) {
            return Err(PlayError::Stopped);
        }
        let mover = game.position().side_to_move();
        let legal = game.legal_moves().len() as u32;
        let engine = &mut engines[usize::from(mover != first)];
        let result = search(engine, &game, budget, seed, ply);
        let mv = result.best.ok_or(PlayError::NoMove(ply))?;
        let eval = first_view(result.score, mover == first);
        let before = *game.position();
        game.play_unchecked(&mv);
        records.push(record(first, &before, &mv, legal, Some(eval), &game));
    };
    let (result, reason, winner) = match outcome {
        None => ("draw", "ply-cap", None),
        Some(Outcome::Win { winner, .. }) => (
            if winner == first { "first" } else { "second" },
            "no-moves",
            Some(winner),
        ),
        Some(Outcome::Draw(why)) => (
            "draw",
            match why {
                DrawReason::OnePieceEach => "one-piece-each",
                DrawReason::Repetition(_) => "repetition",
                DrawReason::NoProgress(_) => "no-progress",
                DrawReason::EndgameLimit(_) => "endgame-limit",
            },
            None,
        ),
    };
    Ok(Played {
        moves: game.moves().to_vec(),
        opening_len: opening.len(),
        records,
        result,
        reason,
        winner,
    })
}

fn search<B: Bits>(
    engine: &mut Engine<B>,
    game: &Game<B>,
    budget: Budget,
    seed: u64,
    ply: usize,
) -> SearchResult<B> {
    match budget {
        Budget::Nodes(n) => {
            let limits = Limits {
                nodes: Some(nodes_for(n, seed, ply)),
                ..Limits::default()
            };
            engine.search(game, &limits, &mut Silent)
        }
        Budget::Time(_) => {
            let limits = Limits {
                move_time: budget.move_time(),
                ..Limits::default()
            };
            engine.search(game, &limits, &mut Silent)
        }
        Budget::Level(level) => level.choose(
            engine,
            game,
            &Limits::default(),
            mix(seed, ply as u64),
            &mut Silent,
        ),
    }
}

/// A score for the mover as centi-men from the first player's view, clamped.
fn first_view(score: Score, mover_is_first: bool) -> i32 {
    let s = score.0.clamp(-EVAL_CLAMP, EVAL_CLAMP);
    if mover_is_first {
        s
    } else {
        -s
    }
}

fn record<B: Bits>(
    first: Color,
    before: &Position<B>,
    mv: &Move<B>,
    legal: u32,
    eval: Option<i32>,
    game: &Game<B>,
) -> PlyRecord {
    let after = game.position();
    let second = !first;
    PlyRecord {
        mover_first: before.side_to_move() == first,
        legal,
        captured: mv.capture_count(),
        promotes: mv.promotes(),
        eval,
        men_first: after.men(first).count(),
        kings_first: after.kings(first).count(),
        men_second: after.men(second).count(),
        kings_second: after.kings(second).count(),
    }
}
