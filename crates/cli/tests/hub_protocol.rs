//! `damspel hub` as a GUI drives it: the handshake, searches with every level, `ping` and
//! `stop` during a search, pondering, other boards, and malformed input, which must get an
//! `error` line and never end the engine.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

struct Hub {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damspel"))
            .arg("hub")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("damspel hub starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Hub {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Lines up to and including the first one for which `last` holds.
    fn until(&mut self, last: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(wait) {
                Ok(line) => {
                    let done = last(&line);
                    out.push(line);
                    if done {
                        return out;
                    }
                }
                Err(e) => panic!("no expected line within {timeout:?} ({e}); got {out:?}"),
            }
        }
    }

    fn ping(&mut self) -> Vec<String> {
        self.send("ping");
        self.until(|l| l == "pong", Duration::from_secs(10))
    }

    fn handshake(&mut self) -> Vec<String> {
        self.send("hub");
        let lines = self.until(|l| l == "wait", Duration::from_secs(10));
        self.send("init");
        self.until(|l| l == "ready", Duration::from_secs(30));
        lines
    }

    fn think(&mut self, level: &str) -> Vec<String> {
        self.send(level);
        self.send("go think");
        self.until(|l| l.starts_with("done"), Duration::from_secs(60))
    }

    /// Closes stdin and waits for the engine to exit.
    fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the engine did not quit at EOF");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn value<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let start = line.find(&format!(" {name}="))? + name.len() + 2;
    let rest = &line[start..];
    if let Some(quoted) = rest.strip_prefix('"') {
        quoted.split('"').next()
    } else {
        rest.split(' ').next()
    }
}

#[test]
fn handshake_declares_the_engine_and_its_parameters() {
    let mut hub = Hub::start();
    let lines = hub.handshake();
    assert!(
        lines[0].starts_with("id name=Damspel version="),
        "{lines:?}"
    );
    assert!(lines[0].contains(" author=") && lines[0].contains(" country="));
    let variant = lines
        .iter()
        .find(|l| l.starts_with("param name=variant "))
        .expect("a variant parameter");
    assert_eq!(value(variant, "value"), Some("international"));
    assert_eq!(value(variant, "type"), Some("enum"));
    let values: Vec<&str> = value(variant, "values").unwrap().split(' ').collect();
    for id in ["international", "killer", "american", "russian", "turkish"] {
        assert!(values.contains(&id), "{id} not in {values:?}");
    }
    assert!(values.len() >= 50, "{values:?}");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("param name=threads ") && l.contains("type=int")));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("param name=hash ") && l.contains("type=int")));
    assert_eq!(lines.last().unwrap(), "wait");
    assert!(hub.close().success());
}

#[test]
fn searches_with_every_level_answer_info_and_a_legal_done() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("new-game");
    hub.send(&format!("pos pos={START}"));
    for level in [
        "level depth=4",
        "level nodes=20000",
        "level move-time=0.2",
        "level time=10 inc=0.1",
        "level moves=20 time=5",
    ] {
        let started = Instant::now();
        let lines = hub.think(level);
        let done = lines.last().unwrap();
        let mv = value(done, "move").unwrap_or_else(|| panic!("{level}: {done}"));
        // White's first moves: 31-26 … 35-30.
        let (from, to) = mv.split_once('-').unwrap();
        assert!((31..=35).contains(&from.parse::<u32>().unwrap()), "{mv}");
        assert!((26..=30).contains(&to.parse::<u32>().unwrap()), "{mv}");
        let info: Vec<&String> = lines.iter().filter(|l| l.starts_with("info ")).collect();
        assert!(!info.is_empty(), "{level}: {lines:?}");
        let last = info.last().unwrap();
        for field in ["depth", "score", "nodes", "time", "pv"] {
            assert!(value(last, field).is_some(), "{field} missing in {last}");
        }
        assert!(value(last, "score").unwrap().parse::<f64>().is_ok());
        if level == "level depth=4" {
            assert_eq!(value(last, "depth"), Some("4"), "{lines:?}");
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{level}");
    }
    // The example of the protocol text: a position and king moves.
    hub.send(
        "pos pos=BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee moves=\"38-15 5-41 48-26\"",
    );
    let lines = hub.think("level depth=3");
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    assert!(hub.close().success());
}

#[test]
fn ping_and_stop_are_answered_during_a_search() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("pos start");
    hub.send("level infinite");
    hub.send("go analyze");
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        let lines = hub.ping();
        assert!(!lines.iter().any(|l| l.starts_with("done")), "{lines:?}");
    }
    hub.send("stop");
    let lines = hub.until(|l| l.starts_with("done"), Duration::from_secs(5));
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:?}");
    // A stop that arrives with the go.
    hub.send("go analyze");
    hub.send("stop");
    hub.until(|l| l.starts_with("done"), Duration::from_secs(5));
    // A ponder search ends after ponder-hit within its move time.
    hub.send("level move-time=0.3");
    hub.send("go ponder");
    std::thread::sleep(Duration::from_millis(500));
    let lines = hub.ping();
    assert!(
        !lines.iter().any(|l| l.starts_with("done")),
        "ponder ended early: {lines:?}"
    );
    let hit = Instant::now();
    hub.send("ponder-hit");
    hub.until(|l| l.starts_with("done"), Duration::from_secs(5));
    assert!(
        hit.elapsed() < Duration::from_secs(2),
        "{:?}",
        hit.elapsed()
    );
    // Commands sent during a search wait for it: the second go runs after the first done.
    hub.send("level infinite");
    hub.send("go analyze");
    hub.send("level depth=2");
    hub.send("go think");
    std::thread::sleep(Duration::from_millis(100));
    hub.send("stop");
    hub.until(|l| l.starts_with("done"), Duration::from_secs(5));
    let lines = hub.until(|l| l.starts_with("done"), Duration::from_secs(10));
    assert!(
        lines.iter().any(|l| l.starts_with("info depth=2 ")),
        "{lines:?}"
    );
    // Quit during a search ends the engine.
    hub.send("level infinite");
    hub.send("go analyze");
    hub.send("quit");
    assert!(hub.close().success());
}

/// Writes `script` to a new engine all at once, closes its input, and reads all it wrote.
fn piped(script: &str) -> Vec<String> {
    let mut hub = Hub::start();
    hub.send_bytes(script.as_bytes());
    drop(hub.stdin.take());
    let started = Instant::now();
    let status = hub.child.wait().unwrap();
    assert!(status.success(), "{script:?}: {status}");
    assert!(started.elapsed() < Duration::from_secs(10), "{script:?}");
    hub.lines.iter().collect()
}

/// `printf 'hub\ninit\n...' | damspel hub`: the commands before `quit` or the end of input
/// are answered before the engine ends (it wrote nothing at all: the end of input came first).
/// A search still running is stopped and answers with the best move it has.
#[test]
fn a_script_piped_in_whole_gets_its_answers() {
    let lines = piped("hub\nquit\n");
    assert!(lines.last().is_some_and(|l| l == "wait"), "{lines:?}");
    let lines = piped(&format!(
        "hub\nset-param name=hash value=1\ninit\npos pos={START}\nlevel depth=64\ngo think\nping\n"
    ));
    assert!(lines.iter().any(|l| l == "ready"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "pong"), "{lines:?}");
    let done = lines
        .iter()
        .find(|l| l.starts_with("done"))
        .expect("a done");
    let mv = value(done, "move").expect("a move");
    assert!(
        ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"]
            .contains(&mv),
        "{done}"
    );
}

#[test]
fn eof_during_a_search_ends_the_engine() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("level infinite");
    hub.send("go analyze");
    std::thread::sleep(Duration::from_millis(200));
    assert!(hub.close().success());
}

#[test]
fn other_boards_use_their_own_position_length_and_square_names() {
    // Turkish as pydraughts writes it: 64 squares listed from a8 (a8..h8, a7, …, h1), moves
    // numbered from a1 = 1 to h8 = 64 (d3-d4 is 20-28, e6-e5 is 45-37).
    let mut hub = Hub::start();
    hub.send("hub");
    hub.until(|l| l == "wait", Duration::from_secs(10));
    hub.send("set-param name=variant value=turkish");
    hub.send("init");
    hub.until(|l| l == "ready", Duration::from_secs(30));
    let start = format!(
        "W{}{}{}{}{}",
        "e".repeat(8),
        "b".repeat(16),
        "e".repeat(16),
        "w".repeat(16),
        "e".repeat(8)
    );
    hub.send(&format!("pos pos={start} moves=\"20-28 45-37\""));
    let lines = hub.think("level depth=3");
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    let mv = value(lines.last().unwrap(), "move").unwrap().to_string();
    let (from, to) = mv.split_once('-').unwrap();
    let (from, to): (u32, u32) = (from.parse().unwrap(), to.parse().unwrap());
    assert!((1..=64).contains(&from) && (1..=64).contains(&to), "{mv}");
    // A 51-character position is wrong here.
    hub.send(&format!("pos pos={START}"));
    let lines = hub.ping();
    assert!(lines[0].contains("65 characters"), "{lines:?}");

    // Switching variant after init: set-param, then init rebuilds the engine. Russian as
    // pydraughts writes it: White's first moves go from 9–12 to 13–16 (a1 = 1).
    hub.send("set-param name=variant value=russian");
    hub.send("init");
    hub.until(|l| l == "ready", Duration::from_secs(30));
    let russian = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
    hub.send(&format!("pos pos={russian}"));
    let lines = hub.think("level depth=3");
    let mv = value(lines.last().unwrap(), "move").unwrap().to_string();
    let (from, to) = mv.split_once('-').unwrap();
    assert!((9..=12).contains(&from.parse::<u32>().unwrap()), "{mv}");
    assert!((13..=16).contains(&to.parse::<u32>().unwrap()), "{mv}");

    // American as pydraughts writes it: the same string means Black (its `w`) to move, and
    // Black's first moves go from 9–12 to 13–16 in the checkers numbering.
    hub.send("set-param name=variant value=english");
    hub.send("init");
    hub.until(|l| l == "ready", Duration::from_secs(30));
    hub.send(&format!("pos pos={russian} moves=\"11-15 23-19\""));
    let lines = hub.think("level depth=3");
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    let mv = value(lines.last().unwrap(), "move").unwrap().to_string();
    let from: u32 = mv.split(['-', 'x']).next().unwrap().parse().unwrap();
    assert!((1..=15).contains(&from), "Black moves again: {mv}");
    assert!(hub.close().success());
}

#[test]
fn without_a_variant_the_position_length_decides_what_it_can() {
    // pydraughts sends no variant of its own: a 65-character position can only be Turkish.
    let turkish = format!(
        "W{}{}{}{}{}",
        "e".repeat(8),
        "b".repeat(16),
        "e".repeat(16),
        "w".repeat(16),
        "e".repeat(8)
    );
    for init in [true, false] {
        let mut hub = Hub::start();
        hub.send("hub");
        hub.until(|l| l == "wait", Duration::from_secs(10));
        if init {
            hub.send("init");
            hub.until(|l| l == "ready", Duration::from_secs(30));
        }
        hub.send(&format!("pos pos={turkish} moves=\"20-28\""));
        let lines = hub.think("level depth=2");
        assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
        let mv = value(lines.last().unwrap(), "move").unwrap().to_string();
        let from: u32 = mv.split(['-', 'x']).next().unwrap().parse().unwrap();
        assert!((41..=56).contains(&from), "Black's men are on 41–56: {mv}");
        // And the 51-character one International again.
        hub.send(&format!("pos pos={START}"));
        let lines = hub.think("level depth=2");
        assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
        // A 33-character one cannot be told apart: Russian, Brazilian or American.
        let russian = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
        hub.send(&format!("pos pos={russian}"));
        let lines = hub.ping();
        assert!(
            lines[0].starts_with("error") && lines[0].contains("set-param name=variant"),
            "{lines:?}"
        );
        assert!(hub.close().success());
    }
}

#[test]
fn malformed_lines_get_an_error_and_the_engine_goes_on() {
    let mut hub = Hub::start();
    let long_position = format!("pos pos=W{}", "e".repeat(100_000));
    let garbage: Vec<String> = [
        "",
        "   ",
        "=",
        "\"",
        "=== ===",
        "\"hub\"",
        "pos pos=\"Wbbbb",
        "pos pos=",
        "pos pos=\"\"",
        "level depth=",
        "level depth=deep",
        "level depth=-3",
        // No search at all, and deeper than the engine goes (docs/hub.md: 1 to 64).
        "level depth=0",
        "level depth=65",
        "level nodes=0",
        "level moves=0 time=60",
        "level move-time=-1",
        "level move-time=nan",
        "level nodes=99999999999999999999999",
        "level moves=10",
        "set-param",
        "set-param name=variant value=chess",
        "set-param name=threads value=0",
        "set-param name=hash value=lots",
        "ping \u{1}",
        "go \"think",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([long_position])
    .collect();
    // Before init and after.
    for phase in ["before init", "after init"] {
        for line in &garbage {
            hub.send(line);
            let lines = hub.ping();
            assert!(
                lines.len() == 2 && lines[0].starts_with("error message="),
                "{phase}: `{}` got {lines:?}",
                line.chars().take(40).collect::<String>()
            );
        }
        if phase == "before init" {
            hub.handshake();
        }
    }
    // Positions and moves that do not fit the rules.
    for line in [
        "pos pos=Wbbbbb".to_string(),
        format!("pos pos=X{}", &START[1..]),
        format!("pos pos={}q", &START[..50]),
        format!("pos pos=Ww{}", &START[2..]),
        format!("pos pos={START} moves=\"33-27\""),
        format!("pos pos={START} moves=\"31-27 31-27\""),
        format!("pos pos={START} moves=\"31x27\""),
        format!("pos pos={START} moves=\"a1-b2\""),
        format!("pos pos={START} moves=\"31-27-22\""),
    ] {
        hub.send(&line);
        let lines = hub.ping();
        assert!(
            lines.len() == 2 && lines[0].starts_with("error message="),
            "`{line}` got {lines:?}"
        );
    }
    // Unknown commands and arguments are ignored without a word.
    for line in [
        "frobnicate",
        "xyzzy a=1 b=\"2 3\" c",
        "go-faster now",
        "new-game extra=1",
    ] {
        hub.send(line);
        let lines = hub.ping();
        assert!(lines.iter().all(|l| l == "pong"), "`{line}` got {lines:?}");
    }
    // Bytes that are not UTF-8, a bare carriage return, a NUL: no crash.
    hub.send_bytes(b"\xff\xfe\xfd\n\r\n\0\n");
    hub.ping();
    // Still a working engine.
    hub.send(&format!("pos pos={START}"));
    let lines = hub.think("level depth=3");
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:?}");
    assert!(hub.close().success());
}

/// Issue 10's position whose capture generation took minutes (Universal checkers, a White king
/// against 22 Black kings), in Hub notation: squares a1, b1, …, h8.
fn slow_universal_position() -> String {
    let black = "a3 a6 b6 b8 c1 c2 c5 c6 d2 d7 e1 e2 e3 e4 e6 f2 f5 g2 g3 g5 g7 h5";
    let mut cells = vec!['e'; 64];
    let index = |name: &str| {
        let b = name.as_bytes();
        (b[1] - b'1') as usize * 8 + (b[0] - b'a') as usize
    };
    cells[index("b7")] = 'W';
    for name in black.split(' ') {
        cells[index(name)] = 'B';
    }
    format!("W{}", cells.into_iter().collect::<String>())
}

/// The time until the first line for which `last` holds.
fn answered_within(hub: &mut Hub, last: impl Fn(&str) -> bool) -> (Duration, Vec<String>) {
    let start = Instant::now();
    let lines = hub.until(last, Duration::from_secs(120));
    (start.elapsed(), lines)
}

/// The bound asserted for "at once" (the goal is 100 ms; the figures measured are in
/// docs/reliability.md): generous, so that a loaded CI machine does not fail it.
const AT_ONCE: Duration = Duration::from_secs(1);

#[test]
fn ping_stop_and_quit_are_answered_at_once_whatever_the_engine_is_doing() {
    // Slow work of every kind: a position whose moves take long to generate (issue 10: pong
    // after 89 s, done after 264 s for move-time=1), threads to start and stop.
    let mut hub = Hub::start();
    hub.send("hub");
    hub.until(|l| l == "wait", Duration::from_secs(10));
    hub.send("set-param name=variant value=universal");
    hub.send("set-param name=threads value=8");
    hub.send("init");
    hub.until(|l| l == "ready", Duration::from_secs(30));
    let pos = slow_universal_position();

    // A timed search: pings answered during it, done within its time.
    hub.send(&format!("pos pos={pos}"));
    hub.send("level move-time=0.2");
    let go = Instant::now();
    hub.send("go think");
    std::thread::sleep(Duration::from_millis(50));
    // Its one legal move now takes milliseconds to find, so `done` may come before a pong:
    // the lines read while waiting for the pongs are kept (waiting for a `done` already read
    // hung the test for its 120 s, about one run in four).
    let mut lines = Vec::new();
    for _ in 0..3 {
        hub.send("ping");
        let (took, read) = answered_within(&mut hub, |l| l == "pong");
        assert!(took < AT_ONCE, "pong after {took:?}: {read:?}");
        lines.extend(read);
    }
    if !lines.iter().any(|l| l.starts_with("done")) {
        lines.extend(hub.until(|l| l.starts_with("done"), Duration::from_secs(120)));
    }
    assert!(
        go.elapsed() < Duration::from_millis(200) + AT_ONCE,
        "done after {:?} for move-time=0.2: {lines:?}",
        go.elapsed()
    );

    // A position whose move must be checked (a generation), then ping.
    hub.send(&format!("pos pos={pos} moves=\"b7xh8\""));
    hub.send("ping");
    let (took, lines) = answered_within(&mut hub, |l| l == "pong");
    assert!(took < AT_ONCE, "pong after {took:?}: {lines:?}");

    // An analysis, stopped.
    hub.send(&format!("pos pos={pos}"));
    hub.send("level infinite");
    hub.send("go analyze");
    std::thread::sleep(Duration::from_millis(50));
    hub.send("stop");
    let (took, lines) = answered_within(&mut hub, |l| l.starts_with("done"));
    assert!(took < AT_ONCE, "done after {took:?} for stop: {lines:?}");

    // Quit in the middle of everything.
    hub.send("level move-time=10");
    hub.send("go think");
    std::thread::sleep(Duration::from_millis(50));
    let quit = Instant::now();
    hub.send("quit");
    loop {
        if let Some(status) = hub.child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(quit.elapsed() < AT_ONCE, "still running after quit");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn hash_and_threads_beyond_what_the_machine_holds_are_refused_and_init_never_aborts() {
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until(|l| l == "wait", Duration::from_secs(10));
    let hash = lines
        .iter()
        .find(|l| l.starts_with("param name=hash "))
        .unwrap();
    let max: u64 = value(hash, "max").unwrap().parse().unwrap();
    // At most half the machine's memory (Linux tells it in /proc/meminfo).
    if let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") {
        let kib: u64 = meminfo
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(max <= kib / 1024 / 2, "hash max {max} MiB of {kib} KiB");
    }
    assert!((1..=65_536).contains(&max), "{hash}");
    // Four threads per core at most (hundreds on a few cores would starve the answers).
    let threads = lines
        .iter()
        .find(|l| l.starts_with("param name=threads "))
        .unwrap();
    let max_threads: u64 = value(threads, "max").unwrap().parse().unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert_eq!(max_threads, (cores * 4).min(256), "{threads}");
    // Issue 10: the advertised 65536 was accepted and `init` aborted. Above the machine's
    // maximum is an error now; the maximum itself is taken and `init` answers.
    for bad in [
        format!("set-param name=hash value={}", max + 1),
        "set-param name=hash value=18446744073709551615".to_string(),
        format!("set-param name=threads value={}", max_threads + 1),
    ] {
        hub.send(&bad);
        let lines = hub.ping();
        assert!(lines[0].starts_with("error message="), "{bad}: {lines:?}");
    }
    hub.send(&format!("set-param name=hash value={max}"));
    hub.send(&format!("set-param name=threads value={max_threads}"));
    hub.send("init");
    let lines = hub.until(|l| l == "ready", Duration::from_secs(30));
    assert_eq!(lines, ["ready"]);
    hub.send("new-game");
    hub.send("pos start");
    let started = Instant::now();
    let lines = hub.think("level move-time=0.3");
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:?}");
    assert!(
        started.elapsed() < Duration::from_millis(300) + AT_ONCE,
        "{max_threads} threads took {:?} for move-time=0.3",
        started.elapsed()
    );
    assert!(hub.close().success());
}

#[test]
fn overlong_lines_are_refused_without_reading_them_whole() {
    let mut hub = Hub::start();
    hub.handshake();
    // 3 MiB without a line end, then a line end: one error, and the engine goes on.
    let chunk = vec![b'e'; 1 << 20];
    hub.send_bytes(b"pos pos=W");
    for _ in 0..3 {
        hub.send_bytes(&chunk);
    }
    hub.send_bytes(b"\n");
    let lines = hub.ping();
    assert!(
        lines.len() == 2 && lines[0].contains("longer than"),
        "{lines:?}"
    );
    hub.send(&format!("pos pos={START}"));
    let lines = hub.think("level depth=2");
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:?}");
    assert!(hub.close().success());
}

#[test]
fn the_level_parameter_is_declared_checked_and_played() {
    // Issue 12, item 4: levels 1 to 8 through `set-param name=level`.
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until(|l| l == "wait", Duration::from_secs(10));
    assert!(
        lines.contains(&"param name=level value=8 type=int min=1 max=8".to_string()),
        "{lines:?}"
    );
    for bad in ["0", "9", "easy"] {
        hub.send(&format!("set-param name=level value={bad}"));
        let lines = hub.ping();
        assert!(lines[0].starts_with("error "), "{bad}: {lines:?}");
    }
    hub.send("set-param name=level value=1");
    hub.send("init");
    hub.until(|l| l == "ready", Duration::from_secs(30));
    hub.send("new-game");
    hub.send(&format!("pos pos={START}"));
    // Level 1 searches each root move to depth 1, whatever the GUI's depth.
    let lines = hub.think("level depth=6");
    let mv = value(lines.last().unwrap(), "move").unwrap_or_else(|| panic!("{lines:?}"));
    let (from, _) = mv.split_once('-').unwrap();
    assert!((31..=35).contains(&from.parse::<u32>().unwrap()), "{mv}");
    let info = lines.iter().rfind(|l| l.starts_with("info ")).unwrap();
    assert_eq!(value(info, "depth"), Some("1"), "{lines:?}");
    assert!(hub.close().success());
}

#[test]
fn the_tb_dir_parameter_gives_the_engine_the_tables() {
    // Issue 13, item 5, over the Hub: with `tb-dir`, a won table position is played by the
    // tables' fastest win even at depth 1. The expected moves are the tables' own.
    use damspel_rules::{Catalogue, Color, Rules};
    use damspel_tablebase::{build, Material, Tablebase, Value};
    let scratch = common::scratch("hub-tb");
    let dir = scratch.path();
    let rules = Rules::<u64>::new(Catalogue::builtin().get("international").unwrap()).unwrap();
    build(&rules, 3, dir, 2, &|_| true).unwrap();
    let tb = Tablebase::open(dir, &rules).unwrap();
    let m: Material = "KMvK".parse().unwrap();
    let squares = rules.variant().geometry.all_squares().to_vec();
    // White to move, won, and with moves that do not win (so a plain depth-1 choice may miss).
    let (pos, fastest, distance) = (0..tb.header(m).unwrap().slots)
        .filter_map(|s| tb.position(m, s))
        .find_map(|p| {
            let probe = tb.probe(&p)?;
            if p.side_to_move() != Color::White || probe.value != Value::Win || probe.distance < 7 {
                return None;
            }
            let moves = tb.probe_moves(&p)?;
            if moves.iter().all(|mp| mp.after.value == Value::Loss) {
                return None;
            }
            let ends: Vec<(u32, u32)> = moves
                .iter()
                .filter(|mp| {
                    mp.after.value == Value::Loss && mp.after.distance + 1 == probe.distance
                })
                .map(|mp| {
                    let n = |sq| squares.iter().position(|&s| s == sq).unwrap() as u32 + 1;
                    (n(mp.mv.from()), n(mp.mv.to()))
                })
                .collect();
            Some((p, ends, probe.distance))
        })
        .unwrap();
    let text: String = std::iter::once('W')
        .chain(squares.iter().map(|&sq| match pos.piece_at(sq) {
            None => 'e',
            Some(p) => match (p.color, p.king) {
                (Color::White, false) => 'w',
                (Color::White, true) => 'W',
                (Color::Black, false) => 'b',
                (Color::Black, true) => 'B',
            },
        }))
        .collect();
    let mut hub = Hub::start();
    hub.send("hub");
    let lines = hub.until(|l| l == "wait", Duration::from_secs(10));
    assert!(
        lines.iter().any(|l| l.starts_with("param name=tb-dir")),
        "{lines:?}"
    );
    hub.send("set-param name=variant value=international");
    hub.send(&format!(
        "set-param name=tb-dir value=\"{}\"",
        dir.display()
    ));
    hub.send("init");
    hub.until(|l| l == "ready", Duration::from_secs(30));
    hub.send("new-game");
    hub.send(&format!("pos pos={text}"));
    let lines = hub.think("level depth=1");
    let mv = value(lines.last().unwrap(), "move").unwrap_or_else(|| panic!("{lines:?}"));
    let parts: Vec<u32> = mv.split(['-', 'x']).map(|s| s.parse().unwrap()).collect();
    let ends = (parts[0], *parts.last().unwrap());
    assert!(
        fastest.contains(&ends),
        "{mv} not among the fastest wins {fastest:?}"
    );
    // The score is the tables' win (a win in n plies is 100 - n/100 men over the Hub).
    let info = lines.iter().rfind(|l| l.starts_with("info ")).unwrap();
    let want = format!("{:.2}", f64::from(10_000 - distance as i32) / 100.0);
    assert_eq!(value(info, "score"), Some(want.as_str()), "{lines:?}");
    assert!(hub.close().success());
}

#[test]
fn level_infinite_waits_for_stop_even_with_a_depth() {
    // docs/hub.md: with `infinite` the `done` waits for `stop`, as UCI's `go infinite`, even
    // when the depth has ended the search; in either order of the level's arguments.
    for level in ["level infinite depth=1", "level depth=1 infinite"] {
        let mut hub = Hub::start();
        hub.handshake();
        hub.send(&format!("pos pos={START}"));
        hub.send(level);
        hub.send("go think");
        hub.until(|l| l.starts_with("info depth=1"), Duration::from_secs(30));
        // The depth is reached: still no `done` before the answer to a ping.
        let lines = hub.ping();
        assert!(!lines.iter().any(|l| l.starts_with("done")), "{lines:?}");
        hub.send("stop");
        let lines = hub.until(|l| l.starts_with("done"), Duration::from_secs(10));
        assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
        assert!(hub.close().success());
    }
}

/// `set-param name=tb-dir value=DIR` and `init`: the lines up to `ready`, and the engine still
/// plays (without tables).
fn init_with_tb_dir(dir: &str) -> Vec<String> {
    let mut hub = Hub::start();
    hub.send("hub");
    hub.until(|l| l == "wait", Duration::from_secs(10));
    hub.send(&format!("set-param name=tb-dir value=\"{dir}\""));
    hub.send("init");
    let lines = hub.until(|l| l == "ready", Duration::from_secs(30));
    hub.send(&format!("pos pos={START}"));
    let played = hub.think("level depth=1");
    assert!(
        played.last().unwrap().starts_with("done move="),
        "{played:?}"
    );
    assert!(hub.close().success());
    lines
}

#[test]
fn a_tb_dir_that_is_not_a_folder_says_its_cause_once() {
    // It said "Not a directory (os error 20): Not a directory (os error 20)".
    let lines = init_with_tb_dir("/dev/zero");
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(errors[0].contains("tb-dir: /dev/zero"), "{lines:?}");
    assert_eq!(errors[0].matches("(os error 20)").count(), 1, "{lines:?}");
}

#[test]
fn a_tb_dir_that_does_not_exist_is_an_error() {
    // A misspelt folder left the engine without tables without a word, in the Hub and in
    // `analyze`.
    let missing = std::env::temp_dir().join(format!("damspel-no-such-tb-{}", std::process::id()));
    let lines = init_with_tb_dir(&missing.display().to_string());
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(
        errors[0].contains(&format!("tb-dir: {}: no such folder", missing.display())),
        "{lines:?}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(["analyze", "international", "--depth", "1", "--tb-dir"])
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no such folder"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // The server too, before it listens (port 0: it would otherwise serve).
    let db = std::env::temp_dir().join(format!("damspel-no-such-tb-{}.db", std::process::id()));
    let mut serve = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(["serve", "--port", "0", "--db"])
        .arg(&db)
        .arg("--tb-dir")
        .arg(&missing)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Guards against a hang only: it is refused before it listens.
    let started = Instant::now();
    while serve.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = serve.kill();
    let out = serve.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&db);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no such folder"), "{stderr}");
}

/// A changed parameter and `init` sent while a search runs wait for it, then rebuild the
/// engine, which goes on answering. (That `init` was counted off twice, once when it waited and
/// once when it was run: the desk then held 2^64 commands waiting and dropped every later one,
/// `go` included, for good.)
#[test]
fn init_with_new_parameters_during_a_search_leaves_the_engine_working() {
    let mut hub = Hub::start();
    hub.handshake();
    hub.send("set-param name=hash value=8");
    hub.send("level depth=2");
    hub.send("go think");
    hub.send("init");
    let lines = hub.until(|l| l == "ready", Duration::from_secs(30));
    assert!(lines.iter().any(|l| l.starts_with("done")), "{lines:?}");
    hub.send(&format!("pos pos={START}"));
    let lines = hub.think("level depth=1");
    assert!(lines.iter().all(|l| !l.starts_with("error")), "{lines:?}");
    assert!(value(lines.last().unwrap(), "move").is_some(), "{lines:?}");
    assert_eq!(hub.ping(), ["pong"]);
    assert!(hub.close().success());
}
