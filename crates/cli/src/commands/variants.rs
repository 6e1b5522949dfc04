//! `damspel variants`

use anyhow::Result;
use damspel_rules::describe::catalogue_order;
use damspel_rules::Catalogue;
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    id: String,
    name: String,
    family: String,
    board: String,
    aliases: Vec<String>,
    description: String,
}

pub fn run(catalogue: &Catalogue, json: bool) -> Result<()> {
    let mut variants = catalogue.variants()?;
    variants.sort_by_key(catalogue_order);
    let rows: Vec<Row> = variants
        .into_iter()
        .map(|v| Row {
            board: v.board_label(),
            id: v.id,
            name: v.name,
            family: v.family,
            aliases: v.aliases,
            description: v.description,
        })
        .collect();
    if json {
        println!("{}", crate::files::json_text(&rows)?);
        return Ok(());
    }
    let w_id = rows.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
    let w_name = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let w_family = rows
        .iter()
        .map(|r| r.family.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "{:w_id$}  {:w_name$}  {:w_family$}  board",
        "id", "name", "family"
    );
    for r in &rows {
        println!(
            "{:w_id$}  {:w_name$}  {:w_family$}  {}",
            r.id, r.name, r.family, r.board
        );
    }
    Ok(())
}
