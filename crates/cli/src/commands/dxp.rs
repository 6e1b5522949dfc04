//! `damspel dxp --listen ADDR | --connect ADDR`: DXP play over TCP (being written).

use anyhow::{bail, Result};
use damspel_rules::Catalogue;

pub struct Args<'a> {
    pub variant: &'a str,
    pub listen: Option<&'a str>,
    pub connect: Option<&'a str>,
    pub time: Option<f64>,
    pub depth: Option<u32>,
}

pub fn run(_catalogue: &Catalogue, args: &Args) -> Result<()> {
    let _ = (args.listen, args.connect, args.time, args.depth);
    bail!("DXP is not available yet (variant {})", args.variant)
}
