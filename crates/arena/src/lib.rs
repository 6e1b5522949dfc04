//! Matches between players: Damspel engines with their options, a random mover, and (through
//! the protocol layer) external engines. Openings are played twice with colours swapped; results
//! come with the Elo difference and its 95% error. No I/O: the command line prints.

pub mod game;
pub mod openings;
pub mod player;
pub mod runner;
pub mod stats;

pub use game::{play_game, Ending, GameRecord};
pub use openings::{position_after, random_openings};
pub use player::{EnginePlayer, Forfeit, Player, RandomPlayer};
pub use runner::{run_match, MatchConfig, MatchResult, PlayerFactory};
pub use stats::{elo_of, Tally};
