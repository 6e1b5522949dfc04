//! Helpers shared by the oracle tests.

pub mod kish_board;

use std::ops::RangeInclusive;

use damspel_rules::{Bits, Color, Piece, Position, Rules, Setup, Square};
use rand::rngs::StdRng;
use rand::RngExt;

/// A random legal-looking position: for each colour a number of men drawn from `men` and up to
/// three kings (at least one piece), anywhere on the board, men off their promotion squares;
/// either side to move.
pub fn random_position<B: Bits>(
    rules: &Rules<B>,
    rng: &mut StdRng,
    men: RangeInclusive<usize>,
) -> Position<B> {
    let mut free: Vec<Square> = rules.variant().geometry.all_squares().to_vec();
    let mut pieces = Vec::new();
    for color in Color::BOTH {
        let men = rng.random_range(men.clone());
        let kings = rng.random_range(usize::from(men == 0)..=3);
        let crowning = rules.promotion_squares(color);
        for i in 0..men + kings {
            let king = i >= men;
            loop {
                let at = rng.random_range(0..free.len());
                if !king && crowning.has(free[at].0) {
                    continue;
                }
                pieces.push((free.swap_remove(at), Piece { color, king }));
                break;
            }
        }
    }
    let side = if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    let setup = Setup {
        side_to_move: Some(side),
        pieces,
    };
    Position::from_setup(rules, &setup).expect("a valid random setup")
}

/// Rounds of a seeded random test: one (CI), or the number in the environment variable `var`
/// for a long run over other seeds.
pub fn rounds(var: &str) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}
