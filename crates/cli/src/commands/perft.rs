//! `damspel perft ID DEPTH [--fen FEN] [--paths] [--divide]`

use std::time::Instant;

use anyhow::Result;
use damspel_notation::format_move;
use damspel_rules::{with_rules, Bits, Catalogue, Duplicates, Perft, Rules};
use serde::Serialize;

use crate::waiting::with_spinner;

pub struct Args<'a> {
    pub id: &'a str,
    pub depth: u32,
    pub fen: Option<&'a str>,
    pub paths: bool,
    pub divide: bool,
    pub json: bool,
}

#[derive(Serialize)]
struct Output {
    nodes: u64,
    depth: u32,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<Vec<DivideRow>>,
}

#[derive(Serialize)]
struct DivideRow {
    #[serde(rename = "move")]
    mv: String,
    /// Capture sequences that make this move (counted apart with --paths).
    sequences: u64,
    nodes: u64,
}

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    // The command line keeps the depth within 0 to 64 (deeper runs would not finish anyway).
    let variant = catalogue.get(args.id)?;
    with_rules!(variant, |rules| count(&rules, args))
}

fn count<B: Bits>(rules: &Rules<B>, args: &Args) -> Result<()> {
    let pos = super::position(rules, args.fen)?;
    let duplicates = if args.paths {
        Duplicates::Keep
    } else {
        Duplicates::Merge
    };
    let mut perft = Perft::new(rules, duplicates);
    let start = Instant::now();
    let (nodes, divide) = with_spinner("counting", || {
        if args.divide && args.depth > 0 {
            let rows: Vec<DivideRow> = perft
                .divide(&pos, args.depth)
                .into_iter()
                .map(|row| DivideRow {
                    mv: format_move(rules, &pos, &row.mv),
                    sequences: row.sequences,
                    nodes: row.nodes,
                })
                .collect();
            (rows.iter().map(|r| r.nodes).sum(), Some(rows))
        } else {
            (perft.count(&pos, args.depth), None)
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        let out = Output {
            nodes,
            depth: args.depth,
            seconds,
            divide,
        };
        println!("{}", serde_json::to_string(&out)?);
    } else {
        if let Some(rows) = &divide {
            for row in rows {
                if row.sequences > 1 {
                    println!("{} {} ({} sequences)", row.mv, row.nodes, row.sequences);
                } else {
                    println!("{} {}", row.mv, row.nodes);
                }
            }
            println!();
        }
        let rate = if seconds > 0.0 {
            nodes as f64 / seconds / 1e6
        } else {
            0.0
        };
        println!(
            "perft({}) = {nodes} in {seconds:.3} s ({rate:.1} Mnodes/s)",
            args.depth
        );
    }
    Ok(())
}
