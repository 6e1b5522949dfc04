//! Issue 10, finding 8 (server side): cheap requests cannot cost much. A game has at most
//! MAX_PLIES plies, FEN and PDN fields are capped, and a game's state is shown without
//! generating moves for every ply.

use std::collections::HashMap;
use std::sync::Arc;

use crate::common::{get, post, Scratch, TestServer};
use damspel_notation::{format_move, parse_fen};
use damspel_rules::{with_rules, Catalogue, Game, Position};
use serde_json::json;

/// Turkish with a frozen centre (two full ranks of men each, which can neither move nor
/// capture) and two kings each shuffling behind them: no capture is ever possible, Turkish has
/// no move-count draw rule, and with over 14,000 king placements a game can go on as long as
/// one likes without a threefold repetition.
const FROZEN: &str = "W:WKa1,Kb1,a3,b3,c3,d3,e3,f3,g3,h3,a4,b4,c4,d4,e4,f4,g4,h4:\
                      BKa8,Kb8,a5,b5,c5,d5,e5,f5,g5,h5,a6,b6,c6,d6,e6,f6,g6,h6";

/// A legal game of `plies` plies from FROZEN (each ply to the least visited next position).
fn endless_game(plies: usize) -> String {
    let v = Catalogue::builtin().get("turkish").unwrap();
    with_rules!(v, |rules| {
        let rules = Arc::new(rules);
        let setup = parse_fen(&rules.variant().geometry, FROZEN).unwrap();
        let start = Position::from_setup(&rules, &setup).unwrap();
        let mut game = Game::from_position(rules.clone(), start);
        let mut seen: HashMap<u64, u32> = HashMap::new();
        let mut texts = Vec::new();
        for _ in 0..plies {
            let pos = *game.position();
            let moves = game.legal_moves();
            let mv = *moves
                .iter()
                .min_by_key(|m| seen.get(&pos.play(m).hash()).copied().unwrap_or(0))
                .expect("a legal move");
            texts.push(format_move(&rules, &pos, &mv));
            game.play_unchecked(&mv);
            *seen.entry(game.position().hash()).or_default() += 1;
            assert!(game.outcome().is_none(), "the frozen game ended");
        }
        texts.join(" ")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlong_games_and_fields_are_refused_with_a_reason() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("caps"), 1).await;
    let c = reqwest::Client::new();
    let import = server.url("/api/games/import");
    // The audit's 110,000-move PDN, shortened to just over the cap.
    let pdn = format!(
        "[FEN \"{}\"]\n\n{} *",
        FROZEN.replace(' ', ""),
        endless_game(damspel_server::MAX_PLIES + 1)
    );
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

/// A Greek V position found by the search for slow captures (crates/conformance/data/
/// worst-captures.tsv, "search seed 7 (men)", 498,540 distinct captures there, checked against
/// the counting walk): a state listing them all with their routes was 223 MB and took 15 s to
/// send, at every look at the game.
const HALF_A_MILLION: &str = "B:Wc1,e1,g1,a2,b2,c2,Kd2,Ke2,f2,Kh2,Kc3,Ke3,Ka4,Kb4,c4,Kd4,Ke4,\
                              Kf4,Kg4,Kh4,c5,e5,Kg5,a6,Kb6,Kc6,Kh6,d7,Kg7,Kb8,Ke8:BKg2,Kd5,Kf6,Kg6";

/// Greek II with 881 distinct captures (the same table, checked against the reference
/// generator): within the cap.
const EIGHT_HUNDRED: &str = "W:Wc1,Ke1,Kc2,Kd8,Kg8:BKa1,Kf1,Kg1,b2,d2,f2,Kh2,Kb3,d3,Ke3,Kf3,Kg3,\
                             Kh3,Ka4,c4,Kf4,h4,b5,Kd5,Kf5,Kh5,Ka6,Kc6,Ke6,Kf6,Kg6,Kb7,Kd7,Kf7,Ka8,\
                             Kc8,Kf8,Kh8";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_with_too_many_legal_moves_is_refused_with_a_reason() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("caps-moves"), 1).await;
    let c = reqwest::Client::new();
    let games = server.url("/api/games");
    let (status, e) = post(
        &c,
        &games,
        json!({"variant": "greek-5", "fen": HALF_A_MILLION}),
    )
    .await;
    assert_eq!(status, 422, "{e}");
    let message = e["error"].as_str().unwrap();
    assert!(
        message.contains("498540 legal moves")
            && message.contains(&damspel_server::MAX_LEGAL_MOVES.to_string()),
        "{e}"
    );
    let (status, state) = post(
        &c,
        &games,
        json!({"variant": "greek-2", "fen": EIGHT_HUNDRED}),
    )
    .await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["legal"].as_array().unwrap().len(), 881);
    server.stop().await;
}
