//! Joining shard databases (`merge`) and comparing two databases (`diff`). A merge is the union
//! of the inputs' rows; the same key with different content in two inputs (or in an input and
//! the output) is an error and nothing of that input is written. Every input is checked
//! (it exists, once, and is an atlas database) before the output is created or written.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use crate::store::{sqlite, Store, StoreError, SCHEMA_VERSION};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}: no such file")]
    Missing(String),
    #[error("{0} is the output: the inputs are merged into it, so it cannot be one")]
    IsOutput(String),
    #[error("{0} is given twice as an input")]
    Repeated(String),
    #[error("{path} is not an atlas database (no meta table with schema {SCHEMA_VERSION})")]
    NotAtlas { path: String },
    #[error("{input} and {output} disagree on {what} ({key}): the same key with different content; nothing of {input} was merged")]
    Conflict {
        input: String,
        output: String,
        what: &'static str,
        key: String,
    },
}

/// What a merge added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    pub inputs: usize,
    pub games_added: u64,
    pub games_total: u64,
}

// Columns compared, per table (every column: a row with the same key must be identical).
const RUN_COLS: &str = "variant, budget, seed, opening_plies";
const GAME_COLS: &str =
    "variant, budget, pair, game, opening, opening_fen, result, reason, plies, pdn";
const PLY_COLS: &str = "variant, budget, pair, game, ply, mover, legal, captured, promotes, eval, men_first, kings_first, men_second, kings_second";

/// (table, key columns, all columns)
const TABLES: [(&str, &str, &str); 3] = [
    ("runs", "variant, budget", RUN_COLS),
    ("games", "variant, budget, pair, game", GAME_COLS),
    ("plies", "variant, budget, pair, game, ply", PLY_COLS),
];

/// Merges `inputs` into `out` (created if missing; its own rows are kept).
pub fn merge(out: &Path, inputs: &[&Path]) -> Result<MergeSummary, MergeError> {
    for (i, input) in inputs.iter().enumerate() {
        if !input.exists() {
            return Err(MergeError::Missing(input.display().to_string()));
        }
        let same_as = |other: &Path| {
            other.exists() && std::fs::canonicalize(other).ok() == std::fs::canonicalize(input).ok()
        };
        if same_as(out) {
            return Err(MergeError::IsOutput(input.display().to_string()));
        }
        if inputs[..i].iter().any(|p| same_as(p)) {
            return Err(MergeError::Repeated(input.display().to_string()));
        }
    }
    for input in inputs {
        // Read-only: an input that is not a database must not become an empty one.
        let name = input.display().to_string();
        let conn = Connection::open_in_memory().map_err(|e| sqlite(&name, e))?;
        attach(&conn, input, &name)?;
    }
    let mut store = Store::open(out)?;
    let output = store.path().to_string();
    let before = store.game_count()?;
    for input in inputs {
        let name = input.display().to_string();
        let conn = store.conn();
        attach(conn, input, &name)?;
        let result = merge_attached(conn, &name, &output);
        conn.execute("DETACH DATABASE src", [])
            .map_err(|e| sqlite(&output, e))?;
        result?;
    }
    let total = store.game_count()?;
    Ok(MergeSummary {
        inputs: inputs.len(),
        games_added: total - before,
        games_total: total,
    })
}

fn attach(conn: &Connection, input: &Path, name: &str) -> Result<(), MergeError> {
    conn.execute(
        "ATTACH DATABASE ?1 AS src",
        [input.to_string_lossy().as_ref()],
    )
    .map_err(|e| sqlite(name, e))?;
    let schema: Option<String> = conn
        .query_row("SELECT value FROM src.meta WHERE key = 'schema'", [], |r| {
            r.get(0)
        })
        .optional()
        .unwrap_or(None);
    if schema.as_deref() != Some(SCHEMA_VERSION) {
        let _ = conn.execute("DETACH DATABASE src", []);
        return Err(MergeError::NotAtlas { path: name.into() });
    }
    Ok(())
}

fn merge_attached(conn: &mut Connection, input: &str, output: &str) -> Result<(), MergeError> {
    let tx = conn.transaction().map_err(|e| sqlite(output, e))?;
    for (table, key, cols) in TABLES {
        let differs = cols
            .split(", ")
            .map(|c| format!("s.{c} IS NOT m.{c}"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let keys = key
            .split(", ")
            .map(|c| format!("s.{c}"))
            .collect::<Vec<_>>()
            .join(" || ' ' || ");
        let sql = format!(
            "SELECT {keys} FROM src.{table} s JOIN main.{table} m USING ({key}) WHERE {differs} LIMIT 1"
        );
        let conflict: Option<String> = tx
            .query_row(&sql, [], |r| r.get(0))
            .optional()
            .map_err(|e| sqlite(input, e))?;
        if let Some(key) = conflict {
            return Err(MergeError::Conflict {
                input: input.into(),
                output: output.into(),
                what: table,
                key,
            });
        }
        tx.execute(
            &format!("INSERT OR IGNORE INTO main.{table} ({cols}) SELECT {cols} FROM src.{table}"),
            [],
        )
        .map_err(|e| sqlite(input, e))?;
    }
    tx.commit().map_err(|e| sqlite(output, e).into())
}

/// The differences between two atlas databases' contents (runs, games, plies), at most `limit`
/// lines; empty when they hold the same rows.
pub fn diff(a: &Path, b: &Path, limit: usize) -> Result<Vec<String>, MergeError> {
    for p in [a, b] {
        if !p.exists() {
            return Err(MergeError::Missing(p.display().to_string()));
        }
    }
    let (an, bn) = (a.display().to_string(), b.display().to_string());
    let conn = Connection::open(a).map_err(|e| sqlite(&an, e))?;
    let schema: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
            r.get(0)
        })
        .optional()
        .unwrap_or(None);
    if schema.as_deref() != Some(SCHEMA_VERSION) {
        return Err(MergeError::NotAtlas { path: an });
    }
    attach(&conn, b, &bn)?;
    let mut out = Vec::new();
    for (table, key, cols) in TABLES {
        for (from, other, name) in [("main", "src", &an), ("src", "main", &bn)] {
            let keys = key.replace(", ", " || ' ' || ");
            let sql = format!(
                "SELECT {keys} FROM (SELECT {cols} FROM {from}.{table} EXCEPT SELECT {cols} FROM {other}.{table}) LIMIT ?1"
            );
            let mut stmt = conn.prepare(&sql).map_err(|e| sqlite(&an, e))?;
            let rows = stmt
                .query_map([(limit + 1) as i64], |r| r.get::<_, String>(0))
                .map_err(|e| sqlite(&an, e))?;
            for row in rows {
                let row = row.map_err(|e| sqlite(&an, e))?;
                if out.len() < limit {
                    out.push(format!("{table} ({row}): only in {name} or different"));
                }
            }
        }
    }
    Ok(out)
}
