//! Seeded random requests to every route of the JSON API, as a careless or hostile client sends
//! them: each route's own fields with values near the valid ones and far from them, other
//! fields, other JSON. A game's actions mostly carry its own legal moves and nodes (taken from
//! the last state answered), so that games go on and their trees grow for the node actions to
//! work on. The server must answer each with a status under 500 (503 only for a
//! search refused when the searches are all busy), within the client's timeout, and keep
//! answering. One round in CI (a few hundred requests); `DAMSPEL_API_FUZZ_ROUNDS=50` for a long
//! run over other seeds.

use std::time::Duration;

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Map, Value};

use crate::common::{self, get, post, post_as_watcher, Scratch, TestServer};

/// Requests a round sends.
const REQUESTS: usize = 400;

/// The requests' random choices, seeded: the same requests for the same seed.
struct Rng(StdRng);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.0.random_ratio(percent, 100)
    }
}

/// Texts near what the fields take (FENs, moves, PDN, names) and far from it.
const TEXTS: &[&str] = &[
    "",
    " ",
    "turkish",
    "international",
    "universal",
    "babylonian-c",
    "no-such-variant",
    "W:W31-50:B1-20",
    "W:WK1-50:B",
    "B:W:B",
    "W:W1-5000:B",
    "W:Wa1:Bh8",
    "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,Kg3,Kg5",
    "B:WKd1,Kf1,Kb2,Kd2:BKb1,Kd3",
    "d3-d4",
    "32-28",
    "32x28",
    "a1xh8xa1",
    "1-0",
    "0-0",
    "32-28-23-19-14-10-5",
    "[Event \"x\"]\n1. 32-28 19-23 *",
    "[GameType \"20\"]\n1. 32-28 (1. 33-29 {c}) 19-23 $1 2-0",
    "[FEN \"W:W31-50:B1-20\"] 1. 32-28 {unclosed",
    "1. 32-28 /FEN \"W:W31-50:B1-20\"/ 19-23 *",
    "((((((((((",
    "{}",
    "$999999999999",
    "white",
    "black",
    "human",
    "engine",
    "offer",
    "accept",
    "decline",
    "claim",
    "??",
    "-1",
    "1e309",
    "NaN",
    "\u{0}",
    "é\u{3000}\u{202e}",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "AAAA",
];

const VARIANTS: &[&str] = &[
    "international",
    "turkish",
    "russian",
    "american",
    "universal",
    "babylonian-c",
    "dameo",
    "brazilian",
];

/// Opening moves of the variants above (and of others), in their notations.
const MOVES: &[&str] = &[
    "32-28", "33-29", "31-27", "d3-d4", "c3-d4", "11-15", "22-18", "c3-b4", "a3-b4", "e3-f4",
    "g3-h4", "b2-b3",
];

/// A text: one of `TEXTS`, changed or not, now and then long.
fn text(rng: &mut Rng) -> String {
    let mut s = rng.pick(TEXTS).to_string();
    for _ in 0..rng.below(3) {
        let chars: Vec<char> = s.chars().collect();
        let at = rng.below(chars.len() + 1);
        let c = *rng.pick(&['-', 'x', ':', ',', 'K', 'W', 'B', '1', '9', ' ', '"', '\\']);
        let mut chars = chars;
        if rng.chance(50) && at < chars.len() {
            chars.remove(at);
        } else {
            chars.insert(at, c);
        }
        s = chars.into_iter().collect();
    }
    if rng.chance(3) {
        s = s.repeat(1 + rng.below(2000));
    }
    s
}

/// A number near the fields' ranges and far from them.
fn number(rng: &mut Rng) -> Value {
    let numbers = [
        json!(0),
        json!(1),
        json!(2),
        json!(7),
        json!(-1),
        json!(0.01),
        json!(0.02),
        json!(-0.5),
        json!(1e9),
        json!(1e300),
        json!(-1e300),
        json!(4294967295u64),
        json!(18446744073709551615u64),
        json!(9007199254740993i64),
        json!(i64::MIN),
    ];
    if rng.chance(30) {
        json!(rng.below(40))
    } else {
        rng.pick(&numbers).clone()
    }
}

/// Any JSON value, a few levels deep.
fn any(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => number(rng),
        3 | 4 => Value::String(text(rng)),
        5 => Value::Array((0..rng.below(4)).map(|_| any(rng, depth - 1)).collect()),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (text(rng), any(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// What a field holds when it holds what it should: "t" a text, "v" a variant, "s" a seat,
/// "m" a move, "n" a number, "T" a search time, "b" a boolean, "l" a list of texts, "c" a
/// clock.
fn value(rng: &mut Rng, kind: char) -> Value {
    if kind != 'T' && rng.chance(15) {
        return any(rng, 2);
    }
    well_formed(rng, kind)
}

/// A value of the kind a field takes (in range or not).
fn well_formed(rng: &mut Rng, kind: char) -> Value {
    match kind {
        'n' => number(rng),
        // A search asked for is short or refused (over the longest allowed, or not a time).
        'T' => rng
            .pick(&[
                json!(0),
                json!(0.01),
                json!(0.02),
                json!(-1),
                json!(121),
                json!(1e9),
                json!(1e300),
                json!("1"),
            ])
            .clone(),
        'b' => json!(rng.chance(50)),
        'l' => Value::Array((0..rng.below(4)).map(|_| json!(text(rng))).collect()),
        'c' => json!({"minutes": number(rng), "increment": number(rng)}),
        'v' if rng.chance(70) => json!(rng.pick(VARIANTS)),
        's' if rng.chance(70) => json!(rng.pick(&["human", "engine"])),
        'm' if rng.chance(60) => json!(rng.pick(MOVES)),
        _ => Value::String(text(rng)),
    }
}

/// A body for a route whose fields are `fields` (name and kind): some of them, now and then
/// one of another route, now and then not an object at all.
fn body(rng: &mut Rng, fields: &[(&str, char)]) -> Value {
    if rng.chance(5) {
        return any(rng, 3);
    }
    let mut object = Map::new();
    for &(name, kind) in fields {
        if rng.chance(55) {
            object.insert(name.to_string(), value(rng, kind));
        }
    }
    if rng.chance(5) {
        object.insert(text(rng), any(rng, 1));
    }
    Value::Object(object)
}

/// A body's fields: name and kind (see `value`).
type Fields = &'static [(&'static str, char)];

const NEW_GAME: Fields = &[
    ("variant", 'v'),
    ("fen", 't'),
    ("pdn", 't'),
    ("pdn_base64", 't'),
    ("game", 'n'),
    ("white", 's'),
    ("black", 's'),
    ("engine_time", 'T'),
    ("level", 'n'),
    ("friend", 'b'),
    ("seat", 't'),
    ("clock", 'c'),
];

/// The routes of one game: path after `/api/games/{id}`, the fields of its body, and how often
/// it is drawn (moves most: they grow the tree the other actions work on; a resignation seldom:
/// it ends the game).
const GAME_ROUTES: &[(&str, Fields, usize)] = &[
    ("/move", &[("move", 'm'), ("from", 'n')], 10),
    ("/engine", &[("time", 'T'), ("lines", 'n')], 2),
    ("/hint", &[("time", 'T'), ("lines", 'n')], 1),
    ("/analyse", &[("time", 'T'), ("lines", 'n')], 1),
    ("/undo", &[], 2),
    ("/redo", &[], 2),
    ("/goto", &[("node", 'n')], 2),
    ("/promote", &[("node", 'n'), ("main", 'b')], 2),
    ("/delete", &[("node", 'n')], 1),
    (
        "/annotate",
        &[("node", 'n'), ("comment", 't'), ("nags", 'l')],
        2,
    ),
    ("/resign", &[], 1),
    ("/draw", &[("action", 't')], 1),
    ("/join", &[("invite", 't')], 1),
    ("/review", &[("time", 'T')], 1),
];

/// Puts a move the game can play, and nodes it has, in the fields of `object` that take them
/// (most of the time): a request valid but for what `body` drew in its other fields.
fn fit(rng: &mut Rng, object: &mut Map<String, Value>, state: &Value) {
    let legal = state["legal"].as_array().map_or(&[][..], Vec::as_slice);
    let nodes = state["tree"]["nodes"].as_array().map_or(0, Vec::len);
    for (name, value) in object.iter_mut() {
        if !rng.chance(70) {
            continue;
        }
        match name.as_str() {
            "move" if !legal.is_empty() => {
                let mv = rng.pick(legal);
                *value = mv[*rng.pick(&["notation", "full"])].clone();
            }
            // Where the legal moves are, or any node.
            "from" if rng.chance(60) => *value = state["tree"]["current"].clone(),
            "node" | "from" if nodes > 0 => *value = json!(rng.below(nodes)),
            _ => {}
        }
    }
}

/// Whether a status is an answer the server may give to a bad request: under 500, or 503 for a
/// search refused while all are busy.
fn acceptable(status: u16, answer: &Value) -> bool {
    status < 500 || (status == 503 && answer.to_string().contains("busy"))
}

async fn round(seed: u64) {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db(&format!("fuzz-{seed}")), 2).await;
    let c = reqwest::Client::builder()
        // A request that hangs fails the test: every search asked for is short or refused.
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let mut rng = Rng(StdRng::seed_from_u64(seed));
    // Games to aim at: against the engine, between two people, a friend's.
    let mut games = Vec::new();
    // Each game's last state answered: its legal moves and the nodes of its tree.
    let mut states = std::collections::HashMap::<String, Value>::new();
    for start in [
        json!({"variant": "international", "engine_time": 0.01}),
        json!({"variant": "turkish", "white": "human", "black": "human"}),
        json!({"variant": "russian", "friend": true, "white": "human", "black": "human"}),
        json!({
            "variant": "universal",
            "fen": "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5",
            "engine_time": 0.01,
        }),
    ] {
        let (status, state) = post(&c, &server.url("/api/games"), start.clone()).await;
        assert_eq!(status, 201, "{start} -> {state}");
        games.push(state["id"].as_str().unwrap().to_string());
        states.insert(games[games.len() - 1].clone(), state);
    }
    let mut focus = games[0].clone();
    let mut seen = std::collections::BTreeMap::<(String, u16), usize>::new();
    for n in 0..REQUESTS {
        let (route, status, answer, sent) = match rng.below(10) {
            0 | 1 => {
                // Mostly a valid game with one field more, else anything.
                let sent = if rng.chance(50) {
                    let &(name, kind) = rng.pick(NEW_GAME);
                    let mut sent = json!({"variant": rng.pick(VARIANTS), "engine_time": 0.01});
                    sent[name] = value(&mut rng, kind);
                    sent
                } else {
                    body(&mut rng, NEW_GAME)
                };
                let path = *rng.pick(&["/api/games", "/api/games/import"]);
                let (status, answer) = post(&c, &server.url(path), sent.clone()).await;
                if status == 201 {
                    if let Some(id) = answer["id"].as_str() {
                        games.push(id.to_string());
                    }
                }
                (path.to_string(), status, answer, sent)
            }
            2 => {
                let sent = body(
                    &mut rng,
                    &[("pdn", 't'), ("pdn_base64", 't'), ("variant", 'v')],
                );
                let (status, answer) = post(&c, &server.url("/api/pdn"), sent.clone()).await;
                ("/api/pdn".to_string(), status, answer, sent)
            }
            3 => {
                let sent = body(&mut rng, &[("variant", 'v'), ("fen", 't')]);
                let path = "/api/positions/check";
                let (status, answer) = post(&c, &server.url(path), sent.clone()).await;
                (path.to_string(), status, answer, sent)
            }
            4 => {
                // GETs with queries: a game's state at a node, the tables' verdict.
                let id = if rng.chance(80) {
                    rng.pick(&games).clone()
                } else {
                    text(&mut rng)
                };
                let query = urlencode(&text(&mut rng));
                let (label, path) = match rng.below(3) {
                    0 => (
                        "GET game",
                        format!("/api/games/{}?node={query}", urlencode(&id)),
                    ),
                    1 => ("GET pdn", format!("/api/games/{}/pdn", urlencode(&id))),
                    _ => (
                        "GET tablebase",
                        format!(
                            "/api/tablebase?variant={}&fen={query}",
                            urlencode(&text(&mut rng))
                        ),
                    ),
                };
                let (status, answer) = get(&c, &server.url(&path)).await;
                (label.to_string(), status, answer, json!(path))
            }
            _ => {
                let &(route, fields, _) = GAME_ROUTES
                    .choose_weighted(&mut rng.0, |r| r.2)
                    .expect("positive weights");
                // Half the time every field, each of its kind, so that what `fit` makes valid
                // leaves a request that goes deep.
                let mut sent = if rng.chance(50) {
                    body(&mut rng, fields)
                } else {
                    let object = fields
                        .iter()
                        .map(|&(name, kind)| (name.to_string(), well_formed(&mut rng, kind)))
                        .collect();
                    Value::Object(object)
                };
                // An analysis without a time runs until the page goes away (two minutes).
                if let (Some(object), "/analyse") = (sent.as_object_mut(), route) {
                    object.entry("time").or_insert(json!(0.02));
                }
                // Half the time the game last changed: its tree grows deep.
                let game = if rng.chance(50) {
                    focus.clone()
                } else {
                    rng.pick(&games).clone()
                };
                // Mostly the game's own moves and nodes, the rest of the body left as drawn:
                // games go on, and trees grow for the node actions to reach.
                if let (Some(object), Some(state)) = (sent.as_object_mut(), states.get(&game)) {
                    fit(&mut rng, object, state);
                }
                let id = if rng.chance(90) {
                    urlencode(&game)
                } else {
                    urlencode(&text(&mut rng))
                };
                let url = server.url(&format!("/api/games/{id}{route}"));
                // As a seat holder mostly (the page), now and then as a watcher.
                let (status, answer) = if rng.chance(85) {
                    post(&c, &url, sent.clone()).await
                } else {
                    post_as_watcher(&c, &url, sent.clone()).await
                };
                (route.to_string(), status, answer, sent)
            }
        };
        assert!(
            acceptable(status, &answer),
            "seed {seed}, request {n}: {route} {sent} -> {status} {answer}"
        );
        if status < 300 {
            if let Some(id) = answer["id"].as_str() {
                states.insert(id.to_string(), answer.clone());
                focus = id.to_string();
            }
        }
        *seen.entry((route, status)).or_default() += 1;
        if n % 50 == 49 {
            let (status, _) = get(&c, &server.url("/api/variants")).await;
            assert_eq!(status, 200, "seed {seed}: the server stopped answering");
            // A fresh game now and then: a resignation ends one, and every later action on it
            // is refused before it reaches much.
            let start = json!({
                "variant": rng.pick(VARIANTS),
                "engine_time": 0.01,
                "black": rng.pick(&["human", "engine"]),
            });
            let (status, state) = post(&c, &server.url("/api/games"), start.clone()).await;
            assert_eq!(status, 201, "{start} -> {state}");
            games.push(state["id"].as_str().unwrap().to_string());
            states.insert(games[games.len() - 1].clone(), state);
        }
    }
    // The requests reached the handlers: some were taken, many refused.
    let taken = seen
        .iter()
        .filter(|((_, s), _)| *s < 300)
        .map(|(_, n)| n)
        .sum::<usize>();
    let refused = seen
        .iter()
        .filter(|((_, s), _)| (400..500).contains(s))
        .map(|(_, n)| n)
        .sum::<usize>();
    eprintln!("seed {seed}: {taken} taken, {refused} refused: {seen:?}");
    assert!(taken >= REQUESTS / 40, "seed {seed}: only {taken} taken");
    assert!(
        refused >= REQUESTS / 4,
        "seed {seed}: only {refused} refused"
    );
    server.stop().await;
}

/// A text as a path segment or query value (its first 300 bytes: the client builds no longer
/// address).
fn urlencode(s: &str) -> String {
    s.bytes()
        .take(300)
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_requests_get_answers_under_500() {
    for r in 0..common::rounds("DAMSPEL_API_FUZZ_ROUNDS") {
        round(11 + 1000 * r).await;
    }
}
