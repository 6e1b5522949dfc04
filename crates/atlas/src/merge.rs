//! Joining shard databases (`merge`) and comparing two databases (`diff`). A merge is the union
//! of the inputs' rows; the same key with different content in two inputs (or in an input and
//! the output) is an error. Every input is checked (it exists, once, is an atlas database, and
//! every row holds what the atlas reader reads: types, values, one row a key, no ply without its
//! game) before anything is written. The inputs' union is then built in a scratch database
//! beside the output (where conflicts between inputs show), and added to the output in one
//! transaction: a conflict found on the way leaves the output as it was (or not created), and
//! merges or runs writing to the same output at once take turns (SQLite's lock), none losing
//! another's rows (a union renamed over the output would drop the rows of a writer that came
//! between).

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
    #[error("{input}: {count} row(s) of {table} cannot be merged: {reason} (the first: {key}); nothing was merged")]
    BadRows {
        input: String,
        table: &'static str,
        count: i64,
        reason: String,
        key: String,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{input}: a row of {what} ({key}) differs from {output}'s or an earlier input's: the same key with different content; nothing was merged")]
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

/// (table, key columns, all columns). The meta rows are the schema (the same in every input)
/// and the rules each variant's games were played under (`rules:<id>`): two inputs whose games
/// of a variant were played under different rules conflict.
const TABLES: [(&str, &str, &str); 4] = [
    ("runs", "variant, budget", RUN_COLS),
    ("games", "variant, budget, pair, game", GAME_COLS),
    ("plies", "variant, budget, pair, game, ply", PLY_COLS),
    ("meta", "key", "key, value"),
];

/// Merges `inputs` into `out` (created if missing; its own rows are kept). On any error `out`
/// is as it was.
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
        check_rows(&conn, &name)?;
    }
    let output = out.display().to_string();
    // An empty file (`touch out.db`) is a new database too.
    let existed = std::fs::metadata(out).is_ok_and(|m| m.len() > 0);
    let result = merge_into(out, &output, inputs);
    if result.is_err() && !existed {
        // Nothing was merged: the output the merge created is not left behind.
        let _ = std::fs::remove_file(out);
        let mut journal = out.as_os_str().to_owned();
        journal.push("-journal");
        let _ = std::fs::remove_file(journal);
    }
    result
}

/// The inputs' union built in a scratch database, then added to the output's rows in one
/// transaction.
fn merge_into(out: &Path, output: &str, inputs: &[&Path]) -> Result<MergeSummary, MergeError> {
    let scratch = scratch_path(out);
    remove(&scratch);
    let result = union_of(&scratch, output, inputs).and_then(|()| add_union(out, output, &scratch));
    remove(&scratch);
    result.map(|(games_added, games_total)| MergeSummary {
        inputs: inputs.len(),
        games_added,
        games_total,
    })
}

/// Where the union is built: beside `out`, whose folder the merge writes to anyway; a name of
/// its own per merge (of this process, and of any other).
fn scratch_path(out: &Path) -> std::path::PathBuf {
    static MERGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = out
        .file_name()
        .map_or_else(|| "atlas".into(), |n| n.to_string_lossy().into_owned());
    let n = MERGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    out.with_file_name(format!(".{name}.merging-{}-{n}", std::process::id()))
}

/// Removes a scratch database and its journal, if any.
fn remove(scratch: &Path) {
    let _ = std::fs::remove_file(scratch);
    let mut journal = scratch.as_os_str().to_owned();
    journal.push("-journal");
    let _ = std::fs::remove_file(journal);
}

/// The union of the inputs in `scratch`; two inputs with the same key and other content are a
/// conflict.
fn union_of(scratch: &Path, output: &str, inputs: &[&Path]) -> Result<(), MergeError> {
    let mut union = Store::open(scratch)?;
    let written = scratch.display().to_string();
    let conn = union.conn();
    for input in inputs {
        let name = input.display().to_string();
        attach(conn, input, &name)?;
        let result = in_transaction(conn, &written, |tx| merge_attached(tx, &name, output));
        // Detached once the transaction is over: SQLite refuses it during one.
        conn.execute("DETACH DATABASE src", [])
            .map_err(|e| sqlite(output, e))?;
        result?;
    }
    Ok(())
}

/// The union's rows the output does not hold, added in one transaction: the games added and
/// the games the output then holds.
fn add_union(out: &Path, output: &str, scratch: &Path) -> Result<(u64, u64), MergeError> {
    // Opening checks it is an atlas database (or a new one), without writing to another one.
    let mut store = Store::open(out)?;
    let before = store.game_count()?;
    let conn = store.conn();
    attach(conn, scratch, output)?;
    let result = in_transaction(conn, output, |tx| merge_attached(tx, "the inputs", output));
    conn.execute("DETACH DATABASE src", [])
        .map_err(|e| sqlite(output, e))?;
    result?;
    let total = store.game_count()?;
    Ok((total - before, total))
}

/// Runs `work` in a write transaction of `conn` (the database `name`: its errors, a full disk,
/// name it), committed when it succeeds.
fn in_transaction(
    conn: &mut Connection,
    name: &str,
    work: impl FnOnce(&Connection) -> Result<(), MergeError>,
) -> Result<(), MergeError> {
    let fail = |e| MergeError::Store(sqlite(name, e));
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(fail)?;
    work(&tx)?;
    tx.commit().map_err(fail)
}

/// What a column of an input must hold for the atlas reader (docs/atlas-schema.md): its type
/// (SQLite keeps any value in any column of a table whose constraints were stripped) and the
/// values read.
enum Rule {
    Text,
    /// An integer of at least 0.
    Count,
    Integer,
    /// An integer or NULL.
    MaybeInteger,
    /// One of these texts.
    OneOf(&'static [&'static str]),
    /// 0 or 1.
    Flag,
}

const RUN_RULES: &[(&str, Rule)] = &[
    ("variant", Rule::Text),
    ("budget", Rule::Text),
    ("seed", Rule::Integer),
    ("opening_plies", Rule::Count),
];
const GAME_RULES: &[(&str, Rule)] = &[
    ("variant", Rule::Text),
    ("budget", Rule::Text),
    ("pair", Rule::Count),
    ("game", Rule::Flag),
    ("opening", Rule::Text),
    ("opening_fen", Rule::Text),
    ("result", Rule::OneOf(&["first", "second", "draw"])),
    ("reason", Rule::Text),
    ("plies", Rule::Count),
    ("pdn", Rule::Text),
];
const META_RULES: &[(&str, Rule)] = &[("key", Rule::Text), ("value", Rule::Text)];
const PLY_RULES: &[(&str, Rule)] = &[
    ("variant", Rule::Text),
    ("budget", Rule::Text),
    ("pair", Rule::Count),
    ("game", Rule::Flag),
    ("ply", Rule::Count),
    ("mover", Rule::OneOf(&["first", "second"])),
    ("legal", Rule::Count),
    ("captured", Rule::Count),
    ("promotes", Rule::Flag),
    ("eval", Rule::MaybeInteger),
    ("men_first", Rule::Count),
    ("kings_first", Rule::Count),
    ("men_second", Rule::Count),
    ("kings_second", Rule::Count),
];

impl Rule {
    /// An SQL condition true when `c` breaks the rule, and the reason said.
    fn broken(&self, c: &str) -> (String, String) {
        let integer = format!("typeof({c}) != 'integer'");
        match self {
            Rule::Text => (format!("typeof({c}) != 'text'"), format!("{c} is not text")),
            Rule::Integer => (integer, format!("{c} is not an integer")),
            Rule::Count => (
                format!("{integer} OR {c} < 0"),
                format!("{c} is not an integer of at least 0"),
            ),
            Rule::MaybeInteger => (
                format!("typeof({c}) NOT IN ('integer', 'null')"),
                format!("{c} is neither an integer nor empty"),
            ),
            Rule::Flag => (
                format!("{integer} OR {c} NOT IN (0, 1)"),
                format!("{c} is not 0 or 1"),
            ),
            Rule::OneOf(values) => {
                let list = values
                    .iter()
                    .map(|v| format!("'{v}'"))
                    .collect::<Vec<_>>()
                    .join(", ");
                (
                    format!("typeof({c}) != 'text' OR {c} NOT IN ({list})"),
                    format!("{c} is not one of {}", values.join(", ")),
                )
            }
        }
    }
}

/// The key of a row as a message names it (`turkish nodes=300 0 1 5`), NULL as `NULL`.
fn key_text(key: &str, alias: &str) -> String {
    key.split(", ")
        .map(|c| format!("ifnull({alias}.{c}, 'NULL')"))
        .collect::<Vec<_>>()
        .join(" || ' ' || ")
}

/// Checks every row of the attached input `src` (one pass a table, then its keys).
fn check_rows(conn: &Connection, input: &str) -> Result<(), MergeError> {
    let bad = |table: &'static str, sql: &str, reason: Option<String>| {
        let found: Option<(Option<String>, i64, Option<String>)> = conn
            .query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()
            .map_err(|e| sqlite(input, e))?;
        match found {
            Some((why, count, key)) if count > 0 => Err(MergeError::BadRows {
                input: input.into(),
                table,
                count,
                reason: why.or(reason).unwrap_or_default(),
                key: key.unwrap_or_default(),
            }),
            _ => Ok(()),
        }
    };
    for ((table, key, _), rules) in TABLES
        .iter()
        .zip([RUN_RULES, GAME_RULES, PLY_RULES, META_RULES])
    {
        let cases: String = rules
            .iter()
            .map(|(c, rule)| {
                let (condition, reason) = rule.broken(c);
                format!(" WHEN {condition} THEN '{reason}'")
            })
            .collect();
        let keys = key_text(key, "s");
        bad(
            table,
            &format!(
                "SELECT why, count(*), min(k) FROM (SELECT CASE{cases} END AS why, {keys} AS k \
                 FROM src.{table} s) WHERE why IS NOT NULL GROUP BY why ORDER BY 2 DESC LIMIT 1"
            ),
            None,
        )?;
        bad(
            table,
            &format!(
                "SELECT NULL, count(*), min(k) FROM (SELECT {keys} AS k FROM src.{table} s \
                 GROUP BY {key} HAVING count(*) > 1)"
            ),
            Some("its key is on more than one row".into()),
        )?;
    }
    let keys = key_text(TABLES[2].1, "p");
    bad(
        "plies",
        &format!(
            "SELECT NULL, count(*), min({keys}) FROM src.plies p WHERE NOT EXISTS \
             (SELECT 1 FROM src.games g WHERE g.variant = p.variant AND g.budget = p.budget \
             AND g.pair = p.pair AND g.game = p.game)"
        ),
        Some("a ply of a game the games table does not hold".into()),
    )
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

/// The rows of the attached input `src` the output does not hold yet, added (in the caller's
/// transaction); the same key with other content is a conflict.
fn merge_attached(tx: &Connection, input: &str, output: &str) -> Result<(), MergeError> {
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
        // The rows the output does not hold yet (the others are the same rows: no conflict);
        // a row the output's constraints refuse is an error, not skipped.
        let missing = key
            .split(", ")
            .map(|c| format!("m.{c} = s.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        tx.execute(
            &format!(
                "INSERT INTO main.{table} ({cols}) SELECT {cols} FROM src.{table} s \
                 WHERE NOT EXISTS (SELECT 1 FROM main.{table} m WHERE {missing})"
            ),
            [],
        )
        .map_err(|e| sqlite(input, e))?;
    }
    Ok(())
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
