//! Damspel's engine: a search and an evaluation that work for every variant from its rules. It
//! does no I/O: progress goes to a `Reporter`, results are returned.

pub mod eval;
pub mod level;
pub mod score;
pub mod search;
pub mod tt;
pub mod tune;

pub use eval::{Evaluator, Weights};
pub use level::{Level, LevelError};
pub use score::{Score, ScoreKind};
pub use search::{
    Clock, Engine, Info, Limits, PvLine, Reporter, SearchResult, Silent, MAX_DEPTH, MAX_MULTIPV,
    MAX_THREADS,
};
pub use tt::{TableError, HASH_MB_RANGE};
