//! One module per subcommand.

pub mod analyze;
pub mod bench;
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

use anyhow::Result;
use damspel_rules::{Bits, Position, Rules};

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
