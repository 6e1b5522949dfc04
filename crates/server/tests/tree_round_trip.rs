//! Random trees through the API and back: games built by random moves in the past and present
//! (variations), random comments (PDN's own characters among them) and NAGs, promotions and
//! deletions, in variants of each notation (numeric and algebraic, White or Black first, a
//! set-up start) and in every built-in variant, exported as PDN and imported again, must come
//! back as the same tree: the same moves under the same parents in the same order, with the
//! same comments and NAGs.
//!
//! Seeded (the same trees on every run); `DAMSPEL_TREE_ROUNDS=20` for a long run.

use crate::common;
use crate::common::{get, post, Scratch, TestServer};
use damspel_rules::Catalogue;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Value};

/// Games and their starts: (variant, FEN of a set-up start, or none).
const GAMES: [(&str, Option<&str>); 6] = [
    ("international", None),
    ("turkish", None),
    ("russian", None),
    ("american", None),
    ("dameo", None),
    ("international", Some("W:W31,32,33,K46:B18,19,20,K5")),
];

/// Words of comments: ordinary ones, and text that means something else in PDN (tags, move
/// numbers, results, variations, NAGs, escapes, setup commands, line comments).
const WORDS: [&str; 24] = [
    "good", "Zug", "ход", "手", "[Event", "\"x\"]", "1.", "12...", "1-0", "2-0", "*", "(", ")",
    "$3", "!?", "\\", "\\\"", "/FEN", "%", ";", "{", "32-28", "x", "\t",
];

const NAGS: [&str; 4] = ["$1", "$2", "$14", "$255"];

/// Move strength marks: a move has at most one (two would read back as one).
const MARKS: [&str; 6] = ["!", "?", "!!", "?!", "!?", "(!)"];

/// The tree from `id` down: each node's move, comment and NAGs, and its children in order.
fn canonical(state: &Value, id: usize) -> Value {
    let node = &state["tree"]["nodes"][id];
    let children: Vec<Value> = node["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| canonical(state, c.as_u64().unwrap() as usize))
        .collect();
    // The export writes a comment's runs of blanks as one space, and wraps lines between
    // words, inside comments too; a line break read back is a space, not a word of the
    // comment (so line breaks are not blanks here: comments have none of their own).
    let spaced = |v: &Value| {
        v.as_str()
            .map(|t| {
                let words: Vec<&str> = t.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
                json!(words.join(" "))
            })
            .unwrap_or(Value::Null)
    };
    json!({
        "full": node["full"],
        "comment": spaced(&node["comment"]),
        "pre": spaced(&node["pre"]),
        "nags": node["nags"],
        "children": children,
    })
}

fn nodes(state: &Value) -> usize {
    state["tree"]["nodes"].as_array().unwrap().len()
}

/// Some comments are longer than a line of the export (79 columns), which wraps them: a
/// comment came back with line breaks for spaces before the reader took them for the wraps
/// they are.
fn comment(rng: &mut StdRng) -> String {
    let n = if rng.random_bool(0.2) {
        rng.random_range(20..40)
    } else {
        rng.random_range(1..8)
    };
    (0..n)
        .map(|_| WORDS[rng.random_range(0..WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Builds a random tree in a new game; returns its id and last state.
async fn random_tree(
    c: &reqwest::Client,
    s: &TestServer,
    rng: &mut StdRng,
    variant: &str,
    fen: Option<&str>,
) -> (String, Value) {
    let mut body = json!({"variant": variant, "white": "human", "black": "human"});
    if let Some(fen) = fen {
        body["fen"] = json!(fen);
    }
    let (status, mut state) = post(c, &s.url("/api/games"), body).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let api = |what: &str| s.url(&format!("/api/games/{id}/{what}"));
    for _ in 0..40 {
        let roll = rng.random_range(0..100);
        let mut refusable = false;
        let (status, next) = if roll < 55 {
            let legal = state["legal"].as_array().unwrap();
            if legal.is_empty() {
                continue;
            }
            let mv = &legal[rng.random_range(0..legal.len())];
            post(c, &api("move"), json!({"move": mv["notation"]})).await
        } else if roll < 75 {
            let node = rng.random_range(0..nodes(&state));
            post(c, &api("goto"), json!({ "node": node })).await
        } else if roll < 90 {
            let node = rng.random_range(0..nodes(&state));
            // Up to two NAGs and a strength mark, the mark anywhere among them.
            let k = rng.random_range(0..3);
            let mut nags: Vec<&str> = (0..k)
                .map(|_| NAGS[rng.random_range(0..NAGS.len())])
                .collect();
            if rng.random_range(0..2) == 0 {
                let at = rng.random_range(0..=nags.len());
                nags.insert(at, MARKS[rng.random_range(0..MARKS.len())]);
            }
            let nags = if node == 0 { Vec::new() } else { nags };
            post(
                c,
                &api("annotate"),
                json!({"node": node, "comment": comment(rng), "nags": nags}),
            )
            .await
        } else if roll < 95 && nodes(&state) > 1 {
            // A move of the main line is refused (409): it is as high as it goes.
            refusable = true;
            let node = rng.random_range(1..nodes(&state));
            post(c, &api("promote"), json!({ "node": node })).await
        } else if nodes(&state) > 1 {
            let node = rng.random_range(1..nodes(&state));
            post(c, &api("delete"), json!({ "node": node })).await
        } else {
            continue;
        };
        if refusable && status == 409 {
            continue;
        }
        assert_eq!(status, 200, "{variant}: {next}");
        state = next;
    }
    let (status, state) = get(c, &s.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200, "{state}");
    (id, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_trees_come_back_from_their_pdn() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-round-trip"), 1).await;
    let c = reqwest::Client::new();
    let rounds = common::rounds("DAMSPEL_TREE_ROUNDS");
    // The games above, and one from the start of every built-in variant (irregular boards and
    // variants without a PDN GameType among them).
    let catalogue = Catalogue::builtin();
    let every = catalogue.variants().expect("every variant checks");
    let games: Vec<(&str, Option<&str>)> = GAMES
        .iter()
        .copied()
        .chain(every.iter().map(|v| (v.id.as_str(), None)))
        .collect();
    for round in 0..rounds {
        for (i, (variant, fen)) in games.iter().enumerate() {
            let mut rng = StdRng::seed_from_u64(round * 100 + i as u64);
            let (id, state) = random_tree(&c, &server, &mut rng, variant, *fen).await;
            let pdn = common::pdn(&c, &server, &id).await;
            let (status, again) =
                post(&c, &server.url("/api/games/import"), json!({ "pdn": pdn })).await;
            assert_eq!(status, 201, "{variant} round {round}:\n{pdn}\n{again}");
            assert_eq!(again["variant"], state["variant"], "{pdn}");
            assert_eq!(
                canonical(&again, 0),
                canonical(&state, 0),
                "{variant} round {round}:\n{pdn}"
            );
        }
    }
    server.stop().await;
}
