//! Reads the published reference rows in `data/` (copied from shared/reference, sources per row).

use std::path::PathBuf;

/// A perft row: variant, FEN, depth, nodes, convention ("paths" or "dedup"), source.
#[derive(Clone, Debug)]
pub struct PerftRow {
    pub variant: String,
    pub fen: String,
    pub depth: u32,
    pub nodes: u64,
    pub paths: bool,
    pub source: String,
}

/// A legal-moves row: variant, FEN, expected count, expected moves (may be empty), source.
#[derive(Clone, Debug)]
pub struct LegalMovesRow {
    pub variant: String,
    pub fen: String,
    pub count: usize,
    pub moves: Vec<String>,
    pub source: String,
}

fn data_file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rows(name: &str) -> Vec<Vec<String>> {
    data_file(name)
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

pub fn perft_rows() -> Vec<PerftRow> {
    rows("perft.tsv")
        .into_iter()
        .map(|r| PerftRow {
            variant: r[0].clone(),
            fen: r[1].clone(),
            depth: r[2].parse().expect("depth"),
            nodes: r[3].parse().expect("nodes"),
            paths: match r[4].as_str() {
                "paths" => true,
                "dedup" => false,
                other => panic!("unknown convention {other}"),
            },
            source: r[5].clone(),
        })
        .collect()
}

pub fn legal_moves_rows() -> Vec<LegalMovesRow> {
    rows("legal-moves.tsv")
        .into_iter()
        .map(|r| LegalMovesRow {
            variant: r[0].clone(),
            fen: r[1].clone(),
            count: r[2].parse().expect("count"),
            moves: r[3].split_whitespace().map(str::to_string).collect(),
            source: r[4].clone(),
        })
        .collect()
}
