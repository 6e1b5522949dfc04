//! `damspel moves ID [--fen FEN] [--json] [--time SECONDS]`

use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use damspel_notation::{format_all, sort_for_reading};
use damspel_rules::{with_rules, Bits, Catalogue, Duplicates, Geometry, MoveDetail, Rules, Until};
use serde::{Serialize, Serializer};

use crate::waiting::with_spinner;

#[derive(Serialize)]
struct MoveJson<'a> {
    notation: &'a str,
    from: String,
    to: String,
    path: Vec<String>,
    captures: Vec<String>,
    promotes: bool,
}

/// The moves as a JSON array, each row made as it is written: a position built to have half a
/// million captures (no majority rule) took 1.4 GB when every row's names were made first.
struct Rows<'a, B: Bits> {
    geometry: &'a Geometry,
    legal: &'a [MoveDetail<B>],
    notations: &'a [String],
}

impl<B: Bits> Serialize for Rows<'_, B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let g = self.geometry;
        serializer.collect_seq(self.legal.iter().zip(self.notations).map(|(d, notation)| {
            MoveJson {
                notation,
                from: g.name(d.mv.from()),
                to: g.name(d.mv.to()),
                path: d.path.iter().map(|&s| g.name(s)).collect(),
                captures: d.captures.iter().map(|&s| g.name(s)).collect(),
                promotes: d.mv.promotes(),
            }
        }))
    }
}

pub fn run(
    catalogue: &Catalogue,
    id: &str,
    fen: Option<&str>,
    json: bool,
    time: Option<f64>,
) -> Result<()> {
    let variant = catalogue.get(id)?;
    with_rules!(variant, |rules| print_moves(&rules, fen, json, time))
}

fn print_moves<B: Bits>(
    rules: &Rules<B>,
    fen: Option<&str>,
    json: bool,
    time: Option<f64>,
) -> Result<()> {
    let pos = super::position(rules, fen)?;
    let g = &rules.variant().geometry;
    let until = match time {
        Some(t) => Until::deadline(Instant::now() + Duration::from_secs_f64(t)),
        None => Until::NEVER,
    };
    let listed = with_spinner("listing the moves", || {
        rules.legal_moves_detailed_until(&pos, Duplicates::Merge, until)
    });
    let Ok(mut legal) = listed else {
        bail!(
            "the moves of this position were not all listed within {} s (--time); a position \
             with many kings can take minutes",
            time.unwrap_or_default()
        );
    };
    sort_for_reading(g, &mut legal);
    let notations = format_all(g, &legal);
    let mut out = BufWriter::new(std::io::stdout().lock());
    if json {
        let rows = Rows {
            geometry: g,
            legal: &legal,
            notations: &notations,
        };
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        for notation in &notations {
            writeln!(out, "{notation}")?;
        }
    }
    out.flush()?;
    Ok(())
}
