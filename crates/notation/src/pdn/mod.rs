//! PDN 3.0 game text: reading games (`read`) and writing them (`write`).

mod read;
pub mod result;
mod write;

pub use read::{read_game, PdnError, PdnErrorKind, PdnRead, MAX_GAME_LEN, MAX_MOVES, MAX_MOVE_LEN};
pub use result::{read_result, result_style, write_result, GameResult, ResultStyle};
pub use write::{game_type, PdnGame};
