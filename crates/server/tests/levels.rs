//! Engine levels in the API: chosen when a game is created, checked, stored, played.

use crate::common::{get, post, Scratch, TestServer};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_keeps_its_level_and_the_engine_plays_at_it() {
    let scratch = Scratch::new();
    let db = scratch.db("levels");
    let server = TestServer::start(db.clone(), 2).await;
    let c = reqwest::Client::new();
    for bad in [json!(0), json!(9), json!("easy"), json!(-1)] {
        let (status, e) = post(
            &c,
            &server.url("/api/games"),
            json!({"variant": "international", "level": bad}),
        )
        .await;
        assert!(status == 422 || status == 400, "level {bad}: {status} {e}");
    }
    let (status, e) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "international", "level": 9}),
    )
    .await;
    assert_eq!(status, 422);
    assert!(e["error"].as_str().unwrap().contains("1 to 8"), "{e}");

    // Level 1 varies its moves: from the start, a dozen games open in several ways (at full
    // strength the engine would keep to its one best move).
    let mut first = std::collections::BTreeSet::new();
    let mut id = String::new();
    for _ in 0..12 {
        let (status, state) = post(
            &c,
            &server.url("/api/games"),
            json!({"variant": "international", "white": "engine", "black": "human", "level": 1}),
        )
        .await;
        assert_eq!(status, 201, "{state}");
        assert_eq!(state["level"], 1);
        id = state["id"].as_str().unwrap().to_string();
        let (status, state) = post(
            &c,
            &server.url(&format!("/api/games/{id}/engine")),
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{state}");
        first.insert(
            state["history"][0]["notation"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert!(first.len() >= 3, "{first:?}");
    let r = c
        .get(server.url(&format!("/api/games/{id}/pdn")))
        .send()
        .await
        .unwrap();
    let pdn = r.text().await.unwrap();
    assert!(pdn.contains("[White \"Damspel (level 1)\"]"), "{pdn}");

    // A restart keeps the level.
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let (status, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["level"], 1);
    server.stop().await;
}
