//! `damspel hub`: a Hub engine on standard input and output (being written).

use anyhow::{bail, Result};
use damspel_rules::Catalogue;

pub fn run(_catalogue: &Catalogue) -> Result<()> {
    bail!("the Hub protocol is not available yet")
}
