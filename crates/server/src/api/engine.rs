//! The engine at work for a game: its move, a hint, analysis lines, and the endgame tables'
//! verdict on a position.

use super::*;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Think {
    time: Option<f64>,
    /// Lines to find (MultiPV), 1 to `MAX_LINES`; hint and analyse only.
    lines: Option<usize>,
    /// The node whose position to search; hint and analyse only (default: see `searched`).
    node: Option<usize>,
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

/// The node a search is of: the one asked for, else where a move sent without `from` would be
/// played (`played_at`): the node the game shows, or between two players the end of the game.
/// (Between two players the node shown may be the other player's variation: a hint asked
/// without a node searched it, and its answer was a move of a position the asker never saw.)
fn searched(s: &dyn Session, who: &Presented, asked: Option<usize>) -> usize {
    asked.unwrap_or_else(|| played_at(s, who))
}

/// Runs a search on the position of node `at` (`searched`), streaming its progress (each
/// `info` message names the node searched). The search holds its slot until it has returned;
/// a client that goes away stops it.
async fn think(
    app: &Arc<AppState>,
    id: &str,
    who: &Presented,
    wanted: Wanted,
    asked: Option<usize>,
) -> AppResult<session::SearchOutcome> {
    let slot = app.game(id).await?;
    let cancel = Cancel::new();
    let (node, audience);
    let job = {
        let guard = slot.lock().await;
        let shown = guard.session.as_ref();
        let at = searched(shown, who, asked);
        // Another node than the one the game shows is searched in a copy that shows it: the
        // game stays where it is for everyone else.
        let view;
        let s: &dyn Session = if at == shown.current() {
            shown
        } else {
            let mut copy = shown.clone_box();
            copy.goto(at)?;
            view = copy;
            view.as_ref()
        };
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
            // The same answer as for a move out of turn.
            return Err(not_yours(s.meta(), who, s.side_to_move()));
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
                    "time must be more than 0 and at most {} seconds, not {}",
                    wanted.max_time,
                    Quoted(t)
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
        node = at;
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
            // When the search began, after any wait for a slot: what an engine's clock is
            // charged from.
            let started = friend::now_ms();
            let mut outcome = job(&mut |mut info| {
                info["node"] = json!(node);
                progress.send("info", &info);
            });
            outcome.started_ms = started;
            outcome
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
    if body.node.is_some() {
        return Err(ApiError::unprocessable(
            "the engine's move is played at the end of the game: it takes no node",
        ));
    }
    let wanted = Wanted {
        time: body.time,
        lines: 1,
        max_time: MAX_ENGINE_TIME,
        game_move: true,
    };
    let outcome = think(&app, &id, &who, wanted, None).await?;
    let mover = who.clone();
    // `Play(None)`: the seat of the side to move where the move is played (`played_at`).
    let mut state = app
        .change(&id, who, Need::Play(None), move |s| {
            // Between two players, at the end of the game whatever node it shows (the other
            // player's variation, say), as a move sent without `from`.
            let at = played_at(s, &mover);
            if at != s.current() {
                s.goto(at)?;
            }
            if s.position_hash() != outcome.position_hash || !s.at_main_end() {
                return Err(ApiError::conflict("the position changed during the search"));
            }
            // An engine seat's clock runs from the start of its search to its move only.
            if friend::engine_clock_from(s, outcome.started_ms, friend::now_ms()) {
                return Ok(());
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
    let outcome = think(app, id, &who, wanted, body.node).await?;
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
