//! Issue 10, finding 8 (server side): cheap requests cannot cost much. A game has at most
//! MAX_PLIES plies, FEN and PDN fields are capped, and a game's state is shown without
//! generating moves for every ply.

mod common;

use common::{get, post, temp_db, TestServer};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlong_games_and_fields_are_refused_with_a_reason() {
    let server = TestServer::start(temp_db("caps"), 1).await;
    let c = reqwest::Client::new();
    let import = server.url("/api/games/import");
    // The audit's 110,000-move PDN, shortened to just over the cap: kings shuffling in Turkish.
    let shuffle = ["a1-a2", "h8-h7", "a2-a1", "h7-h8"];
    let moves: Vec<&str> = (0..damspel_server::MAX_PLIES + 1)
        .map(|i| shuffle[i % 4])
        .collect();
    let pdn = format!("[FEN \"W:WKa1:BKh8\"]\n\n{} *", moves.join(" "));
    let (status, e) = post(&c, &import, json!({"variant": "turkish", "pdn": pdn})).await;
    assert_eq!(status, 422, "{e}");
    let message = e["error"].as_str().unwrap();
    assert!(
        message.contains("2000") && message.contains("not draughts"),
        "{e}"
    );
    // A FEN of repeated ranges far beyond any board.
    let fen = format!("W:W{}:B1", "31-50,".repeat(20_000));
    let (status, e) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "international", "fen": fen}),
    )
    .await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("at most"), "{e}");
    let (status, _) = post(
        &c,
        &server.url("/api/positions/check"),
        json!({"variant": "international", "fen": fen}),
    )
    .await;
    assert_eq!(status, 422);
    // A game within the caps is kept, and read back whole.
    let pdn = "1. d3-d4 a6-a5 2. e3-e4 b6-b5 *";
    let (status, state) = post(&c, &import, json!({"variant": "turkish", "pdn": pdn})).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap();
    let (status, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200);
    assert_eq!(again["history"], state["history"]);
    assert_eq!(again["history"].as_array().unwrap().len(), 4);
    server.stop().await;
}
