//! Game review on the server (docs/api.md, "Game review"): one background review per game, run
//! on the searches pool with its permit held for the whole review, progress published on the
//! game's event stream as `review` events, stoppable by `DELETE`, and the finished review kept in
//! the store so that it survives a restart.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use damspel_notation::pdn::read_game;
use damspel_review::{review_game, Budget, Options, ReviewError, Stopper};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::{AppState, OptionalBody};
use crate::error::{ApiError, Quoted};
use crate::seats::{self, Presented};

/// Seconds per position: the default, and the most a request may ask for.
pub const REVIEW_TIME: f64 = 0.2;
pub const MAX_REVIEW_TIME: f64 = 2.0;
/// The most a whole review may take (positions × time), in seconds.
pub const MAX_REVIEW_TOTAL: f64 = 600.0;
/// Hash table of a review's engine, in MiB.
const REVIEW_HASH_MB: usize = 32;

/// The reviews running now, by game.
#[derive(Default)]
pub struct Reviews {
    running: Mutex<HashMap<String, Running>>,
}

struct Running {
    stopper: Stopper,
    done: usize,
    total: usize,
    /// The asker's seat (its hash) when the review is that player's own (`audience`).
    seat: Option<String>,
}

impl Reviews {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops every review (the server is stopping).
    pub fn stop_all(&self) {
        for r in self.map().values() {
            r.stopper.stop();
        }
    }

    fn progress(&self, id: &str) -> Option<(usize, usize, Option<String>)> {
        self.map()
            .get(id)
            .map(|r| (r.done, r.total, r.seat.clone()))
    }
}

impl Drop for Reviews {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// How a review ended.
enum Ended {
    Done,
    Stopped,
    Failed(String),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Start {
    time: Option<f64>,
}

type App = State<Arc<AppState>>;

/// `POST /api/games/{id}/review`: starts a review (202), unless one runs already (409).
pub async fn start(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
    OptionalBody(body): OptionalBody<Start>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let time = body.time.unwrap_or(REVIEW_TIME);
    if !(time.is_finite() && (0.01..=MAX_REVIEW_TIME).contains(&time)) {
        return Err(ApiError::unprocessable(format!(
            "time must be between 0.01 and {MAX_REVIEW_TIME} seconds per position, not {}",
            Quoted(time)
        )));
    }
    let slot = app.game(&id).await?;
    let guard = slot.lock_owned().await;
    if !who.holds_any(&guard.session.meta().keys) {
        return Err(seats::watching());
    }
    // The game as PDN (a move generation per ply: not on this thread).
    let (variant, pdn, moves, seat) = app
        .work
        .run(None, move || {
            let s = &guard.session;
            (
                s.meta().variant.clone(),
                s.main_line_pdn(),
                // The game is its main line, whichever node is shown (the PDN is its main
                // line too): the shown line's moves made the count, and the staleness, wrong.
                s.main_line().join(" "),
                audience(s.as_ref(), &who),
            )
        })
        .await?;
    let plies = moves.split_whitespace().count();
    if plies == 0 {
        return Err(ApiError::unprocessable("the game has no moves to review"));
    }
    let total = plies + 1;
    if total as f64 * time > MAX_REVIEW_TOTAL {
        return Err(ApiError::unprocessable(format!(
            "{total} positions at {time} s each would take longer than {MAX_REVIEW_TOTAL} s: \
             ask for less time per position"
        )));
    }
    let variant = app.variant(&variant)?;
    // The main line alone: variations and comments, which a review does not read, could make
    // the whole too long or too deep to read back.
    let game = read_game(&pdn).map_err(|e| ApiError::internal(e.to_string()))?;
    let stopper = Stopper::new();
    {
        let mut running = app.reviews.map();
        if running.contains_key(&id) {
            return Err(ApiError::conflict(
                "a review of this game is running already",
            ));
        }
        running.insert(
            id.clone(),
            Running {
                stopper: stopper.clone(),
                done: 0,
                total,
                seat: seat.clone(),
            },
        );
    }
    // To every listener, or to the asker's only (`audience`).
    let progress = app.events.progress_sender(&id, seat.clone());
    progress.send(
        "review",
        &json!({"status": "queued", "done": 0, "total": total}),
    );
    let options = Options {
        budget: Budget::Time(Duration::from_secs_f64(time)),
        hash_mb: REVIEW_HASH_MB,
        threads: 1,
    };
    let task_app = app.clone();
    let task_id = id.clone();
    tokio::spawn(async move {
        let app = task_app;
        let id = task_id;
        let work_app = app.clone();
        let work_id = id.clone();
        let work_progress = progress.clone();
        let stored_seat = seat;
        let outcome = app
            .searches
            .run(None, move || {
                let (app, id) = (work_app, work_id);
                work_progress.send(
                    "review",
                    &json!({"status": "running", "done": 0, "total": total}),
                );
                let result = review_game(variant, &game, &options, &stopper, &mut |p| {
                    if let Some(r) = app.reviews.map().get_mut(&id) {
                        r.done = p.done;
                    }
                    work_progress.send(
                        "review",
                        &json!({
                            "status": "running", "done": p.done, "total": p.total,
                            "eval": p.eval, "ply": p.ply,
                        }),
                    );
                });
                match result {
                    Ok(review) => {
                        let mut value = json!({"time": time, "moves": moves, "review": review});
                        if let Some(seat) = &stored_seat {
                            value["seat"] = json!(seat);
                        }
                        match app.store.save_review(&id, &value.to_string()) {
                            Ok(()) => Ended::Done,
                            Err(e) => Ended::Failed(e.message),
                        }
                    }
                    Err(ReviewError::Stopped) => Ended::Stopped,
                    Err(e) => Ended::Failed(e.to_string()),
                }
            })
            .await;
        app.reviews.map().remove(&id);
        let event = match outcome {
            Ok(Ended::Done) => json!({"status": "done", "done": total, "total": total}),
            Ok(Ended::Stopped) => json!({"status": "cancelled"}),
            Ok(Ended::Failed(e)) => json!({"status": "failed", "error": e}),
            Err(e) => json!({"status": "failed", "error": e.message}),
        };
        progress.send("review", &event);
    });
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"status": "queued", "done": 0, "total": total, "time": time})),
    ))
}

/// `DELETE /api/games/{id}/review`: stops the running review.
pub async fn cancel(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
) -> Result<Json<Value>, ApiError> {
    let slot = app.game(&id).await?;
    if !who.holds_any(&slot.lock().await.session.meta().keys) {
        return Err(seats::watching());
    }
    match app.reviews.map().get(&id) {
        // A player's own review (`audience`) is stopped by that player only.
        Some(r) if r.seat.as_deref().is_some_and(|s| !who.has_hash(s)) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this review is the other player's own: only they may stop it",
        )),
        Some(r) => {
            r.stopper.stop();
            Ok(Json(json!({"status": "cancelling"})))
        }
        None => Err(ApiError::not_found("no review of this game is running")),
    }
}

/// The seat (its hash) a review is private to: in a game between two players that is not over,
/// the asker's, as for hints and analysis (api/engine.rs `think`); None: everyone's.
fn audience(s: &dyn crate::session::Session, who: &Presented) -> Option<String> {
    let meta = s.meta();
    if !crate::api::between_two(meta, who) || s.main_outcome_json().is_some() {
        return None;
    }
    crate::api::controllers(meta)
        .into_iter()
        .find(|&c| who.holds(&meta.keys, c))
        .and_then(|c| meta.keys.get(c).cloned())
}

/// Whether a review private to `seat` may be shown to `who` now: to its asker, or to anyone
/// once the game is over.
fn shown_to(seat: Option<&str>, who: &Presented, over: bool) -> Result<(), ApiError> {
    match seat {
        Some(seat) if !over && !who.has_hash(seat) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "in a game between two players a review is its asker's own until the game is over \
             (as hints are)",
        )),
        _ => Ok(()),
    }
}

/// `GET /api/games/{id}/review`: the progress of a running review, else the stored one.
pub async fn get(
    State(app): App,
    Path(id): Path<String>,
    who: Presented,
) -> Result<Json<Value>, ApiError> {
    // Whether the game is over, and its main line (a move generation per ply: not on this
    // thread).
    let slot = app.game(&id).await?;
    let guard = slot.lock_owned().await;
    let (over, current) = app
        .work
        .run(None, move || {
            let s = &guard.session;
            (s.main_outcome_json().is_some(), s.main_line().join(" "))
        })
        .await?;
    if let Some((done, total, seat)) = app.reviews.progress(&id) {
        shown_to(seat.as_deref(), &who, over)?;
        return Ok(Json(
            json!({"status": "running", "done": done, "total": total}),
        ));
    }
    let worker = app.clone();
    let owned = id.clone();
    let stored = app
        .work
        .run(None, move || worker.store.load_review(&owned))
        .await??;
    let Some(text) = stored else {
        return Err(ApiError::not_found("this game has not been reviewed"));
    };
    let mut value: Value = serde_json::from_str(&text)
        .map_err(|e| ApiError::internal(format!("the stored review is damaged: {e}")))?;
    let seat = value
        .as_object_mut()
        .and_then(|v| v.remove("seat"))
        .and_then(|s| s.as_str().map(str::to_string));
    shown_to(seat.as_deref(), &who, over)?;
    // A review of fewer (or other) moves than the game has now is shown, but marked stale.
    let stale = value["moves"].as_str() != Some(current.as_str());
    value["status"] = json!("done");
    value["stale"] = json!(stale);
    Ok(Json(value))
}
