//! Matches between players: Damspel engines with their options, a random mover, external Hub
//! engines (`HubPlayer` runs the engine's process) and DXP peers (`DxpPlayer` owns the TCP
//! connection; `DxpMatchPlayer` connects to a listening program and agrees each game with it). Openings are played twice with colours swapped; results come with the Elo
//! difference and its 95% error. Nothing here prints: the command line does.

pub mod dxp_match;
pub mod dxp_player;
pub mod game;
pub mod hub_player;
pub mod openings;
pub mod player;
pub mod runner;
pub mod stats;

pub use dxp_match::DxpMatchPlayer;
pub use dxp_player::{
    Deadline, DxpConfig, DxpConnection, DxpError, DxpGameEnd, DxpPlayer, LinkError, PeerClock,
    MESSAGE_GAP,
};
pub use game::{play_game, Ending, GameRecord};
pub use hub_player::HubPlayer;
pub use openings::{position_after, random_openings, read_openings, OpeningsError};
pub use player::{EnginePlayer, Forfeit, Player, RandomPlayer};
pub use runner::{run_match, Finished, MatchConfig, MatchResult, PlayerFactory};
pub use stats::{elo_of, Tally};
