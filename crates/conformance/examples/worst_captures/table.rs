//! `data/worst-captures.tsv`: one row per position, tab-separated, a header line first.

use std::fmt::Write as _;
use std::path::Path;

pub const HEADER: &str = "variant\tfen\tsource\tmedian_ms\tmoves\tsequences";

#[derive(Clone, Debug)]
pub struct Row {
    pub variant: String,
    pub fen: String,
    /// "audit ..." or "search seed S (start kind)".
    pub source: String,
    /// The median wall time of `Rules::moves`, in milliseconds (">N" when every run was stopped
    /// at N).
    pub median_ms: String,
    /// Distinct legal moves.
    pub moves: String,
    /// Capture sequences, `Rules::count_moves(.., Duplicates::Keep)` ("?" when counting took
    /// longer than allowed).
    pub sequences: String,
}

pub fn read(path: &Path) -> Result<Vec<Row>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 6 {
            return Err(format!(
                "{}:{}: {} columns, expected 6",
                path.display(),
                i + 1,
                f.len()
            ));
        }
        rows.push(Row {
            variant: f[0].into(),
            fen: f[1].into(),
            source: f[2].into(),
            median_ms: f[3].into(),
            moves: f[4].into(),
            sequences: f[5].into(),
        });
    }
    Ok(rows)
}

pub fn write(path: &Path, rows: &[Row]) -> Result<(), String> {
    let mut text = String::from(HEADER);
    text.push('\n');
    for r in rows {
        writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}\t{}",
            r.variant, r.fen, r.source, r.median_ms, r.moves, r.sequences
        )
        .expect("writing to a string");
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
