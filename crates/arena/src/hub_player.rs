//! An external engine speaking the Hub protocol (Scan's), as a match player.
//!
//! The engine is started at its first move: `hub` → `id`/`param`…/`wait`, `set-param
//! name=variant` when it declares a variant parameter (and its value differs), `init` →
//! `ready`. Each move then sends `new-game` (first move of a game), `pos` with the position
//! after the last irreversible move and the king moves since (for repetitions, as Hub does),
//! `level` and `go think`, and reads `info` lines until `done move=…`.
//!
//! An engine that exits, answers nonsense, or gives no move within its time (three times the
//! move time plus a second, or a minute for depth and node limits) loses the game; it is
//! killed and started again for the next game.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use damspel_protocol::hub::{
    parse_move, stream, write_move, write_position, Command, GoMode, Level, ParamKind, Response,
    MAX_LINE_LEN,
};
use damspel_rules::{Bits, Game, Move};

use crate::player::{Forfeit, Player};

/// The most kept of a line the engine writes on stderr.
const MAX_STDERR_LINE: usize = 4096;

/// Time allowed for `hub` … `wait` and for `init` … `ready`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);

/// Splits a command line into words: blanks separate, single or double quotes group.
pub fn split_command(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The value to give an engine's `variant` parameter for our variant `id`: the id itself if
/// the engine lists it, else Scan's name for it.
pub fn engine_variant_name(id: &str, values: &[String]) -> Option<String> {
    if values.iter().any(|v| v == id) {
        return Some(id.to_string());
    }
    let scan = match id {
        "international" => "normal",
        "killer" => "killer",
        "frisian" => "frisian",
        "breakthrough" => "bt",
        "antidraughts" | "losing" => "losing",
        _ => return None,
    };
    values.iter().any(|v| v == scan).then(|| scan.to_string())
}

/// The running engine process.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    /// The engine's lines, each within the protocol's bound (`Err`: one longer, after which
    /// nothing is read: an engine writing an endless line grew the match by 450 MB a second).
    lines: Receiver<Result<String, usize>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Engine {
    fn spawn(argv: &[String]) -> Result<Engine, String> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| "empty engine command".to_string())?;
        let mut child = Process::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", argv.join(" ")))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        // Bounded: an engine that writes faster than the match reads waits for it.
        let (tx, lines) = mpsc::sync_channel(1024);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                let line = match stream::read_line(&mut reader, &mut buf) {
                    stream::Got::End => break,
                    // The engine forfeits: the rest of its line is not read.
                    stream::Got::TooLong => Err(MAX_LINE_LEN),
                    stream::Got::Line(line) => Ok(line.trim_end().to_string()),
                };
                let over = line.is_err();
                if tx.send(line).is_err() || over {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        std::thread::spawn(move || {
            // Read to its end (an engine blocked on a full pipe would hang), each line cut at
            // `MAX_STDERR_LINE` bytes: only the last few are kept, to say why it failed.
            let mut reader = BufReader::new(stderr);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match (&mut reader)
                    .take(MAX_STDERR_LINE as u64)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut t = keep.lock().expect("stderr tail");
                        t.push_back(String::from_utf8_lossy(&buf).trim_end().to_string());
                        if t.len() > 5 {
                            t.pop_front();
                        }
                    }
                }
            }
        });
        Ok(Engine {
            child,
            stdin,
            lines,
            stderr: tail,
        })
    }

    fn send(&mut self, command: &Command) -> Result<(), Forfeit> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Forfeit::Crashed(format!("cannot write to the engine: {e}")))
    }

    /// The next response, before `deadline`.
    fn recv(&mut self, deadline: Instant, started: Instant) -> Result<Response, Forfeit> {
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(wait) {
                Ok(Err(limit)) => {
                    return Err(Forfeit::Crashed(format!(
                        "the engine wrote a line longer than {limit} bytes (no Hub line is that \
                         long)"
                    )));
                }
                Ok(Ok(line)) if line.trim().is_empty() => continue,
                // Lines that are not Hub syntax (start-up chatter) are ignored.
                Ok(Ok(line)) => match Response::parse(&line) {
                    Ok(r) => return Ok(r),
                    Err(_) => continue,
                },
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Forfeit::TimedOut(started.elapsed()));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.crashed()),
            }
        }
    }

    /// Why the engine stopped talking: its exit status and last words on stderr.
    fn crashed(&mut self) -> Forfeit {
        // The stderr reader may still be draining.
        std::thread::sleep(Duration::from_millis(50));
        let status = match self.child.try_wait() {
            Ok(Some(s)) => format!("the engine exited ({s})"),
            _ => "the engine closed its output".to_string(),
        };
        let tail: Vec<String> = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if tail.is_empty() {
            Forfeit::Crashed(status)
        } else {
            Forfeit::Crashed(format!("{status}: {}", tail.join(" / ")))
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the engine to quit, and kills it if it does not within a second.
    fn quit(mut self) {
        let _ = self.send(&Command::Quit);
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}

/// A Hub engine as a match player.
pub struct HubPlayer<B: Bits> {
    label: String,
    argv: Vec<String>,
    level: Level,
    timeout: Duration,
    engine: Option<Engine>,
    /// The variant the running engine was set up for.
    variant: Option<String>,
    /// `name version` from the engine's `id`.
    id_name: Option<String>,
    new_game: bool,
    _bits: PhantomData<fn() -> B>,
}

impl<B: Bits> HubPlayer<B> {
    /// A player running `command` (split into words; quotes group) at `level`.
    pub fn new(label: impl Into<String>, command: &str, level: Level) -> HubPlayer<B> {
        // Three times the move time plus a second; under a clock, the whole clock plus a
        // second (the player does not run the clock down move by move); else a minute.
        let secs = |s: f64| {
            Duration::from_secs_f64(if s.is_finite() {
                s.clamp(0.0, 1e9)
            } else {
                60.0
            })
        };
        let timeout = match (level.move_time, level.clock) {
            (Some(t), _) => secs(3.0 * t + 1.0),
            (None, Some(c)) => secs(c.time + c.inc + 1.0),
            (None, None) => Duration::from_secs(60),
        };
        HubPlayer {
            label: label.into(),
            argv: split_command(command),
            level,
            timeout,
            engine: None,
            variant: None,
            id_name: None,
            new_game: true,
            _bits: PhantomData,
        }
    }

    /// Overrides the time allowed per move.
    pub fn with_timeout(mut self, timeout: Duration) -> HubPlayer<B> {
        self.timeout = timeout;
        self
    }

    /// Stops the engine; the next move starts it again.
    fn drop_engine(&mut self) {
        if let Some(mut e) = self.engine.take() {
            e.kill();
        }
        self.variant = None;
    }

    /// Starts the engine and shakes hands, for the variant `id`.
    fn start(&mut self, id: &str) -> Result<(), Forfeit> {
        let mut engine = Engine::spawn(&self.argv).map_err(Forfeit::Crashed)?;
        let started = Instant::now();
        let deadline = started + HANDSHAKE_TIMEOUT;
        engine.send(&Command::Hub)?;
        let mut variant_param = None;
        loop {
            match engine.recv(deadline, started)? {
                Response::Wait => break,
                Response::Id(info) => {
                    let name = [info.name, info.version]
                        .into_iter()
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ");
                    if !name.is_empty() {
                        self.id_name = Some(name);
                    }
                }
                Response::Param(p) if p.name == "variant" => variant_param = Some(p),
                _ => {}
            }
        }
        if let Some(p) = variant_param {
            let values = match &p.kind {
                ParamKind::Enum { values } => values.clone(),
                _ => vec![],
            };
            let name = if values.is_empty() {
                Some(id.to_string())
            } else {
                engine_variant_name(id, &values)
            };
            let Some(name) = name else {
                engine.kill();
                return Err(Forfeit::Crashed(format!(
                    "the engine does not play {id} (its variants: {})",
                    values.join(" ")
                )));
            };
            if name != p.value {
                engine.send(&Command::SetParam {
                    name: "variant".into(),
                    value: name,
                })?;
            }
        }
        engine.send(&Command::Init)?;
        loop {
            match engine.recv(deadline, started)? {
                Response::Ready => break,
                Response::Error(message) => {
                    engine.kill();
                    return Err(Forfeit::Crashed(format!("init failed: {message}")));
                }
                _ => {}
            }
        }
        self.engine = Some(engine);
        self.variant = Some(id.to_string());
        self.new_game = true;
        Ok(())
    }

    /// The position to send and the reversible (king, non-capture) moves since, as Hub does.
    fn position_and_moves(game: &Game<B>) -> (String, Vec<String>) {
        let v = game.rules().variant();
        let positions: Vec<_> = game.positions().copied().collect();
        let moves = game.moves();
        let mut first = moves.len();
        while first > 0 {
            let mv = &moves[first - 1];
            let before = &positions[first - 1];
            let king = before.kings(before.side_to_move()).has(mv.from().index());
            if mv.is_capture() || !king {
                break;
            }
            first -= 1;
        }
        (
            write_position(v, &positions[first]),
            moves[first..].iter().map(|m| write_move(v, m)).collect(),
        )
    }

    fn think(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit> {
        let id = game.rules().variant().id.clone();
        if self.engine.is_some() && self.variant.as_deref() != Some(id.as_str()) {
            self.drop_engine();
        }
        if self.engine.is_none() {
            self.start(&id)?;
        }
        let (pos, moves) = Self::position_and_moves(game);
        let new_game = std::mem::take(&mut self.new_game);
        let engine = self.engine.as_mut().expect("started");
        if new_game {
            engine.send(&Command::NewGame)?;
        }
        engine.send(&Command::Pos {
            pos: Some(pos),
            moves,
        })?;
        engine.send(&Command::Level(self.level))?;
        engine.send(&Command::Go(GoMode::Think))?;
        let started = Instant::now();
        let deadline = started + self.timeout;
        let answer = loop {
            if let Response::Done { mv, .. } = engine.recv(deadline, started)? {
                break mv;
            }
        };
        let Some(text) = answer else {
            return Err(Forfeit::IllegalMove("(none: `done` without a move)".into()));
        };
        parse_move(game.rules(), game.position(), &text)
            .map_err(|e| Forfeit::IllegalMove(format!("{text} ({e})")))
    }
}

impl<B: Bits> Player<B> for HubPlayer<B> {
    fn name(&self) -> String {
        self.id_name.clone().unwrap_or_else(|| self.label.clone())
    }

    fn new_game(&mut self) {
        self.new_game = true;
    }

    fn choose(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit> {
        let result = self.think(game);
        if matches!(result, Err(Forfeit::Crashed(_) | Forfeit::TimedOut(_))) {
            // Whatever state it is in, start afresh next game.
            self.drop_engine();
        }
        result
    }
}

impl<B: Bits> Drop for HubPlayer<B> {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            engine.quit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{play_game, Ending};
    use crate::player::RandomPlayer;
    use damspel_rules::{Catalogue, Color, Rules};
    use std::sync::Arc;

    /// A fake Hub engine: a shell script that does `on_go` when asked to think. The script is
    /// removed when the path returned with the command is dropped.
    fn fake(on_go: &str) -> (tempfile::TempPath, String) {
        use std::io::Write;
        let script = format!(
            r#"while read -r line; do
  case "$line" in
    hub) echo "id name=Fake version=1"
         echo "param name=variant value=normal type=enum values=\"normal killer\""
         echo wait;;
    init) echo ready;;
    go*) {on_go};;
    quit) exit 0;;
  esac
done
"#
        );
        let mut file = tempfile::Builder::new()
            .prefix("damspel-fake-hub-")
            .suffix(".sh")
            .tempfile()
            .unwrap();
        file.write_all(script.as_bytes()).unwrap();
        let path = file.into_temp_path();
        let command = format!("sh \"{}\"", path.display());
        (path, command)
    }

    fn international() -> Arc<Rules<u64>> {
        Arc::new(Rules::new(Catalogue::builtin().get("international").unwrap()).unwrap())
    }

    fn level() -> Level {
        Level {
            move_time: Some(0.05),
            ..Level::default()
        }
    }

    /// Two games of the fake engine (White, then Black) against a random mover.
    fn two_games(on_go: &str) -> Vec<Ending> {
        let rules = international();
        let (_script, command) = fake(on_go);
        let mut hub = HubPlayer::<u64>::new("fake", &command, level());
        let mut random = RandomPlayer::new(1);
        let first = play_game(&rules, &mut hub, &mut random, &[], 400).ending;
        let second = play_game(&rules, &mut random, &mut hub, &[], 400).ending;
        vec![first, second]
    }

    #[test]
    fn an_engine_that_crashes_forfeits_and_the_next_game_restarts_it() {
        let endings = two_games("exit 3");
        for (ending, loser) in endings.iter().zip([Color::White, Color::Black]) {
            match ending {
                Ending::Forfeit {
                    loser: l,
                    reason: Forfeit::Crashed(why),
                } => {
                    assert_eq!(*l, loser);
                    assert!(why.contains("exited"), "{why}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn an_engine_that_hangs_forfeits_on_time() {
        let start = Instant::now();
        let endings = two_games(":");
        for ending in &endings {
            assert!(
                matches!(ending, Ending::Forfeit { reason: Forfeit::TimedOut(t), .. } if *t >= Duration::from_millis(1100)),
                "{ending:?}"
            );
        }
        // 3 x 0.05 s + 1 s per game, not more.
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn an_engine_that_answers_an_illegal_or_unreadable_move_forfeits() {
        for (answer, shows) in [
            ("echo done move=1-2", "1-2"),
            ("echo done move=banana", "banana"),
            ("echo done", "none"),
        ] {
            for ending in two_games(answer) {
                match &ending {
                    Ending::Forfeit {
                        reason: Forfeit::IllegalMove(m),
                        ..
                    } => assert!(m.contains(shows), "{m}"),
                    other => panic!("{answer}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn an_engine_that_cannot_start_forfeits() {
        let rules = international();
        let mut hub = HubPlayer::<u64>::new("missing", "/nonexistent/engine hub", level());
        let mut random = RandomPlayer::new(1);
        let record = play_game(&rules, &mut hub, &mut random, &[], 400);
        assert!(
            matches!(&record.ending, Ending::Forfeit { loser: Color::White, reason: Forfeit::Crashed(why) } if why.contains("cannot start")),
            "{:?}",
            record.ending
        );
        assert_eq!(record.white, "missing");
    }

    #[test]
    fn an_engine_without_the_variant_forfeits() {
        let rules =
            Arc::new(Rules::<u64>::new(Catalogue::builtin().get("russian").unwrap()).unwrap());
        let (_script, command) = fake("echo done");
        let mut hub = HubPlayer::<u64>::new("fake", &command, level());
        let mut random = RandomPlayer::new(1);
        let record = play_game(&rules, &mut random, &mut hub, &[], 400);
        assert!(
            matches!(&record.ending, Ending::Forfeit { loser: Color::Black, reason: Forfeit::Crashed(why) } if why.contains("does not play russian")),
            "{:?}",
            record.ending
        );
    }

    #[test]
    fn reversible_king_moves_go_in_moves() {
        let rules = international();
        let setup =
            damspel_notation::parse_fen(&rules.variant().geometry, "W:WK50,31:BK1,20").unwrap();
        let start = damspel_rules::Position::from_setup(&rules, &setup).unwrap();
        let mut game = Game::from_position(rules.clone(), start);
        let play = |game: &mut Game<u64>, text: &str| {
            let mv = parse_move(&rules, game.position(), text).unwrap();
            assert!(game.play(&mv), "{text}");
        };
        play(&mut game, "31-27"); // a man: irreversible
        play(&mut game, "1-7"); // kings from here on
        play(&mut game, "50-45");
        let (pos, moves) = HubPlayer::<u64>::position_and_moves(&game);
        assert_eq!(moves, ["1-7", "50-45"]);
        assert_eq!(
            pos,
            write_position(rules.variant(), &game.positions().nth(1).copied().unwrap())
        );
    }

    #[test]
    fn commands_split_into_words() {
        assert_eq!(split_command("dame hub"), ["dame", "hub"]);
        assert_eq!(
            split_command("  /opt/my engine/scan   hub "),
            ["/opt/my", "engine/scan", "hub"]
        );
        assert_eq!(
            split_command("\"/opt/my engine/scan\" hub"),
            ["/opt/my engine/scan", "hub"]
        );
        assert_eq!(split_command("a 'b c' \"\""), ["a", "b c", ""]);
        assert!(split_command("   ").is_empty());
    }

    #[test]
    fn variant_names_for_engines() {
        let scan: Vec<String> = ["normal", "killer", "bt", "frisian", "losing"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            engine_variant_name("international", &scan).as_deref(),
            Some("normal")
        );
        assert_eq!(
            engine_variant_name("killer", &scan).as_deref(),
            Some("killer")
        );
        assert_eq!(engine_variant_name("russian", &scan), None);
        let ours = vec!["international".to_string(), "russian".to_string()];
        assert_eq!(
            engine_variant_name("russian", &ours).as_deref(),
            Some("russian")
        );
    }
}
