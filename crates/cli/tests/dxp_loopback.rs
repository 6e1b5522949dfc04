//! `damspel dxp` on loopback against the match runner's DXP side (`damspel_arena::DxpPlayer`):
//! the real binary as a child process, whole International games through `play_game`, and a
//! peer that sends an illegal move or a malformed message; and `damspel match --engine dxp:ADDR`
//! against the listening program.

mod common;

use common::damspel;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use damspel_arena::{
    play_game, DxpConfig, DxpConnection, DxpGameEnd, DxpPlayer, Ending, EnginePlayer, Forfeit,
    GameRecord, RandomPlayer,
};
use damspel_engine::Limits;
use damspel_protocol::dxp::{
    AcceptCode, BackAcceptCode, EndReason, GameEnd, GameRequest, Message, Start, StopCode,
};
use damspel_rules::{Catalogue, Color, Game, Outcome, Rules};

const DEADLINE: Duration = Duration::from_secs(20);

fn international() -> Arc<Rules<u64>> {
    let variant = Catalogue::builtin().get("international").unwrap();
    Arc::new(Rules::<u64>::new(variant).unwrap())
}

fn config() -> DxpConfig {
    DxpConfig {
        name: "loopback test".into(),
        minutes: 1,
        moves: 0,
        move_timeout: Duration::from_secs(10),
        peer_clock: None,
    }
}

/// The binary as a child process, its output read as it comes; killed if a test fails.
struct Program {
    child: Child,
    lines: Receiver<String>,
    stdout: Vec<String>,
    stdout_thread: Option<JoinHandle<()>>,
    stderr_thread: Option<JoinHandle<String>>,
}

struct Finished {
    ok: bool,
    stdout: Vec<String>,
    stderr: String,
}

impl Program {
    fn start(args: &[&str]) -> Program {
        let mut command = Command::new(env!("CARGO_BIN_EXE_damspel"));
        command.arg("dxp").args(args);
        Program::spawn(command)
    }

    /// `damspel dxp ARGS` run by `sh` after `ulimit -n FILES`: at most that many open files.
    fn start_with_open_files(files: usize, args: &[&str]) -> Program {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -n {files} && exec \"$0\" dxp \"$@\""))
            .arg(env!("CARGO_BIN_EXE_damspel"))
            .args(args);
        Program::spawn(command)
    }

    fn spawn(mut command: Command) -> Program {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let stdout_thread = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_thread = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Program {
            child,
            lines,
            stdout: Vec::new(),
            stdout_thread: Some(stdout_thread),
            stderr_thread: Some(stderr_thread),
        }
    }

    /// Waits for a line of output that starts with `prefix`.
    fn wait_for(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| panic!("no line {prefix:?}; output {:?}", self.stdout));
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stdout.push(line.clone());
                    if line.starts_with(prefix) {
                        return line;
                    }
                }
                Err(_) => panic!("no line {prefix:?}; output {:?}", self.stdout),
            }
        }
    }

    /// The address of `dxp: listening on ADDR (...)`.
    fn listening_address(&mut self) -> String {
        let line = self.wait_for("dxp: listening on ");
        line["dxp: listening on ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    }

    /// Waits for the program to exit on its own.
    fn finish(mut self) -> Finished {
        let deadline = Instant::now() + DEADLINE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the program did not exit; output {:?}",
                self.stdout
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        self.stdout_thread.take().unwrap().join().unwrap();
        self.stdout.extend(self.lines.try_iter());
        let stderr = self.stderr_thread.take().unwrap().join().unwrap();
        assert!(
            !stderr.contains("panicked"),
            "the program panicked:\n{stderr}"
        );
        Finished {
            ok: status.success(),
            stdout: std::mem::take(&mut self.stdout),
            stderr,
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Our side of a game against the program: the engine at depth 1.
fn depth_one(rules: &Arc<Rules<u64>>) -> EnginePlayer<u64> {
    EnginePlayer::new(
        "damspel depth 1".into(),
        rules.clone(),
        None,
        Limits::depth(1),
        8,
    )
}

/// Every move of the record is legal, replayed from the start; returns the final game.
fn replay(rules: &Arc<Rules<u64>>, record: &GameRecord<u64>) -> Game<u64> {
    let mut game = Game::new(rules.clone());
    for (i, mv) in record.opening.iter().chain(&record.moves).enumerate() {
        assert!(game.play(mv), "ply {} of the record is illegal", i + 1);
    }
    game
}

/// The result the program printed: `dxp: result 1-0 (...)`.
fn printed_result(out: &Finished) -> String {
    let line = out
        .stdout
        .iter()
        .find(|l| l.starts_with("dxp: result "))
        .unwrap_or_else(|| panic!("no result line in {:?}", out.stdout));
    line["dxp: result ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

/// Checks a game played through `play_game` against the program: legal moves, a result by
/// the rules, the GAMEEND exchange, the program's own log and result.
fn check_game(
    rules: &Arc<Rules<u64>>,
    record: &GameRecord<u64>,
    transcript: &[String],
    end: &DxpGameEnd,
    out: &Finished,
) {
    let game = replay(rules, record);
    let Ending::Rules(outcome) = &record.ending else {
        panic!(
            "the game did not end by the rules: {:?}\n{transcript:#?}",
            record.ending
        )
    };
    assert_eq!(game.outcome().as_ref(), Some(outcome));
    assert!(
        end.agrees_with(&record.ending),
        "GAMEEND exchange {end:?} vs {:?}\n{transcript:#?}",
        record.ending
    );
    // One MOVE message per ply, either way, then two GAMEENDs: the first from the side to move
    // in the final position, with the result as that side sees it, and the answer.
    let moves = transcript
        .iter()
        .filter(|l| l.starts_with("> M") || l.starts_with("< M"))
        .count();
    assert_eq!(moves, record.moves.len());
    let ends: Vec<&String> = transcript
        .iter()
        .filter(|l| l.starts_with("> E") || l.starts_with("< E"))
        .collect();
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(
        transcript.last().unwrap().starts_with("> E")
            || transcript.last().unwrap().starts_with("< E")
    );
    let loser_to_move = game.position().side_to_move();
    let first = &ends[0][2..];
    let expected = match outcome {
        Outcome::Draw(_) => "E2",
        Outcome::Win { winner, .. } if *winner == loser_to_move => "E3",
        Outcome::Win { .. } => "E1",
    };
    assert!(first.starts_with(expected), "{first} for {outcome}");
    assert!(
        ends[1][2..].starts_with("E0"),
        "the answer gives no reason: {ends:?}"
    );
    // The program logged the same plies and the same result.
    assert!(out.ok, "the program failed: {}", out.stderr);
    let plies = out
        .stdout
        .iter()
        .filter(|l| l.ends_with("(damspel)") || l.ends_with("(peer)"))
        .count();
    assert_eq!(plies, record.moves.len(), "{:?}", out.stdout);
    assert_eq!(printed_result(out), record.ending.result_text());
    assert_eq!(printed_result(out), outcome.result_text());
    eprintln!("{} plies: {}", record.moves.len(), record.ending.reason());
}

#[test]
fn a_whole_game_against_the_listening_program() {
    let rules = international();
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "2"]);
    let addr = program.listening_address();
    let mut dxp = DxpPlayer::connect(rules.clone(), addr.as_str(), config()).unwrap();
    let mut ours = depth_one(&rules);
    // The DXP side is Black; without `start` the first `choose` proposes the game.
    let record = play_game(&rules, &mut ours, &mut dxp, &[], 1000);
    let end = dxp.finish(&record).unwrap();
    assert_eq!(dxp.peer_name(), Some("Damspel 0.1.0"));
    assert_eq!(record.black, "Damspel 0.1.0");
    let transcript = dxp.transcript().to_vec();
    assert_eq!(
        transcript[0],
        format!("> R01{:<32}Z001000A", "loopback test"),
        "the GAMEREQ"
    );
    assert_eq!(transcript[1], format!("< A{:<32}0", "Damspel 0.1.0"));
    drop(dxp); // closes the connection: the program leaves
    let out = program.finish();
    check_game(&rules, &record, &transcript, &end, &out);
    assert!(out
        .stdout
        .iter()
        .any(|l| l.contains("closed the connection after 1 game")));
}

#[test]
fn two_games_on_one_connection_with_colours_swapped() {
    let rules = international();
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let addr = program.listening_address();
    let mut dxp = DxpPlayer::connect(rules.clone(), addr.as_str(), config()).unwrap();
    let mut ours = RandomPlayer::new(7);
    // Game 1: an opening of two plies, the DXP side White (it moves first after the opening).
    let mut opening_game = Game::new(rules.clone());
    let opening: Vec<_> = (0..2)
        .map(|_| {
            let mv = opening_game.legal_moves()[0];
            opening_game.play(&mv);
            mv
        })
        .collect();
    dxp.start(Color::White, &opening).unwrap();
    let first = play_game(&rules, &mut dxp, &mut ours, &opening, 1000);
    let end1 = dxp.finish(&first).unwrap();
    assert!(
        end1.agrees_with(&first.ending),
        "{end1:?} {:?}",
        first.ending
    );
    assert!(
        dxp.transcript()[0].ends_with(&format!(
            "W001000BW{}",
            &damspel_protocol::dxp::to_board(&rules, opening_game.position()).to_text()[1..]
        )),
        "a set-up start: {}",
        dxp.transcript()[0]
    );
    replay(&rules, &first);
    // Game 2: the standard start, the DXP side Black against a deeper engine, which wins: the
    // program, to move in the final position, sends the first GAMEEND ("I give up").
    dxp.start(Color::Black, &[]).unwrap();
    let mut deeper = EnginePlayer::new("depth 4".into(), rules.clone(), None, Limits::depth(4), 8);
    let second = play_game(&rules, &mut deeper, &mut dxp, &[], 1000);
    let end2 = dxp.finish(&second).unwrap();
    assert!(
        end2.agrees_with(&second.ending),
        "{end2:?} {:?}",
        second.ending
    );
    assert_eq!(second.ending.result_text(), "1-0", "{:?}", second.ending);
    assert!(end2.peer_initiated, "{end2:?}");
    assert_eq!(end2.peer_white_score, Some(1.0));
    replay(&rules, &second);
    drop(dxp);
    let out = program.finish();
    assert!(out.ok, "{}", out.stderr);
    let results: Vec<&String> = out
        .stdout
        .iter()
        .filter(|l| l.starts_with("dxp: result "))
        .collect();
    assert_eq!(results.len(), 2, "{:?}", out.stdout);
    assert!(results[0].starts_with(&format!("dxp: result {}", first.ending.result_text())));
    assert!(results[1].starts_with(&format!("dxp: result {}", second.ending.result_text())));
}

#[test]
fn a_whole_game_against_the_connecting_program() {
    let rules = international();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let program = Program::start(&["--connect", &addr, "--depth", "2", "--time", "5"]);
    let mut dxp = DxpPlayer::accept(rules.clone(), &listener, config()).unwrap();
    // The program proposes: it plays White, 7 minutes (75 moves of 5 s), no move limit.
    let peer = dxp.await_request().unwrap();
    assert_eq!(peer, Color::White);
    assert_eq!(
        dxp.transcript()[0],
        format!("< R01{:<32}Z007000A", "Damspel 0.1.0")
    );
    let mut ours = depth_one(&rules);
    let record = play_game(&rules, &mut dxp, &mut ours, &[], 1000);
    let end = dxp.finish(&record).unwrap();
    let transcript = dxp.transcript().to_vec();
    // The initiator plays one game: its GAMEEND (first or answer) asks to stop.
    assert!(dxp.peer_stopped(), "{transcript:#?}");
    drop(dxp);
    let out = program.finish();
    check_game(&rules, &record, &transcript, &end, &out);
}

/// A hand-driven initiator: GAMEREQ with the peer as Black, then whatever the test sends.
fn raw_initiator(program: &mut Program) -> DxpConnection {
    raw_game_request(&program.listening_address())
}

/// Connects to `addr` and has the GAMEREQ of `raw_initiator` accepted.
fn raw_game_request(addr: &str) -> DxpConnection {
    accepted_game(addr, "raw test", Color::Black, 1)
}

/// Connects to `addr` and has a game from the standard start accepted, the program playing
/// `follower_color` with `minutes` a side (0: no clock).
fn accepted_game(
    addr: &str,
    initiator: &str,
    follower_color: Color,
    minutes: u16,
) -> DxpConnection {
    let mut conn = DxpConnection::connect(addr).unwrap();
    conn.send(&Message::GameRequest(GameRequest {
        version: 1,
        initiator: initiator.into(),
        follower_color,
        minutes,
        moves: 0,
        start: Start::Standard,
    }))
    .unwrap();
    match conn.receive(Some(DEADLINE)).unwrap() {
        Message::GameAccept(a) => assert_eq!(a.code, AcceptCode::Accept),
        other => panic!("{other:?}"),
    }
    conn
}

/// After a bad message the program sends a CHAT with the reason and a GAMEEND; we answer.
fn expect_game_end(conn: &mut DxpConnection) -> String {
    let mut chat = String::new();
    loop {
        match conn.receive(Some(DEADLINE)).unwrap() {
            Message::Chat(text) => chat = text,
            Message::GameEnd(e) => {
                assert_eq!(e.reason, EndReason::Unspecified);
                let _ = conn.send(&Message::GameEnd(GameEnd {
                    reason: EndReason::Unspecified,
                    stop: StopCode::Stop,
                }));
                return chat;
            }
            other => panic!("expected CHAT or GAMEEND, got {other:?}"),
        }
    }
}

#[test]
fn an_illegal_move_ends_the_game_with_an_error() {
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let mut conn = raw_initiator(&mut program);
    // 32-37 moves a White man backwards.
    conn.send_raw(b"M0000323700\0").unwrap();
    let chat = expect_game_end(&mut conn);
    assert!(chat.contains("32-37 is not legal"), "{chat}");
    let out = program.finish();
    assert!(!out.ok);
    let error = out.stderr.trim();
    assert!(
        error.starts_with("damspel: illegal move from the peer after 0 plies: move 32-37 is not legal here; legal moves (9): "),
        "{error}"
    );
    assert_eq!(error.lines().count(), 1, "{error}");
}

#[test]
fn an_illegal_capture_set_ends_the_game_with_an_error() {
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let mut conn = raw_initiator(&mut program);
    // A legal first move, then the program answers; then a capture that is not there.
    conn.send_raw(b"M0000322800\0").unwrap();
    match conn.receive(Some(DEADLINE)).unwrap() {
        Message::Move(_) => {}
        other => panic!("{other:?}"),
    }
    conn.send_raw(b"M000028190123\0").unwrap();
    expect_game_end(&mut conn);
    let out = program.finish();
    assert!(!out.ok);
    assert!(
        out.stderr
            .contains("move 28x19 (captures 23) is not legal here"),
        "{}",
        out.stderr
    );
}

#[test]
fn malformed_messages_end_the_game_with_an_error() {
    for (bytes, expected) in [
        (&b"M00x0322800\0"[..], "MOVE field `time` (column 2)"),
        (
            &b"M0000322800extra\0"[..],
            "0 captured pieces take 0 characters, but 5 follow: \"extra\"",
        ),
        (&b"X\0"[..], "unknown message type 'X'"),
        (
            &b"M0000\xff22800\0"[..],
            "byte 0xFF at column 6 is not ASCII 1-127",
        ),
    ] {
        let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
        let mut conn = raw_initiator(&mut program);
        conn.send_raw(bytes).unwrap();
        expect_game_end(&mut conn);
        let out = program.finish();
        assert!(!out.ok);
        assert!(
            out.stderr.contains(expected),
            "{expected:?} in {}",
            out.stderr
        );
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    }
}

#[test]
fn too_long_a_message_ends_the_game_with_an_error() {
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let mut conn = raw_initiator(&mut program);
    conn.send_raw(&[b'C'; 200]).unwrap();
    expect_game_end(&mut conn);
    let out = program.finish();
    assert!(!out.ok);
    assert!(out.stderr.contains("message too long"), "{}", out.stderr);
}

#[test]
fn boards_other_than_10x10_are_refused_in_one_line() {
    for variant in ["russian", "turkish", "american"] {
        let out = Program::start(&["--variant", variant, "--listen", "127.0.0.1:0"]).finish();
        assert!(!out.ok);
        assert!(out.stdout.is_empty(), "{:?}", out.stdout);
        let error = out.stderr.trim();
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(
            error.contains(variant) && error.contains("10x10"),
            "{error}"
        );
    }
}

#[test]
fn chat_take_backs_and_a_resignation() {
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let mut conn = raw_initiator(&mut program);
    let receive = |conn: &mut DxpConnection| conn.receive(Some(DEADLINE)).unwrap();
    conn.send_raw(b"CHello from the test\0").unwrap();
    conn.send_raw(b"M0000322800\0").unwrap();
    assert!(matches!(receive(&mut conn), Message::Move(_)));
    // No such position yet: declined. Back to the start: accepted.
    conn.send_raw(b"B050W\0").unwrap();
    assert_eq!(
        receive(&mut conn),
        Message::BackAccept(BackAcceptCode::Decline)
    );
    conn.send_raw(b"B001W\0").unwrap();
    assert_eq!(
        receive(&mut conn),
        Message::BackAccept(BackAcceptCode::Accept)
    );
    // Another first move is legal again from the start.
    conn.send_raw(b"M0000312700\0").unwrap();
    assert!(matches!(receive(&mut conn), Message::Move(_)));
    // White gives up, and stops.
    conn.send_raw(b"E11\0").unwrap();
    assert_eq!(
        receive(&mut conn),
        Message::GameEnd(GameEnd {
            reason: EndReason::Unspecified,
            stop: StopCode::NextGame
        })
    );
    let out = program.finish();
    assert!(out.ok, "{}", out.stderr);
    let log = out.stdout.join("\n");
    for expected in [
        "dxp: chat: Hello from the test",
        "dxp: 1. 32-28 (peer)",
        "dxp: take-back to move 50 with white to move declined",
        "dxp: take-back to move 1 with white to move accepted",
        "dxp: 1. 31-27 (peer)",
        "dxp: GAMEEND received (I give up), answered",
        "dxp: result 0-1 (the peer (white) ended the game: I give up)",
        "dxp: the peer asked to stop",
    ] {
        assert!(log.contains(expected), "{expected:?} in\n{log}");
    }
}

/// Clients that take each read of the socket for one message (pydraughts' `DXPEngine`, after
/// DXC100) lose the second of two messages that come together. Here the program, White, has one
/// legal move, 28x19, which it answers at once: the move must not come with the GAMEACC. The
/// client reads 100 ms after its GAMEREQ, as a busy one does, well within the 250 ms the
/// program leaves between two messages of its own.
#[test]
fn a_forced_first_move_does_not_come_with_the_game_accept() {
    use std::io::Write;
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let addr = program.listening_address();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    // W:W28:B1,23 (DXP squares 1..50: e empty, w White man, z Black man).
    let mut squares = [b'e'; 50];
    squares[0] = b'z';
    squares[22] = b'z';
    squares[27] = b'w';
    let request = format!(
        "R01{:<32}W000000BW{}\0",
        "one read, one message",
        String::from_utf8(squares.to_vec()).unwrap()
    );
    stream.write_all(request.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let mut buf = [0u8; 1024];
    let n = stream.read(&mut buf).unwrap();
    let first = String::from_utf8_lossy(&buf[..n]).into_owned();
    assert!(first.starts_with("A"), "{first:?}");
    assert_eq!(first.matches('\0').count(), 1, "{first:?}");
    assert!(first.ends_with('\0'), "{first:?}");
    let mut second = Vec::new();
    while !second.contains(&0) {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed after {second:?}");
        second.extend_from_slice(&buf[..n]);
    }
    // MOVE: time (4), from, to, number of captures (2), the captures.
    let second = String::from_utf8(second).unwrap();
    assert_eq!(&second[..1], "M", "{second:?}");
    assert_eq!(&second[5..], "28190123\0", "{second:?}");
    drop(stream);
    program.finish();
}

/// The program plays White to depth 64 (a search that would run for hours); 300 ms into it
/// the peer does `before_leaving` and leaves: the search must stop and the program end at
/// once, instead of thinking for no one.
fn leave_during_the_search(before_leaving: impl FnOnce(&mut DxpConnection)) {
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "64"]);
    let addr = program.listening_address();
    let mut conn = accepted_game(&addr, "leaving test", Color::White, 0);
    std::thread::sleep(Duration::from_millis(300));
    before_leaving(&mut conn);
    let left = Instant::now();
    drop(conn);
    let out = program.finish();
    assert!(
        left.elapsed() < Duration::from_secs(5),
        "{:?}",
        left.elapsed()
    );
    assert!(!out.ok);
    assert!(
        out.stderr
            .contains("closed the connection during our search"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_search_ends_when_the_peer_leaves() {
    leave_during_the_search(|_| {});
}

#[test]
fn a_search_ends_when_the_peer_chats_and_leaves() {
    // The message waiting to be read must not hide the close behind it (the search went on
    // to depth 64 before).
    leave_during_the_search(|conn| {
        conn.send(&Message::Chat("hello".into())).unwrap();
    });
}

/// Sends a CHAT every 200 ms on `conn` until the program closes it (or a minute has passed).
fn chat_on(mut conn: DxpConnection) -> JoinHandle<usize> {
    conn.set_message_gap(Duration::ZERO);
    std::thread::spawn(move || {
        let began = Instant::now();
        let mut sent = 0;
        while began.elapsed() < Duration::from_secs(60)
            && conn.send(&Message::Chat("still here".into())).is_ok()
        {
            sent += 1;
            std::thread::sleep(Duration::from_millis(200));
        }
        sent
    })
}

#[test]
fn chat_does_not_put_off_the_idle_time_before_a_game() {
    // A chat every 200 ms and never a GAMEREQ: dropped after --idle-timeout 1 all the same
    // (each chat restarted the wait before, and the peer was served for ever).
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--idle-timeout", "1"]);
    let addr = program.listening_address();
    let chatter = chat_on(DxpConnection::connect(addr.as_str()).unwrap());
    let out = program.finish();
    assert!(!out.ok);
    assert!(out.stderr.contains("no GAMEREQ"), "{}", out.stderr);
    chatter.join().unwrap();
}

#[test]
fn chat_does_not_put_off_the_idle_time_for_a_move() {
    // A game without a clock: the peer (White, to move) chats and never moves.
    let mut program = Program::start(&[
        "--listen",
        "127.0.0.1:0",
        "--idle-timeout",
        "1",
        "--depth",
        "1",
    ]);
    let addr = program.listening_address();
    let conn = accepted_game(&addr, "chatting test", Color::Black, 0);
    let chatter = chat_on(conn);
    let out = program.finish();
    assert!(!out.ok);
    assert!(
        out.stderr.contains("no move from the peer within 1 s"),
        "{}",
        out.stderr
    );
    chatter.join().unwrap();
}

#[test]
fn chat_is_logged_up_to_a_bound() {
    // docs/dxp.md: the first 100 messages of a connection that do not advance the game are
    // logged, then one line, and at the end the number not logged.
    let mut program = Program::start(&["--listen", "127.0.0.1:0"]);
    let addr = program.listening_address();
    let mut conn = DxpConnection::connect(addr.as_str()).unwrap();
    conn.set_message_gap(Duration::ZERO);
    for i in 0..1000 {
        conn.send(&Message::Chat(format!("chat {i}"))).unwrap();
    }
    drop(conn);
    let out = program.finish();
    assert!(out.ok, "{}", out.stderr);
    let chats = out
        .stdout
        .iter()
        .filter(|l| l.starts_with("dxp: chat: "))
        .count();
    assert_eq!(chats, 100, "{:?}", out.stdout);
    assert!(
        out.stdout
            .iter()
            .any(|l| l.starts_with("dxp: 900 chat or other message(s)")),
        "{:?}",
        out.stdout
    );
}

#[test]
fn declined_game_requests_are_logged_up_to_the_same_bound() {
    // A peer may send GAMEREQs Damspel declines (another protocol version) without end within
    // the idle time: each was two lines of the log, outside the bound on chat.
    let mut program = Program::start(&["--listen", "127.0.0.1:0"]);
    let addr = program.listening_address();
    let mut conn = DxpConnection::connect(addr.as_str()).unwrap();
    let request = format!("R99{:<32}W001000A\0", "declined");
    for _ in 0..300 {
        conn.send_raw(request.as_bytes()).unwrap();
    }
    // Each is answered (a GAMEACC declining it) before the next is read.
    for _ in 0..300 {
        assert!(matches!(
            conn.receive(Some(Duration::from_secs(30))).unwrap(),
            Message::GameAccept(_)
        ));
    }
    drop(conn);
    let out = program.finish();
    assert!(out.ok, "{}", out.stderr);
    let declined = out.stdout.iter().filter(|l| l.contains("declined")).count();
    assert_eq!(declined, 100, "{:?}", out.stdout);
    assert!(
        out.stdout
            .iter()
            .any(|l| l.starts_with("dxp: 200 chat or other message(s)")),
        "{:?}",
        out.stdout
    );
}

/// A player that takes `pause` over each move (the first legal one).
struct Slow(Duration);

impl damspel_arena::Player<u64> for Slow {
    fn name(&self) -> String {
        "slow".into()
    }

    fn choose(&mut self, game: &Game<u64>) -> Result<damspel_rules::Move<u64>, Forfeit> {
        std::thread::sleep(self.0);
        Ok(game.legal_moves()[0])
    }
}

#[test]
#[ignore = "takes some 3 minutes: cargo test --release -p damspel --test dxp_loopback -- --ignored the_peers_time_is_counted_over_the_game"]
fn the_peers_time_is_counted_over_the_game() {
    // A game of 1 minute a side: the peer takes 35 s a move, within the minute each time but
    // not in all. Its time runs out (with the margin of a minute and a second a move) at its
    // fourth move: the program ends the game on time (it gave the peer 2 minutes for each move
    // before, for ever).
    let rules = international();
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--depth", "1"]);
    let addr = program.listening_address();
    let mut dxp = DxpPlayer::connect(
        rules.clone(),
        addr.as_str(),
        DxpConfig {
            move_timeout: Duration::from_secs(300),
            ..config()
        },
    )
    .unwrap();
    dxp.start(Color::Black, &[]).unwrap();
    let mut slow = Slow(Duration::from_secs(35));
    let record = play_game(&rules, &mut slow, &mut dxp, &[], 20);
    let _ = dxp.finish(&record);
    drop(dxp);
    assert!(record.moves.len() < 10, "{} plies", record.moves.len());
    let out = program.finish();
    assert!(!out.ok);
    assert!(
        out.stderr
            .contains("the peer has used up its thinking time for the game (1 min"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_silent_peer_is_dropped_after_the_idle_time() {
    let mut program = Program::start(&["--listen", "127.0.0.1:0", "--idle-timeout", "1"]);
    let addr = program.listening_address();
    let _silent = std::net::TcpStream::connect(addr.as_str()).unwrap();
    let out = program.finish();
    assert!(!out.ok);
    assert!(out.stderr.contains("no GAMEREQ"), "{}", out.stderr);
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
}

/// A whole game against the listening program on a connection of its own, the program Black;
/// every move legal, the end agreed. Returns the outcome by the rules.
fn whole_game(rules: &Arc<Rules<u64>>, addr: &str) -> Outcome {
    let mut dxp = DxpPlayer::connect(rules.clone(), addr, config()).unwrap();
    let mut ours = depth_one(rules);
    let record = play_game(rules, &mut ours, &mut dxp, &[], 1000);
    let end = dxp.finish(&record).unwrap();
    assert_eq!(record.black, "Damspel 0.1.0");
    let game = replay(rules, &record);
    let Ending::Rules(outcome) = &record.ending else {
        panic!("the game did not end by the rules: {:?}", record.ending)
    };
    assert_eq!(game.outcome().as_ref(), Some(outcome));
    assert!(end.agrees_with(&record.ending), "{end:?}");
    *outcome
}

#[test]
fn keep_listening_serves_peer_after_peer() {
    // A bot that connects for each game (pydraughts' DXP client does) needs the listener to
    // outlive a connection; a peer that leaves at once or breaks the protocol must not end it.
    let rules = international();
    let mut program = Program::start(&[
        "--listen",
        "127.0.0.1:0",
        "--keep-listening",
        "--depth",
        "1",
    ]);
    let addr = program.listening_address();
    // A connection that closes at once (a port probe).
    drop(std::net::TcpStream::connect(addr.as_str()).unwrap());
    program.wait_for("dxp: waiting for the next peer");
    // A peer that sends a malformed message: its game ends with the error, said in the log.
    {
        let mut conn = raw_game_request(&addr);
        conn.send_raw(b"X\0").unwrap();
        expect_game_end(&mut conn);
    }
    let error = program.wait_for("dxp: error: ");
    assert!(error.contains("unknown message type 'X'"), "{error}");
    program.wait_for("dxp: waiting for the next peer");
    // Two whole games, each on a connection of its own.
    for _ in 0..2 {
        let outcome = whole_game(&rules, &addr);
        let result = program.wait_for("dxp: result ");
        assert!(
            result.starts_with(&format!("dxp: result {} ", outcome.result_text())),
            "{result} for {outcome}"
        );
        program.wait_for("dxp: waiting for the next peer");
    }
    // Still listening: it leaves only when stopped.
    assert!(
        program.child.try_wait().unwrap().is_none(),
        "{:?}",
        program.stdout
    );
}

#[test]
fn peers_are_served_at_once() {
    // One peer at a time, a silent peer held the port for --idle-timeout, and a bot's second
    // game (a connection of its own) waited for its first to end.
    let rules = international();
    let mut program = Program::start(&[
        "--listen",
        "127.0.0.1:0",
        "--keep-listening",
        "--peers",
        "3",
        "--depth",
        "1",
    ]);
    let addr = program.listening_address();
    let silent = std::net::TcpStream::connect(addr.as_str()).unwrap();
    program.wait_for("dxp: [1] connection from");
    // Two games at once beside the silent peer.
    let games: Vec<_> = (0..2)
        .map(|_| {
            let (rules, addr) = (rules.clone(), addr.clone());
            std::thread::spawn(move || whole_game(&rules, &addr))
        })
        .collect();
    let mut expected: Vec<String> = games
        .into_iter()
        .map(|g| g.join().unwrap().result_text().to_string())
        .collect();
    // The two games' results, in the order they ended (`dxp: [2] result 1-0 (...)`), and
    // their peers gone.
    let (mut printed, mut tags, mut gone) = (Vec::new(), Vec::new(), 0);
    while printed.len() < 2 || gone < 2 {
        let line = program.wait_for("dxp: [");
        let words: Vec<&str> = line.split(' ').collect();
        match words[2] {
            "result" => {
                tags.push(words[1].to_string());
                printed.push(words[3].to_string());
            }
            "gone;" => gone += 1,
            _ => {}
        }
    }
    tags.sort();
    assert_eq!(tags, ["[2]", "[3]"]);
    expected.sort();
    printed.sort();
    assert_eq!(printed, expected);
    // The silent peer still holds its place; when it leaves, so is said.
    drop(silent);
    program.wait_for("dxp: [1] the peer closed the connection after 0 game(s)");
    let gone = program.wait_for("dxp: [1] gone; ");
    assert!(gone.contains(" 0 of 3 peers served"), "{gone}");
    assert!(
        program.child.try_wait().unwrap().is_none(),
        "{:?}",
        program.stdout
    );
}

#[test]
fn a_connection_that_cannot_be_taken_does_not_end_the_listening() {
    // With no file descriptor left, taking a connection fails (EMFILE); the listener ended
    // with that error, and every peer being served with it.
    let mut program = Program::start_with_open_files(
        8,
        &[
            "--listen",
            "127.0.0.1:0",
            "--keep-listening",
            "--peers",
            "16",
            "--depth",
            "1",
        ],
    );
    let addr = program.listening_address();
    // Silent peers until one cannot be taken.
    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(std::net::TcpStream::connect(addr.as_str()).unwrap());
    }
    let error = program.wait_for("dxp: error: cannot take a connection");
    assert!(error.contains("open files"), "{error}");
    // Descriptors come back as the peers leave; those that waited are taken, and a whole game
    // is played on a connection made after.
    drop(silent);
    program.wait_for("dxp: [8] gone; ");
    let outcome = whole_game(&international(), &addr);
    let result = program.wait_for("dxp: [9] result ");
    assert!(
        result.starts_with(&format!("dxp: [9] result {} ", outcome.result_text())),
        "{result} for {outcome}"
    );
    assert!(
        program.child.try_wait().unwrap().is_none(),
        "{:?}",
        program.stdout
    );
}

#[test]
fn a_match_against_a_listening_program() {
    // `damspel match --engine dxp:ADDR` proposes each game, its opening played, to a program
    // listening for DXP; here two at a time, on two connections, each kept for its next game.
    let mut program = Program::start(&[
        "--listen",
        "127.0.0.1:0",
        "--keep-listening",
        "--peers",
        "2",
        "--depth",
        "1",
    ]);
    let addr = program.listening_address();
    let pdn = std::env::temp_dir().join(format!("dxp-match-{}.pdn", std::process::id()));
    let engine = format!("dxp:{addr}");
    let (stdout, stderr, ok) = damspel(&[
        "match",
        "international",
        "--engine",
        "damspel:depth=2",
        "--engine",
        &engine,
        "--games",
        "6",
        "--concurrency",
        "2",
        "--openings",
        "4",
        "--json",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["games"], 6, "{stdout}");
    assert_eq!(result["forfeits"], serde_json::json!([]), "{stdout}");
    // Each game's result as the match recorded it and as the listening program logged it.
    let text = std::fs::read_to_string(&pdn).unwrap();
    let _ = std::fs::remove_file(&pdn);
    let mut recorded: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|l| {
            // International games are scored 2-0, 1-1, 0-2 in PDN (FMJD).
            match l.trim_end_matches("\"]") {
                "2-0" => "1-0",
                "0-2" => "0-1",
                "1-1" => "1/2-1/2",
                other => other,
            }
            .to_string()
        })
        .collect();
    let mut logged = Vec::new();
    while logged.len() < 6 {
        let line = program.wait_for("dxp: [");
        let words: Vec<&str> = line.split(' ').collect();
        if words[2] == "result" {
            logged.push(words[3].to_string());
        }
    }
    recorded.sort();
    logged.sort();
    assert_eq!(recorded, logged);
    // Both connections served three games each: two peers in all.
    assert!(
        !program.stdout.iter().any(|l| l.starts_with("dxp: [3]")),
        "{:?}",
        program.stdout
    );
}

#[test]
fn dxp_players_of_a_match_are_checked() {
    for (args, said) in [
        (
            &["international", "--engine", "dxp:nowhere"][..],
            "HOST:PORT",
        ),
        (
            &["international", "--engine", "dxp:127.0.0.1:99999"][..],
            "HOST:PORT",
        ),
        (&["russian", "--engine", "dxp:127.0.0.1:27531"][..], "10x10"),
    ] {
        let mut all = vec!["match", args[0], "--engine", "random", args[1], args[2]];
        all.extend(["--games", "2"]);
        let (_, stderr, ok) = damspel(&all);
        assert!(!ok, "{args:?}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    // Nobody listening: every game forfeited, saying why; the match still reports.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let engine = format!("dxp:{addr}");
    let (stdout, stderr, ok) = damspel(&[
        "match",
        "international",
        "--engine",
        "random",
        "--engine",
        &engine,
        "--games",
        "2",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let forfeits = result["forfeits"].as_array().unwrap();
    assert_eq!(forfeits.len(), 2, "{stdout}");
    for f in forfeits {
        assert!(
            f.as_str()
                .unwrap()
                .contains(&format!("cannot connect to {addr}")),
            "{f}"
        );
    }
}

#[test]
fn keep_listening_without_listen_is_a_usage_error() {
    // With --connect it was taken without a word (clap asks for no argument that conflicts
    // with one given), and the program tried to connect.
    for args in [
        &["--keep-listening"][..],
        &["--connect", "127.0.0.1:1", "--keep-listening"][..],
    ] {
        let out = Program::start(args).finish();
        assert!(!out.ok, "{args:?}");
        let error = out.stderr.trim();
        assert_eq!(error.lines().count(), 1, "{args:?}: {error}");
        assert!(
            error.contains("--keep-listening") || error.contains("--listen"),
            "{args:?}: {error}"
        );
        assert!(!error.contains("cannot connect"), "{args:?}: {error}");
    }
}

#[test]
fn peers_outside_its_range_or_without_keep_listening_is_a_usage_error() {
    for (args, said) in [
        (
            &["--listen", "127.0.0.1:0", "--peers", "2"][..],
            "--keep-listening",
        ),
        (
            &[
                "--listen",
                "127.0.0.1:0",
                "--keep-listening",
                "--peers",
                "0",
            ][..],
            "1..=16",
        ),
        (
            &[
                "--listen",
                "127.0.0.1:0",
                "--keep-listening",
                "--peers",
                "17",
            ][..],
            "1..=16",
        ),
    ] {
        let out = Program::start(args).finish();
        assert!(!out.ok, "{args:?}");
        let error = out.stderr.trim();
        assert_eq!(error.lines().count(), 1, "{args:?}: {error}");
        assert!(error.contains(said), "{args:?}: {error}");
    }
}
