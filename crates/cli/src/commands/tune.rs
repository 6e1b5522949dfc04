//! `damspel tune ID`: fits the evaluation weights to self-play results (being written).

use anyhow::{bail, Result};
use damspel_rules::Catalogue;

pub struct Args<'a> {
    pub id: &'a str,
    pub games: usize,
    pub depth: u32,
    pub out: Option<&'a str>,
    pub concurrency: usize,
    pub seed: u64,
    pub weights: Option<&'a str>,
    pub openings: usize,
    pub max_plies: usize,
    pub skip: usize,
    pub ridge: f64,
}

pub fn run(_catalogue: &Catalogue, args: &Args) -> Result<()> {
    let _ = (
        args.games,
        args.depth,
        args.out,
        args.concurrency,
        args.seed,
    );
    let _ = (
        args.weights,
        args.openings,
        args.max_plies,
        args.skip,
        args.ridge,
    );
    bail!("tuning is not available yet ({})", args.id)
}
