//! Browser end-to-end tests: starts a server on a free loopback port with a fresh database and
//! runs `e2e/run.mjs` (Playwright driving the system's Chromium) against it. The script plays
//! whole games by clicks in Turkish, International and Dameo against the engine, reloads in the
//! middle of them, chooses capture routes on the board, uses the editor, import and export, and
//! takes a screenshot of every variant's start position into target/e2e-screenshots/. The
//! server also shows a small fixture atlas at /atlas (damspel_atlas_report::fixture).
//!
//! Runs only with `DAMSPEL_E2E=1` (it needs /usr/bin/chromium, or CHROMIUM, and `npm ci` done in
//! e2e/); otherwise it prints a notice and passes. The server runs in this process through the
//! library, or, with `DAMSPEL_BIN=path/to/damspel`, as that binary's `serve` command.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use damspel_rules::Catalogue;

enum Server {
    InProcess {
        stop: Option<tokio::sync::oneshot::Sender<()>>,
        thread: Option<JoinHandle<()>>,
    },
    Binary(Child),
}

impl Drop for Server {
    fn drop(&mut self) {
        match self {
            Server::InProcess { stop, thread } => {
                if let Some(stop) = stop.take() {
                    let _ = stop.send(());
                }
                if let Some(thread) = thread.take() {
                    let _ = thread.join();
                }
            }
            Server::Binary(child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

fn fresh_db() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damspel-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let db = dir.join("e2e.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    db
}

/// The small made-up atlas that /atlas shows in the browser test, beside the games database.
fn fixture_atlas(db: &Path) -> PathBuf {
    let atlas = db.with_file_name("atlas.db");
    let _ = std::fs::remove_file(&atlas);
    damspel_atlas_report::fixture::write(&atlas).expect("the fixture atlas database");
    atlas
}

/// Russian's 3-piece endgame tables beside the database (a second), for the page's verdict.
fn tables(db: &std::path::Path) -> PathBuf {
    let dir = db.with_file_name("tables");
    let rules =
        damspel_rules::Rules::<u64>::new(Catalogue::builtin().get("russian").unwrap()).unwrap();
    damspel_tablebase::build(&rules, 3, &dir, 2, &|_| true).expect("the tables build");
    dir
}

fn start_in_process(db: PathBuf) -> (String, Server) {
    let tb_dir = tables(&db);
    let (addr_tx, addr_rx) = mpsc::channel::<SocketAddr>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut config = damspel_server::Config::new("127.0.0.1:0".parse().unwrap(), db.clone());
    config.atlas_db = Some(fixture_atlas(&db));
    config.settings.tb_dir = tb_dir;
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime
            .block_on(damspel_server::serve_until(
                Catalogue::builtin(),
                config,
                move |bound| {
                    let _ = addr_tx.send(bound.addr);
                },
                async {
                    let _ = stop_rx.await;
                },
            ))
            .expect("the server runs");
    });
    let addr = addr_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server listens");
    (
        format!("http://{addr}"),
        Server::InProcess {
            stop: Some(stop_tx),
            thread: Some(thread),
        },
    )
}

fn start_binary(bin: &str, db: PathBuf) -> (String, Server) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let tb_dir = tables(&db);
    let child = Command::new(bin)
        .args(["serve", "--port", &port.to_string(), "--db"])
        .arg(&db)
        .arg("--atlas-db")
        .arg(fixture_atlas(&db))
        .arg("--tb-dir")
        .arg(&tb_dir)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
    let server = Server::Binary(child);
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{bin} serve did not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (format!("http://{addr}"), server)
}

#[test]
fn browser_end_to_end() {
    if std::env::var("DAMSPEL_E2E").as_deref() != Ok("1") {
        // Straight to stderr, past the test harness's capture, so that the skip is seen.
        let _ = writeln!(
            std::io::stderr(),
            "browser end-to-end tests skipped: set DAMSPEL_E2E=1 to run them \
             (needs /usr/bin/chromium and `npm ci` in e2e/)"
        );
        return;
    }
    let root = workspace_root();
    let e2e = root.join("e2e");
    assert!(
        e2e.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: run `npm ci` in {}",
        e2e.display()
    );
    let db = fresh_db();
    let (base, server) = match std::env::var("DAMSPEL_BIN") {
        Ok(bin) if !bin.is_empty() => start_binary(&bin, db.clone()),
        _ => start_in_process(db.clone()),
    };
    let _ = writeln!(std::io::stderr(), "e2e: server at {base}");
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".into());
    let status = Command::new(&node)
        .args(["--test-reporter=spec", "run.mjs"])
        .current_dir(&e2e)
        .env("DAMSPEL_URL", &base)
        .env(
            "E2E_SCREENSHOTS",
            std::env::var("E2E_SCREENSHOTS")
                .map(PathBuf::from)
                .unwrap_or_else(|_| root.join("target/e2e-screenshots")),
        )
        .status()
        .unwrap_or_else(|e| panic!("cannot run {node}: {e}"));
    drop(server);
    if let Some(dir) = db.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(status.success(), "e2e/run.mjs failed ({status})");
}
