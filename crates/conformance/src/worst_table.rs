//! `data/worst-captures.tsv`, the capture benchmark's positions: one row per position,
//! tab-separated, a header line first. The `worst_captures` search adds its finds to it.

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

/// The rows of the table at `path`; a table not written yet has none.
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

/// Writes `rows` as the table at `path`, the header first.
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

/// The rows of `table` with `found` added: a position already in it (same variant and FEN) takes
/// the new row, every other row stays, whatever its variant or source (a search of one variant
/// must not drop the positions earlier searches and the audit left: they are what the
/// benchmark's claim rests on). Rows go in `order`'s order of variants (the catalogue's), the
/// most expensive first.
pub fn merge(table: Vec<Row>, found: Vec<Row>, order: &[impl AsRef<str>]) -> Vec<Row> {
    let same = |a: &Row, b: &Row| a.variant == b.variant && a.fen == b.fen;
    let mut all: Vec<Row> = table
        .into_iter()
        .filter(|old| !found.iter().any(|new| same(old, new)))
        .collect();
    all.extend(found);
    let rank = |r: &Row| order.iter().position(|i| i.as_ref() == r.variant);
    let ms = |r: &Row| r.median_ms.trim_start_matches('>').parse().unwrap_or(0.0);
    all.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| f64::total_cmp(&ms(b), &ms(a)))
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(variant: &str, fen: &str, source: &str, ms: &str) -> Row {
        Row {
            variant: variant.into(),
            fen: fen.into(),
            source: source.into(),
            median_ms: ms.into(),
            moves: "1".into(),
            sequences: "1".into(),
        }
    }

    #[test]
    fn a_search_adds_its_finds_and_keeps_every_earlier_row() {
        let table = vec![
            row("turkish", "W:Wa1:Bb2", "search seed 1 (men)", "3.0"),
            row(
                "universal",
                "W:WKb7:BKa3",
                "audit (issue 10, finding 1)",
                "1.0",
            ),
            row("universal", "W:WKa1:BKb2", "search seed 7 (scatter)", "9.0"),
        ];
        let found = vec![
            row(
                "universal",
                "W:WKb7:BKa3",
                "audit (issue 10, finding 1)",
                "1.2",
            ),
            row(
                "universal",
                "W:WKc1:BKd2",
                "search seed 8 (lattice)",
                ">5000",
            ),
        ];
        let merged = merge(table, found, &["turkish", "universal"]);
        let rows: Vec<(&str, &str, &str)> = merged
            .iter()
            .map(|r| (r.variant.as_str(), r.fen.as_str(), r.median_ms.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("turkish", "W:Wa1:Bb2", "3.0"),
                // Every run stopped at 5,000 ms: at least that, the most expensive.
                ("universal", "W:WKc1:BKd2", ">5000"),
                ("universal", "W:WKa1:BKb2", "9.0"),
                // Measured again: the new row, once.
                ("universal", "W:WKb7:BKa3", "1.2"),
            ]
        );
    }

    #[test]
    fn the_table_reads_back_as_written_and_a_short_row_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tsv");
        let rows = vec![row(
            "greek",
            "B:WKa1:Bb2,c3",
            "search seed 2 (play)",
            "12.5",
        )];
        write(&path, &rows).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(
            (
                back[0].variant.as_str(),
                back[0].fen.as_str(),
                back[0].source.as_str()
            ),
            ("greek", "B:WKa1:Bb2,c3", "search seed 2 (play)")
        );
        std::fs::write(&path, format!("{HEADER}\ngreek\tB:WKa1:Bb2\n")).unwrap();
        let err = read(&path).unwrap_err();
        assert!(err.contains(":2: 2 columns, expected 6"), "{err}");
        // A table not written yet is empty.
        assert!(read(&dir.path().join("none.tsv")).unwrap().is_empty());
    }
}
