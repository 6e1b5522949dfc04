//! A game's states are ordered: every committed change raises the game's `version`, every state
//! the server sends (answers and `state` events) carries it, and it is stored, so a restart goes
//! on counting. The page needs it to tell a state that arrived late (an event of the human's
//! move after the answer with the engine's reply) from the one it shows.

use crate::common::{get, post, Events, Scratch, TestServer};
use serde_json::{json, Value};

fn version(state: &Value) -> u64 {
    state["version"]
        .as_u64()
        .unwrap_or_else(|| panic!("a state without a version: {state}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_raises_the_version_and_a_restart_keeps_it() {
    let scratch = Scratch::new();
    let db = scratch.db("version");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (status, created) = post(
        &c,
        &s.url("/api/games"),
        json!({"variant": "international", "white": "human", "black": "engine", "engine_time": 0.05}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(version(&created), 1, "a new game is version 1");
    let id = created["id"].as_str().unwrap().to_string();
    let url = |p: &str| s.url(&format!("/api/games/{id}{p}"));
    let mut events = Events::open(&c, &url("/events")).await;
    assert_eq!(
        version(&events.next_state().await),
        1,
        "the stream starts with the state"
    );

    // Each kind of change, answered and sent on the stream with the next version.
    let changes: [(&str, Value); 7] = [
        ("/move", json!({"move": "32-28"})),
        ("/engine", json!({})),
        ("/undo", json!({})),
        ("/redo", json!({})),
        ("/goto", json!({"node": 1})),
        ("/annotate", json!({"node": 1, "comment": "the centre"})),
        ("/goto", json!({"node": 2})),
    ];
    let mut last = 1;
    for (path, body) in changes {
        let (status, state) = post(&c, &url(path), body).await;
        assert_eq!(status, 200, "{path}: {state}");
        assert_eq!(version(&state), last + 1, "{path} is one change");
        let event = events.next_state().await;
        assert_eq!(version(&event), last + 1, "{path}: the event carries it");
        assert_eq!(
            event["fen"], state["fen"],
            "{path}: the event is the answer's state"
        );
        last += 1;
    }

    // What changes nothing keeps the version: a refused move, a read, a view of another node,
    // a hint.
    let (status, _) = post(&c, &url("/move"), json!({"move": "32-27"})).await;
    assert_eq!(status, 422);
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(version(&now), last, "a refused move is no change");
    let (_, view) = get(&c, &url("?node=0")).await;
    assert_eq!(view["tree"]["current"], 0);
    assert_eq!(version(&view), last, "a view carries the game's version");
    let (status, hint) = post(&c, &url("/hint"), json!({"time": 0.05})).await;
    assert_eq!(status, 200, "{hint}");
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(version(&now), last, "a hint is no change");
    drop(events);
    s.stop().await;

    // A restart reads the version back and goes on from it.
    let s = TestServer::start(db.clone(), 1).await;
    let url = |p: &str| s.url(&format!("/api/games/{id}{p}"));
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(version(&now), last, "the version after a restart");
    let mut events = Events::open(&c, &url("/events")).await;
    assert_eq!(version(&events.next_state().await), last);
    let (status, state) = post(&c, &url("/undo"), json!({})).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        version(&state),
        last + 1,
        "counting goes on after a restart"
    );
    assert_eq!(version(&events.next_state().await), last + 1);
    drop(events);
    s.stop().await;
}

/// A game stored before versions (no value in the column) reads as version 0 and counts from
/// there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_stored_before_versions_counts_from_zero() {
    let scratch = Scratch::new();
    let db = scratch.db("version-old-row");
    let s = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (status, created) = post(
        &c,
        &s.url("/api/games"),
        json!({"variant": "turkish", "white": "human", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    s.stop().await;
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE games SET version = NULL WHERE id = ?1", [&id])
        .unwrap();
    drop(conn);
    let s = TestServer::start(db, 1).await;
    let url = |p: &str| s.url(&format!("/api/games/{id}{p}"));
    let (status, now) = get(&c, &url("")).await;
    assert_eq!(status, 200, "{now}");
    assert_eq!(version(&now), 0);
    let (status, state) = post(&c, &url("/move"), json!({"move": "a3-a4"})).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(version(&state), 1);
    s.stop().await;
}
