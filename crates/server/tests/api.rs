//! The JSON API as a client uses it: games, moves, engine, undo/redo, import/export, errors.

use crate::common;
use crate::common::{get, post, Scratch, TestServer};
use serde_json::{json, Value};

fn notations(state: &Value) -> Vec<String> {
    state["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["notation"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_engine() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("game"), 2).await;
    let c = reqwest::Client::new();
    let (status, variants) = get(&c, &server.url("/api/variants")).await;
    assert_eq!(status, 200);
    assert_eq!(variants["variants"].as_array().unwrap().len(), 50);

    let (status, state) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "turkish", "engine_time": 0.05}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    // Turkish start (1.01): 8 moves, all forward steps of the rank-3 men.
    assert_eq!(state["legal"].as_array().unwrap().len(), 8);
    assert_eq!(state["side_to_move"], "white");
    assert_eq!(state["engine_to_move"], false);

    let (status, state) = post(
        &c,
        &server.url(&format!("/api/games/{id}/move")),
        json!({"move": "d3-d4"}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["engine_to_move"], true);
    let (status, state) = post(
        &c,
        &server.url(&format!("/api/games/{id}/engine")),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(notations(&state).len(), 2);
    assert_eq!(state["side_to_move"], "white");

    // Errors: 422 for an illegal move, 400 for bad JSON, 404 for an unknown game.
    let (status, e) = post(
        &c,
        &server.url(&format!("/api/games/{id}/move")),
        json!({"move": "a2-a5"}),
    )
    .await;
    assert_eq!(status, 422);
    assert!(
        e["error"].as_str().unwrap().contains("not a legal move"),
        "{e}"
    );
    let r = c
        .post(server.url(&format!("/api/games/{id}/move")))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let (status, _) = post(
        &c,
        &server.url(&format!("/api/games/{id}/move")),
        json!({"mv": "d4-d5"}),
    )
    .await;
    assert_eq!(status, 400);
    let (status, _) = get(&c, &server.url("/api/games/zzzz")).await;
    assert_eq!(status, 404);
    // A long id (a path may hold some 60 kB) is quoted short, not echoed whole.
    let long = "x-".repeat(20_000);
    let (status, body) = get(&c, &server.url(&format!("/api/games/{long}"))).await;
    assert_eq!(status, 404);
    let said = body["error"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("no game") && said.len() < 200,
        "{}",
        &said[..said.len().min(200)]
    );

    // Undo and redo.
    let (_, state) = post(&c, &server.url(&format!("/api/games/{id}/undo")), json!({})).await;
    assert_eq!(notations(&state).len(), 1);
    assert_eq!(state["redo"], 1);
    let (_, state) = post(&c, &server.url(&format!("/api/games/{id}/redo")), json!({})).await;
    assert_eq!(notations(&state).len(), 2);
    assert_eq!(state["redo"], 0);

    // PDN export, and import of that PDN into a new game with the same moves.
    let pdn = common::pdn(&c, &server, &id).await;
    assert!(pdn.contains("1. d3-d4"), "{pdn}");
    let (status, imported) = post(
        &c,
        &server.url("/api/games/import"),
        json!({"variant": "turkish", "pdn": pdn}),
    )
    .await;
    assert_eq!(status, 201, "{imported}");
    assert_eq!(notations(&imported), notations(&state));

    let (status, list) = get(&c, &server.url("/api/games")).await;
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().len(), 2);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_4xx_with_a_message() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("bad"), 1).await;
    let c = reqwest::Client::new();
    let games = server.url("/api/games");
    for (body, status) in [
        (json!({"variant": "nosuch"}), 422),
        (json!({"variant": "international", "fen": "W:W51"}), 422),
        (json!({"variant": "international", "fen": "W:W3"}), 422),
        (json!({"variant": "turkish", "engine_time": 99}), 422),
        (json!({"variant": "turkish", "engine_time": -1}), 422),
        (json!({"variant": "turkish", "white": "robot"}), 400),
        (json!({"variant": 5}), 400),
        (json!({"variant": "turkish", "pdn": "1. d3-d5"}), 422),
        (json!({"variant": "turkish", "pdn": "[Event \"x\""}), 422),
    ] {
        let (got, e) = post(&c, &games, body.clone()).await;
        assert_eq!(got, status, "{body} -> {e}");
        assert!(
            e["error"].as_str().is_some_and(|m| !m.is_empty()),
            "{body} -> {e}"
        );
    }
    // Text far too long is quoted by its start, not sent back whole (a body may hold a MiB).
    let long = "a".repeat(500_000);
    for (url, body) in [
        (games.clone(), json!({ "variant": long })),
        (
            server.url("/api/games/import"),
            json!({ "pdn": format!("[Variant \"{long}\"]\n1. d3-d4 *") }),
        ),
        (
            server.url("/api/games/import"),
            json!({ "pdn": format!("[GameType \"{long}\"]\n1. d3-d4 *") }),
        ),
        (
            server.url("/api/games/import"),
            // A PDN token has at most 300 bytes (a longer one is refused as such).
            json!({ "variant": "turkish", "pdn": format!("1. d3-d4 {} *", &long[..250]) }),
        ),
    ] {
        let (got, e) = post(&c, &url, body).await;
        let message = e["error"].as_str().unwrap_or_default();
        assert_eq!(got, 422, "{}", &message[..message.len().min(300)]);
        assert!(
            message.len() < 2_000 && message.contains("aaaa…"),
            "{} bytes: {}",
            message.len(),
            &message[..message.len().min(300)]
        );
    }
    // A number far out of range is quoted as written, not in its hundreds of digits.
    for body in [
        json!({"variant": "turkish", "engine_time": 1e308}),
        json!({"variant": "turkish", "white": "human", "black": "human", "friend": true,
               "clock": {"minutes": 1e308, "increment": 0}}),
        json!({"variant": "turkish", "white": "human", "black": "human", "friend": true,
               "clock": {"minutes": 5, "increment": -1e300}}),
    ] {
        let (got, e) = post(&c, &games, body.clone()).await;
        assert_eq!(got, 422, "{body} -> {e}");
        let message = e["error"].as_str().unwrap_or_default();
        assert!(
            message.ends_with("not 1e308") || message.ends_with("not -1e300"),
            "{body} -> {message}"
        );
    }
    let (status, e) = post(
        &c,
        &server.url("/api/positions/check"),
        json!({"variant": "turkish", "fen": "W:Wa1,a1"}),
    )
    .await;
    assert_eq!(status, 422, "{e}");
    let (status, ok) = post(
        &c,
        &server.url("/api/positions/check"),
        json!({"variant": "international", "fen": "W:W50,49,48:B1"}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(ok["fen"], "W:W48-50:B1");
    // A finished game refuses moves and engine searches with 409.
    let (_, state) = post(
        &c,
        &games,
        json!({"variant": "turkish", "fen": "W:Wa7:Ba8,b7,c7"}),
    )
    .await;
    let id = state["id"].as_str().unwrap();
    assert_eq!(state["outcome"]["winner"], "black");
    let (status, _) = post(
        &c,
        &server.url(&format!("/api/games/{id}/engine")),
        json!({}),
    )
    .await;
    assert_eq!(status, 409);
    let (status, _) = post(&c, &server.url(&format!("/api/games/{id}/undo")), json!({})).await;
    assert_eq!(status, 409, "nothing to take back");
    // A wrong method and an unknown page answer with a message too.
    let r = c.delete(server.url("/api/games")).send().await.unwrap();
    assert_eq!(r.status(), 405);
    let e: Value = r.json().await.unwrap();
    assert!(e["error"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
    let r = c.get(server.url("/nothing-here")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    let e: Value = r.json().await.unwrap();
    assert!(e["error"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdn_import_takes_its_variant_from_the_tags() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tags"), 1).await;
    let c = reqwest::Client::new();
    let import = server.url("/api/games/import");
    // The Variant tag wins over the variant of the request (the page sends its current one).
    let pdn = "[Variant \"turkish\"]\n\n1. d3-d4 *";
    let (status, state) = post(&c, &import, json!({"variant": "dameo", "pdn": pdn})).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["variant"], "turkish");
    // PDN's GameType 20 is International draughts (shared/reference/README.md, PDN section).
    let pdn = "[GameType \"20\"]\n\n1. 32-28 *";
    let (status, state) = post(&c, &import, json!({"pdn": pdn})).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["variant"], "international");
    // No tag and no variant: inferred from the moves (32-28 opens only on a 10x10 board, where
    // White moves first).
    let (status, state) = post(&c, &import, json!({"pdn": "1. 32-28 *"})).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["variant"], "international");
    // Nothing fits: a 422 that says the variant could not be decided.
    let (status, e) = post(&c, &import, json!({"pdn": "1. 99-98 *"})).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("variant"), "{e}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_resumes_every_game() {
    let scratch = Scratch::new();
    let db = scratch.db("api-restart");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (_, state) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "dameo", "white": "human", "black": "human"}),
    )
    .await;
    let id = state["id"].as_str().unwrap().to_string();
    let mut state = state;
    for _ in 0..6 {
        let mv = state["legal"][0]["full"].as_str().unwrap().to_string();
        state = post(
            &c,
            &server.url(&format!("/api/games/{id}/move")),
            json!({"move": mv}),
        )
        .await
        .1;
    }
    let (_, state) = post(&c, &server.url(&format!("/api/games/{id}/undo")), json!({})).await;
    // Shut down while the game is in progress, then start again on the same database.
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let (status, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200);
    assert_eq!(notations(&again), notations(&state));
    assert_eq!(again["fen"], state["fen"]);
    assert_eq!(again["redo"], 1, "the undone move can still be redone");
    server.stop().await;
}

/// Issue 13, item 6: the endgame tables' verdict for the page. Expected values are the tables'
/// own, read here through the tablebase crate (checked there against a naive oracle).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tablebase_verdict_of_a_position() {
    use damspel_rules::{Catalogue, Rules};
    use damspel_tablebase::{build, Tablebase, Value};

    let scratch = Scratch::new();
    let dir = scratch.path().join("tables");
    let rules = Rules::<u64>::new(Catalogue::builtin().get("russian").unwrap()).unwrap();
    build(&rules, 3, &dir, 2, &|_| true).unwrap();
    let tb = Tablebase::open(&dir, &rules).unwrap();
    let m = "KvMM".parse().unwrap();
    // A won position with White to move, and more than one move.
    let pos = (0..tb.header(m).unwrap().slots)
        .filter_map(|s| tb.position(m, s))
        .find(|p| {
            let probe = tb.probe(p).unwrap();
            probe.value == Value::Win && probe.distance > 15 && rules.moves(p).len() > 3
        })
        .unwrap();
    let probe = tb.probe(&pos).unwrap();
    let fen = damspel_notation::write_fen(&rules.variant().geometry, &pos);

    let mut config = common::config(scratch.db("tablebase"), 1);
    config.settings.tb_dir = dir.clone();
    let server = TestServer::start_with(config).await;
    let c = reqwest::Client::new();
    let url = |fen: &str| server.url(&format!("/api/tablebase?variant=russian&fen={fen}"));
    let (status, r) = get(&c, &url(&fen)).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["in_tables"], true);
    assert_eq!(r["value"], "win");
    assert_eq!(r["distance"], probe.distance);
    let side = if pos.side_to_move() == damspel_rules::Color::White {
        "White"
    } else {
        "Black"
    };
    assert_eq!(
        r["text"],
        format!("{side} wins in {} plies", probe.distance)
    );
    let moves = r["moves"].as_array().unwrap();
    assert_eq!(moves.len(), rules.moves(&pos).len());
    // Best first: the fastest win, as long as the position's own distance.
    assert_eq!(moves[0]["value"], "win");
    assert_eq!(moves[0]["distance"], probe.distance);
    // Every move's value as the tables give it.
    let wins = rules
        .moves(&pos)
        .iter()
        .filter(|mv| tb.probe(&pos.play(mv)).unwrap().value == Value::Loss)
        .count();
    assert_eq!(moves.iter().filter(|m| m["value"] == "win").count(), wins);

    // The page's hint (full strength) plays a fastest win with its exact score. (A 3-piece
    // win is also found by the plain search in 50 ms: this checks the wiring, it does not
    // tell tables from search.)
    let (status, g) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "russian", "fen": fen, "white": "human", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap();
    let (status, hint) = post(
        &c,
        &server.url(&format!("/api/games/{id}/hint")),
        json!({"time": 0.05}),
    )
    .await;
    assert_eq!(status, 200, "{hint}");
    let fastest: Vec<&serde_json::Value> = moves
        .iter()
        .filter(|m| m["value"] == "win" && m["distance"] == probe.distance)
        .map(|m| &m["move"])
        .collect();
    assert!(
        fastest.contains(&&hint["move"]),
        "{hint} not in {fastest:?}"
    );
    assert_eq!(hint["score"], json!({ "win_in": probe.distance }), "{hint}");
    // A time of 0 is refused with a message that does not allow it ("between 0 and 10, not
    // 0", it said).
    let (status, refused) = post(
        &c,
        &server.url(&format!("/api/games/{id}/hint")),
        json!({"time": 0}),
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    let error = refused["error"].as_str().unwrap();
    assert!(
        error.starts_with("time must be more than 0 and at most"),
        "{error}"
    );

    // The start position is beyond the tables; a bad FEN is a 422, a missing field a 400.
    let (status, r) = get(
        &c,
        &url("W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
    )
    .await;
    assert_eq!(
        (status, r["in_tables"].clone()),
        (200, serde_json::Value::Bool(false))
    );
    let (status, _) = get(&c, &url("W:Wzz")).await;
    assert_eq!(status, 422);
    let (status, _) = get(&c, &server.url("/api/tablebase?variant=russian")).await;
    assert_eq!(status, 400);
    server.stop().await;
}
