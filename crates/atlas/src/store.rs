//! The atlas database (docs/atlas-schema.md): opening it, the run rows, the keys already
//! played, and writing one game with its plies in one transaction, so a game is wholly present
//! or absent and an interrupted run resumes by playing the missing keys.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::play::PlyRecord;

/// The schema version this code writes (meta 'schema').
pub const SCHEMA_VERSION: &str = "1";

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    variant   TEXT NOT NULL,
    budget    TEXT NOT NULL,
    seed      INTEGER NOT NULL,
    opening_plies INTEGER NOT NULL,
    PRIMARY KEY (variant, budget)
);
CREATE TABLE IF NOT EXISTS games (
    variant   TEXT NOT NULL,
    budget    TEXT NOT NULL,
    pair      INTEGER NOT NULL,
    game      INTEGER NOT NULL,
    opening   TEXT NOT NULL,
    opening_fen TEXT NOT NULL,
    result    TEXT NOT NULL,
    reason    TEXT NOT NULL,
    plies     INTEGER NOT NULL,
    pdn       TEXT NOT NULL,
    PRIMARY KEY (variant, budget, pair, game)
);
CREATE TABLE IF NOT EXISTS plies (
    variant   TEXT NOT NULL,
    budget    TEXT NOT NULL,
    pair      INTEGER NOT NULL,
    game      INTEGER NOT NULL,
    ply       INTEGER NOT NULL,
    mover     TEXT NOT NULL,
    legal     INTEGER NOT NULL,
    captured  INTEGER NOT NULL,
    promotes  INTEGER NOT NULL,
    eval      INTEGER,
    men_first INTEGER NOT NULL, kings_first INTEGER NOT NULL,
    men_second INTEGER NOT NULL, kings_second INTEGER NOT NULL,
    PRIMARY KEY (variant, budget, pair, game, ply)
);
";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database {path}: {source}")]
    Sqlite {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("database {path} is not an atlas database of schema {SCHEMA_VERSION} (its schema is {found})")]
    Schema { path: String, found: String },
    #[error("database {path} is not an atlas database (it holds other tables and no atlas meta table); nothing was written to it: give a new file or an atlas database")]
    NotAtlas { path: String },
    #[error("database {path} already holds {variant} at {budget} with seed {seed} and {plies}-ply openings; this run asks for seed {want_seed} and {want_plies}-ply openings (use another --db, or the same options)")]
    RunMismatch {
        path: String,
        variant: String,
        budget: String,
        seed: i64,
        plies: i64,
        want_seed: i64,
        want_plies: i64,
    },
    #[error("database {path} holds games of {variant} {what} this run's {variant} (stored: {stored}; this run: {want}): a variant file of the same id with other rules, or a version of damspel whose rules differ; use another --db")]
    RulesMismatch {
        path: String,
        variant: String,
        what: &'static str,
        stored: String,
        want: String,
    },
    #[error("database {path}: another run stored a different game {variant} {budget} pair {pair} game {game} meanwhile (another version of damspel, or a --time budget, which does not reproduce); this run's game was not written")]
    Conflict {
        path: String,
        variant: String,
        budget: String,
        pair: u64,
        game: u8,
    },
}

/// What `write_game` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    New,
    /// Another run had stored the same game under its key meanwhile.
    AlreadyStored,
}

/// A game row (the `games` table) with its plies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub variant: String,
    pub budget: String,
    pub pair: u64,
    pub game: u8,
    pub opening: String,
    pub opening_fen: String,
    pub result: String,
    pub reason: String,
    pub pdn: String,
    pub plies: Vec<PlyRecord>,
}

pub struct Store {
    conn: Connection,
    path: String,
}

impl Store {
    /// Opens (creating if needed) an atlas database.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let name = path.display().to_string();
        let conn = Connection::open(path).map_err(|e| sqlite(&name, e))?;
        Store::init(conn, name)
    }

    /// Creates the tables in a database with none, or checks the schema of an atlas one: any
    /// other database (a server's game database, an unrelated file) is refused before anything
    /// is written to it, instead of getting the atlas tables beside its own.
    pub(crate) fn init(mut conn: Connection, path: String) -> Result<Store, StoreError> {
        let fail = |e| sqlite(&path, e);
        // A shard that waits for the lock of another writer (several runs on one file) waits.
        conn.busy_timeout(std::time::Duration::from_secs(60))
            .map_err(fail)?;
        // Looked at and created in one write transaction: shards creating one new file at once
        // see it empty or whole.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        let tables: i64 = tx
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(fail)?;
        let found: Option<String> = if tables == 0 {
            None
        } else {
            tx.query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()
            .ok()
            .flatten()
        };
        match found {
            None if tables > 0 => return Err(StoreError::NotAtlas { path: path.clone() }),
            None => {
                tx.execute_batch(SCHEMA).map_err(fail)?;
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    [SCHEMA_VERSION],
                )
                .map_err(fail)?;
            }
            Some(v) if v == SCHEMA_VERSION => tx.execute_batch(SCHEMA).map_err(fail)?,
            Some(v) => {
                return Err(StoreError::Schema {
                    path: path.clone(),
                    found: v,
                })
            }
        }
        tx.commit().map_err(fail)?;
        Ok(Store { conn, path })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub(crate) fn conn(&mut self) -> &mut Connection {
        &mut self.conn
    }

    pub(crate) fn fail(&self, e: rusqlite::Error) -> StoreError {
        sqlite(&self.path, e)
    }

    /// Records the run of a variant at a budget, or checks that the one recorded has the same
    /// seed and opening length (games of two different runs must not mix under one key), and
    /// that the variant's games were played under the same rules and start position (`rules`,
    /// kept in meta as `rules:<variant>`): a variant file that reuses a catalogue id, or a
    /// changed file, must not add its games to another rule set's. A database written before
    /// the rules were kept takes this run's.
    pub fn ensure_run(
        &mut self,
        variant: &str,
        rules: &str,
        budget: &str,
        seed: u64,
        opening_plies: usize,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let fail = |e| sqlite(&path, e);
        let (seed, plies) = (seed as i64, opening_plies as i64);
        // One write transaction, the rows inserted if missing and then read: shards starting
        // on one new database at once all record or all check the same rows.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        let key = format!("rules:{variant}");
        tx.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
            params![key, rules],
        )
        .map_err(fail)?;
        let stored: String = tx
            .query_row("SELECT value FROM meta WHERE key = ?1", [&key], |r| {
                r.get(0)
            })
            .map_err(fail)?;
        if stored != rules {
            // The rules' hash is the text's first word (`played_under`).
            let hash = |t: &str| t.split(' ').next().unwrap_or_default().to_string();
            return Err(StoreError::RulesMismatch {
                path,
                variant: variant.into(),
                what: if hash(&stored) == hash(rules) {
                    "played from another start position than"
                } else {
                    "played under other rules than"
                },
                stored,
                want: rules.into(),
            });
        }
        tx.execute(
            "INSERT OR IGNORE INTO runs (variant, budget, seed, opening_plies) VALUES (?1, ?2, ?3, ?4)",
            params![variant, budget, seed, plies],
        )
        .map_err(fail)?;
        let found: (i64, i64) = tx
            .query_row(
                "SELECT seed, opening_plies FROM runs WHERE variant = ?1 AND budget = ?2",
                params![variant, budget],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(fail)?;
        if found != (seed, plies) {
            return Err(StoreError::RunMismatch {
                path,
                variant: variant.into(),
                budget: budget.into(),
                seed: found.0,
                plies: found.1,
                want_seed: seed,
                want_plies: plies,
            });
        }
        tx.commit().map_err(fail)
    }

    /// The (pair, game) keys stored for a variant at a budget.
    pub fn present(&self, variant: &str, budget: &str) -> Result<HashSet<(u64, u8)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT pair, game FROM games WHERE variant = ?1 AND budget = ?2")
            .map_err(|e| self.fail(e))?;
        let rows = stmt
            .query_map(params![variant, budget], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u8))
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.fail(e))
    }

    /// Stores a game and its plies in one transaction. Another run writing the same database
    /// (two runs of one command at once, or a shard run twice) may have stored the game since
    /// this run looked: the same game is left as it is (`Written::AlreadyStored`); a different
    /// one is a `Conflict`, and nothing is written.
    pub fn write_game(&mut self, g: &GameRow) -> Result<Written, StoreError> {
        let path = self.path.clone();
        let fail = |e| sqlite(&path, e);
        // Immediate: the look for the key and the insert in one write lock.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        let stored: Option<String> = tx
            .query_row(
                "SELECT pdn FROM games WHERE variant = ?1 AND budget = ?2 AND pair = ?3 AND game = ?4",
                params![g.variant, g.budget, g.pair as i64, g.game],
                |r| r.get(0),
            )
            .optional()
            .map_err(fail)?;
        if let Some(pdn) = stored {
            return if pdn == g.pdn {
                Ok(Written::AlreadyStored)
            } else {
                Err(StoreError::Conflict {
                    path,
                    variant: g.variant.clone(),
                    budget: g.budget.clone(),
                    pair: g.pair,
                    game: g.game,
                })
            };
        }
        tx.execute(
            "INSERT INTO games (variant, budget, pair, game, opening, opening_fen, result, reason, plies, pdn)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                g.variant,
                g.budget,
                g.pair as i64,
                g.game,
                g.opening,
                g.opening_fen,
                g.result,
                g.reason,
                g.plies.len() as i64,
                g.pdn
            ],
        )
        .map_err(fail)?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO plies (variant, budget, pair, game, ply, mover, legal, captured, promotes, eval,
                     men_first, kings_first, men_second, kings_second)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                )
                .map_err(fail)?;
            for (i, p) in g.plies.iter().enumerate() {
                stmt.execute(params![
                    g.variant,
                    g.budget,
                    g.pair as i64,
                    g.game,
                    i as i64,
                    if p.mover_first { "first" } else { "second" },
                    p.legal,
                    p.captured,
                    p.promotes,
                    p.eval,
                    p.men_first,
                    p.kings_first,
                    p.men_second,
                    p.kings_second
                ])
                .map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)?;
        Ok(Written::New)
    }

    /// Games stored, all variants and budgets.
    pub fn game_count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.fail(e))
    }
}

/// What a variant's games were played under, as meta `rules:<id>` keeps it (`ensure_run`): the
/// hash of its rules (`Variant::rules_hash`), then its start position.
pub fn played_under(rules_hash: u64, start_fen: &str) -> String {
    format!("{rules_hash:016x} {start_fen}")
}

pub(crate) fn sqlite(path: &str, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_string(),
        source,
    }
}
