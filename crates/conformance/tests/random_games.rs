//! Every variant plays 1,000 random games to the end: no panic, every move legal, every position
//! consistent, and a legal result at the end.

use std::sync::Arc;

use damspel_rules::{
    with_rules, Bits, Catalogue, Color, Game, Outcome, Position, Rules, WinReason,
};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const GAMES: usize = 1000;
/// A safety net only: a random game longer than this is reported as a failure.
const MAX_PLIES: usize = 5000;

struct Tally {
    wins: usize,
    draws: usize,
    plies: usize,
    longest: usize,
}

fn play_games<B: Bits>(rules: Rules<B>, seed: u64) -> Result<Tally, String> {
    let rules = Arc::new(rules);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tally = Tally {
        wins: 0,
        draws: 0,
        plies: 0,
        longest: 0,
    };
    for game_no in 0..GAMES {
        let mut game = Game::new(rules.clone());
        let outcome = loop {
            if let Some(outcome) = game.outcome() {
                break outcome;
            }
            let moves = game.legal_moves();
            if moves.is_empty() {
                return Err(format!("game {game_no}: no move but no result"));
            }
            let mv = moves[rng.random_range(0..moves.len())];
            game.play_unchecked(&mv);
            let pos = game.position();
            if pos.hash() != pos.compute_hash() {
                return Err(format!(
                    "game {game_no}: hash out of step after {} plies",
                    game.moves().len()
                ));
            }
            if !(pos.pieces(Color::White) & pos.pieces(Color::Black)).is_empty() {
                return Err(format!("game {game_no}: two pieces on one square"));
            }
            if game.moves().len() > MAX_PLIES {
                return Err(format!("game {game_no}: no result after {MAX_PLIES} plies"));
            }
        };
        // The result must be what the final position says.
        let pos: &Position<B> = game.position();
        match outcome {
            Outcome::Win { winner, reason } => {
                let loser = !winner;
                if pos.side_to_move() != loser || rules.has_legal_move(pos) {
                    return Err(format!("game {game_no}: {outcome} but the loser can move"));
                }
                if (reason == WinReason::NoPieces) != pos.pieces(loser).is_empty() {
                    return Err(format!("game {game_no}: wrong reason {outcome}"));
                }
                tally.wins += 1;
            }
            Outcome::Draw(_) => tally.draws += 1,
        }
        tally.plies += game.moves().len();
        tally.longest = tally.longest.max(game.moves().len());
    }
    Ok(tally)
}

#[test]
fn a_thousand_random_games_per_variant() {
    let catalogue = Catalogue::builtin();
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for (i, id) in catalogue.ids().iter().enumerate() {
        let variant = catalogue.get(id).unwrap();
        match with_rules!(variant, |rules| play_games(rules, 1000 + i as u64)) {
            Ok(t) => report.push(format!(
                "{id}: {} wins, {} draws, {:.0} plies on average, longest {}",
                t.wins,
                t.draws,
                t.plies as f64 / GAMES as f64,
                t.longest
            )),
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
