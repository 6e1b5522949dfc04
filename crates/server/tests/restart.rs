//! Nothing acknowledged is lost (issue 10, item 5), as a property: random actions on several
//! games at once (moves in the past and present, the engine's moves, undo, redo, goto,
//! comments and NAGs, promotions and deletions, draw offers and their answers, resignation,
//! a friend's game with a clock, an imported game that its recorded result ends) are each
//! answered with the game's state; a game that leaves memory and comes back, and every game
//! after a restart of the server on the same database, must show exactly the state last
//! acknowledged.
//!
//! Seeded (the same actions on every run); `DAMSPEL_RESTART_ROUNDS=20` for a long run.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::{self, config, get, post, Events, Scratch, TestServer};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Value};

/// The games of a round: (what to create, created by import).
fn games() -> Vec<(Value, bool)> {
    vec![
        (
            json!({"variant": "international", "white": "human", "black": "engine", "engine_time": 0.05, "level": 3}),
            false,
        ),
        (
            json!({"variant": "turkish", "white": "engine", "black": "human", "engine_time": 0.05}),
            false,
        ),
        (
            json!({"variant": "russian", "white": "human", "black": "human", "friend": true, "clock": {"minutes": 60, "increment": 2}}),
            false,
        ),
        (
            json!({"variant": "dameo", "white": "human", "black": "human", "friend": true}),
            false,
        ),
        (
            json!({"variant": "american", "white": "human", "black": "human"}),
            false,
        ),
        (
            json!({"pdn": "[Event \"Club\"]\n[White \"A\"]\n[Black \"B\"]\n[GameType \"20\"]\n1. 32-28 {opening} 19-23 2. 28x19 14x23 (13x24 3. 37-32) 3. 37-32 {White wins on time.} 2-0", "white": "human", "black": "human"}),
            true,
        ),
    ]
}

/// The state as stored: the seats' secrets, the invitation and an import's report (draws that
/// could have been claimed, what it left out) are part of one answer, not of the game.
fn stored(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(o) = state.as_object_mut() {
        o.remove("seats");
        o.remove("invite");
        o.remove("claims");
        o.remove("skipped");
    }
    state
}

/// Where two states differ (paths and values), for a readable failure.
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let null = Value::Null;
                let (u, v) = (x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null));
                differences(u, v, &format!("{path}.{k}"), out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differences(u, v, &format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} != {b}")),
        _ => {}
    }
}

fn same(now: &Value, acked: &Value) -> Result<(), String> {
    let mut out = Vec::new();
    differences(&stored(now), &stored(acked), "", &mut out);
    if out.is_empty() {
        Ok(())
    } else {
        out.truncate(12);
        Err(out.join("\n"))
    }
}

fn nodes(state: &Value) -> usize {
    state["tree"]["nodes"].as_array().map_or(1, Vec::len)
}

/// One random action on a game; the status and the answer.
async fn act(
    c: &reqwest::Client,
    s: &TestServer,
    rng: &mut StdRng,
    id: &str,
    state: &Value,
) -> (u16, Value) {
    let api = |what: &str| s.url(&format!("/api/games/{id}/{what}"));
    let roll = rng.random_range(0..100);
    let node = rng.random_range(0..nodes(state));
    if roll < 40 {
        if state["engine_to_move"] == true {
            return post(c, &api("engine"), json!({"time": 0.05})).await;
        }
        let legal = state["legal"].as_array().unwrap();
        if legal.is_empty() {
            return post(c, &api("undo"), json!({})).await;
        }
        let mv = &legal[rng.random_range(0..legal.len())];
        post(c, &api("move"), json!({"move": mv["notation"]})).await
    } else if roll < 50 {
        post(c, &api("undo"), json!({})).await
    } else if roll < 55 {
        post(c, &api("redo"), json!({})).await
    } else if roll < 65 {
        post(c, &api("goto"), json!({ "node": node })).await
    } else if roll < 75 {
        let nags = if node == 0 {
            json!([])
        } else {
            json!(["!?", "$14"])
        };
        let comment = format!("note {}", rng.random_range(0..1000));
        post(
            c,
            &api("annotate"),
            json!({"node": node, "comment": comment, "nags": nags}),
        )
        .await
    } else if roll < 80 {
        post(
            c,
            &api("promote"),
            json!({"node": node, "main": rng.random_bool(0.5)}),
        )
        .await
    } else if roll < 85 && node > 0 {
        post(c, &api("delete"), json!({ "node": node })).await
    } else if roll < 92 {
        let action = ["offer", "accept", "decline"][rng.random_range(0..3)];
        post(c, &api("draw"), json!({ "action": action })).await
    } else if roll < 93 {
        post(c, &api("resign"), json!({})).await
    } else {
        // The position's first move, played from another node: often illegal there.
        let mv = state["legal"][0]["notation"].as_str().unwrap_or("1-2");
        post(c, &api("move"), json!({"move": mv, "from": node})).await
    }
}

async fn create(c: &reqwest::Client, s: &TestServer, body: Value, import: bool) -> (String, Value) {
    let path = if import {
        "/api/games/import"
    } else {
        "/api/games"
    };
    let (status, state) = post(c, &s.url(path), body).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    // A friend's game: this process takes the other seat too, by the invitation.
    if let Some(token) = state["invite"]["token"].as_str() {
        let (status, joined) = post(
            c,
            &s.url(&format!("/api/games/{id}/join")),
            json!({ "invite": token }),
        )
        .await;
        assert_eq!(status, 200, "{joined}");
        return (id, joined);
    }
    (id, state)
}

/// Every game shows the state last acknowledged.
async fn check(c: &reqwest::Client, s: &TestServer, acked: &HashMap<String, Value>, when: &str) {
    for (id, state) in acked {
        let (status, now) = get(c, &s.url(&format!("/api/games/{id}"))).await;
        assert_eq!(status, 200, "{when}: {now}");
        if let Err(diff) = same(&now, state) {
            panic!(
                "{when}: game {id} ({}) is not as acknowledged:\n{diff}",
                state["variant"]
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_states_survive_eviction_and_restart() {
    let scratch = Scratch::new();
    let rounds = common::rounds("DAMSPEL_RESTART_ROUNDS");
    let db = scratch.db("restart");
    let settings = |db| {
        let mut cfg = config(db, 1);
        // Games leave memory between actions now and then, and come back from the database.
        cfg.settings.idle_game = Duration::from_millis(30);
        cfg.settings.max_games = 3;
        cfg
    };
    let c = reqwest::Client::new();
    let mut server = TestServer::start_with(settings(db.clone())).await;
    let mut acked: HashMap<String, Value> = HashMap::new();
    let mut order = Vec::new();
    for round in 0..rounds {
        let mut rng = StdRng::seed_from_u64(round);
        for (body, import) in games() {
            let (id, state) = create(&c, &server, body, import).await;
            acked.insert(id.clone(), state);
            order.push(id);
        }
        for step in 0..150 {
            let id = order[rng.random_range(0..order.len())].clone();
            let (status, answer) = act(&c, &server, &mut rng, &id, &acked[&id]).await;
            match status {
                200 => {
                    assert_eq!(answer["id"], id.as_str(), "{answer}");
                    acked.insert(id, answer);
                }
                // Refused (an illegal or finished game's move, no offer to answer, a line
                // already main, ...): nothing changed.
                409 | 422 => {
                    let (_, now) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
                    if let Err(diff) = same(&now, &acked[&id]) {
                        panic!("round {round} step {step}: a refusal ({answer}) changed the game:\n{diff}");
                    }
                }
                _ => panic!("round {round} step {step}: {status} {answer}"),
            }
            if rng.random_range(0..10) == 0 {
                tokio::time::sleep(Duration::from_millis(60)).await;
            }
        }
        check(
            &c,
            &server,
            &acked,
            &format!("round {round}, before the restart"),
        )
        .await;
        server.stop().await;
        server = TestServer::start_with(settings(db.clone())).await;
        check(
            &c,
            &server,
            &acked,
            &format!("round {round}, after the restart"),
        )
        .await;
    }
    server.stop().await;
}

/// Several clients act on the same games at once, each from the state it saw last (often
/// stale, so many actions are refused): every change acknowledged has its own version, the
/// game shows the one acknowledged last, before and after a restart, and a watcher's event
/// stream brings states in the order of their versions, ending with that one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_are_each_acknowledged_once() {
    let scratch = Scratch::new();
    let db = scratch.db("restart-concurrent");
    // The games leave memory between the clients' actions and come back from the database
    // while others change them (more games than memory keeps).
    let mut cfg = config(db.clone(), 1);
    cfg.settings.idle_game = Duration::from_millis(20);
    cfg.settings.max_games = 1;
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::new();
    let mut ids = Vec::new();
    let mut first = HashMap::new();
    for (body, import) in games().into_iter().take(3) {
        let (id, state) = create(&c, &server, body, import).await;
        first.insert(id.clone(), state);
        ids.push(id);
    }
    // A watcher of each game (no seat), listening from the start.
    let mut watchers = Vec::new();
    for id in &ids {
        let url = server.url(&format!("/api/games/{id}/events"));
        watchers.push((id.clone(), Events::open(&c, &url).await));
    }
    let server = std::sync::Arc::new(server);
    let mut clients = Vec::new();
    for client in 0..4u64 {
        let (server, ids, c) = (server.clone(), ids.clone(), c.clone());
        let mut seen = first.clone();
        clients.push(tokio::spawn(async move {
            let mut rng = StdRng::seed_from_u64(100 + client);
            let mut acks: Vec<(String, Value)> = Vec::new();
            for _ in 0..60 {
                let id = ids[rng.random_range(0..ids.len())].clone();
                let (status, answer) = act(&c, &server, &mut rng, &id, &seen[&id]).await;
                match status {
                    200 => {
                        seen.insert(id.clone(), answer.clone());
                        acks.push((id, answer));
                    }
                    409 | 422 => {
                        let (_, now) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
                        seen.insert(id, now);
                    }
                    _ => panic!("{status} {answer}"),
                }
            }
            acks
        }));
    }
    let mut acks: HashMap<String, Vec<Value>> = HashMap::new();
    for client in clients {
        let mine = client.await.unwrap();
        // One client's acknowledgements of a game, one after the other, rise in version.
        for pair in mine.windows(2).filter(|p| p[0].0 == p[1].0) {
            assert!(pair[0].1["version"].as_u64() < pair[1].1["version"].as_u64());
        }
        for (id, state) in mine {
            acks.entry(id).or_default().push(state);
        }
    }
    let server = std::sync::Arc::into_inner(server).expect("the clients are done");
    let mut last = HashMap::new();
    for (id, mut states) in acks {
        states.sort_by_key(|s| s["version"].as_u64());
        let versions: Vec<u64> = states
            .iter()
            .filter_map(|s| s["version"].as_u64())
            .collect();
        let mut distinct = versions.clone();
        distinct.dedup();
        assert_eq!(
            distinct, versions,
            "two changes of {id} were acknowledged as one version"
        );
        last.insert(id, states.pop().unwrap());
    }
    check(&c, &server, &last, "after the clients").await;
    for (id, mut events) in watchers {
        let Some(acked) = last.get(&id) else { continue };
        let mut seen = 0;
        loop {
            let state = events.next_state().await;
            let version = state["version"].as_u64().unwrap();
            assert!(
                version > seen || seen == 0,
                "{id}: an event of version {version} after {seen}"
            );
            seen = version;
            if version >= acked["version"].as_u64().unwrap() {
                if let Err(diff) = same(&state, acked) {
                    panic!("{id}: the last event is not the state acknowledged last:\n{diff}");
                }
                break;
            }
        }
    }
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    check(&c, &server, &last, "after a restart").await;
    server.stop().await;
}
