//! Openings: short move sequences from the start position, each played twice with colours
//! swapped so that neither side profits from an unbalanced one.

use std::collections::HashSet;

use damspel_rules::{Bits, Game, Move, Position, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

/// `count` distinct openings of `plies` random legal moves (fewer if the variant has fewer),
/// avoiding positions where the game is already over.
pub fn random_openings<B: Bits>(
    rules: &Arc<Rules<B>>,
    count: usize,
    plies: usize,
    seed: u64,
) -> Vec<Vec<Move<B>>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut openings = Vec::new();
    let mut attempts = 0;
    while openings.len() < count && attempts < count * 50 {
        attempts += 1;
        let mut game = Game::new(rules.clone());
        let mut line = Vec::new();
        for _ in 0..plies {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            game.play_unchecked(&mv);
            line.push(mv);
        }
        if game.outcome().is_some() || !seen.insert(game.position().hash()) {
            continue;
        }
        openings.push(line);
    }
    if openings.is_empty() {
        openings.push(Vec::new());
    }
    openings
}

/// The position after an opening.
pub fn position_after<B: Bits>(rules: &Rules<B>, opening: &[Move<B>]) -> Position<B> {
    opening
        .iter()
        .fold(Position::start(rules), |pos, mv| pos.play(mv))
}
