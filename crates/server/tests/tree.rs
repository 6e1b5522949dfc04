//! A game as a tree (issue 12, item 1): moves in the past start variations, the engine plays
//! only at the end of the main line, variations can be promoted and deleted, and the tree
//! (with comments and NAGs) survives a restart, a PDN import and a PDN export.

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

fn node(state: &Value, id: u64) -> &Value {
    &state["tree"]["nodes"][id as usize]
}

/// The node whose move is written `text` (the first, in id order).
fn find(state: &Value, text: &str) -> u64 {
    state["tree"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["notation"] == text)
        .unwrap_or_else(|| panic!("no node `{text}` in {}", state["tree"]))["id"]
        .as_u64()
        .unwrap()
}

fn children(state: &Value, id: u64) -> Vec<u64> {
    node(state, id)["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect()
}

async fn play(c: &reqwest::Client, s: &TestServer, id: &str, body: Value) -> (u16, Value) {
    post(c, &s.url(&format!("/api/games/{id}/move")), body).await
}

/// Turkish (1.01) men step forward or sideways; these four moves are legal from the start and
/// bring no man next to an enemy one.
async fn four_moves(c: &reqwest::Client, s: &TestServer) -> (String, Value) {
    let (status, state) = post(
        c,
        &s.url("/api/games"),
        json!({"variant": "turkish", "white": "human", "black": "human"}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let mut state = state;
    for mv in ["a3-a4", "h6-h5", "b3-b4", "g6-g5"] {
        let (status, next) = play(c, s, &id, json!({"move": mv})).await;
        assert_eq!(status, 200, "{mv}: {next}");
        state = next;
    }
    (id, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_in_the_past_starts_a_variation() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-variation"), 1).await;
    let c = reqwest::Client::new();
    let (id, state) = four_moves(&c, &server).await;
    let d4 = find(&state, "a3-a4");
    let d5 = find(&state, "h6-h5");
    // Black answers a3-a4 differently: a variation beside h6-h5, the game stays.
    let (status, state) = play(&c, &server, &id, json!({"move": "c6-c5", "from": d4})).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(notations(&state), ["a3-a4", "c6-c5"]);
    let c5 = find(&state, "c6-c5");
    assert_eq!(children(&state, d4), [d5, c5], "the game's move first");
    assert_eq!(state["tree"]["current"], c5);
    // The main line still has the four moves and ends where it did.
    let main_end = state["tree"]["main_end"].as_u64().unwrap();
    assert_eq!(node(&state, main_end)["notation"], "g6-g5");
    assert_eq!(node(&state, main_end)["ply"], 4);
    // A move that is already there is followed, not added twice.
    let count = state["tree"]["nodes"].as_array().unwrap().len();
    let (_, again) = play(&c, &server, &id, json!({"move": "h6-h5", "from": d4})).await;
    assert_eq!(again["tree"]["nodes"].as_array().unwrap().len(), count);
    assert_eq!(again["tree"]["current"], d5);
    // An unknown node is refused.
    let (status, _) = play(&c, &server, &id, json!({"move": "h6-h5", "from": 999})).await;
    assert_eq!(status, 422);

    // Promoted, the variation becomes the main line; deleted, it is gone.
    let (status, promoted) = post(
        &c,
        &server.url(&format!("/api/games/{id}/promote")),
        json!({"node": c5}),
    )
    .await;
    assert_eq!(status, 200, "{promoted}");
    assert_eq!(children(&promoted, d4), [c5, d5]);
    assert_eq!(promoted["tree"]["main_end"], c5);
    let (status, _) = post(
        &c,
        &server.url(&format!("/api/games/{id}/promote")),
        json!({"node": c5}),
    )
    .await;
    assert_eq!(status, 409, "already the main line");
    let (status, deleted) = post(
        &c,
        &server.url(&format!("/api/games/{id}/delete")),
        json!({"node": d5}),
    )
    .await;
    assert_eq!(status, 200, "{deleted}");
    let nodes = deleted["tree"]["nodes"].as_array().unwrap();
    assert_eq!(
        nodes.len(),
        3,
        "the start, a3-a4, c6-c5: {}",
        deleted["tree"]
    );
    // The deleted move was shown: its parent is now.
    assert_eq!(notations(&deleted), ["a3-a4"]);
    assert_eq!(children(&deleted, d4), [2]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tree_survives_a_restart() {
    let scratch = Scratch::new();
    let db = scratch.db("tree-restart");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (id, state) = four_moves(&c, &server).await;
    let d4 = find(&state, "a3-a4");
    let (_, _) = play(&c, &server, &id, json!({"move": "c6-c5", "from": d4})).await;
    let (status, state) = post(
        &c,
        &server.url(&format!("/api/games/{id}/annotate")),
        json!({"node": d4, "comment": "the centre", "nags": ["!", "$14"]}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    let (status, state) = post(
        &c,
        &server.url(&format!("/api/games/{id}/goto")),
        json!({"node": d4}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(notations(&state), ["a3-a4"]);
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let (status, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["tree"], state["tree"]);
    assert_eq!(again["fen"], state["fen"]);
    assert_eq!(node(&again, d4)["comment"], "the centre");
    assert_eq!(node(&again, d4)["nags"], json!(["!", "$14"]));
    // A comment that would end a PDN comment early is refused.
    let (status, _) = post(
        &c,
        &server.url(&format!("/api/games/{id}/annotate")),
        json!({"node": d4, "comment": "a } b"}),
    )
    .await;
    assert_eq!(status, 422);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_stored_before_trees_load_as_a_main_line() {
    let scratch = Scratch::new();
    let db = scratch.db("tree-old-rows");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (id, _) = four_moves(&c, &server).await;
    let (_, state) = post(&c, &server.url(&format!("/api/games/{id}/undo")), json!({})).await;
    server.stop().await;
    // As an older server left it: moves and the redo line, no tree.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn
        .execute("UPDATE games SET tree = NULL WHERE id = ?1", [&id])
        .unwrap();
    assert_eq!(changed, 1);
    drop(conn);
    let server = TestServer::start(db, 1).await;
    let (status, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(notations(&again), ["a3-a4", "h6-h5", "b3-b4"]);
    assert_eq!(again["redo"], 1);
    assert_eq!(again["tree"], state["tree"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_tree_is_an_error_for_its_game_only() {
    let scratch = Scratch::new();
    let db = scratch.db("tree-damaged");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(four_moves(&c, &server).await.0);
    }
    server.stop().await;
    let conn = rusqlite::Connection::open(&db).unwrap();
    for (id, tree) in ids.iter().zip([
        // A parent after its child, a node that is not there, a duplicate, not JSON.
        r#"{"cursor":0,"nodes":[{"p":1,"m":"a3-a4"}]}"#,
        r#"{"cursor":5,"nodes":[{"p":0,"m":"a3-a4"}]}"#,
        r#"{"cursor":0,"nodes":[{"p":0,"m":"a3-a4"},{"p":0,"m":"a3-a4"}]}"#,
        "[[",
    ]) {
        conn.execute("UPDATE games SET tree = ?2 WHERE id = ?1", [id, tree])
            .unwrap();
    }
    drop(conn);
    let server = TestServer::start(db, 1).await;
    for id in &ids {
        let (status, e) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
        assert_eq!(status, 500, "{id}: {e}");
        assert!(e["error"].as_str().unwrap().contains("damaged"), "{e}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_plays_only_at_the_end_of_the_main_line() {
    let scratch = Scratch::new();
    let db = scratch.db("tree-engine");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (status, state) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "turkish", "white": "human", "black": "engine", "engine_time": 0.05}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    play(&c, &server, &id, json!({"move": "d3-d4"})).await;
    let (status, state) = post(
        &c,
        &server.url(&format!("/api/games/{id}/engine")),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(notations(&state).len(), 2);
    // Back one move: Black (the engine) is to move, but this is the past.
    let (_, paused) = post(&c, &server.url(&format!("/api/games/{id}/undo")), json!({})).await;
    assert_eq!(paused["side_to_move"], "black");
    assert_eq!(paused["engine_to_move"], false);
    let (status, _) = post(
        &c,
        &server.url(&format!("/api/games/{id}/engine")),
        json!({}),
    )
    .await;
    assert_eq!(status, 409);
    // Reloaded (after a restart), the paused game is still paused with its line ahead.
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let (_, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(again["engine_to_move"], false);
    assert_eq!(again["redo"], 1);
    assert_eq!(notations(&again), ["d3-d4"]);
    server.stop().await;
}

/// International; the main line and a variation with comments, written as a player would.
const ANNOTATED: &str = r#"[Event "Club evening"]
[White "Alice"]
[Black "Bob"]
[Result "*"]
[GameType "20"]

1. 32-28 {a classic} 19-23 (1... 18-23 {the other} 2. 37-32) 2. 28x19 14x23 *
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_game_keeps_its_variations_and_comments_in_and_out() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-pdn"), 1).await;
    let c = reqwest::Client::new();
    let (status, state) = post(
        &c,
        &server.url("/api/games/import"),
        json!({"pdn": ANNOTATED}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    assert_eq!(notations(&state), ["32-28", "19-23", "28x19", "14x23"]);
    let m28 = find(&state, "32-28");
    let m23 = find(&state, "19-23");
    let v23 = find(&state, "18-23");
    let v32 = find(&state, "37-32");
    assert_eq!(children(&state, m28), [m23, v23]);
    assert_eq!(children(&state, v23), [v32]);
    assert_eq!(node(&state, m28)["comment"], "a classic");
    assert_eq!(node(&state, v23)["comment"], "the other");

    let pdn = common::pdn(&c, &server, &id).await;
    // As written, with Black's move numbered again after a comment (as PGN's export format
    // asks), and wrapped at 79 columns.
    let text = pdn.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert_eq!(
        text.trim(),
        "1. 32-28 {a classic} 1... 19-23 (1... 18-23 {the other} 2. 37-32) 2. 28x19 14x23 *",
        "{pdn}"
    );
    // Read back, the export gives the same tree.
    let (status, again) = post(&c, &server.url("/api/games/import"), json!({"pdn": pdn})).await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["tree"]["nodes"], state["tree"]["nodes"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_finds_several_lines() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-analyse"), 1).await;
    let c = reqwest::Client::new();
    let (id, state) = four_moves(&c, &server).await;
    let legal: Vec<String> = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["full"].as_str().unwrap().to_string())
        .collect();
    let (status, answer) = post(
        &c,
        &server.url(&format!("/api/games/{id}/analyse")),
        json!({"lines": 3, "time": 0.3}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let lines = answer["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{answer}");
    let firsts: Vec<&str> = lines.iter().map(|l| l["full"].as_str().unwrap()).collect();
    for (i, f) in firsts.iter().enumerate() {
        assert!(legal.iter().any(|l| l == f), "{f} is legal");
        assert!(!firsts[..i].contains(f), "{f} twice");
    }
    for (body, status) in [
        (json!({"lines": 6}), 422),
        (json!({"lines": 0}), 422),
        (json!({"time": 121}), 422),
    ] {
        let (got, e) = post(&c, &server.url(&format!("/api/games/{id}/analyse")), body).await;
        assert_eq!(got, status, "{e}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variation_of_the_first_move_is_exported() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-first"), 1).await;
    let c = reqwest::Client::new();
    let (id, _) = four_moves(&c, &server).await;
    let (status, state) = play(&c, &server, &id, json!({"move": "c3-c4", "from": 0})).await;
    assert_eq!(status, 200, "{state}");
    let pdn = common::pdn(&c, &server, &id).await;
    let text = pdn.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert_eq!(
        text.trim(),
        "1. a3-a4 (1. c3-c4) 1... h6-h5 2. b3-b4 g6-g5 *",
        "{pdn}"
    );
    server.stop().await;
}

/// The row of game `id` in the games list.
async fn listed(c: &reqwest::Client, s: &TestServer, id: &str) -> Value {
    let (status, list) = get(c, &s.url("/api/games")).await;
    assert_eq!(status, 200, "{list}");
    let games = list.as_array().expect("a list of games");
    let row = games
        .iter()
        .find(|g| g["id"] == id)
        .expect("the game listed");
    row.clone()
}

/// The games list shows how a game ended, also while someone looks at an earlier position.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_games_list_keeps_the_result_while_the_start_is_shown() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-list-result"), 1).await;
    let c = reqwest::Client::new();
    // Turkish (1.01): the white man on d4 takes d5; one piece each is then a draw.
    let (status, state) = post(
        &c,
        &server.url("/api/games"),
        json!({"variant": "turkish", "white": "human", "black": "human", "fen": "W:Wd4:Bd5,h8"}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let (status, state) = play(&c, &server, &id, json!({"move": "d4xd6"})).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["outcome"]["result"], "1/2-1/2", "{state}");
    let (status, state) = post(
        &c,
        &server.url(&format!("/api/games/{id}/goto")),
        json!({"node": 0}),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    let row = listed(&c, &server, &id).await;
    assert_eq!(row["result"], "1/2-1/2", "{row}");
    assert_eq!(row["moves"], 1, "{row}");
    server.stop().await;
}

/// The games list gives the length of the game (its main line), also while someone looks at a
/// shorter variation. (It gave the length of the line shown: 2 here.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_games_list_counts_the_main_line_while_a_variation_is_shown() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-list-length"), 1).await;
    let c = reqwest::Client::new();
    let (id, state) = four_moves(&c, &server).await;
    let a4 = find(&state, "a3-a4");
    let (status, state) = play(&c, &server, &id, json!({"move": "c6-c5", "from": a4})).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(notations(&state), ["a3-a4", "c6-c5"]);
    let row = listed(&c, &server, &id).await;
    assert_eq!(row["moves"], 4, "the four moves of the game: {row}");
    server.stop().await;
}

/// A result reads as the variant's PDN writes it, the same in the state, the games list and the
/// export: International `2-0 0-2 1-1` (the PDN standard's International result type,
/// shared/reference/README.md §6, "Result values per type"), American checkers with the score
/// of Black, who moves first, first (CheckerBoard's convention, cited in notation's
/// `pdn/result.rs`), and `1-0 0-1` elsewhere. The page showed `1-0` for a game its export
/// called `2-0`, and for an American game the opposite winner of its export.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_reads_as_the_variants_pdn_writes_it() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-result-style"), 1).await;
    let c = reqwest::Client::new();
    // (variant, start, moves, then resign or offer a draw, the result expected)
    let cases = [
        // White, to move, resigns.
        ("international", None, vec![], Some("resign"), "0-2"),
        // 28x19 takes Black's last piece.
        (
            "international",
            Some("W:W28:B23"),
            vec!["28x19"],
            None,
            "2-0",
        ),
        // White offers a draw, moves, and Black accepts.
        ("international", None, vec!["32-28"], Some("draw"), "1-1"),
        // Black, who moves first, resigns: White wins.
        ("american", None, vec![], Some("resign"), "0-1"),
        // 14x23 takes White's last piece: Black wins.
        ("american", Some("B:W18:B14"), vec!["14x23"], None, "1-0"),
        ("russian", None, vec![], Some("resign"), "0-1"),
    ];
    for (variant, fen, moves, end, expected) in cases {
        let mut body = json!({"variant": variant, "white": "human", "black": "human"});
        if let Some(fen) = fen {
            body["fen"] = json!(fen);
        }
        let (status, state) = post(&c, &server.url("/api/games"), body).await;
        assert_eq!(status, 201, "{state}");
        let id = state["id"].as_str().unwrap().to_string();
        let at = |path: &str| server.url(&format!("/api/games/{id}/{path}"));
        if end == Some("draw") {
            let (status, state) = post(&c, &at("draw"), json!({"action": "offer"})).await;
            assert_eq!(status, 200, "{state}");
        }
        let mut state = state;
        for mv in moves {
            let (status, next) = play(&c, &server, &id, json!({"move": mv})).await;
            assert_eq!(status, 200, "{variant} {mv}: {next}");
            state = next;
        }
        match end {
            Some("resign") => {
                let (status, next) = post(&c, &at("resign"), json!({})).await;
                assert_eq!(status, 200, "{next}");
                state = next;
            }
            Some(_) => {
                let (status, next) = post(&c, &at("draw"), json!({"action": "accept"})).await;
                assert_eq!(status, 200, "{next}");
                state = next;
            }
            None => {}
        }
        assert_eq!(state["outcome"]["result"], expected, "{variant}: {state}");
        // An ending off the board carries no result text of its own to contradict it.
        if let Some(ending) = state.get("ending") {
            assert!(ending.get("result").is_none(), "{variant}: {ending}");
            assert_eq!(ending["winner"], state["outcome"]["winner"], "{variant}");
        }
        assert_eq!(
            listed(&c, &server, &id).await["result"],
            expected,
            "{variant}"
        );
        let pdn = common::pdn(&c, &server, &id).await;
        assert!(
            pdn.contains(&format!("[Result \"{expected}\"]")),
            "{variant}: {pdn}"
        );
    }
    server.stop().await;
}

/// A comment that holds what looks like a tag, on a line of its own or where the export would
/// wrap, reads back as the same comment of the same one game. (It read back as two games: the
/// reader takes a line that starts as a tag for the next game's, and the export kept the
/// comment's line break or wrapped before the tag.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_that_looks_like_a_tag_stays_in_its_game() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("tree-forged-tag"), 1).await;
    let c = reqwest::Client::new();
    let (id, state) = four_moves(&c, &server).await;
    let first = find(&state, "a3-a4");
    let second = find(&state, "h6-h5");
    let forged = "ok *\n\n[Event \"forged\"]\n[Result \"1-0\"]\n\n1. e3-f4";
    let wrapped = format!("{} [Site \"q\"] and more", "word ".repeat(13));
    for (node, comment) in [(first, forged.to_string()), (second, wrapped)] {
        let (status, body) = post(
            &c,
            &server.url(&format!("/api/games/{id}/annotate")),
            json!({"node": node, "comment": comment}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let pdn = common::pdn(&c, &server, &id).await;
    let (status, listed) = post(&c, &server.url("/api/pdn"), json!({"pdn": pdn})).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["games"].as_array().unwrap().len(), 1, "{pdn}");
    let (status, again) = post(&c, &server.url("/api/games/import"), json!({"pdn": pdn})).await;
    assert_eq!(status, 201, "{pdn}\n{again}");
    let spaced = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(node(&again, first)["comment"], spaced(forged), "{pdn}");
    assert_eq!(notations(&again), ["a3-a4", "h6-h5", "b3-b4", "g6-g5"]);
    server.stop().await;
}
