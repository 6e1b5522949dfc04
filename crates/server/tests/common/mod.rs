//! A server on loopback for the integration tests, with its own database file.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;

use damspel_rules::Catalogue;
use serde_json::Value;
use tokio::sync::oneshot;

pub struct TestServer {
    pub base: String,
    pub db: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

pub fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damspel-server-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.db"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

impl TestServer {
    pub async fn start(db: PathBuf, searches: usize) -> TestServer {
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let (addr_tx, addr_rx) = oneshot::channel::<SocketAddr>();
        let config = damspel_server::Config {
            addr: "127.0.0.1:0".parse().unwrap(),
            db: db.clone(),
            concurrent_searches: searches,
        };
        let task = tokio::spawn(async move {
            damspel_server::serve_until(
                Catalogue::builtin(),
                config,
                |addr| {
                    let _ = addr_tx.send(addr);
                },
                async {
                    let _ = stop_rx.await;
                },
            )
            .await
            .unwrap();
        });
        let addr = addr_rx.await.unwrap();
        TestServer {
            base: format!("http://{addr}"),
            db,
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

pub async fn post(client: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let r = client.post(url).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

pub async fn get(client: &reqwest::Client, url: &str) -> (u16, Value) {
    let r = client.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}
