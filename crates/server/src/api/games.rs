//! Games: creating one (against the engine, between two people, from a FEN), importing PDN,
//! the list of games, one game's state, its PDN, its live events, and a position's check.

use super::*;

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
            "engine_time must be more than 0 and at most {MAX_ENGINE_TIME} seconds, not {}",
            Quoted(t)
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
    let recorded_text = recorded.map(|r| damspel_notation::pdn::write_result(&v, r));
    let mut session = session::open(v, meta, &[], &[], None)?;
    for (i, text) in moves.iter().enumerate() {
        session.play_recorded(text).map_err(|e| {
            ApiError::unprocessable(format!(
                "move {} (`{}`) of the PDN: {}",
                i + 1,
                damspel_rules::quoted(text),
                e.message
            ))
        })?;
    }
    // A recorded result the moves contradict (they end the game otherwise): the board's is
    // kept, and the answer says so (a file's Result tag is often wrong, or in another
    // convention).
    let mut result_differs = None;
    if session.main_over() {
        if let (Some(recorded), Some(board)) = (recorded_text, session.main_outcome_json()) {
            if recorded != "*" && recorded != board.result {
                result_differs = Some(json!({
                    "recorded": recorded,
                    "kept": board.result,
                    "reason": format!(
                        "the PDN records {recorded}, but its moves end the game {}: {}; the \
                         board's result is kept",
                        board.result, board.reason
                    ),
                }));
            }
        }
    } else {
        // A result the PDN records where the moves do not end the game (a resignation, an
        // agreed draw) ends it there, as a resignation in Damspel would: the export writes it
        // back and the end of the main line takes no more moves (variations in the past do).
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
    // What the server writes back (numbers, spaces, the tags it adds) may be longer than what
    // was read: the game is kept only if its export can be imported again.
    let size = session.pdn().len();
    if size > MAX_EXPORT {
        return Err(ApiError::unprocessable(format!(
            "the game's PDN as the server writes it would have {size} bytes, more than the \
             {MAX_EXPORT} a game may have (so that it can be imported again)"
        )));
    }
    app.save(session.as_mut())?;
    let state = state_value(session.as_ref())?;
    if let Ok(mut slot) = app.games.insert(&id, session).try_lock() {
        slot.state = Some(Arc::new(state.clone()));
    }
    let mut answer = with_seats(state, &given);
    if let Some(invite) = invite {
        answer["invite"] = invite;
    }
    if !claims.is_empty() {
        answer["claims"] = serde_json::to_value(&claims).unwrap_or_default();
    }
    if let Some(differs) = result_differs {
        answer["result_recorded"] = differs;
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

/// Ends the game on time if its clock ran out, before it is shown. A database that cannot take
/// the flag fall now (503) does not keep the game from being shown: the clock's timer tries
/// again, and the stream tells the fall. (A page's event stream, answered 503 when it
/// reconnected, was never opened again: `EventSource` gives up on any status but 200.)
async fn settle_flag(app: &Arc<AppState>, id: &str) -> AppResult<()> {
    match app.check_flag(id).await {
        Err(e) if e.status == StatusCode::SERVICE_UNAVAILABLE => Ok(()),
        other => other,
    }
}

pub async fn game(
    State(app): App,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<View>, axum::extract::rejection::QueryRejection>,
) -> AppResult<Json<Value>> {
    let view = query.map_err(|e| ApiError::bad_request(e.body_text()))?.0;
    // A clock that ran out while nobody was connected (a restart) ends the game now.
    settle_flag(&app, &id).await?;
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
    settle_flag(&app, &id).await?;
    // The seats the listener holds: between two players, each one's searches reach that one
    // only (`think`).
    let listener = Presented::from_events_cookie(&headers);
    // A stream holds its place until it ends: past the cap, new ones are refused, so that
    // listeners never take every connection's place (the oldest connections, streams
    // included, are closed at the connection cap: transport.rs).
    let place =
        app.event_streams.clone().try_acquire_owned().map_err(|_| {
            ApiError::unavailable("too many event streams are open; try again later")
        })?;
    // Subscribe first, so that no change between the first state and the stream is missed.
    let updates = app
        .events
        .subscribe(&id, listener)
        .map(move |(kind, data)| {
            let _held = &place;
            Ok(Event::default().event(kind).data(&*data))
        });
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
