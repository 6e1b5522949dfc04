//! The moves of a game and its tree: playing a move, going to a node, promoting, deleting and
//! annotating variations, undo and redo.

use super::*;

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
/// the other's page there, and made the other's move sent without `from` a variation. There
/// `undo` and `redo` step from the end of the game (a view has no node of its own on the
/// server); the node the game shows may be the other player's variation.
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
            let end = copy.main_end();
            copy.goto(end)?;
            step(copy.as_mut())?;
            state_value(copy.as_ref()).map(Json)
        })
        .await?
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
