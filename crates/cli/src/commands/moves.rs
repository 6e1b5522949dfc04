//! `damspel moves ID [--fen FEN]`

use anyhow::Result;
use damspel_notation::{format_all, sort_for_reading};
use damspel_rules::{with_rules, Bits, Catalogue, Duplicates, Rules};
use serde::Serialize;

#[derive(Serialize)]
struct MoveJson {
    notation: String,
    from: String,
    to: String,
    path: Vec<String>,
    captures: Vec<String>,
    promotes: bool,
}

pub fn run(catalogue: &Catalogue, id: &str, fen: Option<&str>, json: bool) -> Result<()> {
    let variant = catalogue.get(id)?;
    with_rules!(variant, |rules| print_moves(&rules, fen, json))
}

fn print_moves<B: Bits>(rules: &Rules<B>, fen: Option<&str>, json: bool) -> Result<()> {
    let pos = super::position(rules, fen)?;
    let g = &rules.variant().geometry;
    let mut legal = rules.legal_moves_detailed(&pos, Duplicates::Merge);
    sort_for_reading(g, &mut legal);
    let rows: Vec<MoveJson> = legal
        .iter()
        .zip(format_all(g, &legal))
        .map(|(d, notation)| MoveJson {
            notation,
            from: g.name(d.mv.from()),
            to: g.name(d.mv.to()),
            path: d.path.iter().map(|&s| g.name(s)).collect(),
            captures: d.captures.iter().map(|&s| g.name(s)).collect(),
            promotes: d.mv.promotes(),
        })
        .collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        for row in rows {
            println!("{}", row.notation);
        }
    }
    Ok(())
}
