//! Game review: the engine analyses every position of a game within a budget per position, and
//! each move is judged by the winning chances it lost (`chances`). The library does no I/O:
//! progress goes to a callback, a stop flag ends the work between and inside searches, and the
//! annotated game is returned as a PDN tree (`annotate`).

pub mod annotate;
pub mod chances;
mod run;
mod stop;

pub use annotate::annotate;
pub use chances::{move_accuracy, win_percent, Mark};
pub use run::{
    review, review_game, Budget, Eval, Options, PlayerSummary, Players, PlyReview, Progress,
    Review, ReviewError,
};
pub use stop::Stopper;
