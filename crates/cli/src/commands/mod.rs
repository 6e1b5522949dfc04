//! One module per subcommand.

pub mod analyze;
pub mod atlas;
pub mod atlas_report;
pub mod bench;
pub mod claims;
pub mod dxp;
pub mod hub;
pub mod matches;
pub mod moves;
pub mod pdn;
pub mod perft;
pub mod perft_table;
pub mod play;
pub mod review;
pub mod rules;
pub mod serve;
pub mod tablebase;
pub mod tune;
pub mod variants;
pub mod weights;

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Result};
use damspel_rules::{Bits, Position, Rules};
use damspel_tablebase::{default_dir, Tablebase};

/// The endgame tables of `--tb-dir` (default: the cache folder) for an engine: None when the
/// folder holds none for this variant; a damaged or outdated table is an error, and so is a
/// folder given that is not there (a misspelt one would leave the engine without tables
/// without a word; the default folder may well not exist yet).
pub fn tables<B: Bits>(rules: &Rules<B>, dir: Option<&Path>) -> Result<Option<Arc<Tablebase<B>>>> {
    if let Some(dir) = dir {
        if !dir.exists() {
            bail!("{}: no such folder", dir.display());
        }
    }
    let dir = dir.map_or_else(default_dir, Path::to_path_buf);
    let tb = Tablebase::open(&dir, rules)?;
    Ok((!tb.materials().is_empty()).then(|| Arc::new(tb)))
}

/// The position named by `--fen`, or the start position.
pub fn position<B: Bits>(rules: &Rules<B>, fen: Option<&str>) -> Result<Position<B>> {
    match fen {
        None => Ok(Position::start(rules)),
        Some(text) => {
            let setup = damspel_notation::parse_fen(&rules.variant().geometry, text)?;
            Ok(Position::from_setup(rules, &setup)?)
        }
    }
}
