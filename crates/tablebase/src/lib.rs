//! Endgame tablebases for every Damspel variant, built from the rules data alone.
//!
//! A table holds, for every position of one material signature (`Material`, written like
//! `KKMvK`: White's kings and men, `v`, Black's) and both sides to move, the value for the side
//! to move (win, draw, loss) and the distance to the end of the game in plies under best play
//! (the fastest win, the longest resistance). Only rules of the position are part of the value
//! (no legal move loses; one piece each draws where the variant says so); move-count rules are
//! reported beside the distance (`Probe::limit`, `Probe::cursed`).
//!
//! The API, for the engine, the server and `damspel claims`:
//! - [`Tablebase::open`]`(dir, &rules)`: the tables of a variant present in a folder
//!   (`dir/<variant id>/<signature>.dtb`, default [`default_dir`]); a table made for other
//!   rules data is refused;
//! - [`Tablebase::probe`]`(&pos) -> Option<Probe>`: value, distance, limit, cursed (None when
//!   the material is not in the tables);
//! - [`Tablebase::probe_moves`]`(&pos)`: every legal move with the probe of the position after
//!   it (from the opponent's side: a move to a `Loss` is a winning move);
//! - [`Tablebase::header`]: a table's counts per side to move and its longest win (`stats`);
//! - [`build`]`(&rules, pieces, dir, threads, progress)`, [`build_slice`]`(&rules, material,
//!   dir, threads, progress)` (progress returns false to stop), [`plan`]`(pieces)` (signatures in dependency waves),
//!   [`verify`]`(...)`.
//!
//! Not done: symmetry reduction (every table holds the full board) and resolving captures at
//! probe time to shrink the tables; see docs/tablebases.md.

mod build;
pub mod claims;
mod format;
mod index;
mod limit;
mod material;
mod memory;
mod probe;
mod solve;
mod store;
mod value;
mod verify;

use std::path::{Path, PathBuf};

pub use build::{build, build_slice, plan, schedule, Built};
pub use format::{Header, SideCounts, VERSION};
pub use index::Indexer;
pub use limit::limit_plies;
pub use material::{Material, MaterialError};
pub use memory::{set_needs, slice_needs, solve_bytes, Needs};
pub use probe::{MoveProbe, Tablebase};
pub use solve::{drawn_by_material, Progress};
pub use store::{
    default_dir, remove_stale_temporaries, table_path, variant_hash, STALE_TEMPORARY_AGE,
};
pub use value::{Probe, Value};
pub use verify::{search, verify, VerifyReport};

/// What can go wrong with tables.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: damaged table: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error(
        "{path}: table format version {found}, this program reads version {}",
        VERSION
    )]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: built for other rules data than the variant's now; rebuild it (or delete the file)")]
    VariantChanged { path: PathBuf },
    #[error("no table for {0} (build the smaller signatures first)")]
    MissingTable(Material),
    #[error("{material} needs {needs}: {cause}")]
    Dependency {
        material: Material,
        needs: Material,
        cause: Box<Error>,
    },
    #[error("{material} has {slots} slots, more than this builder indexes (2^32)")]
    TooLarge { material: Material, slots: u64 },
    #[error("stopped before the table was complete")]
    Stopped,
    #[error("cannot start the worker threads: {0}")]
    Threads(String),
}

impl Error {
    fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
