//! Issue 10, findings 6, 9 and 10: nothing acknowledged is lost, memory is bounded, and a
//! damaged row is an error for that game only.

use std::time::Duration;

use crate::common::{config, falls_on_time, get, post, Scratch, TestServer};
use serde_json::{json, Value};

fn plies(state: &Value) -> usize {
    state["history"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_the_database_refused_is_not_applied() {
    let scratch = Scratch::new();
    let db = scratch.db("locked");
    let mut cfg = config(db.clone(), 1);
    cfg.busy_timeout = Duration::from_millis(200);
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::new();
    let id = two_player_game(&c, &server).await;
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
    let scratch = Scratch::new();
    let db = scratch.db("twice");
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
    let scratch = Scratch::new();
    let db = scratch.db("linked");
    let link = scratch.db("link-to-linked");
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
    let scratch = Scratch::new();
    let db = scratch.db("stopped");
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
    let scratch = Scratch::new();
    let mut cfg = config(scratch.db("idle"), 1);
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
    let scratch = Scratch::new();
    let db = scratch.db("tampered");
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
    let scratch = Scratch::new();
    let db = scratch.db("legacy");
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

/// What a crash (kill -9, a power cut) would leave of `db` now: its file and its log as they
/// are at its path, copied to `to` (the server's open handles to files no longer there go with
/// the process). The moves of game `id` stored there, if any.
fn after_a_crash(db: &std::path::Path, to: &std::path::Path, id: &str) -> Option<Vec<String>> {
    for suffix in ["", "-wal"] {
        let from = format!("{}{suffix}", db.display());
        if std::path::Path::new(&from).exists() {
            std::fs::copy(&from, format!("{}{suffix}", to.display())).unwrap();
        }
    }
    let conn = rusqlite::Connection::open(to).ok()?;
    conn.query_row("SELECT moves FROM games WHERE id = ?1", [id], |r| {
        r.get::<_, String>(0)
    })
    .ok()
    .map(|m| m.split_whitespace().map(str::to_string).collect())
}

/// Plays Turkish moves in game `id`, each answered 200.
/// A new Turkish game between two players (no engine move comes between the test's moves);
/// its id.
async fn two_player_game(c: &reqwest::Client, server: &TestServer) -> String {
    let (status, state) = post(
        c,
        &server.url("/api/games"),
        json!({"variant": "turkish", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    state["id"].as_str().unwrap().to_string()
}

async fn play(c: &reqwest::Client, server: &TestServer, id: &str, moves: &[&str]) {
    for m in moves {
        let (status, state) = post(
            c,
            &server.url(&format!("/api/games/{id}/move")),
            json!({ "move": m }),
        )
        .await;
        assert_eq!(status, 200, "{state}");
    }
}

/// The fourth audit: the database's log (`-wal`) removed while the server ran. SQLite wrote on
/// into the log it held open; every change since its last checkpoint was answered 200 and was
/// lost with the process (the game created before the fault and four moves: 404 after kill -9
/// and a restart). Now the log is moved into the database and opened anew before the next use.
#[tokio::test]
async fn a_removed_log_loses_no_acknowledged_change() {
    let scratch = Scratch::new();
    let db = scratch.db("log-removed");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let id = two_player_game(&c, &server).await;
    play(&c, &server, &id, &["a3-a4", "h6-h5"]).await;
    for suffix in ["-wal", "-shm"] {
        std::fs::remove_file(format!("{}{suffix}", db.display())).unwrap();
    }
    play(&c, &server, &id, &["b3-b4", "g6-g5"]).await;
    let crashed = after_a_crash(&db, &scratch.db("log-removed-crash"), &id);
    assert_eq!(
        crashed.map(|m| m.len()),
        Some(4),
        "the acknowledged moves are not in the files at the database's path"
    );
    server.stop().await;
}

/// The fourth audit: the database file deleted while the server ran (with its log). Every
/// change was answered 200 and written into the deleted file, lost with the process: a restart
/// began an empty database. Now a copy is written back where the database was.
#[tokio::test]
async fn a_deleted_database_is_written_back_with_every_game() {
    let scratch = Scratch::new();
    let db = scratch.db("db-deleted");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let id = two_player_game(&c, &server).await;
    play(&c, &server, &id, &["a3-a4"]).await;
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(format!("{}{suffix}", db.display())).unwrap();
    }
    play(&c, &server, &id, &["h6-h5", "b3-b4"]).await;
    let crashed = after_a_crash(&db, &scratch.db("db-deleted-crash"), &id);
    assert_eq!(crashed.map(|m| m.len()), Some(3));
    server.stop().await;
}

/// The fourth audit: the database file replaced by another while the server ran (a backup
/// copied over it). The server wrote on into the file it had open, which nobody would see
/// again: each change was answered 200 and lost. Now changes are refused (503) and not applied
/// until a restart, which serves the new file.
#[tokio::test]
async fn a_replaced_database_refuses_changes_until_a_restart() {
    let scratch = Scratch::new();
    let db = scratch.db("db-replaced");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let id = two_player_game(&c, &server).await;
    play(&c, &server, &id, &["a3-a4"]).await;
    // Another file at the database's path: a copy of it as it stands.
    let copy = scratch.db("db-replaced-copy");
    assert_eq!(after_a_crash(&db, &copy, &id).map(|m| m.len()), Some(1));
    drop(rusqlite::Connection::open(&copy).unwrap());
    std::fs::rename(&copy, &db).unwrap();
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let (status, e) = post(&c, &url("/move"), json!({"move": "h6-h5"})).await;
    assert_eq!(status, 503, "{e}");
    assert!(e["error"].as_str().unwrap().contains("replaced"), "{e}");
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(plies(&now), 1, "a refused move was applied in memory");
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let (status, now) = post(&c, &url("/move"), json!({"move": "h6-h5"})).await;
    assert_eq!(status, 200, "{now}");
    assert_eq!(plies(&now), 2);
    server.stop().await;
}

/// The fourth audit: games read back from the database at once while others leave memory (more
/// games asked for than memory keeps). A read was thrown away and done again whenever any game
/// left memory meanwhile, three times at most, then answered 503 "the game is busy": with many
/// games asked for at once, requests failed though nothing was wrong. (Reads of one game wait
/// for each other, so a game cannot come into memory, change and leave during its own read.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_read_back_at_once_while_others_leave_memory_are_served() {
    let scratch = Scratch::new();
    let mut cfg = config(scratch.db("churn"), 1);
    cfg.settings.max_games = 2;
    let server = std::sync::Arc::new(TestServer::start_with(cfg).await);
    let c = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..12 {
        let (status, state) =
            post(&c, &server.url("/api/games"), json!({"variant": "turkish"})).await;
        assert_eq!(status, 200 + 1, "{state}");
        ids.push(state["id"].as_str().unwrap().to_string());
    }
    let mut readers = Vec::new();
    for k in 0..8 {
        let (server, ids, c) = (server.clone(), ids.clone(), c.clone());
        readers.push(tokio::spawn(async move {
            let mut failed = Vec::new();
            for i in 0..60 {
                let id = &ids[(k * 5 + i * 7) % ids.len()];
                let (status, state) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
                if status != 200 {
                    failed.push(format!("{status} {state}"));
                }
            }
            failed
        }));
    }
    let mut failed = Vec::new();
    for r in readers {
        failed.extend(r.await.unwrap());
    }
    assert!(
        failed.is_empty(),
        "{} of 480 reads failed: {:?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
    std::sync::Arc::into_inner(server).unwrap().stop().await;
}

/// A server on `db` that waits only 100 ms for the database's lock, and a game between two
/// players there with half a second on each clock (both seats held by the client).
async fn half_second_game_on(db: &std::path::Path) -> (TestServer, reqwest::Client, String) {
    let mut cfg = config(db.to_path_buf(), 1);
    cfg.busy_timeout = Duration::from_millis(100);
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::new();
    let (status, state) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "turkish", "black": "human", "clock": {"minutes": 0.5 / 60.0}}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    (server, c, id)
}

/// The fourth audit: a flag fall the database could not take when the clock's timer woke
/// (locked by another process, full) was never tried again: once the fault was gone the game
/// went on with the mover's time at zero, and nobody's stream heard of it until someone sent a
/// request. The timer now asks again each second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_fall_the_database_refused_falls_once_it_takes_it() {
    let scratch = Scratch::new();
    let db = scratch.db("flag-refused");
    let (server, c, id) = half_second_game_on(&db).await;
    let mut stream = c
        .get(server.url(&format!("/api/games/{id}/events")))
        .send()
        .await
        .unwrap();
    play(&c, &server, &id, &["a3-a4"]).await;
    // Another process holds the database's write lock past Black's deadline.
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    other.execute_batch("ROLLBACK").unwrap();
    drop(other);
    // Nobody sends a request: the stream hears the flag fall.
    let seen = falls_on_time(&mut stream, Duration::from_secs(20)).await;
    assert!(seen.contains("white wins on time"), "{seen}");
    drop(stream);
    server.stop().await;
}

/// The fourth audit: the lock file deleted while the server ran (an operator's clean-up, a
/// cleaner of old files in /tmp: the lock file never changes). A second server started on the
/// same database, and each overwrote the other's acknowledged moves (a move the second
/// answered 200 was gone after the first's next move). Now the server takes its lock file again
/// at its next use of the database, or, if another server took it first, refuses every change.
#[tokio::test]
async fn a_deleted_lock_file_is_taken_again_or_keeps_this_server_from_writing() {
    let scratch = Scratch::new();
    let db = scratch.db("lock-deleted");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let id = two_player_game(&c, &server).await;
    let lock = format!("{}.lock", db.display());
    std::fs::remove_file(&lock).unwrap();
    play(&c, &server, &id, &["a3-a4"]).await;
    second_server_is_refused(&db).await;
    // Deleted again, and a second server takes it before this one uses the database.
    std::fs::remove_file(&lock).unwrap();
    let second = TestServer::start(db.clone(), 1).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let (status, e) = post(&c, &url("/move"), json!({"move": "h6-h5"})).await;
    assert_eq!(status, 503, "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("another damspel server"),
        "{e}"
    );
    let (_, now) = get(&c, &url("")).await;
    assert_eq!(plies(&now), 1, "a refused move was applied in memory");
    second.stop().await;
    server.stop().await;
}

/// The fourth audit: the log removed under a server nobody changed games on. The files were
/// checked only when the database was next used, so a crash before the next change lost what
/// the log held (every game of a round of the kill -9 script whose games had ended: 404 after
/// the restart). They are checked four times a second too.
#[tokio::test]
async fn a_log_removed_under_an_idle_server_is_put_right_without_a_request() {
    let scratch = Scratch::new();
    let db = scratch.db("log-removed-idle");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let id = two_player_game(&c, &server).await;
    play(&c, &server, &id, &["a3-a4", "h6-h5"]).await;
    for suffix in ["-wal", "-shm"] {
        std::fs::remove_file(format!("{}{suffix}", db.display())).unwrap();
    }
    // No request: the moves reach the files at the database's path by themselves.
    let crash = scratch.db("log-removed-idle-crash");
    let mut crashed = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        crashed = after_a_crash(&db, &crash, &id);
        if crashed.is_some() {
            break;
        }
        let _ = std::fs::remove_file(&crash);
    }
    assert_eq!(crashed.map(|m| m.len()), Some(2));
    server.stop().await;
}

/// The fourth audit: a page's event stream that reconnects while the database cannot take a
/// flag fall due (locked by another process) was answered 503, and `EventSource` never opens a
/// stream again after a status other than 200: that page heard nothing more of the game. The
/// game is shown without the fall, which the clock's timer commits once it can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_opened_while_the_database_refuses_a_flag_fall_is_served() {
    let scratch = Scratch::new();
    let db = scratch.db("flag-refused-stream");
    let (server, c, id) = half_second_game_on(&db).await;
    play(&c, &server, &id, &["a3-a4"]).await;
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    // Black's time is up, and the database cannot take it: the page comes back to the stream.
    let mut stream = c
        .get(server.url(&format!("/api/games/{id}/events")))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    other.execute_batch("ROLLBACK").unwrap();
    drop(other);
    let seen = falls_on_time(&mut stream, Duration::from_secs(20)).await;
    assert!(seen.contains("white wins on time"), "{seen}");
    drop(stream);
    server.stop().await;
}
