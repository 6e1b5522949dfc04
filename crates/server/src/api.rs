//! The JSON API (docs/api.md): thin handlers over the sessions, the store and the engine.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use damspel_notation::pdn::read_game;
use damspel_rules::describe::{catalogue_order, family_description, FAMILIES};
use damspel_rules::{with_rules, Catalogue, Position, Squares, Variant};
use rand::RngExt;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, Semaphore};
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

use crate::error::ApiError;
use crate::session::{self, Meta, Seat, Session};
use crate::store::{Row, Store};

/// Longest search a request may ask for.
pub const MAX_ENGINE_TIME: f64 = 10.0;

/// A game's session, locked while a request works on it.
type SharedSession = Arc<tokio::sync::Mutex<Box<dyn Session>>>;

/// Shared by every request.
pub struct AppState {
    pub catalogue: Catalogue,
    pub store: Store,
    sessions: Mutex<HashMap<String, SharedSession>>,
    events: Mutex<HashMap<String, broadcast::Sender<(String, Value)>>>,
    /// Bounds the searches running at once.
    searches: Semaphore,
    /// Searches waiting for a turn (bounded by `MAX_WAITING_SEARCHES`).
    waiting: AtomicUsize,
}

/// Searches that may wait for a free slot; more get a 503 at once.
pub const MAX_WAITING_SEARCHES: usize = 64;
/// Longest wait for a free slot before a search request gets a 503.
const MAX_SEARCH_WAIT: Duration = Duration::from_secs(60);

impl AppState {
    pub fn new(catalogue: Catalogue, store: Store, concurrent_searches: usize) -> AppState {
        AppState {
            catalogue,
            store,
            sessions: Mutex::new(HashMap::new()),
            events: Mutex::new(HashMap::new()),
            searches: Semaphore::new(concurrent_searches.max(1)),
            waiting: AtomicUsize::new(0),
        }
    }

    fn sender(&self, id: &str) -> broadcast::Sender<(String, Value)> {
        let mut events = self.events.lock().expect("events lock");
        events
            .entry(id.to_string())
            .or_insert_with(|| broadcast::channel(64).0)
            .clone()
    }

    fn publish(&self, id: &str, kind: &str, data: Value) {
        // Nobody listening is fine.
        let _ = self.sender(id).send((kind.to_string(), data));
    }

    fn variant(&self, id: &str) -> Result<Variant, ApiError> {
        self.catalogue
            .get(id)
            .map_err(|e| ApiError::unprocessable(e.to_string()))
    }

    /// The session of a game, loaded from the store on first use.
    async fn session(
        &self,
        id: &str,
    ) -> Result<Arc<tokio::sync::Mutex<Box<dyn Session>>>, ApiError> {
        if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ApiError::not_found(format!("no game `{id}`")));
        }
        if let Some(s) = self.sessions.lock().expect("sessions lock").get(id) {
            return Ok(s.clone());
        }
        let row = self
            .store
            .load(id)?
            .ok_or_else(|| ApiError::not_found(format!("no game `{id}`")))?;
        let variant = self.variant(&row.meta.variant)?;
        let session = session::open(variant, row.meta, &row.moves, &row.redo)?;
        let mut sessions = self.sessions.lock().expect("sessions lock");
        Ok(sessions
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(session)))
            .clone())
    }

    /// Writes a session to the store and tells the listeners.
    fn commit(&self, session: &mut dyn Session) -> Result<Value, ApiError> {
        session.meta_mut().updated = now();
        let (moves, redo) = session.moves_full();
        let outcome = session.outcome_json();
        self.store.save(&Row {
            meta: session.meta().clone(),
            moves,
            redo,
            result: outcome.as_ref().map(|o| o.result.to_string()),
            reason: outcome.map(|o| o.reason),
        })?;
        let state =
            serde_json::to_value(session.state()).map_err(|e| ApiError::internal(e.to_string()))?;
        self.publish(&session.meta().id, "state", state.clone());
        Ok(state)
    }
}

pub fn now() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| time::OffsetDateTime::now_utc())
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// JSON bodies whose errors are answered as `{"error": ...}` with a 4xx.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(match rejection {
                JsonRejection::MissingJsonContentType(_) => ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "send the body as JSON with Content-Type: application/json",
                ),
                other => ApiError::bad_request(other.body_text()),
            }),
        }
    }
}

/// An optional JSON body: an empty body gives the default.
pub struct OptionalBody<T>(pub T);

impl<T: DeserializeOwned + Default, S: Send + Sync> FromRequest<S> for OptionalBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::bad_request(e.body_text()))?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalBody(T::default()));
        }
        serde_json::from_slice(&bytes)
            .map(OptionalBody)
            .map_err(|e| ApiError::bad_request(format!("bad JSON body: {e}")))
    }
}

type AppResult<T> = Result<T, ApiError>;
type Shared = State<Arc<AppState>>;

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

pub async fn variants(State(app): Shared) -> AppResult<Json<Value>> {
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

pub async fn variant(State(app): Shared, Path(id): Path<String>) -> AppResult<Json<Value>> {
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
    /// Required, except for a PDN import whose Variant (or GameType) tag names the variant.
    variant: Option<String>,
    fen: Option<String>,
    pdn: Option<String>,
    #[serde(default = "human")]
    white: Seat,
    #[serde(default = "engine")]
    black: Seat,
    engine_time: Option<f64>,
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

/// The canonical FEN of a FEN text, or what is wrong with it.
fn check_fen(v: &Variant, fen: &str) -> AppResult<String> {
    with_rules!(v.clone(), |rules| {
        let g = &rules.variant().geometry;
        let setup = damspel_notation::parse_fen(g, fen)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let pos = Position::from_setup(&rules, &setup)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        Ok(damspel_notation::write_fen(g, &pos))
    })
}

async fn create(app: &AppState, body: NewGame) -> AppResult<(StatusCode, Json<Value>)> {
    let pdn = match &body.pdn {
        Some(text) => Some(read_game(text).map_err(|e| ApiError::unprocessable(e.to_string()))?),
        None => None,
    };
    // A PDN game says which variant it is; that wins over the variant picked in the request.
    let tagged = pdn.as_ref().and_then(|game| {
        game.tag("Variant")
            .filter(|id| app.catalogue.get(id).is_ok())
            .map(str::to_string)
            .or_else(|| game.tag("GameType").and_then(variant_of_game_type))
    });
    let id = tagged
        .or(body.variant.clone())
        .ok_or_else(|| ApiError::unprocessable("a variant is needed (`variant`)"))?;
    let v = app.variant(&id)?;
    let engine_time = engine_time(body.engine_time)?;
    let (start_fen, moves) = match (&body.fen, pdn) {
        (Some(_), Some(_)) => return Err(ApiError::unprocessable("give a fen or a pdn, not both")),
        (None, Some(game)) => {
            let fen = match game.tag("FEN") {
                Some(fen) => check_fen(&v, fen)?,
                None => check_fen(&v, &start_fen_of(&v))?,
            };
            (fen, game.moves)
        }
        (Some(fen), None) => (check_fen(&v, fen)?, Vec::new()),
        (None, None) => (start_fen_of(&v), Vec::new()),
    };
    let id: String = {
        let mut rng = rand::rng();
        (0..12)
            .map(|_| char::from(b"abcdefghijkmnpqrstuvwxyz23456789"[rng.random_range(0..32)]))
            .collect()
    };
    let stamp = now();
    let meta = Meta {
        id: id.clone(),
        variant: v.id.clone(),
        white: body.white,
        black: body.black,
        engine_time,
        start_fen,
        created: stamp.clone(),
        updated: stamp,
    };
    let mut session = session::open(v, meta, &[], &[])?;
    for (i, text) in moves.iter().enumerate() {
        session.play(text).map_err(|e| {
            ApiError::unprocessable(format!(
                "move {} (`{text}`) of the PDN: {}",
                i + 1,
                e.message
            ))
        })?;
    }
    let state = app.commit(session.as_mut())?;
    app.sessions
        .lock()
        .expect("sessions lock")
        .insert(id, Arc::new(tokio::sync::Mutex::new(session)));
    Ok((StatusCode::CREATED, Json(state)))
}

fn start_fen_of(v: &Variant) -> String {
    with_rules!(v.clone(), |rules| damspel_notation::write_fen(
        &rules.variant().geometry,
        &Position::start(&rules)
    ))
}

pub async fn new_game(
    State(app): Shared,
    Body(body): Body<NewGame>,
) -> AppResult<(StatusCode, Json<Value>)> {
    create(&app, body).await
}

pub async fn import(
    State(app): Shared,
    Body(body): Body<NewGame>,
) -> AppResult<(StatusCode, Json<Value>)> {
    if body.fen.is_none() && body.pdn.is_none() {
        return Err(ApiError::unprocessable("import needs a pdn or a fen"));
    }
    create(&app, body).await
}

pub async fn list(State(app): Shared) -> AppResult<Json<Value>> {
    Ok(Json(Value::Array(app.store.list(500)?)))
}

pub async fn game(State(app): Shared, Path(id): Path<String>) -> AppResult<Json<Value>> {
    let session = app.session(&id).await?;
    let s = session.lock().await;
    Ok(Json(
        serde_json::to_value(s.state()).map_err(|e| ApiError::internal(e.to_string()))?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayMove {
    #[serde(rename = "move")]
    text: String,
}

pub async fn play(
    State(app): Shared,
    Path(id): Path<String>,
    Body(body): Body<PlayMove>,
) -> AppResult<Json<Value>> {
    let session = app.session(&id).await?;
    let mut s = session.lock().await;
    s.play(&body.text)?;
    Ok(Json(app.commit(s.as_mut())?))
}

pub async fn undo(State(app): Shared, Path(id): Path<String>) -> AppResult<Json<Value>> {
    let session = app.session(&id).await?;
    let mut s = session.lock().await;
    s.undo()?;
    Ok(Json(app.commit(s.as_mut())?))
}

pub async fn redo(State(app): Shared, Path(id): Path<String>) -> AppResult<Json<Value>> {
    let session = app.session(&id).await?;
    let mut s = session.lock().await;
    s.redo()?;
    Ok(Json(app.commit(s.as_mut())?))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Think {
    time: Option<f64>,
}

/// A turn to search: at once if a slot is free, else after the searches ahead; a 503 when too
/// many are waiting or the wait is too long, so that requests never pile up without bound.
async fn wait_for_search_slot(app: &AppState) -> AppResult<tokio::sync::SemaphorePermit<'_>> {
    let busy = || {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the engine is busy with other games; try again in a moment",
        )
    };
    if let Ok(permit) = app.searches.try_acquire() {
        return Ok(permit);
    }
    if app.waiting.fetch_add(1, Ordering::SeqCst) >= MAX_WAITING_SEARCHES {
        app.waiting.fetch_sub(1, Ordering::SeqCst);
        return Err(busy());
    }
    let permit = tokio::time::timeout(MAX_SEARCH_WAIT, app.searches.acquire()).await;
    app.waiting.fetch_sub(1, Ordering::SeqCst);
    match permit {
        Ok(Ok(permit)) => Ok(permit),
        Ok(Err(_)) => Err(ApiError::internal("the server is shutting down")),
        Err(_) => Err(busy()),
    }
}

/// Runs a search on the game's current position, streaming its progress.
async fn think(
    app: &Arc<AppState>,
    id: &str,
    time: Option<f64>,
) -> AppResult<(
    session::SearchOutcome,
    Arc<tokio::sync::Mutex<Box<dyn Session>>>,
)> {
    let session = app.session(id).await?;
    let job = {
        let s = session.lock().await;
        if let Some(o) = s.outcome_json() {
            return Err(ApiError::conflict(format!(
                "the game is over: {}",
                o.reason
            )));
        }
        let time = match time {
            Some(_) => engine_time(time)?,
            None => s.meta().engine_time,
        };
        s.search_job(Duration::from_secs_f64(time))
    };
    let _permit = wait_for_search_slot(app).await?;
    let sender = app.sender(id);
    let outcome = tokio::task::spawn_blocking(move || {
        job(&mut |info| {
            let _ = sender.send(("info".to_string(), info));
        })
    })
    .await
    .map_err(|e| ApiError::internal(format!("search failed: {e}")))?;
    Ok((outcome, session))
}

pub async fn engine_move(
    State(app): Shared,
    Path(id): Path<String>,
    OptionalBody(body): OptionalBody<Think>,
) -> AppResult<Json<Value>> {
    let time = body.time;
    let (outcome, session) = think(&app, &id, time).await?;
    let mut s = session.lock().await;
    if s.position_hash() != outcome.position_hash {
        return Err(ApiError::conflict("the position changed during the search"));
    }
    let best = outcome
        .best_full
        .ok_or_else(|| ApiError::conflict("there is no legal move"))?;
    s.play(&best)?;
    Ok(Json(app.commit(s.as_mut())?))
}

pub async fn hint(
    State(app): Shared,
    Path(id): Path<String>,
    OptionalBody(body): OptionalBody<Think>,
) -> AppResult<Json<Value>> {
    let time = body.time;
    let (outcome, _) = think(&app, &id, time).await?;
    Ok(Json(json!({
        "move": outcome.best_notation,
        "full": outcome.best_full,
        "score": outcome.score,
        "pv": outcome.pv,
    })))
}

pub async fn pdn(State(app): Shared, Path(id): Path<String>) -> AppResult<impl IntoResponse> {
    let session = app.session(&id).await?;
    let s = session.lock().await;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!(
                    "attachment; filename=\"damspel-{}-{id}.pdn\"",
                    s.meta().variant
                ),
            ),
        ],
        s.pdn(),
    ))
}

pub async fn events(
    State(app): Shared,
    Path(id): Path<String>,
) -> AppResult<Sse<impl tokio_stream::Stream<Item = Result<Event, Infallible>>>> {
    let session = app.session(&id).await?;
    let first = {
        let s = session.lock().await;
        serde_json::to_string(&s.state()).map_err(|e| ApiError::internal(e.to_string()))?
    };
    let receiver = app.sender(&id).subscribe();
    let initial = tokio_stream::once(Ok(Event::default().event("state").data(first)));
    let updates = BroadcastStream::new(receiver).filter_map(|item| {
        // A slow listener that missed messages just gets the next ones.
        item.ok()
            .map(|(kind, data)| Ok(Event::default().event(kind).data(data.to_string())))
    });
    Ok(Sse::new(initial.chain(updates)).keep_alive(KeepAlive::default()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckPosition {
    variant: String,
    fen: String,
}

pub async fn check_position(
    State(app): Shared,
    Body(body): Body<CheckPosition>,
) -> AppResult<Json<Value>> {
    let v = app.variant(&body.variant)?;
    let fen = check_fen(&v, &body.fen)?;
    Ok(Json(json!({"ok": true, "fen": fen})))
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

/// The catalogue variant of a PDN GameType tag (its first field), for the game types PDN
/// defines and Damspel has.
fn variant_of_game_type(game_type: &str) -> Option<String> {
    let number = game_type.split(',').next()?.trim();
    [
        "international",
        "american",
        "russian",
        "brazilian",
        "turkish",
    ]
    .into_iter()
    .find(|id| {
        damspel_notation::pdn::game_type(id)
            .and_then(|t| t.split(',').next())
            .is_some_and(|n| n == number)
    })
    .map(str::to_string)
}
