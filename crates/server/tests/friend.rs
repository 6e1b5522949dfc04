//! Playing a friend (issue 12, items 5 and 6): a game with two human seats is shared by an
//! invitation that hands out the second seat once; resignation, draw offers and flag falls end
//! the game with a result and a reason that are stored and exported; the clock is kept by the
//! server and survives a restart. Each player here sends only its own seat's secret.

use std::time::Duration;

use crate::common::{falls_on_time, get, pdn, Scratch, TestServer};
use serde_json::{json, Value};

async fn post_as(
    c: &reqwest::Client,
    url: &str,
    secret: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut r = c.post(url).json(&body);
    if let Some(secret) = secret {
        r = r.header("x-damspel-seat", secret);
    }
    let r = r.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Creates a Turkish game against the engine; returns the server's answer.
async fn engine_game(c: &reqwest::Client, s: &TestServer) -> Value {
    let (status, created) =
        post_as(c, &s.url("/api/games"), None, json!({"variant": "turkish"})).await;
    assert_eq!(status, 201, "{created}");
    created
}

struct Friends {
    id: String,
    white: String,
    black: String,
}

/// Creates a friend's game (White creates it) and lets Black join by the invitation.
async fn friends(c: &reqwest::Client, s: &TestServer, extra: Value) -> (Friends, Value) {
    let mut body =
        json!({"variant": "turkish", "white": "human", "black": "human", "friend": true});
    if let (Some(b), Value::Object(more)) = (body.as_object_mut(), extra) {
        b.extend(more);
    }
    let (status, created) = post_as(c, &s.url("/api/games"), None, body).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    // The creator holds one seat only.
    let seats = created["seats"].as_object().unwrap();
    assert_eq!(seats.len(), 1, "{created}");
    let white = seats["white"].as_str().unwrap().to_string();
    assert_eq!(created["invite"]["seat"], "black");
    let token = created["invite"]["token"].as_str().unwrap().to_string();
    assert!(created["invite"]["link"].as_str().unwrap().contains(&token));
    let (status, joined) = post_as(
        c,
        &s.url(&format!("/api/games/{id}/join")),
        None,
        json!({ "invite": token }),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let black = joined["seats"]["black"].as_str().unwrap().to_string();
    assert!(joined["seats"].get("white").is_none());
    // The invitation works once: a second device gets a 409 and watches.
    let (status, again) = post_as(
        c,
        &s.url(&format!("/api/games/{id}/join")),
        None,
        json!({ "invite": token }),
    )
    .await;
    assert_eq!(status, 409, "{again}");
    assert!(
        again["error"].as_str().unwrap().contains("watch"),
        "{again}"
    );
    (Friends { id, white, black }, created)
}

async fn mv(
    c: &reqwest::Client,
    s: &TestServer,
    id: &str,
    secret: &str,
    text: &str,
) -> (u16, Value) {
    post_as(
        c,
        &s.url(&format!("/api/games/{id}/move")),
        Some(secret),
        json!({ "move": text }),
    )
    .await
}

#[tokio::test]
async fn two_seats_one_claim_each_player_moves_only_its_own_side() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-seats"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    // A wrong token is refused even before the seat is taken.
    let (status, _) = post_as(
        &c,
        &s.url(&format!("/api/games/{}/join", f.id)),
        None,
        json!({"invite": "nope"}),
    )
    .await;
    assert_eq!(status, 409);
    // Black cannot play White's move, nor a watcher; White can.
    assert_eq!(mv(&c, &s, &f.id, &f.black, "a3-a4").await.0, 403);
    let (status, _) = post_as(
        &c,
        &s.url(&format!("/api/games/{}/move", f.id)),
        None,
        json!({"move": "a3-a4"}),
    )
    .await;
    assert_eq!(status, 403);
    let (status, state) = mv(&c, &s, &f.id, &f.white, "a3-a4").await;
    assert_eq!(status, 200, "{state}");
    // A player out of turn is told whose move it is, not that they are watching.
    let (status, refused) = mv(&c, &s, &f.id, &f.white, "h6-h5").await;
    assert_eq!(status, 403);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("it is black's move"),
        "{refused}"
    );
    let (status, state) = mv(&c, &s, &f.id, &f.black, "h6-h5").await;
    assert_eq!(status, 200, "{state}");
    // Watchers cannot resign or offer a draw.
    for (path, body) in [("resign", json!({})), ("draw", json!({"action": "offer"}))] {
        let (status, _) = post_as(
            &c,
            &s.url(&format!("/api/games/{}/{path}", f.id)),
            None,
            body.clone(),
        )
        .await;
        assert_eq!(status, 403, "{path}");
        let (status, _) = post_as(
            &c,
            &s.url(&format!("/api/games/{}/{path}", f.id)),
            Some("not-a-seat"),
            body,
        )
        .await;
        assert_eq!(status, 403, "{path}");
    }
    s.stop().await;
}

/// `POST /engine` plays the side to move, so it needs that side's seat when a person holds it:
/// otherwise a player could have the engine move for the other (issue 10, item 4).
#[tokio::test]
async fn the_engine_moves_a_persons_side_only_for_that_person() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-engine"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    let engine = s.url(&format!("/api/games/{}/engine", f.id));
    let think = json!({"time": 0.05});
    // White to move: Black's seat may not have the engine play it, nor a watcher. A player
    // is told whose move it is, as for a move out of turn (it was told it was watching).
    let (status, refusal) = post_as(&c, &engine, Some(&f.black), think.clone()).await;
    assert_eq!(status, 403);
    let told = refusal["error"].as_str().unwrap().to_string();
    assert!(told.contains("it is white's move"), "{told}");
    let (status, refusal) = mv(&c, &s, &f.id, &f.black, "a6-a5").await;
    assert_eq!(status, 403);
    assert_eq!(refusal["error"].as_str().unwrap(), told);
    let (status, refusal) = post_as(&c, &engine, None, think.clone()).await;
    assert_eq!(status, 403);
    assert!(
        refusal["error"].as_str().unwrap().contains("watching"),
        "{refusal}"
    );
    let (status, state) = post_as(&c, &engine, Some(&f.white), think.clone()).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["side_to_move"], "black", "{state}");
    // Black to move: the same the other way round.
    assert_eq!(
        post_as(&c, &engine, Some(&f.white), think.clone()).await.0,
        403
    );
    let (status, state) = post_as(&c, &engine, Some(&f.black), think).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["side_to_move"], "white", "{state}");
    s.stop().await;
}

/// Between two players neither may take back or replace the other's moves: deleting a move of
/// the main line, or making a variation the main line, needs every player's seat (issue 10,
/// item 4: each seat is controlled only by its holder; item 5: nothing acknowledged is lost).
/// Variations stay open to both, and one person holding both seats may still rewrite.
#[tokio::test]
async fn neither_player_takes_back_or_replaces_the_others_moves() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-rewrite"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    assert_eq!(mv(&c, &s, &f.id, &f.black, "a6-a5").await.0, 200);
    let at = |path: &str| s.url(&format!("/api/games/{}/{path}", f.id));
    // White alone cannot delete Black's move, nor Black White's.
    for (secret, node) in [(&f.white, 2), (&f.black, 1)] {
        let (status, body) = post_as(&c, &at("delete"), Some(secret), json!({"node": node})).await;
        assert_eq!(status, 403, "{body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("every player's seat"),
            "{body}"
        );
    }
    // White may analyse another reply for Black (a variation), not make it the game's move.
    let (status, state) = post_as(
        &c,
        &at("move"),
        Some(&f.white),
        json!({"move": "h6-h5", "from": 1}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    let variation = state["tree"]["current"].as_u64().unwrap();
    for main in [false, true] {
        let (status, body) = post_as(
            &c,
            &at("promote"),
            Some(&f.white),
            json!({"node": variation, "main": main}),
        )
        .await;
        assert_eq!(status, 403, "{body}");
    }
    // The variation itself is White's to delete.
    let (status, state) = post_as(
        &c,
        &at("delete"),
        Some(&f.white),
        json!({"node": variation}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    let text = pdn(&c, &s, &f.id).await;
    assert!(text.contains("1. a3-a4 a6-a5 *"), "{text}");
    // One person playing both sides (both secrets) takes moves back as before.
    let (status, created) = post_as(
        &c,
        &s.url("/api/games"),
        None,
        json!({"variant": "turkish", "white": "human", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let both = format!(
        "{},{}",
        created["seats"]["white"].as_str().unwrap(),
        created["seats"]["black"].as_str().unwrap()
    );
    assert_eq!(mv(&c, &s, id, &both, "a3-a4").await.0, 200);
    assert_eq!(mv(&c, &s, id, &both, "a6-a5").await.0, 200);
    let (status, state) = post_as(
        &c,
        &s.url(&format!("/api/games/{id}/delete")),
        Some(&both),
        json!({"node": 2}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["tree"]["main_end"], 1, "{state}");
    s.stop().await;
}

/// Between two players, stepping back (goto, undo, redo) is a view for the one who does it:
/// the game stays at its last move for the other, whose move (sent without `from`) goes on with
/// it. (White's `goto` moved the game for both: Black's page was pulled to the start, and
/// Black's move was refused there.)
#[tokio::test]
async fn one_player_stepping_back_leaves_the_game_where_it_is() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-navigate"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    let at = |path: &str| s.url(&format!("/api/games/{}/{path}", f.id));
    let (status, view) = post_as(&c, &at("goto"), Some(&f.white), json!({"node": 0})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["tree"]["current"], 0, "{view}");
    // Undo and redo step from where the game is (its last move), for the one who asks.
    let (status, view) = post_as(&c, &at("undo"), Some(&f.black), json!({})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["tree"]["current"], 0, "{view}");
    let (_, game) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(game["tree"]["current"], 1, "{game}");
    assert_eq!(mv(&c, &s, &f.id, &f.black, "a6-a5").await.0, 200);
    assert!(pdn(&c, &s, &f.id).await.contains("1. a3-a4 a6-a5 *"));
    // A watcher may not step the game at all.
    let (status, body) = post_as(&c, &at("undo"), None, json!({})).await;
    assert_eq!(status, 403, "{body}");
    // White's analysis (a variation from the start) moves the node the game shows; White's
    // next move sent without `from` still goes on with the game, not into the variation.
    let (status, state) = post_as(
        &c,
        &at("move"),
        Some(&f.white),
        json!({"move": "b3-b4", "from": 0}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_ne!(
        state["tree"]["current"], state["tree"]["main_end"],
        "{state}"
    );
    // (Its only legal move: the man on a4 takes a5 and a7.)
    let (status, state) = mv(&c, &s, &f.id, &f.white, "a4xa8").await;
    assert_eq!(status, 200, "{state}");
    assert!(
        pdn(&c, &s, &f.id)
            .await
            .contains("1. a3-a4 (1. b3-b4) 1... a6-a5 2. a4xa8 *"),
        "{}",
        pdn(&c, &s, &f.id).await
    );
    s.stop().await;
}

/// Moves taken back by both players take with them what came after them: a resignation after
/// them, and the clock's times (each side has what it had after the moves kept). A resignation
/// outlived the deletion of every move, and the clock kept the times of moves no longer played.
#[tokio::test]
async fn moves_taken_back_together_take_the_ending_and_the_times_with_them() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-take-back"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({"clock": {"minutes": 5, "increment": 3}})).await;
    let (_, first) = mv(&c, &s, &f.id, &f.white, "a3-a4").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(mv(&c, &s, &f.id, &f.black, "h6-h5").await.0, 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "b3-b4").await.0, 200);
    let at = |path: &str| s.url(&format!("/api/games/{}/{path}", f.id));
    let (status, resigned) = post_as(&c, &at("resign"), Some(&f.black), json!({})).await;
    assert_eq!(status, 200, "{resigned}");
    assert_eq!(resigned["outcome"]["result"], "1-0", "{resigned}");
    // Both players take back Black's move and White's answer.
    let both = format!("{},{}", f.white, f.black);
    let (status, state) = post_as(&c, &at("delete"), Some(&both), json!({"node": 2})).await;
    assert_eq!(status, 200, "{state}");
    assert!(state["outcome"].is_null(), "{state}");
    let clock = &state["clock"];
    assert_eq!(clock["after"].as_array().unwrap().len(), 1, "{state}");
    assert_eq!(clock["white_ms"], first["clock"]["white_ms"], "{state}");
    assert_eq!(clock["black_ms"], first["clock"]["black_ms"], "{state}");
    assert_eq!(clock["running"], "black", "{state}");
    // The game goes on from there.
    assert_eq!(mv(&c, &s, &f.id, &f.black, "g6-g5").await.0, 200);
    // Every move taken back: the clock waits for the first move again.
    let (status, state) = post_as(&c, &at("delete"), Some(&both), json!({"node": 1})).await;
    assert_eq!(status, 200, "{state}");
    assert!(state["clock"].get("running").is_none(), "{state}");
    assert_eq!(state["clock"]["white_ms"], 300_000, "{state}");
    s.stop().await;
}

#[tokio::test]
async fn resignation_is_stored_and_exported() {
    let scratch = Scratch::new();
    let db = scratch.db("friend-resign");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    // Black resigns although White is to move.
    let (status, state) = post_as(
        &c,
        &s.url(&format!("/api/games/{}/resign", f.id)),
        Some(&f.black),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["outcome"]["result"], "1-0");
    assert_eq!(state["outcome"]["winner"], "white");
    assert!(state["outcome"]["reason"]
        .as_str()
        .unwrap()
        .contains("resigned"));
    // Over: no more moves, no second resignation.
    assert_eq!(mv(&c, &s, &f.id, &f.black, "h6-h5").await.0, 409);
    let (status, _) = post_as(
        &c,
        &s.url(&format!("/api/games/{}/resign", f.id)),
        Some(&f.white),
        json!({}),
    )
    .await;
    assert_eq!(status, 409);
    let text = pdn(&c, &s, &f.id).await;
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(
        text.contains("[Termination \"white wins: black resigned\"]"),
        "{text}"
    );
    s.stop().await;
    // The result survives a restart (and is in the games list).
    let s = TestServer::start(db, 1).await;
    let (_, state) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(state["outcome"]["result"], "1-0", "{state}");
    let (_, list) = get(&c, &s.url("/api/games")).await;
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == f.id.as_str())
        .unwrap();
    assert_eq!(row["result"], "1-0");
    assert_eq!(row["reason"], "white wins: black resigned");
    s.stop().await;
}

/// A game's event stream, opened as the page opens it: with the seat secrets of this browser
/// in the stream's cookie (an `EventSource` sends no header), or none (a watcher).
async fn listen(
    c: &reqwest::Client,
    s: &TestServer,
    id: &str,
    secret: Option<&str>,
) -> reqwest::Response {
    let mut r = c.get(s.url(&format!("/api/games/{id}/events")));
    if let Some(secret) = secret {
        r = r.header("cookie", format!("damspel_seat={secret}"));
    }
    let r = r.send().await.unwrap();
    assert_eq!(r.status(), 200);
    r
}

/// What a stream sends within `until` (it is read for that long, then left).
async fn heard(stream: &mut reqwest::Response, until: Duration) -> String {
    let mut seen = String::new();
    let _ = tokio::time::timeout(until, async {
        while let Ok(Some(chunk)) = stream.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    seen
}

/// Between two players a hint or an analysis is the asker's: its progress (the engine's lines
/// and score) goes to the asker's stream, not to the other player's nor a watcher's. It went to
/// every listener, and the other player's page showed it during the game. In a game against the
/// engine a watcher still sees the engine think.
#[tokio::test]
async fn a_players_search_is_shown_to_that_player_only() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-hint-stream"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    let mut white = listen(&c, &s, &f.id, Some(&f.white)).await;
    let mut black = listen(&c, &s, &f.id, Some(&f.black)).await;
    let mut watcher = listen(&c, &s, &f.id, None).await;
    let hint = s.url(&format!("/api/games/{}/hint", f.id));
    let (status, answer) = post_as(&c, &hint, Some(&f.white), json!({"time": 0.3})).await;
    assert_eq!(status, 200, "{answer}");
    let settle = Duration::from_millis(500);
    let white_heard = heard(&mut white, settle).await;
    assert!(white_heard.contains("event: info"), "{white_heard}");
    for (who, stream) in [("black", &mut black), ("a watcher", &mut watcher)] {
        let got = heard(stream, settle).await;
        assert!(got.contains("event: state"), "{who}: {got}");
        assert!(
            !got.contains("event: info"),
            "{who} heard White's hint: {got}"
        );
    }
    // Against the engine: whoever listens sees it think.
    let created = engine_game(&c, &s).await;
    let id = created["id"].as_str().unwrap();
    let mut watcher = listen(&c, &s, id, None).await;
    let (status, answer) = post_as(
        &c,
        &s.url(&format!("/api/games/{id}/hint")),
        created["seats"]["white"].as_str(),
        json!({"time": 0.3}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let got = heard(&mut watcher, settle).await;
    assert!(got.contains("event: info"), "{got}");
    s.stop().await;
}

#[tokio::test]
async fn draw_offer_reaches_the_other_seat_and_is_accepted() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-draw"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    let draw = |secret: String, action: &'static str| {
        let c = c.clone();
        let url = s.url(&format!("/api/games/{}/draw", f.id));
        async move { post_as(&c, &url, Some(&secret), json!({ "action": action })).await }
    };
    // Nothing to accept yet.
    assert_eq!(draw(f.black.clone(), "accept").await.0, 409);
    // Black listens to the game's stream, as the page does.
    let mut stream = c
        .get(s.url(&format!("/api/games/{}/events", f.id)))
        .send()
        .await
        .unwrap();
    let (status, state) = draw(f.white.clone(), "offer").await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["draw_offer"], "white");
    // The offer arrives on the stream.
    let mut seen = String::new();
    let arrived = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = stream.chunk().await.unwrap() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("\"draw_offer\":\"white\"") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(arrived, Ok(true), "{seen}");
    // White cannot accept its own offer; Black declines, White offers again, Black accepts.
    assert_eq!(draw(f.white.clone(), "accept").await.0, 409);
    let (_, state) = draw(f.black.clone(), "decline").await;
    assert!(state.get("draw_offer").is_none(), "{state}");
    assert_eq!(draw(f.white.clone(), "offer").await.0, 200);
    let (status, state) = draw(f.black.clone(), "accept").await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["outcome"]["result"], "1/2-1/2");
    assert_eq!(state["outcome"]["reason"], "draw by agreement");
    let text = pdn(&c, &s, &f.id).await;
    assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
    assert!(
        text.contains("[Termination \"draw by agreement\"]"),
        "{text}"
    );
    s.stop().await;
}

#[tokio::test]
async fn a_move_withdraws_the_opponents_offer() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-offer-move"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    let url = s.url(&format!("/api/games/{}/draw", f.id));
    let (status, _) = post_as(&c, &url, Some(&f.black), json!({"action": "offer"})).await;
    assert_eq!(status, 200);
    // White plays on instead of accepting.
    let (_, state) = mv(&c, &s, &f.id, &f.white, "a3-a4").await;
    assert!(state.get("draw_offer").is_none(), "{state}");
    assert_eq!(
        post_as(&c, &url, Some(&f.white), json!({"action": "accept"}))
            .await
            .0,
        409
    );
    s.stop().await;
}

#[tokio::test]
async fn the_clock_is_kept_with_each_move_and_survives_a_restart() {
    let scratch = Scratch::new();
    let db = scratch.db("friend-clock");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (f, created) = friends(&c, &s, json!({"clock": {"minutes": 5, "increment": 3}})).await;
    assert_eq!(created["clock"]["white_ms"], 300_000);
    // Not running until the first move.
    assert!(created["clock"].get("running").is_none(), "{created}");
    let (_, state) = mv(&c, &s, &f.id, &f.white, "a3-a4").await;
    assert_eq!(state["clock"]["running"], "black");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, state) = mv(&c, &s, &f.id, &f.black, "h6-h5").await;
    let black = state["clock"]["black_ms"].as_i64().unwrap();
    // Black spent at least the 300 ms slept and got 3 s back.
    assert!(black <= 300_000 + 3_000 - 300, "{state}");
    assert!(black > 300_000, "{state}");
    assert_eq!(state["clock"]["after"].as_array().unwrap().len(), 2);
    assert_eq!(state["clock"]["running"], "white");
    // The PDN carries the time control and each move's time left (PGN's TimeControl tag and
    // %clk comments): 5 minutes + 3 s; the clock starts with White's first move, which is
    // charged nothing and gets its increment as every move does (5:03 left), Black's answer
    // after 300 ms leaves 5:02.
    let text = pdn(&c, &s, &f.id).await;
    assert!(text.contains("[TimeControl \"300+3\"]"), "{text}");
    assert!(
        text.contains("1. a3-a4 {[%clk 0:05:03]} 1... h6-h5 {[%clk 0:05:02]}"),
        "{text}"
    );
    s.stop().await;
    let s = TestServer::start(db, 1).await;
    let (_, state) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(
        state["clock"]["black_ms"].as_i64().unwrap(),
        black,
        "{state}"
    );
    assert_eq!(state["clock"]["running"], "white");
    // The seats survive too.
    assert_eq!(mv(&c, &s, &f.id, &f.black, "b3-b4").await.0, 403);
    assert_eq!(mv(&c, &s, &f.id, &f.white, "b3-b4").await.0, 200);
    s.stop().await;
}

#[tokio::test]
async fn flag_fall_ends_the_game_on_time_without_a_request() {
    let scratch = Scratch::new();
    let db = scratch.db("friend-flag");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    // Half a second each.
    let (f, _) = friends(&c, &s, json!({"clock": {"minutes": 0.5 / 60.0}})).await;
    let mut stream = c
        .get(s.url(&format!("/api/games/{}/events", f.id)))
        .send()
        .await
        .unwrap();
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    // Black does not move: the server ends the game on time by itself and tells the stream.
    let mut seen = String::new();
    let arrived = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = stream.chunk().await.unwrap() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("wins on time") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(arrived, Ok(true), "{seen}");
    let (_, state) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(state["outcome"]["result"], "1-0", "{state}");
    assert_eq!(state["clock"]["black_ms"], 0);
    assert!(state["clock"].get("running").is_none());
    assert_eq!(mv(&c, &s, &f.id, &f.black, "h6-h5").await.0, 409);
    let text = pdn(&c, &s, &f.id).await;
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(text.contains("on time"), "{text}");
    s.stop().await;
}

#[tokio::test]
async fn a_flag_that_fell_while_the_server_was_down_is_settled_on_reading() {
    let scratch = Scratch::new();
    let db = scratch.db("friend-flag-restart");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({"clock": {"minutes": 0.5 / 60.0}})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    s.stop().await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let s = TestServer::start(db, 1).await;
    let (_, state) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(state["outcome"]["result"], "1-0", "{state}");
    s.stop().await;
}

/// The fourth audit: a clock that ran when the server restarted was watched by no timer, so
/// the game fell on time only when somebody sent a request (the players' pages, back on the
/// event stream after the restart, waited for ever). A game read back is watched again.
#[tokio::test]
async fn a_clock_running_at_a_restart_still_falls_without_a_request() {
    let scratch = Scratch::new();
    let db = scratch.db("friend-flag-after-restart");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    // Ten seconds each: the restart and the stream come well before Black's time is up.
    let (f, _) = friends(&c, &s, json!({"clock": {"minutes": 10.0 / 60.0}})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    s.stop().await;
    let s = TestServer::start(db, 1).await;
    // Black's page comes back to the stream (which reads the game), and nobody sends anything.
    let mut stream = listen(&c, &s, &f.id, Some(&f.black)).await;
    let seen = falls_on_time(&mut stream, Duration::from_secs(40)).await;
    assert!(seen.contains("white wins on time"), "{seen}");
    s.stop().await;
}

/// The fourth audit: a promotion that kept the main line's length restarted the clock of the
/// side to move (moves taken back or replaced) without a timer for its new deadline: the move's
/// timer woke before it and found nothing to do, and the game never fell on time by itself.
#[tokio::test]
async fn a_clock_restarted_by_a_promotion_still_falls_without_a_request() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-flag-after-promote"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({"clock": {"minutes": 3.0 / 60.0}})).await;
    let at = |path: &str| s.url(&format!("/api/games/{}/{path}", f.id));
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    assert_eq!(mv(&c, &s, &f.id, &f.black, "h6-h5").await.0, 200);
    // Another answer to White's move, as a variation (node 3), made the main line by both
    // players a second later: White's clock starts again from the promotion.
    let (status, state) = post_as(
        &c,
        &at("move"),
        Some(&f.black),
        json!({"move": "g6-g5", "from": 1}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let both = format!("{},{}", f.white, f.black);
    let (status, state) = post_as(
        &c,
        &at("promote"),
        Some(&both),
        json!({"node": 3, "main": true}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["running"], "white", "{state}");
    let mut stream = listen(&c, &s, &f.id, None).await;
    let seen = falls_on_time(&mut stream, Duration::from_secs(30)).await;
    assert!(seen.contains("black wins on time"), "{seen}");
    s.stop().await;
}

#[tokio::test]
async fn bad_friend_requests_get_clear_errors() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-bad"), 1).await;
    let c = reqwest::Client::new();
    for body in [
        json!({"variant": "turkish", "friend": true}),
        json!({"variant": "turkish", "black": "human", "clock": {"minutes": 0}}),
        json!({"variant": "turkish", "black": "human", "clock": {"minutes": 5, "increment": -1}}),
        json!({"variant": "turkish", "black": "human", "clock": {"minutes": 1e9}}),
        json!({"variant": "turkish", "black": "human", "clock": {"minutes": 1e-300}}),
        json!({"variant": "turkish", "black": "human", "clock": {"minutes": 0.0001}}),
    ] {
        let (status, answer) = post_as(&c, &s.url("/api/games"), None, body.clone()).await;
        assert_eq!(status, 422, "{body}: {answer}");
        assert!(answer["error"].is_string());
    }
    // The least clock the message gives is itself accepted: it said "from 0.0083", and
    // refused 0.0083 (half a second is 0.008333... minutes).
    let clock = |minutes: f64| json!({"variant": "turkish", "black": "human", "clock": {"minutes": minutes}});
    let (status, answer) = post_as(&c, &s.url("/api/games"), None, clock(0.0083)).await;
    assert_eq!(status, 422, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("from 0.00834 (half a second)"), "{error}");
    let (status, answer) = post_as(&c, &s.url("/api/games"), None, clock(0.00834)).await;
    assert_eq!(status, 201, "{answer}");
    let (status, _) = post_as(
        &c,
        &s.url("/api/games/nosuchgame/join"),
        None,
        json!({"invite": "x"}),
    )
    .await;
    assert_eq!(status, 404);
    // A game that never had an invitation says so (not that it was used): one against the
    // engine, and one between two people made without one (it said "the invitation was used
    // already").
    let join = |id: &str| s.url(&format!("/api/games/{id}/join"));
    let engine = engine_game(&c, &s).await;
    let (status, people) = post_as(
        &c,
        &s.url("/api/games"),
        None,
        json!({"variant": "turkish", "white": "human", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{people}");
    for created in [engine, people] {
        let id = created["id"].as_str().unwrap();
        let (status, refused) = post_as(&c, &join(id), None, json!({"invite": "x"})).await;
        assert_eq!(status, 409);
        assert!(
            refused["error"].as_str().unwrap().contains("no invitation"),
            "{refused}"
        );
    }
    // A used invitation says it was used.
    let (f, _) = friends(&c, &s, json!({})).await;
    let (_, state) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(state["invite_open"], false, "{state}");
    let (status, refused) = post_as(&c, &join(&f.id), None, json!({"invite": "x"})).await;
    assert_eq!(status, 409);
    assert!(
        refused["error"].as_str().unwrap().contains("used already"),
        "{refused}"
    );
    s.stop().await;
}

#[tokio::test]
async fn the_engine_with_a_clock_thinks_for_a_share_of_its_time() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-engine-clock"), 1).await;
    let c = reqwest::Client::new();
    // Three seconds each, and an engine time (10 s) that would lose on time if it were used.
    let (status, created) = post_as(
        &c,
        &s.url("/api/games"),
        None,
        json!({"variant": "turkish", "black": "engine", "engine_time": 10, "clock": {"minutes": 0.05}}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let white = created["seats"]["white"].as_str().unwrap();
    assert_eq!(mv(&c, &s, id, white, "a3-a4").await.0, 200);
    let (status, state) = post_as(
        &c,
        &s.url(&format!("/api/games/{id}/engine")),
        Some(white),
        // As the page asks: the game's engine time, which the clock overrules.
        json!({"time": 10}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["history"].as_array().unwrap().len(), 2);
    let black = state["clock"]["black_ms"].as_i64().unwrap();
    // A 30th of 3 s is 0.1 s; half the time left is the most it may plan (a loaded machine
    // may overrun a little, so the bound is generous).
    assert!(black > 1_000 && black < 3_000, "{state}");
    assert!(state["outcome"].is_null(), "{state}");
    s.stop().await;
}

#[tokio::test]
async fn anyone_may_look_at_a_past_position_without_moving_the_game() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-view"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    let (_, end) = mv(&c, &s, &f.id, &f.black, "h6-h5").await;
    let first = end["tree"]["nodes"][0]["children"][0].as_u64().unwrap();
    // A watcher (no seat) looks at the position after the first move.
    let (status, view) = get(&c, &s.url(&format!("/api/games/{}?node={first}", f.id))).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["history"].as_array().unwrap().len(), 1);
    assert_eq!(view["tree"]["current"], first);
    assert_eq!(view["side_to_move"], "black");
    // The game itself still shows its end, and goes on there.
    let (_, game) = get(&c, &s.url(&format!("/api/games/{}", f.id))).await;
    assert_eq!(game["history"].as_array().unwrap().len(), 2);
    assert_eq!(mv(&c, &s, &f.id, &f.white, "b3-b4").await.0, 200);
    let (status, _) = get(&c, &s.url(&format!("/api/games/{}?node=999", f.id))).await;
    assert_eq!(status, 422);
    let (status, _) = get(&c, &s.url(&format!("/api/games/{}?node=x", f.id))).await;
    assert_eq!(status, 400);
    s.stop().await;
}

/// The audit: with a clock, the engine lost on time though nobody had asked it to move (the
/// server plays its move only on `POST .../engine`), and its clock ran while its request
/// waited in the search queue. Now its clock runs from the start of its search to its move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_is_not_flagged_while_it_waits_to_be_asked_or_for_a_search_slot() {
    let scratch = Scratch::new();
    // One search at a time, so that a hint on another game holds the engine's request back.
    let s = TestServer::start(scratch.db("friend-engine-waits"), 1).await;
    let c = reqwest::Client::new();
    // Half a second each: the least a clock may have.
    let (status, created) = post_as(
        &c,
        &s.url("/api/games"),
        None,
        json!({"variant": "turkish", "white": "human", "black": "engine",
               "clock": {"minutes": 0.5 / 60.0}}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let seat = created["seats"]["white"].as_str().unwrap().to_string();
    let (status, state) = post_as(
        &c,
        &s.url(&format!("/api/games/{id}/move")),
        Some(&seat),
        json!({"move": "a3-a4"}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["running"], "black", "{state}");
    // Three times the engine's whole time passes before anyone asks it to move.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (_, state) = get(&c, &s.url(&format!("/api/games/{id}"))).await;
    assert!(state["outcome"].is_null(), "{}", state["outcome"]);
    // Another game's hint takes the only search slot for a second and a half: the engine's
    // request waits behind it.
    let other = engine_game(&c, &s).await;
    let other_seat = other["seats"]["white"].as_str().unwrap().to_string();
    let hint_url = s.url(&format!(
        "/api/games/{}/hint",
        other["id"].as_str().unwrap()
    ));
    let hint = {
        let c = c.clone();
        tokio::spawn(async move {
            post_as(&c, &hint_url, Some(&other_seat), json!({"time": 1.5})).await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, state) = post_as(
        &c,
        &s.url(&format!("/api/games/{id}/engine")),
        Some(&seat),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert!(state["outcome"].is_null(), "{}", state["outcome"]);
    assert_eq!(
        state["history"].as_array().unwrap().len(),
        2,
        "the engine moved"
    );
    let black = state["clock"]["black_ms"].as_i64().unwrap();
    assert!(black > 0 && black <= 500, "black has {black} ms");
    assert_eq!(state["clock"]["running"], "white");
    assert_eq!(hint.await.unwrap().0, 200);
    s.stop().await;
}

/// The audit: White's review during a game between two players went to Black's stream and a
/// watcher's (with evaluations), and `GET .../review` gave anyone the stored best moves, while
/// hints and analysis there are the asker's own. Now a review is too, until the game is over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_during_a_game_between_two_players_is_the_askers_own() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-review"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({})).await;
    assert_eq!(mv(&c, &s, &f.id, &f.white, "a3-a4").await.0, 200);
    assert_eq!(mv(&c, &s, &f.id, &f.black, "h6-h5").await.0, 200);
    let mut white = listen(&c, &s, &f.id, Some(&f.white)).await;
    let mut black = listen(&c, &s, &f.id, Some(&f.black)).await;
    let mut watcher = listen(&c, &s, &f.id, None).await;
    let url = s.url(&format!("/api/games/{}/review", f.id));
    let (status, answer) = post_as(&c, &url, Some(&f.white), json!({"time": 0.01})).await;
    assert_eq!(status, 202, "{answer}");
    let get_as = |secret: Option<String>| {
        let (c, url) = (c.clone(), url.clone());
        async move {
            let mut r = c.get(&url);
            if let Some(secret) = secret {
                r = r.header("x-damspel-seat", secret);
            }
            let r = r.send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    // The asker's review ends (a guard against a hang only).
    let done = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let (status, review) = get_as(Some(f.white.clone())).await;
            assert_eq!(status, 200, "{review}");
            if review["status"] == "done" {
                return review;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the review ends");
    assert!(done["review"].is_object(), "{done}");
    assert!(done.get("seat").is_none(), "{done}");
    let settle = Duration::from_millis(500);
    let white_heard = heard(&mut white, settle).await;
    assert!(white_heard.contains("event: review"), "{white_heard}");
    for (who, stream) in [("black", &mut black), ("a watcher", &mut watcher)] {
        let got = heard(stream, settle).await;
        assert!(got.contains("event: state"), "{who}: {got}");
        assert!(
            !got.contains("event: review"),
            "{who} heard White's review: {got}"
        );
    }
    // Nor is the stored review shown to them, until the game is over.
    for secret in [Some(f.black.clone()), None] {
        let (status, review) = get_as(secret).await;
        assert_eq!(status, 403, "{review}");
    }
    // A long review of White's is White's to stop, not Black's.
    let (status, answer) = post_as(&c, &url, Some(&f.white), json!({"time": 2.0})).await;
    assert_eq!(status, 202, "{answer}");
    let stop_as = |secret: &str| {
        let (c, url, secret) = (c.clone(), url.clone(), secret.to_string());
        async move {
            let r = c.delete(&url).header("x-damspel-seat", secret);
            r.send().await.unwrap().status().as_u16()
        }
    };
    assert_eq!(stop_as(&f.black).await, 403);
    assert_eq!(stop_as(&f.white).await, 200);
    tokio::time::timeout(Duration::from_secs(60), async {
        while get_as(Some(f.white.clone())).await.1["status"] == "running" {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the review stops");
    let resign = s.url(&format!("/api/games/{}/resign", f.id));
    assert_eq!(post_as(&c, &resign, Some(&f.black), json!({})).await.0, 200);
    let (status, review) = get_as(None).await;
    assert_eq!(status, 200, "{review}");
    assert!(review["review"].is_object(), "{review}");
    s.stop().await;
}

/// Between two players the node the game shows may be one player's variation; the other's
/// hint, analysis, engine move and undo are of the game's end (or of the node asked for), not
/// of that variation. Before, Black's hint answered `18-22`, a move of White's variation and
/// illegal where Black stood (a capture was due), Black's engine move was refused (409), and
/// Black's undo stepped back from White's variation.
#[tokio::test]
async fn one_players_variation_does_not_move_the_other_players_searches() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-variation"), 1).await;
    let c = reqwest::Client::new();
    let (f, _) = friends(&c, &s, json!({"variant": "international"})).await;
    let game = s.url(&format!("/api/games/{}", f.id));
    let url = |what: &str| format!("{game}/{what}");
    for (secret, text) in [
        (&f.white, "32-28"),
        (&f.black, "19-23"),
        (&f.white, "28x19"),
    ] {
        let (status, state) = mv(&c, &s, &f.id, secret, text).await;
        assert_eq!(status, 200, "{text}: {state}");
    }
    // Black must capture (rule book: capture is compulsory): 13x24 or 14x23.
    let (_, end) = get(&c, &game).await;
    let captures: Vec<Value> = end["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["full"].clone())
        .collect();
    assert_eq!(captures.len(), 2, "{end}");
    // White plays a variation from the start: the node the game shows is now White's.
    let (status, state) = post_as(
        &c,
        &url("move"),
        Some(&f.white),
        json!({"move": "31-27", "from": 0}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    let variation = state["tree"]["current"].clone();
    assert_ne!(variation, end["tree"]["current"]);
    for what in ["hint", "analyse"] {
        let (status, answer) = post_as(&c, &url(what), Some(&f.black), json!({"time": 0.2})).await;
        assert_eq!(status, 200, "{what}: {answer}");
        assert!(captures.contains(&answer["full"]), "{what}: {answer}");
    }
    // Black's undo steps back from the end of the game: the position before 28x19.
    let (status, undone) = post_as(&c, &url("undo"), Some(&f.black), json!({})).await;
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["tree"]["current"], 2, "{undone}");
    // A hint of the node asked for: White looking at node 1 (Black to move after 32-28).
    let (_, one) = get(&c, &format!("{game}?node=1")).await;
    let (status, answer) = post_as(
        &c,
        &url("hint"),
        Some(&f.white),
        json!({"time": 0.2, "node": 1}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let legal_at_one: Vec<Value> = one["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["full"].clone())
        .collect();
    assert!(legal_at_one.contains(&answer["full"]), "{answer}");
    let (status, refused) = post_as(
        &c,
        &url("hint"),
        Some(&f.white),
        json!({"time": 0.2, "node": 999}),
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    // Black's engine move is played at the end of the game, a capture.
    let (status, played) = post_as(&c, &url("engine"), Some(&f.black), json!({"time": 0.2})).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["history"].as_array().unwrap().len(), 4, "{played}");
    assert!(
        played["history"][3]["notation"]
            .as_str()
            .unwrap()
            .contains('x'),
        "{played}"
    );
    s.stop().await;
}

/// Between two players neither may fill the game's export with comments and variations so that
/// the other's next move is refused while their clock runs: what is not a move of the game
/// leaves room for the moves it may still have. Before, White's comments, cut to fit the export's
/// bound to the byte, left Black no room for a move (422, Black's clock running on).
#[tokio::test]
async fn comments_leave_room_for_the_other_players_moves() {
    let scratch = Scratch::new();
    let s = TestServer::start(scratch.db("friend-fill"), 1).await;
    let c = reqwest::Client::new();
    // Six white kings (75 moves each time White is to move) against eight men, none of them
    // in a king's line (Turkish: kings fly orthogonally).
    let (f, _) = friends(
        &c,
        &s,
        json!({
            "fen": "W:WKa1,Kc2,Ke3,Kg1,Kb4,Kh5:Ba8,b8,c8,d8,e8,f8,g8,h8",
            "clock": {"minutes": 5, "increment": 3}
        }),
    )
    .await;
    let game = s.url(&format!("/api/games/{}", f.id));
    for (secret, text) in [
        (&f.white, "a1-a2"),
        (&f.black, "d8-d7"),
        (&f.white, "a2-a3"),
    ] {
        let (status, state) = mv(&c, &s, &f.id, secret, text).await;
        assert_eq!(status, 200, "{text}: {state}");
    }
    // Black to move, Black's clock running. White's variations (a player's own moves; a
    // variation is open to both): every move White had at the start and after Black's reply,
    // nodes enough for comments past the export's bound.
    let mut nodes = Vec::new();
    for from in [0, 2] {
        let (_, here) = get(&c, &format!("{game}?node={from}")).await;
        for m in here["legal"].as_array().unwrap() {
            let (status, state) = post_as(
                &c,
                &format!("{game}/move"),
                Some(&f.white),
                json!({"move": m["full"], "from": from}),
            )
            .await;
            assert_eq!(status, 200, "{state}");
            nodes.push(state["tree"]["current"].clone());
        }
    }
    assert!(nodes.len() >= 140, "{}", nodes.len());
    // 4,000-byte comments until one is refused (140 of them are more than a game may hold).
    let annotate_url = format!("{game}/annotate");
    let annotate = |node: &Value, length: usize| {
        post_as(
            &c,
            &annotate_url,
            Some(&f.white),
            json!({"node": node, "comment": "x".repeat(length)}),
        )
    };
    let mut filler = None;
    for node in &nodes {
        let (status, answer) = annotate(node, 4000).await;
        if status != 200 {
            assert_eq!(status, 422, "{answer}");
            filler = Some((node.clone(), answer));
            break;
        }
    }
    // Then the longest comment that still fits, on the node refused: the export full to the
    // byte of what White may write.
    let (filler, refusal) = filler.expect("a comment refused once the export is full");
    let (mut fits, mut refused) = (0, 4000);
    while refused - fits > 1 {
        let length = (fits + refused) / 2;
        let (status, answer) = annotate(&filler, length).await;
        match status {
            200 => fits = length,
            422 => refused = length,
            _ => panic!("{answer}"),
        }
    }
    let (status, answer) = annotate(&filler, fits).await;
    assert_eq!(status, 200, "{answer}");
    // Black's move, and the game's next moves, are taken.
    for (secret, text) in [
        (&f.black, "d7-d6"),
        (&f.white, "a3-a4"),
        (&f.black, "c8-c7"),
    ] {
        let (status, state) = mv(&c, &s, &f.id, secret, text).await;
        assert_eq!(status, 200, "{text}: {state}");
    }
    let error = refusal["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("kept for the moves the game may still have"),
        "{refusal}"
    );
    let text = pdn(&c, &s, &f.id).await;
    assert!(text.len() <= damspel_server::MAX_EXPORT, "{}", text.len());
    assert!(text.contains("d7-d6"), "{}", &text[..600]);
    s.stop().await;
}
