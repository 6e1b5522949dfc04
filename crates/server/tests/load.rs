//! Load: 50 games played at the same time on loopback, human moves and engine moves mixed, stay
//! correct and lose nothing (checked against a fresh server on the same database).

use crate::common::{get, post, Scratch, TestServer};
use serde_json::{json, Value};

const GAMES: usize = 50;
const PLIES: usize = 16;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_games() {
    let scratch = Scratch::new();
    let db = scratch.db("load");
    let server = TestServer::start(db.clone(), 2).await;
    let variants = ["turkish", "international", "dameo", "american", "armenian"];
    let mut tasks = Vec::new();
    for g in 0..GAMES {
        let base = server.base.clone();
        let variant = variants[g % variants.len()];
        tasks.push(tokio::spawn(async move {
            let c = reqwest::Client::new();
            let (status, mut state) = post(
                &c,
                &format!("{base}/api/games"),
                json!({"variant": variant, "white": "human", "black": "engine", "engine_time": 0.01}),
            )
            .await;
            assert_eq!(status, 201, "{state}");
            let id = state["id"].as_str().unwrap().to_string();
            let mut played: Vec<String> = Vec::new();
            for ply in 0..PLIES {
                if !state["outcome"].is_null() {
                    break;
                }
                let (status, next) = if state["engine_to_move"] == true {
                    post(&c, &format!("{base}/api/games/{id}/engine"), json!({})).await
                } else {
                    let legal = state["legal"].as_array().unwrap();
                    let mv = legal[(g + ply) % legal.len()]["full"].as_str().unwrap().to_string();
                    post(&c, &format!("{base}/api/games/{id}/move"), json!({"move": mv})).await
                };
                assert_eq!(status, 200, "game {id}: {next}");
                state = next;
                played.push(state["history"].as_array().unwrap().last().unwrap()["full"].as_str().unwrap().to_string());
            }
            (id, played, state["fen"].clone())
        }));
    }
    let mut results: Vec<(String, Vec<String>, Value)> = Vec::new();
    for t in tasks {
        results.push(t.await.unwrap());
    }
    server.stop().await;

    let server = TestServer::start(db, 1).await;
    let c = reqwest::Client::new();
    let (_, list) = get(&c, &server.url("/api/games")).await;
    assert_eq!(list.as_array().unwrap().len(), GAMES);
    for (id, played, fen) in results {
        let (status, state) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
        assert_eq!(status, 200);
        let stored: Vec<String> = state["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["full"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(stored, played, "game {id}");
        assert_eq!(state["fen"], fen, "game {id}");
    }
    server.stop().await;
}
