//! The atlas's main metrics as a Markdown table (for docs/atlas.md), one row per variant and
//! budget, each figure with its 95% interval:
//! `cargo run --release -p damspel-atlas-report --example atlas_table -- atlas.db`.

use std::io::Write;
use std::path::PathBuf;

use damspel_atlas_report::{load, Interval};

fn show(i: &Option<Interval>, digits: usize) -> String {
    i.as_ref().map_or("–".into(), |i| i.show(digits))
}

fn main() {
    let Some(db) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: atlas_table ATLAS.db");
        std::process::exit(2);
    };
    let atlas = match load(&db) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    // A closed pipe (`| head`) ends the table quietly instead of panicking in `println!`.
    if write_table(&atlas, &mut std::io::stdout().lock()).is_err() {
        std::process::exit(0);
    }
}

fn write_table(atlas: &damspel_atlas_report::Atlas, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "| variant | budget | games | first-player score | draw rate | plies | branching | captures per ply | lead changes | first promotion ply | a king in men |")?;
    writeln!(out, "|---|---|---:|---|---|---|---|---|---|---|---|")?;
    for v in &atlas.variants {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            v.variant,
            v.budget,
            v.games,
            show(&v.first_score, 2),
            show(&v.draw_rate, 2),
            show(&v.length, 0),
            show(&v.branching, 1),
            show(&v.capture_rate, 3),
            show(&v.lead_changes, 1),
            show(&v.first_promotion_ply, 0),
            show(&v.piece_values.as_ref().and_then(|p| p.king_in_men), 1),
        )?;
    }
    Ok(())
}
