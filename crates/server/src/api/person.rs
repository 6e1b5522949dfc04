//! Playing a person: resigning, draw offers, and joining a game by invitation (friend.rs).

use super::*;

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
                    "action must be offer, accept or decline, not `{}`",
                    damspel_rules::quoted(other)
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
            // (Whether both seats are held told a used invitation from none: a game between
            // two people made without one was said to have had its invitation used.)
            let open = match s.meta().invite.clone() {
                Some(used) if used == session::INVITE_USED => {
                    return Err(ApiError::conflict(
                        "the invitation was used already: the seat is taken, you can watch",
                    ))
                }
                Some(open) => open,
                None => {
                    return Err(ApiError::conflict(
                        "this game has no invitation to join: you can watch",
                    ))
                }
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
            meta.invite = Some(session::INVITE_USED.to_string());
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
