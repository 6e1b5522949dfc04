//! The JSON API (docs/api.md): thin handlers over the sessions, the store and the engine.

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

use crate::error::ApiError;
use crate::events::Events;
use crate::friend;
use crate::games::{Games, Shared};
use crate::import;
use crate::pool::{Cancel, Pool};
use crate::seats::{self, Presented};
use crate::session::{self, Meta, SearchAsk, Seat, Session, MAX_ENGINE_TIME};
use crate::store::{Row, Store};

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
            return Err(ApiError::not_found(format!("no game `{id}`")));
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
        for _ in 0..3 {
            if let Some(slot) = self.games.get(id) {
                return Ok(slot);
            }
            let epoch = self.games.epoch();
            let app = self.clone();
            let owned = id.to_string();
            let session = self.work.run(None, move || app.read_game(&owned)).await??;
            if let Some(slot) = self.games.insert(id, session, Some(epoch)) {
                return Ok(slot);
            }
        }
        Err(ApiError::unavailable("the game is busy; try again"))
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
        let answer: Result<(Value, bool), ApiError> = self
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
                let moved = next.main_plies() != before;
                let state = app.commit(&mut guard, next)?;
                Ok((with_seats(state, &claimed), moved))
            })
            .await?;
        let (answer, moved) = answer?;
        // Only a move sets a new deadline: one timer per move at most.
        if moved {
            self.watch_clock(id, &answer);
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
    fn watch_clock(self: &Arc<Self>, id: &str, state: &Value) {
        let Some(deadline) = friend::deadline_of(state) else {
            return;
        };
        // Weak: a sleeping timer must not keep a stopped server's state (and its database
        // lock) alive.
        let app = Arc::downgrade(self);
        let id = id.to_string();
        tokio::spawn(async move {
            let wait = deadline.saturating_sub(friend::now_ms()) + 5;
            tokio::time::sleep(Duration::from_millis(wait)).await;
            // A later move moved the deadline: its own timer watches it. Errors (the game
            // left the store) leave nothing to do.
            if let Some(app) = app.upgrade() {
                let _ = app.check_flag(&id).await;
            }
        });
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
fn controllers(meta: &Meta) -> Vec<Color> {
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
        if who.holds_any(&meta.keys) {
            // A player, not a watcher: the other side's move (or its engine's).
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "it is {}'s move: only its player may make it, or have the engine make it",
                    side.name()
                ),
            ));
        }
        return Err(seats::watching());
    };
    let secret = seats::new_secret();
    session.meta_mut().keys.set(free, seats::hash(&secret));
    Ok(vec![(free, secret)])
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

fn board_json(v: &Variant) -> Value {
    json!({
        "width": v.geometry.width(),
        "height": v.geometry.height(),
        "squares": match v.geometry.squares_kind() { Squares::All => "all", Squares::Dark => "dark" },
    })
}

fn variant_summary(v: &Variant) -> Value {
    json!({
        "id": v.id, "name": v.name, "family": v.family, "description": v.description,
        "aliases": v.aliases, "board": board_json(v),
    })
}

pub async fn variants(State(app): App) -> AppResult<Json<Value>> {
    let mut variants = app
        .catalogue
        .variants()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    variants.sort_by_key(catalogue_order);
    let families: Vec<Value> = FAMILIES
        .iter()
        .map(|(id, name)| json!({"id": id, "name": name}))
        .chain(
            variants
                .iter()
                .map(|v| v.family.clone())
                .filter(|f| !FAMILIES.iter().any(|(id, _)| id == f))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(|f| json!({"id": f, "name": family_description(&f)})),
        )
        .collect();
    Ok(Json(json!({
        "families": families,
        "variants": variants.iter().map(variant_summary).collect::<Vec<_>>(),
    })))
}

pub async fn variant(State(app): App, Path(id): Path<String>) -> AppResult<Json<Value>> {
    let v = app
        .catalogue
        .get(&id)
        .map_err(|e| ApiError::not_found(e.to_string()))?;
    let g = &v.geometry;
    let squares: Vec<Value> = g
        .all_squares()
        .iter()
        .map(|&sq| {
            let (x, y) = g.coords(sq);
            json!({"name": g.name(sq), "x": x, "y": y})
        })
        .collect();
    let start_fen = with_rules!(v.clone(), |rules| damspel_notation::write_fen(
        &rules.variant().geometry,
        &Position::start(&rules)
    ));
    let mut out = variant_summary(&v);
    out["rules"] =
        serde_json::to_value(v.rules_page()).map_err(|e| ApiError::internal(e.to_string()))?;
    out["start_fen"] = json!(start_fen);
    out["squares"] = json!(squares);
    out["family_name"] = json!(family_description(&v.family));
    Ok(Json(out))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// Required, except for a PDN import whose tags or moves decide the variant.
    variant: Option<String>,
    fen: Option<String>,
    pdn: Option<String>,
    /// The PDN file's bytes in base64 (its encoding is detected).
    pdn_base64: Option<String>,
    /// Which game of a PDN file (1-based); a file of one game needs none.
    game: Option<usize>,
    #[serde(default = "human")]
    white: Seat,
    #[serde(default = "engine")]
    black: Seat,
    engine_time: Option<f64>,
    /// The engine's playing level, 1 to 8 (default 8, full strength).
    level: Option<u32>,
    /// Play a friend: both seats human, the creator takes `seat` and gets an invitation for
    /// the other (friend.rs).
    #[serde(default)]
    friend: bool,
    /// The creator's seat in a friend's game (default white).
    seat: Option<friend::Side>,
    /// A time control for both sides.
    clock: Option<friend::TimeControl>,
}

fn human() -> Seat {
    Seat::Human
}

fn engine() -> Seat {
    Seat::Engine
}

fn engine_time(t: Option<f64>) -> AppResult<f64> {
    match t {
        None => Ok(1.0),
        Some(t) if t.is_finite() && t > 0.0 && t <= MAX_ENGINE_TIME => Ok(t),
        Some(t) => Err(ApiError::unprocessable(format!(
            "engine_time must be between 0 and {MAX_ENGINE_TIME} seconds, not {t}"
        ))),
    }
}

/// The canonical FEN of a FEN text, or what is wrong with it. Generates moves (the position
/// check): call it on a blocking thread.
fn check_fen(v: &Variant, fen: &str) -> AppResult<String> {
    if fen.len() > MAX_FEN {
        return Err(ApiError::unprocessable(format!(
            "a FEN may have at most {MAX_FEN} characters, this one has {}",
            fen.len()
        )));
    }
    with_rules!(v.clone(), |rules| {
        let g = &rules.variant().geometry;
        let setup = damspel_notation::parse_fen(g, fen)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let pos = Position::from_setup(&rules, &setup)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        Ok(damspel_notation::write_fen(g, &pos))
    })
}

/// Builds a new game from a request: reads the PDN, checks the position and replays the moves
/// (a blocking thread's work), then commits it before anyone can see it.
fn create(app: &AppState, body: NewGame) -> AppResult<(StatusCode, Json<Value>)> {
    let pdn = import::file_bytes(body.pdn.as_deref(), body.pdn_base64.as_deref())?;
    if pdn.as_ref().is_some_and(|p| p.len() > MAX_PDN) {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "a PDN import may have at most {MAX_PDN} bytes; `damspel pdn` reads larger files"
            ),
        ));
    }
    let engine_time = engine_time(body.engine_time)?;
    let level = match body.level {
        None => Level::FULL,
        Some(n) => Level::new(n).map_err(|e| ApiError::unprocessable(e.to_string()))?,
    };
    let mut claims = Vec::new();
    let mut tags = Vec::new();
    let mut lines = None;
    let mut recorded = None;
    let (v, start_fen, moves) = match (&body.fen, pdn) {
        (Some(_), Some(_)) => return Err(ApiError::unprocessable("give a fen or a pdn, not both")),
        (None, Some(bytes)) => {
            let file = import::read(&bytes)?;
            let game = import::choose(&file, body.game)?;
            if game.moves.len() > session::MAX_PLIES {
                return Err(ApiError::unprocessable(format!(
                    "the PDN game has {} plies; a game may have at most {}: a game that long is \
                     not draughts (the draw rules end real games long before)",
                    game.moves.len(),
                    session::MAX_PLIES
                )));
            }
            // The file's Variant or GameType tag wins over the request's choice; a game of a
            // variant Damspel does not have is refused with its name.
            // One bound on listing moves for the inference and the replay of this import.
            let until = session::listing_until();
            let mut decider = VariantDecider::new(app.catalogue.clone()).until(until);
            let decision = decider.decide(game, body.variant.as_deref());
            let id = decision
                .variant
                .ok_or_else(|| ApiError::unprocessable(decision.message.clone()))?;
            let v = app.variant(&id)?;
            let ready = import::prepare(v.clone(), game, until)?;
            claims = ready.claims;
            tags = game.tags.clone();
            lines = Some(game.tree.clone());
            recorded = game
                .result
                .as_deref()
                .or_else(|| game.tag("Result"))
                .and_then(|r| damspel_notation::pdn::read_result(&v, r));
            (v, ready.start_fen, ready.moves)
        }
        (Some(fen), None) => {
            let v = app.variant(
                body.variant
                    .as_deref()
                    .ok_or_else(|| ApiError::unprocessable("a variant is needed (`variant`)"))?,
            )?;
            let fen = check_fen(&v, fen)?;
            (v, fen, Vec::new())
        }
        (None, None) => {
            let v = app.variant(
                body.variant
                    .as_deref()
                    .ok_or_else(|| ApiError::unprocessable("a variant is needed (`variant`)"))?,
            )?;
            let fen = start_fen_of(&v);
            (v, fen, Vec::new())
        }
    };
    let id: String = {
        let mut rng = rand::rng();
        (0..12)
            .map(|_| char::from(b"abcdefghijkmnpqrstuvwxyz23456789"[rng.random_range(0..32)]))
            .collect()
    };
    let stamp = now();
    let mut meta = Meta {
        id: id.clone(),
        variant: v.id.clone(),
        white: body.white,
        black: body.black,
        engine_time,
        level: level.number(),
        start_fen,
        created: stamp.clone(),
        updated: stamp,
        // Made 1 by its first save.
        version: 0,
        tags,
        keys: Default::default(),
        play: Default::default(),
        invite: None,
    };
    if let Some(tc) = body.clock {
        meta.play.clock = Some(tc.clock()?);
    }
    let mut given: Vec<(Color, String)> = controllers(&meta)
        .into_iter()
        .map(|c| (c, seats::new_secret()))
        .collect();
    let mut invite = None;
    if body.friend {
        if body.white != Seat::Human || body.black != Seat::Human {
            return Err(ApiError::unprocessable(
                "a game with a friend has two human seats (white and black: human)",
            ));
        }
        // The friend's seat gets a secret nobody knows until the invitation is used (so
        // nobody can take it by just playing a move), and the invitation's hash is kept.
        let mine: Color = body.seat.unwrap_or(friend::Side::White).into();
        given.retain(|(c, _)| *c == mine);
        let token = seats::new_secret();
        meta.invite = Some(format!("{}:{}", (!mine).name(), seats::hash(&token)));
        meta.keys.set(!mine, seats::hash(&seats::new_secret()));
        // On a server with an access token the link opens the page with it (the guard turns
        // it into the cookie and keeps the fragment); the seat still needs the invitation.
        let access = match app.access_token.get() {
            Some(t) => format!("/?token={t}"),
            None => "/".to_string(),
        };
        invite = Some(json!({"seat": (!mine).name(), "token": token,
            "link": format!("{access}#/game/{id}/join/{token}")}));
    }
    for (c, secret) in &given {
        meta.keys.set(*c, seats::hash(secret));
    }
    let mut session = session::open(v, meta, &[], &[], None)?;
    for (i, text) in moves.iter().enumerate() {
        session.play_recorded(text).map_err(|e| {
            ApiError::unprocessable(format!(
                "move {} (`{text}`) of the PDN: {}",
                i + 1,
                e.message
            ))
        })?;
    }
    // A result the PDN records where the moves do not end the game (a resignation, an agreed
    // draw) ends it there, as a resignation in Damspel would: the export writes it back and
    // the end of the main line takes no more moves (variations in the past do).
    if !session.main_over() {
        let plies = session.main_plies();
        let ending = match recorded {
            Some(GameResult::Win(winner)) => Some(friend::Ending::win(
                winner,
                friend::How::Recorded,
                format!("{winner} wins: the result recorded"),
                plies,
            )),
            Some(GameResult::Draw) => Some(friend::Ending::draw(
                friend::How::Recorded,
                "draw: the result recorded".to_string(),
                plies,
            )),
            Some(GameResult::Unfinished) | None => None,
        };
        session.meta_mut().play.ending = ending;
    }
    // The file's variations, comments and NAGs.
    let skipped = lines.map(|l| session.graft(&l)).unwrap_or_default();
    app.save(session.as_mut())?;
    let state = state_value(session.as_ref())?;
    if let Some(slot) = app.games.insert(&id, session, None) {
        if let Ok(mut slot) = slot.try_lock() {
            slot.state = Some(Arc::new(state.clone()));
        }
    }
    let mut answer = with_seats(state, &given);
    if let Some(invite) = invite {
        answer["invite"] = invite;
    }
    if !claims.is_empty() {
        answer["claims"] = serde_json::to_value(&claims).unwrap_or_default();
    }
    if !skipped.is_empty() {
        answer["skipped"] = serde_json::to_value(&skipped).unwrap_or_default();
    }
    Ok((StatusCode::CREATED, Json(answer)))
}

fn start_fen_of(v: &Variant) -> String {
    with_rules!(v.clone(), |rules| damspel_notation::write_fen(
        &rules.variant().geometry,
        &Position::start(&rules)
    ))
}

pub async fn new_game(
    State(app): App,
    Body(body): Body<NewGame>,
) -> AppResult<(StatusCode, Json<Value>)> {
    let worker = app.clone();
    app.work.run(None, move || create(&worker, body)).await?
}

/// A PDN file to list: its text or bytes, and the variant to use where the file does not say.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdnFileBody {
    pdn: Option<String>,
    pdn_base64: Option<String>,
    variant: Option<String>,
}

/// Lists every game of a PDN file: tags, variant and how it was decided, whether it replays
/// (and the first bad move if not), where a draw could have been claimed. Nothing is stored.
pub async fn list_pdn(State(app): App, Body(body): Body<PdnFileBody>) -> AppResult<Json<Value>> {
    let worker = app.clone();
    app.work
        .run(None, move || {
            let bytes = import::file_bytes(body.pdn.as_deref(), body.pdn_base64.as_deref())?
                .ok_or_else(|| ApiError::unprocessable("give the PDN as `pdn` or `pdn_base64`"))?;
            if bytes.len() > MAX_PDN {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "a PDN file sent here may have at most {MAX_PDN} bytes; `damspel pdn` \
                         reads larger files"
                    ),
                ));
            }
            let file = import::read(&bytes)?;
            let listing = import::list(&worker.catalogue, &file, body.variant.as_deref());
            serde_json::to_value(listing)
                .map(Json)
                .map_err(|e| ApiError::internal(e.to_string()))
        })
        .await?
}

pub async fn import(
    State(app): App,
    Body(body): Body<NewGame>,
) -> AppResult<(StatusCode, Json<Value>)> {
    if body.fen.is_none() && body.pdn.is_none() && body.pdn_base64.is_none() {
        return Err(ApiError::unprocessable("import needs a pdn or a fen"));
    }
    let worker = app.clone();
    app.work.run(None, move || create(&worker, body)).await?
}

pub async fn list(State(app): App) -> AppResult<Json<Value>> {
    let worker = app.clone();
    let rows = app.work.run(None, move || worker.store.list(500)).await??;
    Ok(Json(Value::Array(rows)))
}

/// A game's state: the one shown last if nothing changed since, else worked out on a blocking
/// thread (it generates the moves of the position).
async fn shown_state(app: &Arc<AppState>, id: &str) -> AppResult<Arc<Value>> {
    let slot = app.game(id).await?;
    let mut guard = slot.lock_owned().await;
    if let Some(state) = &guard.state {
        return Ok(state.clone());
    }
    app.work
        .run(None, move || {
            let state = Arc::new(state_value(guard.session.as_ref())?);
            guard.state = Some(state.clone());
            Ok(state)
        })
        .await?
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// Show this node of the tree, for this request only (the game's shown node stays).
    node: Option<usize>,
}

pub async fn game(
    State(app): App,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<View>, axum::extract::rejection::QueryRejection>,
) -> AppResult<Json<Value>> {
    let view = query.map_err(|e| ApiError::bad_request(e.body_text()))?.0;
    // A clock that ran out while nobody was connected (a restart) ends the game now.
    app.check_flag(&id).await?;
    let Some(node) = view.node else {
        return Ok(Json((*shown_state(&app, &id).await?).clone()));
    };
    // A read-only view (anyone may look, a watcher or a player stepping back in a friend's
    // game): a copy goes to the node, the game stays where it is.
    let slot = app.game(&id).await?;
    let guard = slot.lock_owned().await;
    app.work
        .run(None, move || {
            let mut copy = guard.session.clone_box();
            drop(guard);
            copy.goto(node)?;
            state_value(copy.as_ref()).map(Json)
        })
        .await?
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayMove {
    #[serde(rename = "move")]
    text: String,
    /// The node the move is played from (default: the current one).
    from: Option<usize>,
}

pub async fn play(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    Body(body): Body<PlayMove>,
) -> AppResult<Json<Value>> {
    if body.text.len() > 512 {
        return Err(ApiError::unprocessable(
            "a move text may have at most 512 characters",
        ));
    }
    let text = body.text;
    let from = body.from;
    let mover = who.clone();
    Ok(Json(
        app.change(&id, who, Need::Play(from), move |s| {
            let at = from.unwrap_or_else(|| played_at(s, &mover));
            s.play_at(at, &text)
        })
        .await?,
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

/// A node of a game's tree.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRef {
    node: usize,
}

/// Shows a node (navigation: the position, its moves and what the engine analyses).
pub async fn goto(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    Body(body): Body<NodeRef>,
) -> AppResult<Json<Value>> {
    navigate(app, &id, who, move |s| s.goto(body.node)).await
}

/// Navigation (`goto`, `undo`, `redo`): moves the node the game shows. In a game between two
/// players (each seat held, by different people) it is a view for the request alone, as `GET
/// ?node=`, and the game stays where it is: one player stepping back moved it for both, pulled
/// the other's page there, and made the other's move sent without `from` a variation.
async fn navigate(
    app: Arc<AppState>,
    id: &str,
    who: Presented,
    step: impl FnOnce(&mut dyn Session) -> Result<(), ApiError> + Send + 'static,
) -> AppResult<Json<Value>> {
    let slot = app.game(id).await?;
    let guard = slot.lock_owned().await;
    if !between_two(guard.session.meta(), &who) {
        drop(guard);
        return Ok(Json(app.change(id, who, Need::AnySeat, step).await?));
    }
    app.work
        .run(None, move || {
            let mut copy = guard.session.clone_box();
            drop(guard);
            step(copy.as_mut())?;
            state_value(copy.as_ref()).map(Json)
        })
        .await?
}

/// Whether the request holds a seat of a game whose other seat someone else holds.
fn between_two(meta: &Meta, who: &Presented) -> bool {
    let (mine, others): (Vec<Color>, Vec<Color>) = controllers(meta)
        .into_iter()
        .filter(|&c| meta.keys.get(c).is_some())
        .partition(|&c| who.holds(&meta.keys, c));
    !mine.is_empty() && !others.is_empty()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Promote {
    node: usize,
    /// Make its line the main line at once (else: one place up).
    #[serde(default)]
    main: bool,
}

/// Moves a variation one place up (to the main line if it was the first variation), or with
/// `main` makes it the main line.
pub async fn promote(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    Body(body): Body<Promote>,
) -> AppResult<Json<Value>> {
    Ok(Json(
        app.change(&id, who, Need::AnySeat, move |s| {
            s.promote(body.node)?;
            // Each step moves a line up one place; a tree has fewer places than nodes.
            while body.main && s.promote(body.node).is_ok() {}
            Ok(())
        })
        .await?,
    ))
}

/// Deletes a move and every move after it.
pub async fn delete_node(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    Body(body): Body<NodeRef>,
) -> AppResult<Json<Value>> {
    Ok(Json(
        app.change(&id, who, Need::AnySeat, move |s| s.delete(body.node))
            .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotate {
    node: usize,
    comment: Option<String>,
    nags: Option<Vec<String>>,
}

/// Sets a move's comment and NAGs.
pub async fn annotate(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    Body(body): Body<Annotate>,
) -> AppResult<Json<Value>> {
    Ok(Json(
        app.change(&id, who, Need::AnySeat, move |s| {
            s.annotate(body.node, body.comment.as_deref(), body.nags.as_deref())
        })
        .await?,
    ))
}

pub async fn undo(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
) -> AppResult<Json<Value>> {
    navigate(app, &id, who, |s| s.undo()).await
}

pub async fn redo(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
) -> AppResult<Json<Value>> {
    navigate(app, &id, who, |s| s.redo()).await
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Think {
    time: Option<f64>,
    /// Lines to find (MultiPV), 1 to `MAX_LINES`; hint and analyse only.
    lines: Option<usize>,
}

/// Most lines an analysis shows.
pub const MAX_LINES: usize = 5;
/// Longest analysis of one position, in seconds: the page asks again to go on.
pub const MAX_ANALYSIS_TIME: f64 = 120.0;

/// What a search request asks for, checked.
struct Wanted {
    time: Option<f64>,
    lines: usize,
    /// The longest time this kind of search may ask for.
    max_time: f64,
    /// The engine's own move: only at the end of the main line.
    game_move: bool,
}

fn lines_of(lines: Option<usize>) -> AppResult<usize> {
    match lines.unwrap_or(1) {
        n @ 1..=MAX_LINES => Ok(n),
        n => Err(ApiError::unprocessable(format!(
            "lines must be between 1 and {MAX_LINES}, not {n}"
        ))),
    }
}

/// Runs a search on the game's current position, streaming its progress (each `info` message
/// names the node searched). The search holds its slot until it has returned; a client that
/// goes away stops it.
async fn think(
    app: &Arc<AppState>,
    id: &str,
    who: &Presented,
    wanted: Wanted,
) -> AppResult<session::SearchOutcome> {
    let slot = app.game(id).await?;
    let cancel = Cancel::new();
    let (node, audience);
    let job = {
        let s = slot.lock().await;
        let s = &s.session;
        if !who.holds_any(&s.meta().keys) {
            // A game stored before seats: its free seat is claimed through a change first.
            return Err(seats::watching());
        }
        if let Some(o) = s.outcome_json() {
            return Err(ApiError::conflict(format!(
                "the game is over: {}",
                o.reason
            )));
        }
        // The engine's move of a side a person holds is that person's move: only their seat
        // may ask for it (a player may not have the engine move for the other).
        if wanted.game_move
            && !mover_seats(s.meta(), s.side_to_move())
                .iter()
                .any(|&c| who.holds(&s.meta().keys, c))
        {
            return Err(seats::watching());
        }
        if wanted.game_move && !s.at_main_end() {
            return Err(ApiError::conflict(
                "the engine plays only at the end of the main line (this position is in the \
                 past or in a variation)",
            ));
        }
        let time = match wanted.time {
            Some(t) if t.is_finite() && t > 0.0 && t <= wanted.max_time => t,
            Some(t) => {
                return Err(ApiError::unprocessable(format!(
                    "time must be between 0 and {} seconds, not {t}",
                    wanted.max_time
                )))
            }
            None => s.meta().engine_time,
        };
        // The engine's own move under a clock: the clock decides, a share of the engine's time
        // left (friend.rs), whatever time was asked for.
        let time = match s.meta().play.clock.as_ref() {
            Some(c) if wanted.game_move => c.engine_share(
                s.main_side_to_move().into(),
                friend::now_ms(),
                MAX_ENGINE_TIME,
            ),
            _ => time,
        };
        // The game's level plays the engine's moves; hints and analysis are at full strength.
        let level = if wanted.game_move {
            Level::new(s.meta().level.into()).unwrap_or(Level::FULL)
        } else {
            Level::FULL
        };
        node = s.current();
        // Between two players a search is the asker's own: its progress goes to the listeners
        // that hold the asker's seat. (It went to every listener: the other player's page
        // showed the engine's lines and score of the position, unasked, during the game.)
        audience = if between_two(s.meta(), who) {
            controllers(s.meta())
                .into_iter()
                .find(|&c| who.holds(&s.meta().keys, c))
                .and_then(|c| s.meta().keys.get(c).cloned())
        } else {
            None
        };
        s.search_job(
            SearchAsk {
                time: Duration::from_secs_f64(time),
                lines: wanted.lines,
                level,
                tb_dir: app.tb_dir.as_path().into(),
            },
            cancel.clone(),
        )
    };
    let progress = app.events.progress_sender(id, audience);
    app.searches
        .run(Some(cancel), move || {
            job(&mut |mut info| {
                info["node"] = json!(node);
                progress.send("info", &info);
            })
        })
        .await
}

/// Claims a free seat of a game stored before seats existed, for a request that holds none, so
/// that searches (which change nothing) can check seats like changes do.
async fn claim_if_free(app: &Arc<AppState>, id: &str, who: &Presented) -> AppResult<Option<Value>> {
    let slot = app.game(id).await?;
    {
        let s = slot.lock().await;
        let meta = s.session.meta();
        if who.holds_any(&meta.keys)
            || controllers(meta)
                .iter()
                .all(|&c| meta.keys.get(c).is_some())
        {
            return Ok(None);
        }
    }
    let claimed = app
        .change(id, who.clone(), Need::AnySeat, |_| Ok(()))
        .await?;
    Ok(claimed.get("seats").cloned())
}

/// The request's seats plus any it just claimed.
fn with_claim(who: &Presented, claimed: &Option<Value>) -> Presented {
    let mut who = who.clone();
    if let Some(Value::Object(seats)) = claimed {
        for secret in seats.values().filter_map(Value::as_str) {
            who.add(secret);
        }
    }
    who
}

pub async fn engine_move(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    OptionalBody(body): OptionalBody<Think>,
) -> AppResult<Json<Value>> {
    let claimed = claim_if_free(&app, &id, &who).await?;
    let who = with_claim(&who, &claimed);
    if body.lines.is_some() {
        return Err(ApiError::unprocessable("the engine's move has one line"));
    }
    let wanted = Wanted {
        time: body.time,
        lines: 1,
        max_time: MAX_ENGINE_TIME,
        game_move: true,
    };
    let outcome = think(&app, &id, &who, wanted).await?;
    let mut state = app
        .change(&id, who, Need::Mover, move |s| {
            if s.position_hash() != outcome.position_hash || !s.at_main_end() {
                return Err(ApiError::conflict("the position changed during the search"));
            }
            let best = outcome
                .best_full
                .ok_or_else(|| ApiError::conflict("there is no legal move"))?;
            s.play(&best)
        })
        .await?;
    if let Some(seats) = claimed {
        state["seats"] = seats;
    }
    Ok(Json(state))
}

pub async fn hint(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    OptionalBody(body): OptionalBody<Think>,
) -> AppResult<Json<Value>> {
    let time = body.time;
    lines_answer(&app, &id, who, body, time, MAX_ENGINE_TIME).await
}

/// Analyses the current position with 1 to 5 lines for up to two minutes, streaming each
/// iteration as an `info` event; the page stops it by going away (closing the request).
pub async fn analyse(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    OptionalBody(body): OptionalBody<Think>,
) -> AppResult<Json<Value>> {
    let time = Some(body.time.unwrap_or(MAX_ANALYSIS_TIME));
    lines_answer(&app, &id, who, body, time, MAX_ANALYSIS_TIME).await
}

/// A search that plays nothing (a hint, an analysis): its best move and lines.
async fn lines_answer(
    app: &Arc<AppState>,
    id: &str,
    who: Presented,
    body: Think,
    time: Option<f64>,
    max_time: f64,
) -> AppResult<Json<Value>> {
    let claimed = claim_if_free(app, id, &who).await?;
    let who = with_claim(&who, &claimed);
    let wanted = Wanted {
        time,
        lines: lines_of(body.lines)?,
        max_time,
        game_move: false,
    };
    let outcome = think(app, id, &who, wanted).await?;
    let mut answer = json!({
        "move": outcome.best_notation,
        "full": outcome.best_full,
        "score": outcome.score,
        "pv": outcome.pv,
        "lines": outcome.lines,
        "depth": outcome.depth,
    });
    if let Some(seats) = claimed {
        answer["seats"] = seats;
    }
    Ok(Json(answer))
}

pub async fn pdn(State(app): App, Path(id): Path<String>) -> AppResult<impl IntoResponse> {
    let slot = app.game(&id).await?;
    let guard = slot.lock_owned().await;
    let (variant, text) = app
        .work
        .run(None, move || {
            (guard.session.meta().variant.clone(), guard.session.pdn())
        })
        .await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"damspel-{variant}-{id}.pdn\""),
            ),
        ],
        text,
    ))
}

pub async fn events(
    State(app): App,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> AppResult<Sse<impl tokio_stream::Stream<Item = Result<Event, Infallible>>>> {
    app.game(&id).await?;
    app.check_flag(&id).await?;
    // The seats the listener holds: between two players, each one's searches reach that one
    // only (`think`).
    let listener = Presented::from_events_cookie(&headers);
    // Subscribe first, so that no change between the first state and the stream is missed.
    let updates = app
        .events
        .subscribe(&id, listener)
        .map(|(kind, data)| Ok(Event::default().event(kind).data(&*data)));
    let first = shown_state(&app, &id).await?.to_string();
    let initial = tokio_stream::once(Ok(Event::default().event("state").data(first)));
    Ok(Sse::new(initial.chain(updates)).keep_alive(KeepAlive::default()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckPosition {
    variant: String,
    fen: String,
}

pub async fn check_position(
    State(app): App,
    Body(body): Body<CheckPosition>,
) -> AppResult<Json<Value>> {
    let v = app.variant(&body.variant)?;
    let fen = app
        .work
        .run(None, move || check_fen(&v, &body.fen))
        .await??;
    Ok(Json(json!({"ok": true, "fen": fen})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablebaseQuery {
    variant: String,
    fen: String,
}

/// `GET /api/tablebase?variant=ID&fen=FEN`: the endgame tables' verdict (tables.rs).
pub async fn tablebase(
    State(app): App,
    query: Result<axum::extract::Query<TablebaseQuery>, axum::extract::rejection::QueryRejection>,
) -> AppResult<Json<Value>> {
    let q = query.map_err(|e| ApiError::bad_request(e.body_text()))?.0;
    if q.fen.len() > MAX_FEN {
        return Err(ApiError::unprocessable(format!(
            "a FEN may have at most {MAX_FEN} characters"
        )));
    }
    let v = app.variant(&q.variant)?;
    let dir = app.tb_dir.clone();
    let answer = app
        .work
        .run(None, move || crate::tables::verdict(&dir, &v, &q.fen))
        .await??;
    Ok(Json(answer))
}

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

// ---- Playing a person: resign, draw offers, joining by invitation (friend.rs) ----

/// The side a request acts for: the one seat it holds, or with both (one browser playing both
/// sides) the side to move at the end of the main line.
fn acting_side(s: &dyn Session, who: &Presented) -> AppResult<Color> {
    let keys = &s.meta().keys;
    match (who.holds(keys, Color::White), who.holds(keys, Color::Black)) {
        (true, true) => Ok(s.main_side_to_move()),
        (true, false) => Ok(Color::White),
        (false, true) => Ok(Color::Black),
        (false, false) => Err(seats::watching()),
    }
}

fn check_not_over(s: &dyn Session) -> AppResult<()> {
    if let Some(end) = &s.meta().play.ending {
        return Err(ApiError::conflict(format!(
            "the game is over: {}",
            end.reason
        )));
    }
    if s.main_over() {
        return Err(ApiError::conflict("the game is over on the board"));
    }
    Ok(())
}

pub async fn resign(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
) -> AppResult<Json<Value>> {
    let me = who.clone();
    Ok(Json(
        app.change(&id, who, Need::AnySeat, move |s| {
            check_not_over(s)?;
            let side = acting_side(s, &me)?;
            let plies = s.main_plies();
            s.meta_mut().play.ending = Some(friend::Ending::win(
                !side,
                friend::How::Resignation,
                format!("{} wins: {side} resigned", !side),
                plies,
            ));
            Ok(())
        })
        .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawAction {
    /// offer, accept or decline.
    action: String,
}

pub async fn draw(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    Body(body): Body<DrawAction>,
) -> AppResult<Json<Value>> {
    let me = who.clone();
    Ok(Json(
        app.change(&id, who, Need::AnySeat, move |s| {
            check_not_over(s)?;
            let side = acting_side(s, &me)?;
            let offer = s.meta().play.draw_offer;
            let other: friend::Side = (!side).into();
            let plies = s.main_plies();
            let seat_of = |c: Color| {
                if c == Color::White {
                    s.meta().white
                } else {
                    s.meta().black
                }
            };
            match (body.action.as_str(), offer) {
                // Offering when the other side has offered is accepting.
                ("offer" | "accept", Some(o)) if o == other => {
                    let meta = s.meta_mut();
                    meta.play.draw_offer = None;
                    meta.play.ending = Some(friend::Ending::draw(
                        friend::How::Agreement,
                        "draw by agreement".to_string(),
                        plies,
                    ));
                    Ok(())
                }
                ("offer", _) if seat_of(!side) == Seat::Engine => Err(ApiError::conflict(
                    "the engine plays on: it does not take draw offers",
                )),
                ("offer", Some(_)) => Err(ApiError::conflict("your draw offer is on the table")),
                ("offer", None) => {
                    s.meta_mut().play.draw_offer = Some(side.into());
                    Ok(())
                }
                ("accept" | "decline", _) if offer != Some(other) => Err(ApiError::conflict(
                    "there is no draw offer from your opponent",
                )),
                ("decline", _) => {
                    s.meta_mut().play.draw_offer = None;
                    Ok(())
                }
                (other, _) => Err(ApiError::unprocessable(format!(
                    "action must be offer, accept or decline, not `{other}`"
                ))),
            }
        })
        .await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Join {
    /// The invitation's token (from the link).
    invite: String,
}

/// Takes the free seat of a friend's game with its invitation: once. The seat's secret is in
/// the answer's `seats`, as at creation.
pub async fn join(
    State(app): App,
    Path(id): Path<String>,
    Body(body): Body<Join>,
) -> AppResult<Json<Value>> {
    let secret = seats::new_secret();
    let hash = seats::hash(&secret);
    let taken: Arc<Mutex<Option<Color>>> = Arc::default();
    let seat = taken.clone();
    let state = app
        .change(&id, Presented::default(), Need::Anyone, move |s| {
            let Some(open) = s.meta().invite.clone() else {
                let meta = s.meta();
                let two_players = [Color::White, Color::Black]
                    .iter()
                    .all(|&c| controllers(meta).contains(&c) && meta.keys.get(c).is_some());
                return Err(ApiError::conflict(if two_players {
                    "the invitation was used already: the seat is taken, you can watch"
                } else {
                    "this game has no invitation to join: you can watch"
                }));
            };
            let (color, wanted) = open.split_once(':').unwrap_or(("", ""));
            let color = match color {
                "white" => Color::White,
                "black" => Color::Black,
                _ => return Err(ApiError::internal("the stored invitation is damaged")),
            };
            if body.invite.len() > 128 || seats::hash(&body.invite) != wanted {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    "this is not the game's invitation: you can watch",
                ));
            }
            let meta = s.meta_mut();
            meta.invite = None;
            meta.keys.set(color, hash);
            *seat.lock().unwrap_or_else(|e| e.into_inner()) = Some(color);
            Ok(())
        })
        .await?;
    let color = taken
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .ok_or_else(|| ApiError::internal("no seat was taken"))?;
    Ok(Json(with_seats(state, &[(color, secret)])))
}
