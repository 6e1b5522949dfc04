//! Games in SQLite: one row per game, rewritten on every change, so that nothing a user played
//! is lost on a reload, a restart or a shutdown. One server per database: a lock file beside it
//! keeps a second one out, since two servers would each overwrite the other's moves.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::ApiError;
use crate::seats::SeatKeys;
use crate::session::{Meta, Seat};

pub struct Store {
    /// None only after a connection was closed to be opened again and could not be (`Files`):
    /// the next use tries again.
    conn: Mutex<Option<Connection>>,
    /// The files the connection writes, watched (None: a database in memory).
    files: Option<Files>,
    /// Held (locked) for as long as the store is open.
    _lock: Option<File>,
}

/// A file's identity: its device and inode.
type FileId = (u64, u64);

/// The database file, its write-ahead log and its lock file as they were opened. A file
/// deleted or replaced under a running server is seen before each use of the database: SQLite
/// writes on through the handles it holds, and every change after it (with the log, every
/// change since its last checkpoint, the games created before the fault too) was acknowledged
/// and then lost with the process.
struct Files {
    path: PathBuf,
    busy_timeout: Duration,
    /// The identities the connection has open (the log's: None before it exists).
    ids: Mutex<(FileId, Option<FileId>)>,
    /// The lock file beside the database, which keeps a second server out: deleted under a
    /// running server (an operator's clean-up, a cleaner of old files in /tmp), it let a
    /// second server start on the same database, and each overwrote the other's moves.
    lock: Mutex<Lock>,
}

/// The lock file held: its path, its identity, and the file taken again after it was deleted
/// (the store holds the first).
struct Lock {
    path: PathBuf,
    id: FileId,
    retaken: Option<File>,
}

/// Creates (or opens) a lock file and locks it; None if another holds it.
fn take_lock(lock: &Path) -> std::io::Result<Option<File>> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

#[cfg(unix)]
fn identity(path: &Path) -> std::io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &Path) -> std::io::Result<FileId> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// `<db>-wal`, the write-ahead log beside the database.
fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push("-wal");
    PathBuf::from(name)
}

/// A connection to the database file, as the store uses it. WAL: readers do not wait for the
/// writer. FULL: a commit is on disk before the move is answered, so even a power cut keeps
/// every acknowledged move (NORMAL keeps them only through a crash of the process).
fn connect(path: &Path, busy_timeout: Duration) -> Result<Connection, rusqlite::Error> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(busy_timeout)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

/// The store's connection, checked by `Store::conn`.
struct Held<'a>(std::sync::MutexGuard<'a, Option<Connection>>);

impl std::ops::Deref for Held<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // `Store::conn` hands out a connection only when there is one.
        self.0.as_ref().expect("Store::conn checked the connection")
    }
}

impl Files {
    fn new(path: &Path, busy_timeout: Duration, lock: &Path) -> Option<Files> {
        let db = identity(path).ok()?;
        Some(Files {
            path: path.to_path_buf(),
            busy_timeout,
            ids: Mutex::new((db, identity(&wal_path(path)).ok())),
            lock: Mutex::new(Lock {
                path: lock.to_path_buf(),
                id: identity(lock).ok()?,
                retaken: None,
            }),
        })
    }

    /// Makes sure this server still holds the lock file at its path: deleted or replaced, it
    /// is taken again, or, if another server took it meanwhile, every use is refused (503).
    fn check_lock(&self) -> Result<(), ApiError> {
        let mut lock = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if identity(&lock.path).is_ok_and(|id| id == lock.id) {
            return Ok(());
        }
        let path = lock.path.clone();
        let refused = |why: String| {
            ApiError::unavailable(format!(
                "the lock file {} was deleted or replaced while the server ran, and {why}: \
                 nothing was changed",
                path.display()
            ))
        };
        match take_lock(&path) {
            Ok(Some(file)) => {
                lock.id = identity(&path).map_err(|e| refused(e.to_string()))?;
                lock.retaken = Some(file);
                Ok(())
            }
            Ok(None) => Err(refused(
                "another damspel server holds it now: stop one of them".to_string(),
            )),
            Err(e) => Err(refused(format!("it cannot be taken again ({e})"))),
        }
    }

    /// Makes sure the connection writes to the files at the database's path, before it is
    /// used. A log deleted or replaced: what it holds is checkpointed into the database and
    /// the connection opened again (with a new log). The database deleted: a copy of it, as
    /// the connection sees it, is written where it was, and opened. The database replaced by
    /// another file: refused (503) until a restart, which serves the new file.
    fn check(&self, conn: &mut Option<Connection>) -> Result<(), ApiError> {
        self.check_lock()?;
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        let unavailable =
            |what: String| ApiError::unavailable(format!("{what}; nothing was changed, try again"));
        let Some(open) = conn.as_ref() else {
            // Closed to be opened again, which failed: try again now.
            return self.reopen(conn, &mut ids);
        };
        match identity(&self.path) {
            Ok(db) if db == ids.0 => {
                let wal = identity(&wal_path(&self.path)).ok();
                if ids.1.is_none() || wal == ids.1 {
                    return Ok(());
                }
                // The log is gone or another file: its frames since the last checkpoint are
                // in the connection's hands only. Into the database file with them first.
                let (busy, _, _): (i64, i64, i64) =
                    open.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })?;
                if busy != 0 {
                    return Err(unavailable(format!(
                        "the database's log {} was removed and could not be moved into the \
                         database yet",
                        wal_path(&self.path).display()
                    )));
                }
                self.reopen(conn, &mut ids)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Deleted: the connection still holds every game; written out where the
                // database was (VACUUM INTO refuses a file that appeared meanwhile).
                let path = self.path.to_string_lossy().into_owned();
                open.execute("VACUUM INTO ?1", [&path])?;
                self.reopen(conn, &mut ids)
            }
            Ok(_) => Err(ApiError::unavailable(format!(
                "the database file {} was replaced while the server ran: changes are \
                 refused until the server is restarted (it then serves the new file)",
                self.path.display()
            ))),
            Err(e) => Err(unavailable(format!(
                "the database file {} cannot be checked ({e})",
                self.path.display()
            ))),
        }
    }

    /// Closes the connection (so that no two of them share the files) and opens the database
    /// at its path again. A failure leaves none, and the next use tries again.
    fn reopen(
        &self,
        conn: &mut Option<Connection>,
        ids: &mut (FileId, Option<FileId>),
    ) -> Result<(), ApiError> {
        drop(conn.take());
        let fresh = connect(&self.path, self.busy_timeout)?;
        let db = identity(&self.path).map_err(|e| {
            ApiError::unavailable(format!(
                "the database file {} cannot be checked ({e}); nothing was changed, try again",
                self.path.display()
            ))
        })?;
        *ids = (db, identity(&wal_path(&self.path)).ok());
        *conn = Some(fresh);
        Ok(())
    }
}

/// Why a database cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "another damspel server is using {db} (its lock file {lock} is held): stop that server \
         or give this one another --db"
    )]
    InUse { db: PathBuf, lock: PathBuf },
    #[error("cannot create the lock file {lock}: {source}")]
    Lock {
        lock: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open the database {db}: {source}")]
    Sqlite {
        db: PathBuf,
        source: rusqlite::Error,
    },
}

/// How long a write waits for a lock held by someone else before it is refused (503).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A stored game.
pub struct Row {
    pub meta: Meta,
    pub moves: Vec<String>,
    pub redo: Vec<String>,
    /// The move tree (JSON, see `tree::StoredTree`); None in rows stored before trees, whose
    /// moves and redo line are their main line.
    pub tree: Option<String>,
    pub result: Option<String>,
    pub reason: Option<String>,
}

fn seat(text: &str) -> Result<Seat, String> {
    match text {
        "engine" => Ok(Seat::Engine),
        "human" => Ok(Seat::Human),
        other => Err(format!("a seat is `{other}`, not human or engine")),
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

/// `<db>.lock`, beside the database (its path with every symbolic link resolved).
pub fn lock_path(db: &Path) -> PathBuf {
    let db = resolved(db);
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

/// The database's path with every symbolic link resolved, so that two names of one file take
/// one lock (a second server given a symbolic link to the first one's database ran beside it,
/// and each overwrote the other's acknowledged moves). A file not created yet: its folder
/// resolved, its name kept.
fn resolved(db: &Path) -> PathBuf {
    if let Ok(path) = std::fs::canonicalize(db) {
        return path;
    }
    let folder = match db.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(folder), db.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => db.to_path_buf(),
    }
}

impl Store {
    /// Opens (or creates) the database, after taking its lock file.
    pub fn open(path: &Path, busy_timeout: Duration) -> Result<Store, OpenError> {
        let lock = lock_path(path);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock)
            .map_err(|source| OpenError::Lock {
                lock: lock.clone(),
                source,
            })?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(OpenError::InUse {
                    db: path.to_path_buf(),
                    lock,
                })
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(OpenError::Lock { lock, source })
            }
        }
        let sqlite = |source| OpenError::Sqlite {
            db: path.to_path_buf(),
            source,
        };
        let conn = connect(path, busy_timeout).map_err(sqlite)?;
        let mut store = Store::init(conn, Some(file)).map_err(sqlite)?;
        // Watched where they are (SQLite puts the log beside the file a link points to).
        store.files = Files::new(&resolved(path), busy_timeout, &lock);
        Ok(store)
    }

    pub fn in_memory() -> Result<Store, rusqlite::Error> {
        Store::init(Connection::open_in_memory()?, None)
    }

    fn init(conn: Connection, lock: Option<File>) -> Result<Store, rusqlite::Error> {
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
        // Seat secrets (hashes) came later: add the columns to older databases.
        let has_keys = conn.prepare("SELECT white_key FROM games LIMIT 0").is_ok();
        if !has_keys {
            conn.execute_batch(
                "ALTER TABLE games ADD COLUMN white_key TEXT;
                 ALTER TABLE games ADD COLUMN black_key TEXT;",
            )?;
        }
        // Imported games' PDN tags came later too (a JSON list of [name, value] pairs).
        let has_tags = conn.prepare("SELECT tags FROM games LIMIT 0").is_ok();
        if !has_tags {
            conn.execute_batch("ALTER TABLE games ADD COLUMN tags TEXT;")?;
        }
        // Finished game reviews came later: one per game, the review as JSON (docs/api.md).
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS reviews (
                game_id TEXT PRIMARY KEY,
                review TEXT NOT NULL,
                created TEXT NOT NULL
            );",
        )?;
        // And the engine's level (NULL in older rows: full strength).
        let has_level = conn.prepare("SELECT level FROM games LIMIT 0").is_ok();
        if !has_level {
            conn.execute_batch("ALTER TABLE games ADD COLUMN level INTEGER;")?;
        }
        // Move trees (variations, comments, NAGs) came later too. `moves` and `redo` are still
        // written (the line through the current node), so an older server reads the game.
        let has_tree = conn.prepare("SELECT tree FROM games LIMIT 0").is_ok();
        if !has_tree {
            conn.execute_batch("ALTER TABLE games ADD COLUMN tree TEXT;")?;
        }
        // Playing a person came later: resignations, draw offers, clocks (friend.rs, as JSON)
        // and the open invitation's hash.
        let has_play = conn.prepare("SELECT play FROM games LIMIT 0").is_ok();
        if !has_play {
            conn.execute_batch(
                "ALTER TABLE games ADD COLUMN play TEXT;
                 ALTER TABLE games ADD COLUMN invite TEXT;",
            )?;
        }
        // The count of a game's committed changes (its state's `version`) came later: NULL in
        // older rows, read as 0, so their next change is 1.
        let has_version = conn.prepare("SELECT version FROM games LIMIT 0").is_ok();
        if !has_version {
            conn.execute_batch("ALTER TABLE games ADD COLUMN version INTEGER;")?;
        }
        // And the main line's length, for the games list (`moves` and `redo` are the line
        // through the node shown, a variation's when someone looks at one): NULL in older
        // rows, whose list counts that line.
        let has_plies = conn.prepare("SELECT plies FROM games LIMIT 0").is_ok();
        if !has_plies {
            conn.execute_batch("ALTER TABLE games ADD COLUMN plies INTEGER;")?;
        }
        Ok(Store {
            conn: Mutex::new(Some(conn)),
            files: None,
            _lock: lock,
        })
    }

    /// Checks the database's files now (`Files::check`), so that a file deleted under a server
    /// nobody changes games on is put right before a crash could lose what it held.
    pub fn check_files(&self) -> Result<(), ApiError> {
        self.conn().map(drop)
    }

    /// The connection, to files still at the database's path (`Files::check`).
    fn conn(&self) -> Result<Held<'_>, ApiError> {
        // A panic while holding the lock leaves the connection usable: SQLite rolls back
        // whatever statement it was in.
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(files) = &self.files {
            files.check(&mut conn)?;
        }
        if conn.is_none() {
            return Err(ApiError::unavailable(
                "the database is not open; nothing was changed, try again",
            ));
        }
        Ok(Held(conn))
    }

    /// Inserts or replaces a game; `main_plies`, its main line's length, is for the games list
    /// (a game read back takes its length from its tree).
    pub fn save(&self, row: &Row, main_plies: usize) -> Result<(), ApiError> {
        let m = &row.meta;
        self.conn()?.execute(
            "INSERT INTO games (id, variant, start_fen, white, black, engine_time, moves, redo, result, reason, created, updated, white_key, black_key, tags, level, tree, play, invite, version, plies)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)
             ON CONFLICT(id) DO UPDATE SET moves = ?7, redo = ?8, result = ?9, reason = ?10, updated = ?12,
                 white = ?4, black = ?5, engine_time = ?6, white_key = ?13, black_key = ?14, tree = ?17,
                 play = ?18, invite = ?19, version = ?20, plies = ?21",
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
                m.updated,
                m.keys.white,
                m.keys.black,
                tags_text(&m.tags),
                m.level,
                row.tree,
                play_text(&m.play),
                m.invite,
                m.version,
                main_plies as i64
            ],
        )?;
        Ok(())
    }

    /// A stored game, checked as far as the database can (the session checks the rest: the
    /// variant, the FEN, every move, the engine time).
    pub fn load(&self, id: &str) -> Result<Option<Row>, ApiError> {
        let damaged =
            |e: String| ApiError::internal(format!("the stored game `{id}` is damaged: {e}"));
        let row = self
            .conn()?
            .query_row(
                "SELECT id, variant, start_fen, white, black, engine_time, moves, redo, result, reason, created, updated, white_key, black_key, tags, level, tree, play, invite, version
                 FROM games WHERE id = ?1",
                params![id],
                |r| {
                    let seats = (r.get::<_, String>(3)?, r.get::<_, String>(4)?);
                    let tags: Option<String> = r.get(14)?;
                    let play: Option<String> = r.get(17)?;
                    Ok((
                        (seats, tags, play),
                        Row {
                            meta: Meta {
                                id: r.get(0)?,
                                variant: r.get(1)?,
                                start_fen: r.get(2)?,
                                white: Seat::Human,
                                black: Seat::Human,
                                engine_time: r.get(5)?,
                                level: r.get::<_, Option<u8>>(15)?.unwrap_or(8),
                                created: r.get(10)?,
                                updated: r.get(11)?,
                                version: r.get::<_, Option<u64>>(19)?.unwrap_or(0),
                                tags: Vec::new(),
                                keys: SeatKeys {
                                    white: r.get(12)?,
                                    black: r.get(13)?,
                                },
                                play: Default::default(),
                                invite: r.get(18)?,
                            },
                            moves: split(&r.get::<_, String>(6)?),
                            redo: split(&r.get::<_, String>(7)?),
                            tree: r.get(16)?,
                            result: r.get(8)?,
                            reason: r.get(9)?,
                        },
                    ))
                },
            )
            .optional()
            .map_err(|e| match e {
                // A value of the wrong type was written into the row.
                rusqlite::Error::InvalidColumnType(..)
                | rusqlite::Error::FromSqlConversionFailure(..)
                | rusqlite::Error::IntegralValueOutOfRange(..) => damaged(e.to_string()),
                other => ApiError::from(other),
            })?;
        let Some((((white, black), tags, play), mut row)) = row else {
            return Ok(None);
        };
        if let Some(text) = play {
            row.meta.play = serde_json::from_str(&text)
                .map_err(|e| damaged(format!("its clock and ending are not valid: {e}")))?;
        }
        if let Some(text) = tags {
            row.meta.tags = serde_json::from_str(&text)
                .map_err(|e| damaged(format!("its tags are not a list of pairs: {e}")))?;
        }
        row.meta.white = seat(&white).map_err(damaged)?;
        row.meta.black = seat(&black).map_err(damaged)?;
        Ok(Some(row))
    }

    /// Summaries of the most recently updated games.
    pub fn list(&self, limit: usize) -> Result<Vec<serde_json::Value>, ApiError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT id, variant, white, black, moves, result, reason, created, updated, redo, plies
             FROM games ORDER BY updated DESC LIMIT ?1",
        )?;
        let rows = stmt
            .query_map(params![limit as i64], |r| {
                Ok(serde_json::json!({
                    "id": r.get::<_, String>(0)?,
                    "variant": r.get::<_, String>(1)?,
                    "white": r.get::<_, String>(2)?,
                    "black": r.get::<_, String>(3)?,
                    // The main line's length, whichever of the game's positions someone looks
                    // at (older rows: the moves played and those after the node shown).
                    "moves": match r.get::<_, Option<i64>>(10)? {
                        Some(plies) => plies.max(0) as usize,
                        None => split(&r.get::<_, String>(4)?).len()
                            + split(&r.get::<_, String>(9)?).len(),
                    },
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

/// What the players did besides moving, as stored (nothing for a game without any).
fn play_text(play: &crate::friend::Play) -> Option<String> {
    (*play != crate::friend::Play::default())
        .then(|| serde_json::to_string(play).unwrap_or_default())
}

/// Tags as stored: a JSON list of pairs, or nothing for a game without tags.
fn tags_text(tags: &[(String, String)]) -> Option<String> {
    (!tags.is_empty()).then(|| serde_json::to_string(tags).unwrap_or_default())
}

impl Store {
    /// Keeps a game's finished review (replacing an older one).
    pub fn save_review(&self, game_id: &str, review: &str) -> Result<(), ApiError> {
        self.conn()?.execute(
            "INSERT INTO reviews (game_id, review, created) VALUES (?1, ?2, ?3)
             ON CONFLICT(game_id) DO UPDATE SET review = ?2, created = ?3",
            params![game_id, review, crate::api::now()],
        )?;
        Ok(())
    }

    /// A game's stored review, as JSON text.
    pub fn load_review(&self, game_id: &str) -> Result<Option<String>, ApiError> {
        Ok(self
            .conn()?
            .query_row(
                "SELECT review FROM reviews WHERE game_id = ?1",
                params![game_id],
                |r| r.get(0),
            )
            .optional()?)
    }
}
