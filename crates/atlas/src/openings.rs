//! Balanced random openings: `plies` random legal plies, kept when a short search scores the
//! position within [`BALANCE_MARGIN`] of 0. Each pair's opening depends only on the variant's
//! seed and the pair number (attempt k of pair p draws from its own seed), never on which other
//! pairs were played, so a shard finds the same opening as a whole run.

use std::sync::Arc;

use damspel_engine::{Engine, Limits, Silent};
use damspel_rules::{Bits, Game, Move, Rules};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::seed::mix;

/// Nodes of the balance check's search (a fixed count: the check repeats on any machine).
pub const BALANCE_NODES: u64 = 4_000;
/// An opening is balanced when the check scores it within this many centi-men of 0.
pub const BALANCE_MARGIN: i32 = 30;
/// Random openings tried per pair; if none is balanced, the best-balanced one is kept.
pub const MAX_ATTEMPTS: u64 = 48;
/// Table size of the check's engine (the table's size changes a node-bounded search's result,
/// so it is fixed, not taken from the machine).
const CHECK_HASH_MB: usize = 4;

/// An opening and the balance check's score of the position after it, in centi-men from the
/// first player's view.
#[derive(Clone, Debug)]
pub struct Opening<B: Bits> {
    pub moves: Vec<Move<B>>,
    pub score: i32,
}

/// The opening of pair `pair` of the variant whose openings are drawn from `variant_seed`.
pub fn balanced<B: Bits>(
    rules: &Arc<Rules<B>>,
    variant_seed: u64,
    pair: u64,
    plies: usize,
) -> Opening<B> {
    let mut engine = Engine::new(rules.clone(), CHECK_HASH_MB);
    let first = rules.variant().first_player;
    let mut check = |game: &Game<B>| {
        engine.new_game();
        let limits = Limits {
            nodes: Some(BALANCE_NODES),
            ..Limits::default()
        };
        let score = engine.search(game, &limits, &mut Silent).score.0;
        if game.position().side_to_move() == first {
            score
        } else {
            -score
        }
    };
    let pair_seed = mix(variant_seed, pair);
    let mut best: Option<Opening<B>> = None;
    for attempt in 0..MAX_ATTEMPTS {
        let Some(game) = random_line(rules, mix(pair_seed, attempt), plies) else {
            continue;
        };
        let score = check(&game);
        let candidate = Opening {
            moves: game.moves().to_vec(),
            score,
        };
        if score.abs() <= BALANCE_MARGIN {
            return candidate;
        }
        if best.as_ref().is_none_or(|b| score.abs() < b.score.abs()) {
            best = Some(candidate);
        }
        if plies == 0 {
            break;
        }
    }
    best.unwrap_or_else(|| {
        // Every random line ended the game (a variant with very few moves): the start position.
        let game = Game::new(rules.clone());
        Opening {
            score: check(&game),
            moves: Vec::new(),
        }
    })
}

/// `plies` random legal plies from the start, or None if the game ends on the way.
fn random_line<B: Bits>(rules: &Arc<Rules<B>>, seed: u64, plies: usize) -> Option<Game<B>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut game = Game::new(rules.clone());
    for _ in 0..plies {
        if game.outcome().is_some() {
            return None;
        }
        let moves = game.legal_moves();
        // u32, not usize: the draw is then the same on 32- and 64-bit machines.
        let i = rng.random_range(0..moves.len() as u32) as usize;
        game.play_unchecked(&moves[i]);
    }
    game.outcome().is_none().then_some(game)
}
