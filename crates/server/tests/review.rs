//! Game review on the server: `POST /api/games/{id}/review` runs in the background holding a
//! search slot, reports on the game's event stream, can be cancelled, and its result survives a
//! restart. The game is hand-made: White's 37-32 gives a man away (27x38) and 47-42 a second one
//! (38x47, crowning); Black's captures are its only moves.

use std::time::{Duration, Instant};

use crate::common::{get, post, post_as_watcher, seat_header, Scratch, TestServer};
use serde_json::{json, Value};

const GAME: &str = "[White \"Ann\"]\n[Black \"Bob\"]\n[Variant \"international\"]\n\
    [FEN \"W:W36,37,46,47,48:B1,2,3,4,27\"]\n\n1. 37-32 27x38 2. 47-42 38x47 *\n";

/// A longer game from the start, for a review that takes a while.
const LONG: &str = "[Variant \"international\"]\n\n1. 31-26 20-25 2. 36-31 15-20 3. 41-36 10-15 \
    4. 46-41 5-10 5. 33-29 19-23 *\n";

async fn import(c: &reqwest::Client, server: &TestServer, pdn: &str) -> String {
    let (status, state) = post(c, &server.url("/api/games/import"), json!({"pdn": pdn})).await;
    assert_eq!(status, 201, "{state}");
    state["id"].as_str().unwrap().to_string()
}

/// Reads the event stream until a `review` event whose status is one of `until`.
async fn review_events(mut events: reqwest::Response, until: &[&str]) -> Vec<Value> {
    let mut seen = Vec::new();
    let mut buffer = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let chunk = tokio::time::timeout(Duration::from_secs(30), events.chunk())
            .await
            .expect("an event within 30 s")
            .unwrap()
            .expect("the stream goes on");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let message: String = buffer.drain(..end + 2).collect();
            if !message.contains("event: review") {
                continue;
            }
            let data = message
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap();
            let value: Value = serde_json::from_str(data).unwrap();
            let status = value["status"].as_str().unwrap_or("").to_string();
            seen.push(value);
            if until.contains(&status.as_str()) {
                return seen;
            }
        }
    }
    panic!("no review event in {until:?}: {seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_reports_progress_marks_the_blunders_and_survives_a_restart() {
    let scratch = Scratch::new();
    let db = scratch.db("review");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let id = import(&c, &server, GAME).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let (status, none) = get(&c, &url("/review")).await;
    assert_eq!(status, 404, "{none}");
    let events = c.get(url("/events")).send().await.unwrap();
    let (status, started) = post(&c, &url("/review"), json!({"time": 0.05})).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["total"], 5);
    let seen = review_events(events, &["done", "failed", "cancelled"]).await;
    assert_eq!(seen.last().unwrap()["status"], "done", "{seen:?}");
    // One progress event per position, each with its evaluation; the judged ply once known.
    let running: Vec<&Value> = seen.iter().filter(|e| e["status"] == "running").collect();
    assert!(running.iter().any(|e| e["done"] == 5), "{seen:?}");
    assert!(
        running
            .iter()
            .any(|e| e["ply"]["played"] == "37-32" && e["ply"]["mark"] == "blunder"),
        "{seen:?}"
    );
    let (status, review) = get(&c, &url("/review")).await;
    assert_eq!(status, 200, "{review}");
    assert_eq!(review["status"], "done");
    assert_eq!(review["stale"], false);
    let plies = review["review"]["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 4);
    assert_eq!(plies[0]["mark"], "blunder", "{review}");
    assert_eq!(plies[2]["mark"], "blunder", "{review}");
    assert!(plies[0]["best"].is_string());
    assert_eq!(plies[1]["forced"], true);
    assert_eq!(plies[1]["mark"], Value::Null);
    assert_eq!(review["review"]["players"]["white"]["blunders"], 2);
    assert_eq!(review["review"]["evals"].as_array().unwrap().len(), 5);
    assert_eq!(server.state.searches_running(), 0);
    server.stop().await;

    let server = TestServer::start(db, 1).await;
    let (status, again) = get(&c, &server.url(&format!("/api/games/{id}/review"))).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["review"], review["review"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_holds_a_search_slot_and_stops_when_cancelled() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("review-cancel"), 1).await;
    let c = reqwest::Client::new();
    let id = import(&c, &server, LONG).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let events = c.get(url("/events")).send().await.unwrap();
    // 11 positions at 2 s: 22 s unless cancelled.
    let (status, started) = post(&c, &url("/review"), json!({"time": 2.0})).await;
    assert_eq!(status, 202, "{started}");
    let (status, twice) = post(&c, &url("/review"), json!({"time": 2.0})).await;
    assert_eq!(status, 409, "{twice}");
    let start = Instant::now();
    while server.state.searches_running() == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the review never ran"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Progress can be read; a watcher may not cancel.
    let (status, _) = get(&c, &url("/review")).await;
    assert_eq!(status, 200);
    let r = c.delete(url("/review")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let cancelled_at = Instant::now();
    let r = c
        .delete(url("/review"))
        .header("x-damspel-seat", seat_header(&id))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let seen = review_events(events, &["done", "failed", "cancelled"]).await;
    assert_eq!(seen.last().unwrap()["status"], "cancelled", "{seen:?}");
    while server.state.searches_running() != 0 {
        // Generous: the point is that the slot comes back long before the 22 s review's end.
        assert!(
            cancelled_at.elapsed() < Duration::from_secs(5),
            "the cancelled review kept its search slot"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, _) = get(&c, &url("/review")).await;
    assert_eq!(status, 404, "a cancelled review is not stored");
    let r = c
        .delete(url("/review"))
        .header("x-damspel-seat", seat_header(&id))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_review_requests_get_a_4xx() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("review-bad"), 1).await;
    let c = reqwest::Client::new();
    let id = import(&c, &server, GAME).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    for body in [
        json!({"time": 0}),
        json!({"time": -1}),
        json!({"time": 1000}),
        json!({"depth": 3}),
    ] {
        let (status, e) = post(&c, &url("/review"), body.clone()).await;
        assert!((400..500).contains(&status), "{body}: {status} {e}");
        assert!(e["error"].is_string(), "{e}");
    }
    let (status, e) = post_as_watcher(&c, &url("/review"), json!({})).await;
    assert_eq!(status, 403, "{e}");
    let (status, _) = post(&c, &server.url("/api/games/nosuchgame/review"), json!({})).await;
    assert_eq!(status, 404);
    // A game without moves has nothing to review.
    let (_, fresh) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "international"}),
    )
    .await;
    let fresh = fresh["id"].as_str().unwrap().to_string();
    let (status, e) = post(
        &c,
        &server.url(&format!("/api/games/{fresh}/review")),
        json!({}),
    )
    .await;
    assert_eq!(status, 422, "{e}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_loads_the_review_panel_script() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("review-page"), 1).await;
    let c = reqwest::Client::new();
    let page = c.get(server.url("/")).send().await.unwrap();
    assert!(page.text().await.unwrap().contains("src=\"/review.js\""));
    let script = c.get(server.url("/review.js")).send().await.unwrap();
    assert_eq!(script.status().as_u16(), 200);
    let kind = script.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(kind.starts_with("text/javascript"), "{kind}");
    assert!(script.text().await.unwrap().contains("review-panel"));
    server.stop().await;
}

/// The review is of the game, its main line, whichever node the game shows: its count, its
/// moves and whether it is stale follow the main line. (The count and the moves were those of
/// the line up to the node shown: 2 positions from the game's second node, a review of 5.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_is_of_the_main_line_wherever_the_game_is_shown() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("review-main-line"), 1).await;
    let c = reqwest::Client::new();
    let id = import(&c, &server, GAME).await;
    let url = |p: &str| server.url(&format!("/api/games/{id}{p}"));
    let (status, shown) = post(&c, &url("/goto"), json!({"node": 1})).await;
    assert_eq!(status, 200, "{shown}");
    let events = c.get(url("/events")).send().await.unwrap();
    let (status, started) = post(&c, &url("/review"), json!({"time": 0.05})).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["total"], 5, "{started}");
    let seen = review_events(events, &["done", "failed", "cancelled"]).await;
    assert_eq!(seen.last().unwrap()["status"], "done", "{seen:?}");
    for node in [1, 4, 0] {
        let (status, shown) = post(&c, &url("/goto"), json!({"node": node})).await;
        assert_eq!(status, 200, "{shown}");
        let (status, review) = get(&c, &url("/review")).await;
        assert_eq!(status, 200, "{review}");
        assert_eq!(review["stale"], false, "node {node}: {review}");
        assert_eq!(review["moves"], "37-32 27x38 47-42 38x47", "{review}");
    }
    server.stop().await;
}

/// Plays `text` after node `from` (a variation if `from` has a move after it already).
async fn play_from(
    c: &reqwest::Client,
    s: &TestServer,
    id: &str,
    text: &str,
    from: &Value,
) -> (u16, Value) {
    post(
        c,
        &s.url(&format!("/api/games/{id}/move")),
        json!({"move": text, "from": from}),
    )
    .await
}

fn legal(state: &Value) -> Vec<String> {
    state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["notation"].as_str().unwrap().to_string())
        .collect()
}

async fn new_game(c: &reqwest::Client, s: &TestServer) -> (String, Value) {
    let (status, state) = post(
        c,
        &s.url("/api/games"),
        json!({"variant": "international", "white": "human", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    (state["id"].as_str().unwrap().to_string(), state)
}

/// A 422 whose error says `words`.
fn assert_refused(status: u16, answer: &Value, words: &str) {
    assert_eq!(status, 422, "{answer}");
    let error = answer["error"].as_str().unwrap_or_default();
    assert!(error.contains(words), "{answer}");
}

/// The audit: variations nested 65 deep (the PDN reader reads 64) made the game's review a
/// 500 and its own export impossible to import. Now the 65th level is refused, and the game
/// exports to a PDN that imports again and is reviewed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variations_nest_only_as_deep_as_pdn_reads_and_such_a_game_is_reviewed() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("review-deep"), 1).await;
    let c = reqwest::Client::new();
    let (id, mut state) = new_game(&c, &server).await;
    // Each level: the position's first legal move continues the line, its second starts a
    // variation one level deeper, and the next level goes on from there.
    let mut level = 0;
    let mut refused = None;
    for _ in 0..400 {
        let moves = legal(&state);
        assert!(!moves.is_empty(), "the game ended: {state}");
        let here = state["tree"]["current"].clone();
        let (status, next) = play_from(&c, &server, &id, &moves[0], &here).await;
        assert_eq!(status, 200, "{next}");
        if moves.len() < 2 {
            state = next;
            continue;
        }
        let (status, next) = play_from(&c, &server, &id, &moves[1], &here).await;
        if level == 64 {
            refused = Some((status, next));
            break;
        }
        assert_eq!(status, 200, "level {}: {next}", level + 1);
        level += 1;
        state = next;
    }
    let (status, refusal) = refused.expect("64 levels reached");
    assert_refused(status, &refusal, "64");
    // The export imports again (422 before, for a game 65 deep), and the review starts.
    let text = crate::common::pdn(&c, &server, &id).await;
    let (status, imported) = post(
        &c,
        &server.url("/api/games/import"),
        json!({"pdn": text, "variant": "international"}),
    )
    .await;
    assert_eq!(status, 201, "{imported}");
    let (status, answer) = post(
        &c,
        &server.url(&format!("/api/games/{id}/review")),
        json!({"time": 0.01}),
    )
    .await;
    assert_eq!(status, 202, "{answer}");
    server.stop().await;
}

/// The audit: 4,000-byte comments on enough moves made the game's PDN longer than the reader's
/// 1 MiB for a game, and its review a 500; the review reads the main line only since. Still,
/// such a game's export could not be imported again (over the import's 512 KiB, and over the
/// reader's 1 MiB). Now a change that would make the export longer than `MAX_EXPORT` is refused,
/// as is an import the server would write back longer: what is kept imports again whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_commented_up_to_its_bound_imports_again_and_is_reviewed() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("review-comments"), 1).await;
    let c = reqwest::Client::new();
    let (id, start) = new_game(&c, &server).await;
    // Every reply to every first move, and so on, until 270 moves (270 × 4,000 bytes > 1 MiB).
    let mut nodes = Vec::new();
    let mut frontier = vec![start];
    'fill: while !frontier.is_empty() {
        let mut next_frontier = Vec::new();
        for state in frontier {
            let here = state["tree"]["current"].clone();
            for mv in legal(&state) {
                let (status, next) = play_from(&c, &server, &id, &mv, &here).await;
                assert_eq!(status, 200, "{next}");
                nodes.push(next["tree"]["current"].clone());
                next_frontier.push(next);
                if nodes.len() >= 270 {
                    break 'fill;
                }
            }
        }
        frontier = next_frontier;
    }
    let comment = "x".repeat(4000);
    let mut refused = None;
    for (kept, node) in nodes.iter().enumerate() {
        let (status, answer) = post(
            &c,
            &server.url(&format!("/api/games/{id}/annotate")),
            json!({"node": node, "comment": comment}),
        )
        .await;
        if status != 200 {
            refused = Some((kept, status, answer));
            break;
        }
    }
    let (kept, status, refusal) = refused.expect("the comments refused once past the bound");
    assert_refused(status, &refusal, "so that it can be imported again");
    let text = crate::common::pdn(&c, &server, &id).await;
    // The comments refused were those past the bound, not before it.
    assert!(
        text.len() <= damspel_server::MAX_EXPORT && text.len() + 4100 > damspel_server::MAX_EXPORT,
        "{} bytes after {kept} comments",
        text.len()
    );
    // The export imports again, every move and comment of it: the copy writes the same PDN.
    let (status, imported) = post(&c, &server.url("/api/games/import"), json!({"pdn": text})).await;
    assert_eq!(status, 201, "{imported}");
    assert!(imported.get("skipped").is_none(), "{}", imported["skipped"]);
    let copy_id = imported["id"].as_str().unwrap();
    let copy = crate::common::pdn(&c, &server, copy_id).await;
    assert_eq!(copy.matches(&comment).count(), kept);
    assert_eq!(copy, text);
    // One comment more, on the start, written into the file: a file the import takes (under
    // `MAX_PDN`) but whose export would be longer than a game may be is refused.
    let blank = text.find("\n\n").expect("tags, then the move text") + 2;
    let more = format!("{}{{{comment}}} {}", &text[..blank], &text[blank..]);
    assert!(more.len() <= damspel_server::MAX_PDN);
    let (status, refusal) = post(&c, &server.url("/api/games/import"), json!({"pdn": more})).await;
    assert_refused(status, &refusal, "as the server writes it");
    let (status, answer) = post(
        &c,
        &server.url(&format!("/api/games/{id}/review")),
        json!({"time": 0.01}),
    )
    .await;
    assert_eq!(status, 202, "{answer}");
    server.stop().await;
}
