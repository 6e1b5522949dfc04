//! The variant atlas: strong self-play of many variants from balanced random openings, every
//! game stored with its per-ply records in SQLite (docs/atlas-schema.md), resumable, split into
//! shards that any machine can play and merged back into one database.
//!
//! Everything a game depends on (variant, budget, master seed, pair, game) is in its key or its
//! run row, so the same game comes out on any machine and in any shard (node budgets; a time
//! budget is allowed but not reproducible). Nothing here prints: progress goes to a callback.

pub mod budget;
pub mod merge;
pub mod openings;
pub mod pdn;
pub mod play;
pub mod run;
pub mod seed;
pub mod shard;
pub mod store;

pub use budget::{Budget, BudgetError};
pub use merge::{diff, merge, MergeError};
pub use run::{run, Progress, RunConfig, RunError, Summary};
pub use shard::{Shard, ShardError};
pub use store::{played_under, Store, StoreError, Written};
