//! One game between two players.

use std::sync::Arc;

use damspel_rules::{Bits, Color, Game, Move, Outcome, Rules};

use crate::player::{Forfeit, Player};

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules: a win or a draw.
    Rules(Outcome),
    /// A player failed; the other wins.
    Forfeit { loser: Color, reason: Forfeit },
    /// The move limit of the match was reached: a draw.
    MoveLimit(usize),
}

impl Ending {
    /// White's score: 1, ½ or 0.
    pub fn white_score(&self) -> f64 {
        match self {
            Ending::Rules(Outcome::Win { winner, .. }) => {
                if *winner == Color::White {
                    1.0
                } else {
                    0.0
                }
            }
            Ending::Forfeit { loser, .. } => {
                if *loser == Color::White {
                    0.0
                } else {
                    1.0
                }
            }
            Ending::Rules(Outcome::Draw(_)) | Ending::MoveLimit(_) => 0.5,
        }
    }

    pub fn result_text(&self) -> &'static str {
        match self.white_score() {
            s if s > 0.75 => "1-0",
            s if s < 0.25 => "0-1",
            _ => "1/2-1/2",
        }
    }

    pub fn reason(&self) -> String {
        match self {
            Ending::Rules(outcome) => outcome.to_string(),
            Ending::Forfeit { loser, reason } => format!("{loser} forfeits: {reason}"),
            Ending::MoveLimit(n) => format!("draw: adjudicated after {n} plies"),
        }
    }
}

/// A played game.
#[derive(Clone, Debug)]
pub struct GameRecord<B: Bits> {
    pub white: String,
    pub black: String,
    pub opening: Vec<Move<B>>,
    pub moves: Vec<Move<B>>,
    pub ending: Ending,
}

/// Plays the opening, then lets the players move until the game ends. Each player is told of
/// the game before it starts (`start_game`: one that fails to agree on it forfeits) and of the
/// record after it ends (`end_game`).
pub fn play_game<B: Bits>(
    rules: &Arc<Rules<B>>,
    white: &mut dyn Player<B>,
    black: &mut dyn Player<B>,
    opening: &[Move<B>],
    max_plies: usize,
) -> GameRecord<B> {
    let mut game = Game::new(rules.clone());
    for mv in opening {
        game.play_unchecked(mv);
    }
    white.new_game();
    black.new_game();
    let started = white
        .start_game(Color::White, opening)
        .map_err(|reason| (Color::White, reason))
        .and_then(|()| {
            black
                .start_game(Color::Black, opening)
                .map_err(|reason| (Color::Black, reason))
        });
    let ending = match started {
        Err((loser, reason)) => Ending::Forfeit { loser, reason },
        Ok(()) => play_out(rules, &mut game, white, black, max_plies),
    };
    let record = GameRecord {
        white: white.name(),
        black: black.name(),
        opening: opening.to_vec(),
        moves: game.moves()[opening.len()..].to_vec(),
        ending,
    };
    white.end_game(&record);
    black.end_game(&record);
    record
}

/// Lets the players move from `game` until the rules end it, a player fails, or `max_plies`
/// plies have been played.
fn play_out<B: Bits>(
    rules: &Arc<Rules<B>>,
    game: &mut Game<B>,
    white: &mut dyn Player<B>,
    black: &mut dyn Player<B>,
    max_plies: usize,
) -> Ending {
    loop {
        if let Some(outcome) = game.outcome() {
            break Ending::Rules(outcome);
        }
        if game.moves().len() >= max_plies {
            break Ending::MoveLimit(max_plies);
        }
        let side = game.position().side_to_move();
        let player: &mut dyn Player<B> = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        match player.choose(game) {
            Ok(mv) => {
                if !game.play(&mv) {
                    break Ending::Forfeit {
                        loser: side,
                        reason: Forfeit::IllegalMove(format!(
                            "{}-{}",
                            rules.variant().geometry.name(mv.from()),
                            rules.variant().geometry.name(mv.to())
                        )),
                    };
                }
            }
            Err(reason) => {
                break Ending::Forfeit {
                    loser: side,
                    reason,
                }
            }
        }
    }
}
