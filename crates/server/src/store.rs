//! Games in SQLite: one row per game, rewritten on every change, so that nothing a user played
//! is lost on a reload, a restart or a shutdown.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::ApiError;
use crate::session::{Meta, Seat};

pub struct Store {
    conn: Mutex<Connection>,
}

/// A stored game.
pub struct Row {
    pub meta: Meta,
    pub moves: Vec<String>,
    pub redo: Vec<String>,
    pub result: Option<String>,
    pub reason: Option<String>,
}

fn seat(text: &str) -> Seat {
    if text == "engine" {
        Seat::Engine
    } else {
        Seat::Human
    }
}

fn seat_text(s: Seat) -> &'static str {
    match s {
        Seat::Engine => "engine",
        Seat::Human => "human",
    }
}

fn split(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

impl Store {
    pub fn open(path: &Path) -> Result<Store, rusqlite::Error> {
        let conn = Connection::open(path)?;
        Store::init(conn)
    }

    pub fn in_memory() -> Result<Store, rusqlite::Error> {
        Store::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Store, rusqlite::Error> {
        // WAL: readers do not wait for the writer, and a crash keeps every committed move.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS games (
                id TEXT PRIMARY KEY,
                variant TEXT NOT NULL,
                start_fen TEXT NOT NULL,
                white TEXT NOT NULL,
                black TEXT NOT NULL,
                engine_time REAL NOT NULL,
                moves TEXT NOT NULL,
                redo TEXT NOT NULL,
                result TEXT,
                reason TEXT,
                created TEXT NOT NULL,
                updated TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS games_updated ON games (updated);",
        )?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> Result<std::sync::MutexGuard<'_, Connection>, ApiError> {
        self.conn
            .lock()
            .map_err(|_| ApiError::internal("database lock poisoned"))
    }

    /// Inserts or replaces a game.
    pub fn save(&self, row: &Row) -> Result<(), ApiError> {
        let m = &row.meta;
        self.conn()?.execute(
            "INSERT INTO games (id, variant, start_fen, white, black, engine_time, moves, redo, result, reason, created, updated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT(id) DO UPDATE SET moves = ?7, redo = ?8, result = ?9, reason = ?10, updated = ?12,
                 white = ?4, black = ?5, engine_time = ?6",
            params![
                m.id,
                m.variant,
                m.start_fen,
                seat_text(m.white),
                seat_text(m.black),
                m.engine_time,
                row.moves.join(" "),
                row.redo.join(" "),
                row.result,
                row.reason,
                m.created,
                m.updated
            ],
        )?;
        Ok(())
    }

    pub fn load(&self, id: &str) -> Result<Option<Row>, ApiError> {
        Ok(self
            .conn()?
            .query_row(
                "SELECT id, variant, start_fen, white, black, engine_time, moves, redo, result, reason, created, updated
                 FROM games WHERE id = ?1",
                params![id],
                |r| {
                    Ok(Row {
                        meta: Meta {
                            id: r.get(0)?,
                            variant: r.get(1)?,
                            start_fen: r.get(2)?,
                            white: seat(&r.get::<_, String>(3)?),
                            black: seat(&r.get::<_, String>(4)?),
                            engine_time: r.get(5)?,
                            created: r.get(10)?,
                            updated: r.get(11)?,
                        },
                        moves: split(&r.get::<_, String>(6)?),
                        redo: split(&r.get::<_, String>(7)?),
                        result: r.get(8)?,
                        reason: r.get(9)?,
                    })
                },
            )
            .optional()?)
    }

    /// Summaries of the most recently updated games.
    pub fn list(&self, limit: usize) -> Result<Vec<serde_json::Value>, ApiError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT id, variant, white, black, moves, result, reason, created, updated
             FROM games ORDER BY updated DESC LIMIT ?1",
        )?;
        let rows = stmt
            .query_map(params![limit as i64], |r| {
                Ok(serde_json::json!({
                    "id": r.get::<_, String>(0)?,
                    "variant": r.get::<_, String>(1)?,
                    "white": r.get::<_, String>(2)?,
                    "black": r.get::<_, String>(3)?,
                    "moves": split(&r.get::<_, String>(4)?).len(),
                    "result": r.get::<_, Option<String>>(5)?,
                    "reason": r.get::<_, Option<String>>(6)?,
                    "created": r.get::<_, String>(7)?,
                    "updated": r.get::<_, String>(8)?,
                }))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}
