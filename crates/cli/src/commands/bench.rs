//! `damspel bench [--depth D]`: fixed positions of several variants searched to a fixed depth on
//! one thread with a fresh engine each. The total node count is a signature of the search (any
//! change to search or evaluation changes it); nodes per second measure speed.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use damspel_engine::{Engine, Limits, Silent};
use damspel_rules::{with_rules, Bits, Catalogue, Game, Position, Rules};
use serde_json::json;

/// Start positions and positions after 16 random plies (seed 11), in several variants.
const POSITIONS: [(&str, &str); 14] = [
    ("turkish", ""),
    ("international", ""),
    ("american", ""),
    ("dameo", ""),
    ("armenian", ""),
    ("russian", ""),
    ("turkish", "W:Wa2,c2,d2,e2,f2,g2,a3,e3,f3,g3,Ke8:BKh5,a6,b6,e6,f6,g6,h6,a7,b7,d7,e7,f7,g7,h7"),
    ("international", "W:W26,27,34,35,37-43,45-50:B1-5,7-13,15-18,23,30"),
    ("american", "B:W19,21,23,26-30,32:B1-5,9,14-16"),
    ("dameo", "W:Wb1,c1,f1,g1,b2,d2,e2,f2,g2,b3,c3,f3,g3,c4,d4,e4,f4,d5:Bb5,c5,f5,h5,c6,d6,e6,f6,g6,a7,b7,c7,d7,e7,f7,g7,d8,h8"),
    ("armenian", "W:Wa2,b2,c2,d2,e2,g2,h2,a3,c3,d3,g3,h3,c4:Bh4,b5,e5,a6,b6,c6,d6,a7,c7,d7,e7,f7,h7"),
    ("russian", "W:W19,21,22,25,27,29,31,32:B1,4-6,8,9,11,12"),
    ("babylonian", "W:W26,34-37,40,41,43-50:B1-10,12,13,15-18,20,21,25,42"),
    ("harzdame", "W:Wa1,b1,c1,d1,f1,g1,a2,b2,c2,e2,f2,a3,b3,c3,a4,b4,e4,a5,a6,b6:Bh3,g4,h4,f5,g5,h5,f6,g6,h6,c7,e7,f7,g7,h7,b8,d8,f8,g8,h8"),
];

pub fn run(catalogue: &Catalogue, depth: u32, json: bool) -> Result<()> {
    if depth == 0 {
        anyhow::bail!("--depth must be at least 1");
    }
    let mut total_nodes = 0u64;
    let mut total_seconds = 0f64;
    let mut rows = Vec::new();
    for (id, fen) in POSITIONS {
        let variant = catalogue.get(id)?;
        let (nodes, seconds, best) =
            with_rules!(variant, |rules| search(Arc::new(rules), fen, depth))?;
        total_nodes += nodes;
        total_seconds += seconds;
        let nps = (nodes as f64 / seconds.max(1e-9)) as u64;
        if json {
            rows.push(json!({"variant": id, "fen": fen, "nodes": nodes, "seconds": seconds, "nps": nps, "best": best}));
        } else {
            println!(
                "{id:<14} {:<10} nodes {nodes:>11}  {seconds:>7.3} s  {:>6.2} Mnps  best {best}",
                if fen.is_empty() { "start" } else { "midgame" },
                nps as f64 / 1e6
            );
        }
    }
    let nps = (total_nodes as f64 / total_seconds.max(1e-9)) as u64;
    if json {
        println!(
            "{}",
            json!({"depth": depth, "positions": rows, "nodes": total_nodes, "seconds": total_seconds, "nps": nps})
        );
    } else {
        println!("total: {total_nodes} nodes in {total_seconds:.3} s, {nps} nodes/s (depth {depth}, 1 thread)");
    }
    Ok(())
}

fn search<B: Bits>(rules: Arc<Rules<B>>, fen: &str, depth: u32) -> Result<(u64, f64, String)> {
    let pos: Position<B> = super::position(&rules, (!fen.is_empty()).then_some(fen))?;
    let game = Game::from_position(rules.clone(), pos);
    let mut engine = Engine::new(rules.clone(), 16);
    let start = Instant::now();
    let result = engine.search(&game, &Limits::depth(depth), &mut Silent);
    let seconds = start.elapsed().as_secs_f64();
    let best = result
        .best
        .map(|mv| damspel_notation::format_move(&rules, &pos, &mv))
        .unwrap_or_default();
    Ok((result.nodes, seconds, best))
}
