//! The JSON API (docs/api.md): thin handlers over the sessions, the store and the engine.
//!
//! This file holds what every handler shares: the server's state and bounds, who may act on a
//! game (its seats), and the JSON bodies. The handlers are grouped by what they act on:
//! `variants`, `games`, `moves` (a game's tree), `engine` and `person` (playing a person).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use damspel_engine::Level;
use damspel_notation::pdn::{GameResult, VariantDecider};
use damspel_rules::describe::{catalogue_order, family_description, FAMILIES};
use damspel_rules::{with_rules, Catalogue, Color, Position, Squares, Variant};
use rand::RngExt;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_stream::StreamExt;

use crate::error::{ApiError, Quoted};
use crate::events::Events;
use crate::friend;
use crate::games::{Games, Shared};
use crate::import;
use crate::pool::{Cancel, Pool};
use crate::seats::{self, Presented};
use crate::session::{self, Meta, SearchAsk, Seat, Session, MAX_ENGINE_TIME};
use crate::store::{Row, Store};

mod engine;
mod games;
mod moves;
mod person;
mod variants;

pub use engine::{analyse, engine_move, hint, tablebase};
pub use games::{check_position, events, game, import, list, list_pdn, new_game, pdn};
pub use moves::{annotate, delete_node, goto, play, promote, redo, undo};
pub use person::{draw, join, resign};
pub use variants::{variant, variants};

/// Bounds of the server's resources (docs/api.md lists them).
#[derive(Clone, Debug)]
pub struct Settings {
    /// Searches that may run at once.
    pub searches: usize,
    /// Blocking threads for move generation, imports and the database.
    pub work_threads: usize,
    /// A game unused this long leaves memory (it stays in the database).
    pub idle_game: Duration,
    /// Games kept in memory at most (least recently used leave first).
    pub max_games: usize,
    /// Folder of the endgame tables (`serve --tb-dir`).
    pub tb_dir: std::path::PathBuf,
}

impl Default for Settings {
    fn default() -> Settings {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Settings {
            searches: 2,
            work_threads: cores.clamp(2, 16),
            idle_game: Duration::from_secs(600),
            max_games: 1000,
            tb_dir: damspel_tablebase::default_dir(),
        }
    }
}

/// Work that may wait for a free thread; more gets a 503 at once.
pub const MAX_WAITING: usize = 64;
/// Longest wait for a free thread before a request gets a 503.
const MAX_WAIT: Duration = Duration::from_secs(60);
/// Longest FEN a request may send (the largest board's FEN is a few hundred characters).
pub const MAX_FEN: usize = 4096;
/// Longest PDN text an import may send.
pub const MAX_PDN: usize = 512 * 1024;
/// Longest PDN a game's export may grow to by the changes asked of the server: what an import
/// takes, less room for the tags its ending adds (a flag fall is committed whatever the size).
/// So every game exports to a PDN the server, and `damspel pdn`, can import again.
pub const MAX_EXPORT: usize = MAX_PDN - 4096;
/// How often, and how many times, a clock's timer asks again a database that could not take
/// a flag fall.
const FLAG_RETRY: Duration = Duration::from_secs(1);
const FLAG_RETRIES: usize = 3600;

/// A request's place in the loads of one game (`AppState::game`): the last one out, even a
/// request that went away, takes the game's entry away.
struct Gate<'a> {
    app: &'a AppState,
    id: &'a str,
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl Drop for Gate<'_> {
    fn drop(&mut self) {
        let mut loading = self.app.loading.lock().unwrap_or_else(|e| e.into_inner());
        // Let go under the map's lock, under which the others take theirs: the last one out
        // sees the map's alone.
        drop(std::mem::take(&mut self.turn));
        if loading
            .get(self.id)
            .is_some_and(|g| Arc::strong_count(g) == 1)
        {
            loading.remove(self.id);
        }
    }
}

/// Shared by every request.
pub struct AppState {
    pub catalogue: Catalogue,
    pub store: Arc<Store>,
    games: Games,
    pub(crate) events: Events,
    /// Per game being read from the store: its load, which the others asking for it wait for.
    loading: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Move generation, imports, database writes.
    pub(crate) work: Pool,
    /// Engine searches (`--searches`).
    pub(crate) searches: Pool,
    /// Game reviews running now (each holds a search slot).
    pub(crate) reviews: crate::review::Reviews,
    /// The server's access token, if it has one: an invitation link carries it, or the
    /// friend's device could not open the page at all.
    pub(crate) access_token: std::sync::OnceLock<String>,
    /// Folder of the endgame tables.
    pub(crate) tb_dir: std::path::PathBuf,
    /// Places for event streams (`Transport::max_event_streams`): each stream holds one.
    pub(crate) event_streams: Arc<tokio::sync::Semaphore>,
    /// The clock's timer of each game whose clock runs.
    clock_timers: crate::timers::ClockTimers,
}

impl AppState {
    pub fn new(catalogue: Catalogue, store: Store, settings: &Settings) -> AppState {
        AppState {
            catalogue,
            store: Arc::new(store),
            games: Games::new(settings.idle_game, settings.max_games),
            events: Events::default(),
            loading: Mutex::default(),
            work: Pool::new("work", settings.work_threads, MAX_WAITING, MAX_WAIT),
            searches: Pool::new("engine searches", settings.searches, MAX_WAITING, MAX_WAIT),
            reviews: Default::default(),
            access_token: std::sync::OnceLock::new(),
            tb_dir: settings.tb_dir.clone(),
            event_streams: Arc::new(tokio::sync::Semaphore::new(
                crate::Transport::default().max_event_streams(),
            )),
            clock_timers: Default::default(),
        }
    }

    /// Waits, at most `within` for each pool, for the blocking work under way (the requests that
    /// asked for it are gone, so searches are stopping).
    pub(crate) async fn settle(&self, within: Duration) {
        self.searches.settle(within).await;
        self.work.settle(within).await;
    }

    /// Searches running at this moment.
    pub fn searches_running(&self) -> usize {
        self.searches.running()
    }

    /// Games in memory at this moment.
    pub fn games_in_memory(&self) -> usize {
        self.games.len()
    }

    /// Drops idle games from memory (and the event channels nobody listens to).
    pub fn evict_idle(&self) -> usize {
        let gone = self.games.evict_idle();
        self.events.retain(|id| self.games.contains(id));
        gone
    }

    pub fn idle_time(&self) -> Duration {
        self.games.idle_time()
    }

    pub(crate) fn variant(&self, id: &str) -> Result<Variant, ApiError> {
        self.catalogue
            .get(id)
            .map_err(|e| ApiError::unprocessable(e.to_string()))
    }

    /// The game, read from the store if it is not in memory.
    pub(crate) async fn game(self: &Arc<Self>, id: &str) -> Result<Shared, ApiError> {
        if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            // Quoted short: a path may hold some 60 kB.
            return Err(ApiError::not_found(format!(
                "no game `{}`",
                damspel_rules::quoted(id)
            )));
        }
        if let Some(slot) = self.games.get(id) {
            return Ok(slot);
        }
        // One load of a game at a time: the requests that ask for it meanwhile wait for that
        // one (each made its own, and a game slow to replay tied up every worker thread).
        let gate = Gate {
            app: self,
            id,
            turn: {
                let mut loading = self.loading.lock().unwrap_or_else(|e| e.into_inner());
                loading.entry(id.to_string()).or_default().clone()
            },
        };
        let _turn = gate.turn.lock().await;
        self.load(id).await
    }

    async fn load(self: &Arc<Self>, id: &str) -> Result<Shared, ApiError> {
        if let Some(slot) = self.games.get(id) {
            return Ok(slot);
        }
        let app = self.clone();
        let owned = id.to_string();
        let session = self.work.run(None, move || app.read_game(&owned)).await??;
        let deadline = friend::deadline(&session.meta().play);
        let slot = self.games.insert(id, session);
        // A clock that runs when the game is read (after a restart, or back from the store) is
        // watched again: no timer watched it once the server had restarted, and the game never
        // fell on time unless someone sent a request.
        if deadline.is_some() {
            self.watch_clock(id, deadline);
        }
        Ok(slot)
    }

    /// A stored game, checked like a request: a damaged row is an error for that game only.
    fn read_game(&self, id: &str) -> Result<Box<dyn Session>, ApiError> {
        let row = self
            .store
            .load(id)?
            .ok_or_else(|| ApiError::not_found(format!("no game `{id}`")))?;
        let damaged = |e: ApiError| {
            ApiError::internal(format!("the stored game `{id}` is damaged: {}", e.message))
        };
        let variant = self.variant(&row.meta.variant).map_err(damaged)?;
        session::open(
            variant,
            row.meta,
            &row.moves,
            &row.redo,
            row.tree.as_deref(),
        )
        .map_err(damaged)
    }

    /// Writes a changed game to the store; the caller puts it in memory only if this succeeded.
    /// Every save is a new version of the game (the copy saved carries it, so a refused save
    /// leaves the version in memory as it was).
    fn save(&self, session: &mut dyn Session) -> Result<(), ApiError> {
        let meta = session.meta_mut();
        meta.updated = now();
        meta.version = meta.version.saturating_add(1);
        let (moves, redo) = session.moves_full();
        // The games list shows how the game ended, not the node someone is looking at.
        let outcome = session.main_outcome_json();
        let main_plies = session.main_plies();
        self.store.save(
            &Row {
                meta: session.meta().clone(),
                moves,
                redo,
                tree: Some(session.tree_text()),
                result: outcome.as_ref().map(|o| o.result.to_string()),
                reason: outcome.map(|o| o.reason),
            },
            main_plies,
        )
    }

    /// Applies `change` to a copy of the game, commits the copy, and only then puts it in
    /// memory and tells the listeners. Runs on a blocking thread. A clock whose time ran out
    /// is settled first (committed even if the change then fails), and a move that extends the
    /// main line runs the clock (friend.rs).
    async fn change(
        self: &Arc<Self>,
        id: &str,
        who: Presented,
        need: Need,
        change: impl FnOnce(&mut dyn Session) -> Result<(), ApiError> + Send + 'static,
    ) -> Result<Value, ApiError> {
        let slot = self.game(id).await?;
        let mut guard = slot.lock_owned().await;
        let app = self.clone();
        let answer: Result<(Value, Option<Option<u64>>), ApiError> = self
            .work
            .run(None, move || {
                let now = friend::now_ms();
                if let Some(flagged) = friend::settle_flag(guard.session.as_ref(), now) {
                    app.commit(&mut guard, flagged)?;
                }
                let mut next = guard.session.clone_box();
                let claimed = authorize(next.as_mut(), &who, need)?;
                let before = next.main_plies();
                let line = next.main_line();
                change(next.as_mut())?;
                let after_line = next.main_line();
                // In a game with a friend, what is not a move of the game leaves room for the
                // rest of its moves: neither player may fill the export with comments or
                // variations so that the other's next move is refused while their clock runs.
                let extends_main_line =
                    after_line.len() > line.len() && after_line.starts_with(&line);
                let reserve = if with_a_friend(next.meta()) && !extends_main_line {
                    main_line_reserve(after_line.len())
                } else {
                    0
                };
                export_fits(guard.session.as_ref(), next.as_ref(), reserve)?;
                if !after_line.starts_with(&line) {
                    may_rewrite(next.meta(), &who)?;
                }
                // The plies of the main line the change kept.
                let kept = line
                    .iter()
                    .zip(&after_line)
                    .take_while(|(a, b)| a == b)
                    .count();
                friend::after_change(next.as_mut(), before, kept, now);
                // Only a change of the main line sets a new deadline: a move, or moves taken
                // back or replaced (a promotion that kept the line's length started the clock
                // anew without a timer).
                let deadline = (after_line != line).then(|| friend::deadline(&next.meta().play));
                let state = app.commit(&mut guard, next)?;
                Ok((with_seats(state, &claimed), deadline))
            })
            .await?;
        let (answer, deadline) = answer?;
        if let Some(deadline) = deadline {
            self.watch_clock(id, deadline);
        }
        Ok(answer)
    }

    /// Writes `next` to the store, then makes it the game in memory and tells the listeners.
    fn commit(
        &self,
        guard: &mut tokio::sync::OwnedMutexGuard<crate::games::Slot>,
        mut next: Box<dyn Session>,
    ) -> Result<Value, ApiError> {
        self.save(next.as_mut())?;
        // Committed: memory follows the database from here on, whatever comes next.
        guard.session = next;
        guard.state = None;
        let state = Arc::new(state_value(guard.session.as_ref())?);
        guard.state = Some(state.clone());
        self.events.state(id_of(guard.session.as_ref()), &state);
        Ok((*state).clone())
    }

    /// With a clock running, wakes up when the mover's time is up to end the game on time,
    /// so that both players (and watchers) see the flag fall without anyone sending a request.
    fn watch_clock(self: &Arc<Self>, id: &str, deadline: Option<u64>) {
        let Some(deadline) = deadline else {
            self.clock_timers.cancel(id);
            return;
        };
        // Weak: a sleeping timer must not keep a stopped server's state (and its database
        // lock) alive.
        let app = Arc::downgrade(self);
        let owned = id.to_string();
        let timer = tokio::spawn(async move {
            let wait = deadline.saturating_sub(friend::now_ms()) + 5;
            tokio::time::sleep(Duration::from_millis(wait)).await;
            if let Some(app) = app.upgrade() {
                app.clock_timers.fired(&owned, tokio::task::id());
            }
            // A database that cannot take the flag fall now (locked, full: 503) is asked again
            // each second, for an hour at most: the game did not fall on time by itself once
            // the fault was gone. Other errors (the game left the store) leave nothing to do.
            for _ in 0..FLAG_RETRIES {
                let Some(app) = app.upgrade() else {
                    return;
                };
                match app.check_flag(&owned).await {
                    Err(e) if e.status == StatusCode::SERVICE_UNAVAILABLE => {}
                    _ => return,
                }
                drop(app);
                tokio::time::sleep(FLAG_RETRY).await;
            }
        });
        // A later move's deadline replaces this one, and its timer this timer.
        self.clock_timers.replace(id, timer.abort_handle());
    }

    /// Ends the game on time if the mover's time is up.
    pub(crate) async fn check_flag(self: &Arc<Self>, id: &str) -> Result<(), ApiError> {
        let slot = self.game(id).await?;
        let mut guard = slot.lock_owned().await;
        if friend::settle_flag(guard.session.as_ref(), friend::now_ms()).is_none() {
            return Ok(());
        }
        let app = self.clone();
        self.work
            .run(None, move || {
                if let Some(flagged) = friend::settle_flag(guard.session.as_ref(), friend::now_ms())
                {
                    app.commit(&mut guard, flagged)?;
                }
                Ok(())
            })
            .await?
    }
}

/// Refuses a change that makes a game's PDN longer than `MAX_EXPORT` less `reserve`, unless it
/// was longer before (a game stored before the bound may still be cut down).
fn export_fits(before: &dyn Session, after: &dyn Session, reserve: usize) -> Result<(), ApiError> {
    let size = after.pdn().len();
    let bound = MAX_EXPORT - reserve;
    if size > bound && size > before.pdn().len() {
        let why = if reserve == 0 {
            String::new()
        } else {
            format!(
                " ({MAX_EXPORT} less {reserve} kept for the moves the game may still have: \
                 in a game with a friend, comments and variations leave room for its moves)"
            )
        };
        return Err(ApiError::unprocessable(format!(
            "this would make the game's PDN {size} bytes, more than the {bound} a game may \
             have{why} (so that it can be imported again); delete comments, NAGs or variations \
             first"
        )));
    }
    Ok(())
}

/// Most bytes one move of the main line adds to the export: a move number (`1000...`), the
/// move (`p16-p15`), a clock comment (` {[%clk 10:00:00]}`) and the spaces between.
const MAIN_PLY_BYTES: usize = 48;
/// Room for the squares a capture's notation may name besides its ends (when two captures
/// share them), over a whole game: a game captures at most every piece once.
const CAPTURE_PATH_BYTES: usize = 4096;

/// The export kept for the moves a game of `plies` may still have (`MAX_PLIES` in all).
fn main_line_reserve(plies: usize) -> usize {
    session::MAX_PLIES.saturating_sub(plies) * MAIN_PLY_BYTES + CAPTURE_PATH_BYTES
}

/// Whether the game is played with a friend: made with an invitation for the other seat (open
/// or used). A game whose two seats one person was given (against oneself, an import) is not:
/// its holder may fill its export with their own comments.
fn with_a_friend(meta: &Meta) -> bool {
    meta.invite.is_some()
}

fn id_of(s: &dyn Session) -> &str {
    &s.meta().id
}

fn state_value(s: &dyn Session) -> Result<Value, ApiError> {
    serde_json::to_value(s.state()).map_err(|e| ApiError::internal(e.to_string()))
}

/// A state with the secrets of the seats this request was just given (they are never shown
/// again: the server keeps only their hashes).
fn with_seats(mut state: Value, given: &[(Color, String)]) -> Value {
    if !given.is_empty() {
        let seats: serde_json::Map<String, Value> = given
            .iter()
            .map(|(c, secret)| (c.name().to_string(), json!(secret)))
            .collect();
        state["seats"] = Value::Object(seats);
    }
    state
}

/// What a request must hold to change a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// The seat of the side to move (any seat of the game when an engine is to move).
    Mover,
    /// Any seat of the game.
    AnySeat,
    /// A move at this node (None: the current one): the mover's seat if it goes on with the
    /// game (at the end of the main line), any seat for a variation.
    Play(Option<usize>),
    /// Nobody in particular (joining by an invitation checks its own token).
    Anyone,
}

/// The seats whose secret controls a game: the human ones, or White's when both are engines
/// (someone must be able to drive an engine game).
pub(crate) fn controllers(meta: &Meta) -> Vec<Color> {
    let human: Vec<Color> = [(Color::White, meta.white), (Color::Black, meta.black)]
        .into_iter()
        .filter(|(_, s)| *s == Seat::Human)
        .map(|(c, _)| c)
        .collect();
    if human.is_empty() {
        vec![Color::White]
    } else {
        human
    }
}

/// The seats whose secret may move `side` (or have the engine move it): its own when a person
/// plays it, otherwise any seat that controls the game.
fn mover_seats(meta: &Meta, side: Color) -> Vec<Color> {
    let controllers = controllers(meta);
    if controllers.contains(&side) {
        vec![side]
    } else {
        controllers
    }
}

/// Checks that the request may make the change. A controlling seat that has no secret yet (a
/// game stored before seats existed) is claimed by the first request that needs it: its new
/// secret is set on `session` (committed with the change) and returned.
fn authorize(
    session: &mut dyn Session,
    who: &Presented,
    need: Need,
) -> Result<Vec<(Color, String)>, ApiError> {
    if need == Need::Anyone {
        return Ok(Vec::new());
    }
    let meta = session.meta();
    let mut side = session.side_to_move();
    let need = match need {
        Need::Play(at) => match session.game_move_side(at.unwrap_or(played_at(session, who))) {
            Some(mover) => {
                side = mover;
                Need::Mover
            }
            None => Need::AnySeat,
        },
        other => other,
    };
    let wanted: Vec<Color> = match need {
        Need::Mover => mover_seats(meta, side),
        _ => controllers(meta),
    };
    if wanted.iter().any(|&c| who.holds(&meta.keys, c)) {
        return Ok(Vec::new());
    }
    let Some(&free) = wanted.iter().find(|&&c| meta.keys.get(c).is_none()) else {
        return Err(not_yours(meta, who, side));
    };
    let secret = seats::new_secret();
    session.meta_mut().keys.set(free, seats::hash(&secret));
    Ok(vec![(free, secret)])
}

/// Why a request may not make (or have the engine make) `side`'s move: a player is told whose
/// move it is, a watcher that it watches.
fn not_yours(meta: &Meta, who: &Presented, side: Color) -> ApiError {
    if who.holds_any(&meta.keys) {
        // A player, not a watcher: the other side's move (or its engine's).
        return ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "it is {}'s move: only its player may make it, or have the engine make it",
                side.name()
            ),
        );
    }
    seats::watching()
}

/// Checks that the request may change the game's moves other than by playing on (delete a
/// move of the main line, or make a variation the main line): it must hold every seat that
/// somebody holds, so that between two players neither takes back or replaces the other's
/// moves alone. Variations stay open to either player.
fn may_rewrite(meta: &Meta, who: &Presented) -> Result<(), ApiError> {
    let held_by_others = controllers(meta)
        .into_iter()
        .filter(|&c| meta.keys.get(c).is_some() && !who.holds(&meta.keys, c))
        .count();
    if held_by_others == 0 {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::FORBIDDEN,
        "taking back or replacing the game's moves needs every player's seat: between two \
         players neither may change the other's moves alone (variations are open to both)",
    ))
}

/// Where a move sent without `from` is played: at the node the game shows, or between two
/// players (whose navigation is their own, see `navigate`) at the end of the game. (The other
/// player's analysis, a variation played, moved the node shown: the move went into it.)
fn played_at(s: &dyn Session, who: &Presented) -> usize {
    if between_two(s.meta(), who) {
        s.main_end()
    } else {
        s.current()
    }
}

/// Whether the request holds a seat of a game whose other seat someone else holds.
pub(crate) fn between_two(meta: &Meta, who: &Presented) -> bool {
    let (mine, others): (Vec<Color>, Vec<Color>) = controllers(meta)
        .into_iter()
        .filter(|&c| meta.keys.get(c).is_some())
        .partition(|&c| who.holds(&meta.keys, c));
    !mine.is_empty() && !others.is_empty()
}

pub fn now() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| time::OffsetDateTime::now_utc())
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// A request body, read within the body limit (413 beyond it) and the body deadline (408).
async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<axum::body::Bytes, ApiError> {
    axum::body::Bytes::from_request(req, state)
        .await
        .map_err(|rejection| {
            let status = rejection.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                return ApiError::new(
                    status,
                    format!("the body is larger than {} bytes", crate::MAX_BODY),
                );
            }
            let mut source: Option<&dyn std::error::Error> = Some(&rejection);
            while let Some(e) = source {
                if e.is::<tower_http::timeout::TimeoutError>() {
                    return ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        "the body did not arrive in time",
                    );
                }
                source = e.source();
            }
            ApiError::new(status, rejection.body_text())
        })
}

fn is_json(req: &Request) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

fn not_json() -> ApiError {
    ApiError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "send the body as JSON with Content-Type: application/json",
    )
}

/// JSON bodies whose errors are answered as `{"error": ...}` with a 4xx.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !is_json(&req) {
            return Err(not_json());
        }
        let bytes = read_body(req, state).await?;
        serde_json::from_slice(&bytes)
            .map(Body)
            .map_err(|e| ApiError::bad_request(format!("bad JSON body: {e}")))
    }
}

/// An optional JSON body: an empty body gives the default.
pub struct OptionalBody<T>(pub T);

impl<T: DeserializeOwned + Default, S: Send + Sync> FromRequest<S> for OptionalBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let json = is_json(&req);
        let bytes = read_body(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalBody(T::default()));
        }
        if !json {
            return Err(not_json());
        }
        serde_json::from_slice(&bytes)
            .map(OptionalBody)
            .map_err(|e| ApiError::bad_request(format!("bad JSON body: {e}")))
    }
}

type AppResult<T> = Result<T, ApiError>;
type App = State<Arc<AppState>>;

pub async fn not_found() -> ApiError {
    ApiError::not_found("no such API endpoint")
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "this method is not allowed here (see docs/api.md)",
    )
}

pub async fn no_such_page() -> ApiError {
    ApiError::not_found("no such page; the game is at /")
}
