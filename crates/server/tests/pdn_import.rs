//! PDN files through the API (issue 11): a whole file listed (every game, bad ones at their
//! place with their error), one game of it imported, the variant decided by the file and refused
//! with its name when Damspel does not have it, a recorded game played past a draw claim, a file
//! in CP1251 read as written, an exported game that reads back as one game, and a game as
//! lidraughts exports it (clocks in every move's comment).

use crate::common;
use crate::common::{get, post, Scratch, TestServer};
use base64::Engine as _;
use serde_json::json;

/// Three games: International (GameType 20), one with an illegal second move, and Turkish.
const THREE: &str = "[Event \"Club\"]\n[White \"Anna\"]\n[Black \"Bert\"]\n[GameType \"20\"]\n\n\
                     1. 32-28 19-23 2. 28x19 14x23 1-0\n\n\
                     [Event \"Club\"]\n[White \"Cees\"]\n[Black \"Dirk\"]\n[GameType \"20\"]\n\n\
                     1. 32-28 28-22 *\n\n\
                     [Event \"Club\"]\n[White \"Eva\"]\n[Black \"Fred\"]\n[GameType \"30\"]\n\n\
                     1. d3-d4 e6-e5 *\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_is_listed_game_by_game_and_one_game_imported() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-list"), 1).await;
    let c = reqwest::Client::new();
    let (status, list) = post(&c, &server.url("/api/pdn"), json!({ "pdn": THREE })).await;
    assert_eq!(status, 200, "{list}");
    let games = list["games"].as_array().expect("a list of games");
    assert_eq!(games.len(), 3, "{list}");
    assert_eq!(games[0]["white"], "Anna");
    assert_eq!(games[0]["variant"], "international");
    assert_eq!(games[0]["plies"], 4);
    assert!(games[0]["error"].is_null(), "{list}");
    // 28-22 is not a move of Black's (28 is White's man): the game is listed with that error.
    assert_eq!(games[1]["white"], "Cees");
    let error = games[1]["error"].as_str().expect("an error for game 2");
    assert!(error.contains("28-22"), "{error}");
    assert_eq!(games[2]["variant"], "turkish");

    // A file of several games needs a choice; the answer says how many there are.
    let import = server.url("/api/games/import");
    let (status, e) = post(&c, &import, json!({ "pdn": THREE })).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("3 games"), "{e}");
    let (status, state) = post(&c, &import, json!({ "pdn": THREE, "game": 3 })).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["variant"], "turkish");
    assert_eq!(
        state["history"].as_array().map(Vec::len),
        Some(2),
        "{state}"
    );
    // The game's tags are kept: its export names the players and the event (issue 11: "every
    // import threw its tags away").
    let id = state["id"].as_str().unwrap();
    let pdn = common::pdn(&c, &server, id).await;
    for tag in ["[White \"Eva\"]", "[Black \"Fred\"]", "[Event \"Club\"]"] {
        assert!(pdn.contains(tag), "{tag} in {pdn}");
    }
    let (status, e) = post(&c, &import, json!({ "pdn": THREE, "game": 2 })).await;
    assert_eq!(status, 422, "{e}");
    let (status, e) = post(&c, &import, json!({ "pdn": THREE, "game": 4 })).await;
    assert_eq!(status, 422, "{e}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_damspel_does_not_have_is_refused_by_name() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-frisian"), 1).await;
    let c = reqwest::Client::new();
    // GameType 40 is Frisian draughts (shared/reference/pdn-gametype.tsv); the request's
    // variant must not override it.
    let pdn = "[GameType \"40\"]\n\n1. 32-28 19-23 *";
    let (status, e) = post(
        &c,
        &server.url("/api/games/import"),
        json!({ "pdn": pdn, "variant": "international" }),
    )
    .await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("Frisian"), "{e}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_game_goes_on_past_a_repetition() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-repetition"), 1).await;
    let c = reqwest::Client::new();
    // Kings go back and forth: the start position stands for the third time after ply 8, a
    // draw by repetition in play (rule book §0), a claim the players did not make here.
    let pdn = "[GameType \"20\"]\n[FEN \"W:WK46,K47:BK1,K2\"]\n\n\
               1. 46-41 1-6 2. 41-46 6-1 3. 46-41 1-6 4. 41-46 6-1 5. 47-42 2-7 *";
    let (status, state) = post(&c, &server.url("/api/games/import"), json!({ "pdn": pdn })).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(
        state["history"].as_array().map(Vec::len),
        Some(10),
        "{state}"
    );
    let claims = state["claims"].as_array().expect("the claim is marked");
    assert_eq!(claims[0]["ply"], 8, "{state}");
    // The game is stored as recorded: it reloads with all its moves.
    let id = state["id"].as_str().unwrap().to_string();
    let (status, again) = common::get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(
        again["history"].as_array().map(Vec::len),
        Some(10),
        "{again}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_in_cp1251_is_read_as_written() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-cp1251"), 1).await;
    let c = reqwest::Client::new();
    // "Иванов" in Windows-1251: И=C8 в=E2 а=E0 н=ED о=EE в=E2.
    let mut bytes = b"[GameType \"20\"]\n[White \"".to_vec();
    bytes.extend([0xC8, 0xE2, 0xE0, 0xED, 0xEE, 0xE2]);
    bytes.extend(b"\"]\n\n1. 32-28 *\n");
    let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let (status, list) = post(
        &c,
        &server.url("/api/pdn"),
        json!({ "pdn_base64": encoded }),
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["games"][0]["white"], "Иванов", "{list}");
    let (status, state) = post(
        &c,
        &server.url("/api/games/import"),
        json!({ "pdn_base64": encoded }),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["variant"], "international");
    let (status, e) = post(&c, &server.url("/api/pdn"), json!({ "pdn_base64": "%%%" })).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("base64"), "{e}");
    server.stop().await;
}

/// A file of many games is listed up to the first 2,000, with a word on the rest: 100,000
/// empty games in 512 KiB were listed in 7.5 s as 47 MB of JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_many_games_is_listed_up_to_its_cap() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-many"), 1).await;
    let c = reqwest::Client::new();
    let pdn = "*\n".repeat(5_000);
    let (status, listed) = post(&c, &server.url("/api/pdn"), json!({"pdn": pdn})).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["games"].as_array().unwrap().len(), 2_000);
    let stopped = listed["stopped"].as_str().unwrap();
    assert!(stopped.contains("after 2000 games"), "{stopped}");
    server.stop().await;
}

/// An import keeps what a game can hold and lists what it leaves out: comments of one move
/// joined past 4,000 bytes, NAGs past 8. (Two comments of 3,000 bytes were joined into one of
/// 6,001 that the game could not be read back with: after a restart it was "damaged", lost.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_keeps_what_a_game_can_hold_and_lists_the_rest() {
    let scratch = Scratch::new();
    let db = scratch.db("pdn-too-much");
    let server = TestServer::start(db.clone(), 1).await;
    let c = reqwest::Client::new();
    let (a, b) = ("a".repeat(3_000), "b".repeat(3_000));
    let nags = "$1 $2 $3 $4 $5 $6 $7 $8 $9 $10";
    let pdn = format!("[GameType \"20\"]\n\n1. 32-28 {nags} {{{a}}} {{{b}}} 19-23 *\n");
    let (status, state) = post(&c, &server.url("/api/games/import"), json!({"pdn": pdn})).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let skipped: Vec<&str> = state["skipped"]
        .as_array()
        .expect("what was left out")
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(
        skipped[0].contains("$9") && skipped[1].contains("$10"),
        "{skipped:?}"
    );
    assert!(skipped[2].contains("3000 bytes"), "{skipped:?}");
    server.stop().await;
    let server = TestServer::start(db, 1).await;
    let (_, again) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    let first = &again["tree"]["nodes"][1];
    assert_eq!(first["comment"], a.as_str(), "{again}");
    assert_eq!(first["nags"].as_array().unwrap().len(), 8, "{again}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_game_reads_back_as_one_game_with_its_own_ending() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-own-ending"), 1).await;
    let c = reqwest::Client::new();
    // White takes Black's last piece: the game is over, and the file's own Termination tag
    // is no longer this game's ending. The export writes each tag once (a reader takes a
    // repeated tag for the start of the next game's tags, which would part them from the moves).
    let pdn = "[GameType \"20\"]\n[FEN \"W:W28:B23\"]\n[Termination \"adjourned\"]\n\
               [Annotator \"Anna\"]\n\n1. 28x19 *";
    let (status, state) = post(&c, &server.url("/api/games/import"), json!({ "pdn": pdn })).await;
    assert_eq!(status, 201, "{state}");
    let id = state["id"].as_str().unwrap().to_string();
    let text = common::pdn(&c, &server, &id).await;
    assert_eq!(text.matches("[Termination ").count(), 1, "{text}");
    assert!(!text.contains("adjourned"), "{text}");
    assert!(text.contains("[Annotator \"Anna\"]"), "{text}");
    let (status, again) = post(&c, &server.url("/api/games/import"), json!({ "pdn": text })).await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["history"], state["history"], "{text}");
    assert_eq!(
        again["history"].as_array().map(Vec::len),
        Some(1),
        "{again}"
    );
    server.stop().await;
}

/// A game as lidraughts exports it (its tags, both clocks after every move as `[%clock ...]`
/// with the side to move in capitals, a last comment before the result): it reads whole, keeps
/// every clock in its move's comment and every tag, its recorded result (Black resigned) ends
/// it, and its export reads back the same.
const LIDRAUGHTS: &str =
    "[Event \"Casual Rapid game\"]\n[Site \"https://lidraughts.org/abcdefgh\"]\n\
[Date \"2020.04.07\"]\n[Round \"-\"]\n[White \"Anonymous\"]\n[Black \"lidraughts AI level 3\"]\n\
[Result \"2-0\"]\n[UTCDate \"2020.04.07\"]\n[UTCTime \"00:54:55\"]\n[WhiteElo \"?\"]\n\
[BlackElo \"?\"]\n[GameType \"20\"]\n[TimeControl \"600+0\"]\n[Opening \"?\"]\n\
[Termination \"Normal\"]\n[Annotator \"lidraughts.org\"]\n\n\
1. 31-26 {[%clock w0:10:00 B0:10:00]} 18-22 {[%clock W0:10:00 b0:10:00]} 2. 34-30 \
{[%clock w0:09:57 B0:09:58]} 20-25 {[%clock W0:09:57 b0:09:58]} 3. 30-24 {[%clock w0:09:55 \
B0:09:58]} 19x30 {[%clock W0:09:55 b0:09:58]} 4. 35x24 {[%clock w0:09:54 B0:09:56]} 14-20 \
{[%clock W0:09:54 b0:09:56]} 5. 24-19 {[%clock w0:09:51 B0:09:56]} 13x24 {[%clock W0:09:51 \
b0:09:56]} {Black resigns.} 2-0\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lidraughts_export_is_imported_with_its_clocks_and_tags() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-lidraughts"), 1).await;
    let c = reqwest::Client::new();
    let import = server.url("/api/games/import");
    let (status, state) = post(&c, &import, json!({ "pdn": LIDRAUGHTS })).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["variant"], "international");
    let nodes = state["tree"]["nodes"].as_array().unwrap();
    let main: Vec<&serde_json::Value> = nodes.iter().skip(1).collect();
    assert_eq!(main.len(), 10, "{state}");
    for (ply, node) in main.iter().enumerate() {
        let comment = node["comment"].as_str().unwrap_or_default();
        // White's moves: White's clock in small letters, Black's (to move) in capitals.
        let mover = if ply % 2 == 0 { " w0:" } else { " b0:" };
        assert!(
            comment.starts_with("[%clock") && comment.contains(mover),
            "ply {}: {comment}",
            ply + 1
        );
    }
    assert!(main[9]["comment"]
        .as_str()
        .unwrap()
        .contains("Black resigns."));
    // Black resigned: the recorded 2-0 ends the game where its moves end (the board does not).
    assert_eq!(state["outcome"]["winner"], "white", "{state}");
    let id = state["id"].as_str().unwrap();
    let pdn = common::pdn(&c, &server, id).await;
    for tag in [
        "[Result \"2-0\"]",
        "[Termination \"Normal\"]",
        "[UTCTime \"00:54:55\"]",
        "[TimeControl \"600+0\"]",
        "[Annotator \"lidraughts.org\"]",
    ] {
        assert!(pdn.contains(tag), "{tag} in {pdn}");
    }
    assert!(pdn.trim_end().ends_with("2-0"), "{pdn}");
    // The end takes no more moves; a variation in the past is analysed.
    let play = server.url(&format!("/api/games/{id}/move"));
    let end = state["tree"]["main_end"].as_u64().unwrap();
    // (No move is legal there any more: the state lists none.)
    assert_eq!(state["legal"], json!([]), "{state}");
    let (status, e) = post(&c, &play, json!({"move": "32-28", "from": end})).await;
    assert_eq!(status, 409, "{e}");
    let (status, e) = post(&c, &play, json!({"move": "17-21", "from": 1})).await;
    assert_eq!(status, 200, "{e}");
    // Read back, the same moves and comments (the last move's two comments are one, and the
    // export wraps it: compared with runs of whitespace made one space).
    let (status, again) = post(&c, &import, json!({ "pdn": pdn })).await;
    assert_eq!(status, 201, "{again}");
    let moves = |s: &serde_json::Value| -> Vec<(String, String)> {
        s["tree"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let comment = n["comment"].as_str().unwrap_or_default();
                (
                    n["full"].as_str().unwrap_or_default().to_string(),
                    comment.split_whitespace().collect::<Vec<_>>().join(" "),
                )
            })
            .collect()
    };
    assert_eq!(moves(&again), moves(&state), "{pdn}");
    assert_eq!(again["outcome"], state["outcome"], "{pdn}");
    server.stop().await;
}

/// The audit: 100,000 bad NAGs gave an answer of 9.6 MB (one `skipped` entry each), and one
/// 500 KB token of `!` one of 337 KB (the reason repeated it whole). Now the first 100 are
/// listed, then how many more, and a bad NAG is quoted short (60 characters, as elsewhere).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imports_skipped_list_is_capped_and_a_bad_nag_is_quoted_short() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-skipped-cap"), 1).await;
    let c = reqwest::Client::new();
    let skipped = |state: &serde_json::Value| -> Vec<String> {
        state["skipped"]
            .as_array()
            .expect("what was left out")
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let url = server.url("/api/games/import");
    let import = |pdn: String| post(&c, &url, json!({"pdn": pdn, "variant": "international"}));
    let (status, state) = import(format!("1. 32-28 {}*", "$300 ".repeat(5_000))).await;
    assert_eq!(status, 201, "{}", state["error"]);
    let list = skipped(&state);
    assert_eq!(list.len(), 101, "{:?}", &list[..3]);
    assert!(list[0].contains("$300"), "{}", list[0]);
    assert!(list[100].contains("4900 more"), "{}", list[100]);
    // A strength mark in parentheses, `(!)`, of any length.
    let (status, state) = import(format!("1. 32-28 ({}) *", "!".repeat(100_000))).await;
    assert_eq!(status, 201, "{}", state["error"]);
    let list = skipped(&state);
    assert_eq!(list.len(), 1, "{} entries", list.len());
    assert!(list[0].len() < 400, "a reason of {} bytes", list[0].len());
    server.stop().await;
}

/// A Result the moves contradict (they end the game otherwise) is said in the answer, the
/// board's result kept; before, the board's was taken without a word. International: 28x19
/// takes Black's last piece, so White wins (rule book: a player without pieces loses), 2-0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_result_the_moves_contradict_is_said() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("pdn-result"), 1).await;
    let c = reqwest::Client::new();
    let import = server.url("/api/games/import");
    let game = |result: &str| {
        format!(
            "[GameType \"20\"]\n[SetUp \"1\"]\n[FEN \"W:W28:B23\"]\n[Result \"{result}\"]\n\n1. 28x19 {result}"
        )
    };
    let (status, answer) = post(&c, &import, json!({ "pdn": game("0-2") })).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["result_recorded"]["recorded"], "0-2", "{answer}");
    assert_eq!(answer["result_recorded"]["kept"], "2-0", "{answer}");
    assert!(
        answer["result_recorded"]["reason"]
            .as_str()
            .unwrap()
            .contains("the board's result is kept"),
        "{answer}"
    );
    assert_eq!(answer["outcome"]["result"], "2-0", "{answer}");
    // The same game recorded as it ended, or with no result: nothing to say.
    for result in ["2-0", "*"] {
        let (status, answer) = post(&c, &import, json!({ "pdn": game(result) })).await;
        assert_eq!(status, 201, "{answer}");
        assert!(answer.get("result_recorded").is_none(), "{answer}");
    }
    server.stop().await;
}
