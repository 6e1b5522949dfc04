//! A server on loopback for the integration tests, with its own database file. `post` plays the
//! part of the page: it keeps the seat secrets each game's creation (or a claim) hands out and
//! sends them back with every request on that game.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use damspel_rules::Catalogue;
use damspel_server::{AppState, Config};
use serde_json::Value;
use tokio::sync::oneshot;

pub struct TestServer {
    pub base: String,
    pub db: PathBuf,
    pub state: Arc<AppState>,
    pub token: Option<String>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// Rounds of a seeded random test: one, or the number in the environment variable `var` for a
/// long run.
pub fn rounds(var: &str) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

/// A test's own folder for its database files, removed (with the files the server made beside
/// them) when it goes out of scope: declare it before the servers that use it.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    pub fn new() -> Scratch {
        Scratch(
            tempfile::Builder::new()
                .prefix("damspel-server-tests-")
                .tempdir()
                .unwrap(),
        )
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// The path of a database called `name` in this folder (not created).
    pub fn db(&self, name: &str) -> PathBuf {
        self.0.path().join(format!("{name}.db"))
    }
}

/// A loopback configuration with `searches` engine searches at once.
pub fn config(db: PathBuf, searches: usize) -> Config {
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), db);
    config.settings.searches = searches;
    config
}

impl TestServer {
    pub async fn start(db: PathBuf, searches: usize) -> TestServer {
        TestServer::start_with(config(db, searches)).await
    }

    pub async fn start_with(config: Config) -> TestServer {
        let db = config.db.clone();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let server = damspel_server::Server::bind(Catalogue::builtin(), config)
            .await
            .unwrap();
        let addr = server.bound().addr;
        let token = server.bound().token.clone();
        let state = server.state();
        let task = tokio::spawn(async move {
            server
                .run_until(async {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
        });
        TestServer {
            base: format!("http://{addr}"),
            db,
            state,
            token,
            stop: Some(stop_tx),
            task: Some(task),
        }
    }

    /// Graceful shutdown, as on Ctrl-C.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.take().unwrap().await.unwrap();
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

fn seats() -> &'static Mutex<HashMap<String, Vec<String>>> {
    static SEATS: OnceLock<Mutex<HashMap<String, Vec<String>>>> = OnceLock::new();
    SEATS.get_or_init(Default::default)
}

/// The game id of `/api/games/{id}/...`.
fn game_of(url: &str) -> Option<String> {
    let rest = url.split("/api/games/").nth(1)?;
    let id = rest.split('/').next()?;
    (!id.is_empty() && id != "import").then(|| id.to_string())
}

/// Keeps the seat secrets a response hands out.
fn remember(state: &Value) {
    if let (Some(id), Some(Value::Object(given))) = (state["id"].as_str(), state.get("seats")) {
        let mut seats = seats().lock().unwrap();
        let held = seats.entry(id.to_string()).or_default();
        held.extend(given.values().filter_map(Value::as_str).map(str::to_string));
    }
}

/// The seat header value for a game (the secrets this test process holds).
pub fn seat_header(id: &str) -> String {
    seats()
        .lock()
        .unwrap()
        .get(id)
        .map(|s| s.join(","))
        .unwrap_or_default()
}

/// A POST as the page sends it: JSON, with the game's seat secrets.
pub async fn post(client: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let mut request = client.post(url).json(&body);
    if let Some(id) = game_of(url) {
        request = request.header("x-damspel-seat", seat_header(&id));
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let value = r.json().await.unwrap_or(Value::Null);
    remember(&value);
    (status, value)
}

/// A POST without any seat secret (a watcher).
pub async fn post_as_watcher(client: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let r = client.post(url).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// A game's PDN export, as text.
pub async fn pdn(client: &reqwest::Client, server: &TestServer, id: &str) -> String {
    client
        .get(server.url(&format!("/api/games/{id}/pdn")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

pub async fn get(client: &reqwest::Client, url: &str) -> (u16, Value) {
    let r = client.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The `state` events of a game's event stream, as they come.
pub struct Events {
    response: reqwest::Response,
    /// Bytes read and not yet taken as events (a character may be split between chunks).
    bytes: Vec<u8>,
}

impl Events {
    pub async fn open(c: &reqwest::Client, url: &str) -> Events {
        let response = c.get(url).send().await.unwrap();
        assert_eq!(response.status(), 200);
        Events {
            response,
            bytes: Vec::new(),
        }
    }

    /// The next `state` event's data (other events are skipped).
    pub async fn next_state(&mut self) -> Value {
        let wait = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            loop {
                while let Some(end) = self.bytes.windows(2).position(|w| w == b"\n\n") {
                    let event: Vec<u8> = self.bytes.drain(..end + 2).collect();
                    let event = String::from_utf8(event).expect("an event is UTF-8");
                    if !event.lines().any(|l| l == "event: state") {
                        continue;
                    }
                    let data: String = event
                        .lines()
                        .filter_map(|l| l.strip_prefix("data: "))
                        .collect();
                    return serde_json::from_str(&data).unwrap();
                }
                let chunk = self
                    .response
                    .chunk()
                    .await
                    .unwrap()
                    .expect("the stream ended");
                self.bytes.extend_from_slice(&chunk);
            }
        });
        wait.await.expect("no state event within 10 s")
    }
}

/// Waits (up to `within`) for an event stream to tell that the game ended on time; what it
/// heard.
pub async fn falls_on_time(stream: &mut reqwest::Response, within: std::time::Duration) -> String {
    let mut seen = String::new();
    let _ = tokio::time::timeout(within, async {
        while let Ok(Some(chunk)) = stream.chunk().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("wins on time") {
                return;
            }
        }
    })
    .await;
    seen
}
