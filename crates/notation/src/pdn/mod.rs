//! PDN 3.0 game text: reading files and games (`read`, with `encoding` and the move `tree`),
//! deciding their variant (`variant`), replaying them as recorded (`replay`) and writing games
//! (`write`).

mod encoding;
mod read;
mod replay;
pub mod result;
mod tree;
mod variant;
mod write;

pub use encoding::{decode, TextEncoding};
pub use read::{
    read_file, read_file_with, read_game, read_text, tag_value, GameError, PdnError, PdnErrorKind,
    PdnFile, PdnRead, ReadLimits, MAX_DEPTH, MAX_FILE_LEN, MAX_GAMES, MAX_GAME_LEN, MAX_MOVES,
    MAX_MOVE_LEN, MAX_TREE_MOVES,
};
pub use replay::{position_for, replay, replay_until, Claim, Replay, ReplayError, ReplayPly};
pub use result::{read_result, result_style, write_result, GameResult, ResultStyle};
pub use tree::{Item, Line, MoveNode};
pub use variant::{How, VariantDecider, VariantDecision};
pub use write::{game_type, write_movetext, PdnGame};
