//! `damspel serve` as a user starts it (issue 10): option ranges, `--host localhost`, the
//! warning and token off loopback, one server per database.

mod common;

use common::ScratchPath;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A database path in a scratch folder of its own, removed when dropped: bound to a name that
/// outlives the server using it.
fn temp_db(name: &str) -> ScratchPath {
    ScratchPath::new("cli-serve", &format!("{name}.db"))
}

/// A running `damspel serve`, killed when dropped.
struct Served {
    child: Child,
    lines: Vec<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Starts the server and reads its banner up to "Open that address".
    fn start(args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damspel"))
            .arg("serve")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap() == 0 {
                let mut err = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut err);
                panic!("serve stopped: {lines:?} {err}");
            }
            let done = line.starts_with("Open that address");
            lines.push(line);
            if done {
                break;
            }
        }
        Served { child, lines }
    }

    /// `http://HOST:PORT/...` as printed.
    fn url(&self) -> String {
        let first = &self.lines[0];
        let start = first.find("http://").unwrap();
        first[start..]
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    }

    fn addr(&self) -> String {
        let url = self.url();
        url.trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_string()
    }
}

/// A GET with the given Host header: the status line.
fn status_of(addr: &str, host: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.lines().next().unwrap_or("").to_string()
}

#[test]
fn numeric_options_outside_their_range_are_refused_in_one_line() {
    for args in [
        ["--searches", "18446744073709551615"],
        ["--searches", "0"],
        ["--searches", "65"],
        ["--port", "70000"],
        ["--max-connections", "5"],
        ["--idle-minutes", "0"],
    ] {
        let db = temp_db("range");
        let out = Command::new(env!("CARGO_BIN_EXE_damspel"))
            .arg("serve")
            .args(args)
            .args(["--db", db.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains(args[0]), "{args:?}: {err}");
    }
}

/// `damspel serve ARGS` on a free port, which must stop at once: its exit code and stderr
/// (a server that started instead is killed after 20 s, and the test fails).
fn refused(args: &[&str], db: &str) -> (Option<i32>, String) {
    let db = temp_db(db);
    let mut child = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(["serve", "--port", "0"])
        .args(args)
        .args(["--db", db.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    let status = status.unwrap_or_else(|| panic!("{args:?}: the server started"));
    (status.code(), err)
}

#[test]
fn a_token_outside_its_form_is_refused() {
    // A token rides in every request and in the printed address: 16 to 256 letters, digits,
    // `-` and `_` (a 100 kB one was taken).
    let long = "t".repeat(257);
    for token in ["short", "with a space 12345", long.as_str()] {
        let (code, err) = refused(&["--token", token], "token");
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("--token must be 16 to 256"), "{err}");
    }
    // A host name that does not resolve is quoted by its start.
    let (code, err) = refused(&["--host", &"h".repeat(100_000)], "host");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.len() < 500 && err.contains("hhhh…"),
        "{} bytes",
        err.len()
    );
}

#[test]
fn allow_host_names_the_host_check_cannot_match_are_refused() {
    // Each was kept before and matched no Host header, so the name the user meant stayed
    // refused without a word.
    for name in ["", "http://box.lan:8080/", "*.lan", "box.lan:0", "bo x"] {
        let (code, err) = refused(&["--allow-host", name], "allow-host");
        assert_eq!(code, Some(2), "{name:?}: {err}");
        assert!(err.contains("--allow-host"), "{name:?}: {err}");
    }
    // A name kept is matched as given, with any port when it has none.
    let db = temp_db("allow-host-ok");
    let served = Served::start(&[
        "--port",
        "0",
        "--allow-host",
        "Box.LAN",
        "--db",
        db.to_str().unwrap(),
    ]);
    let addr = served.addr();
    let port = addr.rsplit(':').next().unwrap();
    assert_eq!(
        status_of(&addr, &format!("box.lan:{port}"), "/api/variants"),
        "HTTP/1.1 200 OK"
    );
    assert!(status_of(&addr, "other.lan", "/api/variants").contains(" 4"));
}

#[test]
fn localhost_is_a_host_to_serve_on() {
    let db = temp_db("localhost");
    let served = Served::start(&[
        "--host",
        "localhost",
        "--port",
        "0",
        "--db",
        db.to_str().unwrap(),
    ]);
    let addr = served.addr();
    let port = addr.rsplit(':').next().unwrap();
    assert_eq!(
        status_of(&addr, &format!("localhost:{port}"), "/api/variants"),
        "HTTP/1.1 200 OK"
    );
    assert!(
        !served.lines.iter().any(|l| l.contains("Warning")),
        "{:?}",
        served.lines
    );
}

#[test]
fn every_interface_needs_the_printed_token() {
    let db = temp_db("everywhere");
    let served = Served::start(&[
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(
        served
            .lines
            .iter()
            .any(|l| l.starts_with("Warning") && l.contains("every interface")),
        "{:?}",
        served.lines
    );
    let url = served.url();
    let token = url
        .split("?token=")
        .nth(1)
        .expect("the address carries the token");
    assert!(token.len() >= 26, "{url}");
    let addr = served.addr();
    // Only loopback traffic: the test talks to 127.0.0.1.
    assert_eq!(
        status_of(&addr, &addr, "/api/variants"),
        "HTTP/1.1 401 Unauthorized"
    );
    assert_eq!(
        status_of(&addr, &addr, &format!("/?token={token}")),
        "HTTP/1.1 303 See Other"
    );
}

#[test]
fn a_second_server_on_one_database_refuses_to_start() {
    let db = temp_db("one-db");
    let _first = Served::start(&["--port", "0", "--db", db.to_str().unwrap()]);
    let mut second = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(["serve", "--port", "0", "--db", db.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It must stop by itself at once; one still running after 20 s is serving.
    let mut status = None;
    for _ in 0..200 {
        status = second.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if status.is_none() {
        let _ = second.kill();
        let _ = second.wait();
        panic!("a second server started on the same database");
    }
    let mut err = String::new();
    second
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!status.unwrap().success(), "{err}");
    assert!(err.contains("another damspel server"), "{err}");
}
