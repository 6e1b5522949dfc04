//! Issue 10, findings 6, 9 and 10: nothing acknowledged is lost, memory is bounded, and a
//! damaged row is an error for that game only.

use std::time::Duration;

use crate::common::{config, get, post, temp_db, TestServer};
use serde_json::{json, Value};

fn plies(state: &Value) -> usize {
    state["history"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_the_database_refused_is_not_applied() {
    let db = temp_db("locked");
    let mut cfg = config(db.clone(), 1);
    cfg.busy_timeout = Duration::from_millis(200);
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::new();
    let (_, state) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "turkish", "black": "human"}),
    )
    .await;
    let id = state["id"].as_str().unwrap().to_string();
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    // Another process holds the database's write lock.
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let (status, e) = post(&c, &url("/move"), json!({"move": "d3-d4"})).await;
    assert!(status >= 500, "{status} {e}");
    // Not in memory either.
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(plies(&now), 0, "a refused move was applied in memory");
    // A 503: the server is fine, the database is busy; try again.
    assert_eq!(status, 503, "{e}");
    assert!(e["error"].as_str().unwrap().contains("database"), "{e}");
    other.execute_batch("ROLLBACK").unwrap();
    drop(other);
    // Nor after a restart; and once the lock is gone the move goes through.
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(plies(&now), 0);
    let (status, now) = post(&c, &url("/move"), json!({"move": "d3-d4"})).await;
    assert_eq!(status, 200, "{now}");
    assert_eq!(plies(&now), 1);
    server.stop().await;
}

/// Starts a second server on `db` (another server runs) and checks it is refused as in use.
async fn second_server_is_refused(db: &std::path::Path) {
    let second = damspel_server::Server::bind(
        damspel_rules::Catalogue::builtin(),
        config(db.to_path_buf(), 1),
    )
    .await;
    let message = match second {
        Ok(_) => panic!("a second server started on {}", db.display()),
        Err(e) => e.to_string(),
    };
    assert!(message.contains("another damspel server"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_database_is_refused() {
    let db = temp_db("twice");
    let first = TestServer::start(db.clone(), 1).await;
    second_server_is_refused(&db).await;
    first.stop().await;
    // Once the first is gone, the database is free again.
    let again = TestServer::start(db, 1).await;
    again.stop().await;
}

/// Another name of the same file is the same database: a symbolic link to it is refused too
/// (it was not: both servers ran, and a move acknowledged by one was lost to the other's save).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_a_link_to_the_database_is_refused() {
    let db = temp_db("linked");
    let link = temp_db("link-to-linked");
    let first = TestServer::start(db.clone(), 1).await;
    std::os::unix::fs::symlink(&db, &link).unwrap();
    second_server_is_refused(&link).await;
    first.stop().await;
    let _ = std::fs::remove_file(&link);
}

/// A stopped server frees its database at once, even when a search was still running and its
/// request outlived the shutdown grace: the search is stopped and waited for. (It was left
/// running, holding the database's lock, so that a server started next in the same process was
/// refused as "in use": the load test failed that way now and then.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_server_stops_its_searches_and_frees_the_database() {
    let db = temp_db("stopped");
    let mut cfg = config(db.clone(), 1);
    cfg.transport.shutdown_grace = Duration::from_millis(100);
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::new();
    let (status, game) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "international", "white": "engine", "black": "human", "engine_time": 10}),
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    let url = server.url(&format!("/api/games/{id}/engine"));
    let search = tokio::spawn(async move { post(&reqwest::Client::new(), &url, json!({})).await });
    while server.state.searches_running() == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let state = server.state.clone();
    let stopping = std::time::Instant::now();
    server.stop().await;
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "the stop waited {:?} for a 10 s search",
        stopping.elapsed()
    );
    assert_eq!(state.searches_running(), 0, "the search outlived the stop");
    drop(state);
    let again = TestServer::start(db, 1).await;
    again.stop().await;
    let _ = search.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_games_leave_memory_and_come_back() {
    let mut cfg = config(temp_db("idle"), 1);
    cfg.settings.idle_game = Duration::from_millis(100);
    cfg.settings.max_games = 3;
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..5 {
        let (_, state) = post(
            &c,
            &server.url("/api/games"),
            json!({"variant": "dameo", "black": "human"}),
        )
        .await;
        let id = state["id"].as_str().unwrap().to_string();
        let mv = state["legal"][0]["full"].as_str().unwrap().to_string();
        let (status, _) = post(
            &c,
            &server.url(&format!("/api/games/{id}/move")),
            json!({"move": mv}),
        )
        .await;
        assert_eq!(status, 200);
        assert!(
            server.state.games_in_memory() <= 3,
            "more games than the cap in memory"
        );
        ids.push(id);
    }
    let mut left = usize::MAX;
    for _ in 0..100 {
        left = server.state.games_in_memory();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(left, 0, "idle games stay in memory");
    for id in &ids {
        let (status, state) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
        assert_eq!(status, 200);
        assert_eq!(plies(&state), 1, "{id}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_row_is_an_error_for_its_game_only() {
    let db = temp_db("tampered");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..6 {
        let (_, state) = post(&c, &server.url("/api/games"), json!({"variant": "turkish"})).await;
        ids.push(state["id"].as_str().unwrap().to_string());
        let id = ids.last().unwrap();
        post(
            &c,
            &server.url(&format!("/api/games/{id}/move")),
            json!({"move": "d3-d4"}),
        )
        .await;
    }
    server.stop().await;
    // Someone edits the database by hand.
    let conn = rusqlite::Connection::open(&db).unwrap();
    for (id, change) in ids.iter().zip([
        "engine_time = -5",
        "engine_time = 'soon'",
        "variant = 'nosuch'",
        "start_fen = 'W:W99'",
        // The move tree is what is read (the moves column is kept for older servers).
        r#"tree = '{"cursor":1,"nodes":[{"p":0,"m":"a1-a8"}]}'"#,
        "white = 'robot'",
    ]) {
        conn.execute(&format!("UPDATE games SET {change} WHERE id = ?1"), [id])
            .unwrap();
    }
    conn.execute(
        "UPDATE games SET moves = 'd3-d4 d6-d5' WHERE id = ?1",
        [&ids[5]],
    )
    .unwrap();
    drop(conn);
    let server = TestServer::start(db, 1).await;
    for id in &ids {
        let (status, e) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
        assert_eq!(status, 500, "{id}: {e}");
        assert!(e["error"].as_str().unwrap().contains("damaged"), "{e}");
    }
    // The server goes on: new games and the list work.
    let (status, _) = post(&c, &server.url("/api/games"), json!({"variant": "turkish"})).await;
    assert_eq!(status, 201);
    let (status, list) = get(&c, &server.url("/api/games")).await;
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().len(), 7);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_stored_before_seats_are_claimed_by_their_first_player() {
    let db = temp_db("legacy");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (_, state) = post(&c, &server.url("/api/games"), json!({"variant": "turkish"})).await;
    let id = state["id"].as_str().unwrap().to_string();
    server.stop().await;
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE games SET white_key = NULL, black_key = NULL", [])
        .unwrap();
    drop(conn);
    let server = TestServer::start(db, 1).await;
    let moved = server.url(&format!("/api/games/{id}/move"));
    let r = c
        .post(&moved)
        .json(&json!({"move": "d3-d4"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let state: Value = r.json().await.unwrap();
    let secret = state["seats"]["white"]
        .as_str()
        .expect("the claimed seat's secret")
        .to_string();
    // Claimed: others are watchers now, the claimer plays on.
    let (status, _) = post(&c, &server.url(&format!("/api/games/{id}/undo")), json!({})).await;
    assert_eq!(status, 403);
    let r = c
        .post(server.url(&format!("/api/games/{id}/undo")))
        .header("x-damspel-seat", &secret)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}
