//! Players: anything that chooses a move in a game. A player that fails (crashes, runs out of
//! time, answers with an illegal move) loses the game; the match goes on.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_engine::{Engine, Level, Limits, Silent, Weights};
use damspel_rules::{Bits, Color, Game, Move, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::game::GameRecord;

/// Why a player lost a game without it being played out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    Crashed(String),
    TimedOut(Duration),
    /// Used up its time for the whole game (`time`, and `increment` more a move).
    OutOfTime {
        time: Duration,
        increment: Duration,
    },
    IllegalMove(String),
}

impl fmt::Display for Forfeit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Forfeit::Crashed(why) => write!(f, "engine failure: {why}"),
            Forfeit::TimedOut(t) => write!(f, "no move within {:.1} s", t.as_secs_f64()),
            Forfeit::OutOfTime { time, increment } => write!(
                f,
                "used up its time for the game ({:.1} s, and {:.1} s more a move)",
                time.as_secs_f64(),
                increment.as_secs_f64()
            ),
            Forfeit::IllegalMove(m) => write!(f, "illegal move {m}"),
        }
    }
}

/// A participant of a match.
pub trait Player<B: Bits>: Send {
    fn name(&self) -> String;

    /// A new game starts (clear learnt state).
    fn new_game(&mut self) {}

    /// The game about to be played: this player plays `color` after `opening` (moves from the
    /// start). A player that must agree on the game with a program of its own (a DXP peer)
    /// does so here; an error forfeits the game.
    fn start_game(&mut self, _color: Color, _opening: &[Move<B>]) -> Result<(), Forfeit> {
        Ok(())
    }

    /// The move to play in the game's current position (which has a legal move).
    fn choose(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit>;

    /// The game is over, as `record` says (a DXP peer is sent the last move and the GAMEEND).
    fn end_game(&mut self, _record: &GameRecord<B>) {}
}

/// Damspel's engine with fixed limits.
pub struct EnginePlayer<B: Bits> {
    name: String,
    engine: Engine<B>,
    limits: Limits,
    /// A playing level below full strength, and the seed of its draws (changed each game).
    level: Option<(Level, u64)>,
}

impl<B: Bits> EnginePlayer<B> {
    pub fn new(
        name: String,
        rules: Arc<Rules<B>>,
        weights: Option<Weights>,
        limits: Limits,
        hash_mb: usize,
    ) -> Self {
        let engine = match weights {
            Some(w) => Engine::with_weights(rules, w, hash_mb),
            None => Engine::new(rules, hash_mb),
        };
        EnginePlayer {
            name,
            engine,
            limits,
            level: None,
        }
    }

    /// The engine, to set what the limits do not (its endgame tables).
    pub fn engine_mut(&mut self) -> &mut Engine<B> {
        &mut self.engine
    }

    /// Plays at this level (see `damspel_engine::level`), its draws seeded by `seed`.
    pub fn with_level(mut self, level: Level, seed: u64) -> Self {
        self.level = Some((level, seed));
        self
    }
}

impl<B: Bits> Player<B> for EnginePlayer<B> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.engine.new_game();
        if let Some((_, seed)) = &mut self.level {
            *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn choose(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit> {
        let start = Instant::now();
        let result = match self.level {
            Some((level, seed)) => {
                level.choose(&mut self.engine, game, &self.limits, seed, &mut Silent)
            }
            None => self.engine.search(game, &self.limits, &mut Silent),
        };
        let limit = self
            .limits
            .move_time
            .map(|t| t * 3 + Duration::from_millis(500));
        if let Some(limit) = limit {
            if start.elapsed() > limit {
                return Err(Forfeit::TimedOut(start.elapsed()));
            }
        }
        result
            .best
            .ok_or_else(|| Forfeit::Crashed("no move returned".into()))
    }
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    rng: StdRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl<B: Bits> Player<B> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(Forfeit::Crashed("asked to move in a finished game".into()));
        }
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}
