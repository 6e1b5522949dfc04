//! `damspel play ID`: a game against the engine in the terminal (being written).

use anyhow::{bail, Result};
use damspel_rules::Catalogue;

pub struct Args<'a> {
    pub id: &'a str,
    pub time: Option<f64>,
    pub depth: Option<u32>,
    pub color: Option<&'a str>,
    pub fen: Option<&'a str>,
}

pub fn run(_catalogue: &Catalogue, args: &Args) -> Result<()> {
    let _ = (args.time, args.depth, args.color, args.fen);
    bail!("terminal play is not available yet ({})", args.id)
}
