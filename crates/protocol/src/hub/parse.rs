//! Reading Hub lines: the tokenizer (text → [`Line`]) and the typed messages of both directions
//! ([`Command`] from the GUI, [`Response`] from the engine), kept apart so that each can be
//! tested alone.
//!
//! Lexical rules (Scan's `hub.cpp` scanner): blanks separate tokens; a *name* is a run of
//! characters other than blanks, control characters, `=` and `"`; a line is a command name and
//! then `name` or `name=value` arguments, where a value is a name or a double-quoted string
//! (which may hold blanks and `=`, but not `"`). Anything else is malformed.

use super::session::MAX_DEPTH;
use std::fmt;

/// One argument: `name=value`, or a flag `name` (no value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    pub value: Option<String>,
}

/// A tokenized line: the command and its arguments in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub command: String,
    pub args: Vec<Arg>,
}

impl Line {
    /// The value of the first argument called `name` (a flag's value is the empty string).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_deref().unwrap_or(""))
    }

    /// Whether an argument called `name` is present (as a flag or with a value).
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|a| a.name == name)
    }
}

/// Why a line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubError {
    pub message: String,
}

impl HubError {
    pub fn new(message: impl Into<String>) -> HubError {
        HubError {
            message: message.into(),
        }
    }
}

impl fmt::Display for HubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HubError {}

/// A character that may appear in a name (Scan's `is_id`).
pub fn is_name_char(c: char) -> bool {
    !c.is_control() && !c.is_whitespace() && c != '=' && c != '"'
}

/// Whether `s` can be written without quotes.
pub fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_name_char)
}

struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn skip_blank(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_blank();
        self.pos == self.text.len()
    }

    fn name(&mut self, what: &str) -> Result<String, HubError> {
        self.skip_blank();
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.bump();
        }
        if start == self.pos {
            return Err(HubError::new(match self.peek() {
                None => format!("expected {what} at the end of the line"),
                Some(c) if c.is_control() => format!(
                    "expected {what} at character {}, found control character U+{:04X}",
                    self.pos + 1,
                    c as u32
                ),
                Some('"') => format!(
                    "expected {what} at character {}, found a double quote",
                    self.pos + 1
                ),
                Some(c) => format!("expected {what} at character {}, found `{c}`", self.pos + 1),
            }));
        }
        Ok(self.text[start..self.pos].to_string())
    }

    fn value(&mut self, name: &str) -> Result<String, HubError> {
        self.skip_blank();
        if self.peek() == Some('"') {
            let open = self.pos;
            self.bump();
            let start = self.pos;
            loop {
                match self.bump() {
                    Some('"') => return Ok(self.text[start..self.pos - 1].to_string()),
                    Some(_) => {}
                    None => {
                        return Err(HubError::new(format!(
                            "the value of `{}` opened at character {} has no closing quote",
                            shown(name),
                            open + 1
                        )))
                    }
                }
            }
        }
        self.name(&format!("a value for `{}`", shown(name)))
    }
}

/// The longest line read, in bytes: a `pos` line with a 10,000-ply game in full capture
/// notation is a few hundred KiB. Longer lines are refused, so a reader need hold no more.
pub const MAX_LINE_LEN: usize = 1 << 20;

/// Splits a line into its command and arguments.
pub fn tokenize(text: &str) -> Result<Line, HubError> {
    if text.len() > MAX_LINE_LEN {
        return Err(HubError::new(format!(
            "a line of {} bytes; a line may have at most {MAX_LINE_LEN}",
            text.len()
        )));
    }
    let text = text.trim_end_matches(['\r', '\n']);
    let mut s = Scanner { text, pos: 0 };
    if s.at_end() {
        return Err(HubError::new("missing command"));
    }
    let command = s.name("a command")?;
    let mut args = Vec::new();
    while !s.at_end() {
        let name = s.name("an argument name")?;
        s.skip_blank();
        let value = if s.peek() == Some('=') {
            s.bump();
            Some(s.value(&name)?)
        } else {
            None
        };
        args.push(Arg { name, value });
    }
    Ok(Line { command, args })
}

/// How the engine should search after `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoMode {
    /// Play a move.
    Think,
    /// Search the expected position on the opponent's time, until `ponder-hit` or `stop`.
    Ponder,
    /// Analysis: no book, the GUI wants the score and line.
    Analyze,
}

/// A time control: remaining time, optional moves to go and increment, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockLevel {
    pub moves: Option<u32>,
    pub time: f64,
    pub inc: f64,
}

/// The limits of the next search (`level`). Several may be given; the first reached ends the
/// search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Level {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Seconds per move.
    pub move_time: Option<f64>,
    pub clock: Option<ClockLevel>,
    pub infinite: bool,
}

impl Level {
    /// Whether time bounds the search.
    pub fn is_timed(&self) -> bool {
        self.move_time.is_some() || self.clock.is_some()
    }

    /// The seconds to think for one move: the move time, or a share of the clock (remaining
    /// over the moves to go, 30 when unknown, plus three quarters of the increment, at most
    /// half of what is left). `None` when time does not bound the search. Used when a
    /// `ponder-hit` turns a ponder search into a timed one.
    pub fn think_seconds(&self) -> Option<f64> {
        if self.infinite {
            return None;
        }
        if let Some(t) = self.move_time {
            return Some(t);
        }
        self.clock.map(|c| {
            let moves = f64::from(c.moves.unwrap_or(30).clamp(1, 50));
            (c.time / moves + 0.75 * c.inc).min(c.time / 2.0).max(0.0)
        })
    }
}

/// A message from the GUI to the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Hub,
    SetParam {
        name: String,
        value: String,
    },
    Init,
    NewGame,
    /// `pos [pos=<position>] [moves="m1 m2 …"]`; no `pos` (or the `start` flag) means the start
    /// position.
    Pos {
        pos: Option<String>,
        moves: Vec<String>,
    },
    Level(Level),
    Go(GoMode),
    Stop,
    Ping,
    PonderHit,
    Quit,
    /// A command this engine does not know: ignored, as the protocol asks.
    Unknown(String),
}

/// A value as quoted in an error: long ones are cut, so an error is never much longer than
/// its explanation.
pub(crate) fn shown(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn parse_number<T: std::str::FromStr>(line: &Line, name: &str, what: &str) -> Result<T, HubError> {
    let text = line.get(name).unwrap_or("");
    text.parse().map_err(|_| {
        HubError::new(format!(
            "{} {name}=`{}`: expected {what}",
            line.command,
            shown(text)
        ))
    })
}

/// A whole number from `min` to `max` (a depth of 0 or a node count of 0 asks for no search,
/// which the engine cannot give).
fn parse_ranged<T>(line: &Line, name: &str, what: &str, min: T, max: T) -> Result<T, HubError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let n: T = parse_number(line, name, &format!("a whole {what}"))?;
    if n < min || n > max {
        return Err(HubError::new(format!(
            "{} {name}={n}: expected a whole {what} from {min} to {max}",
            line.command
        )));
    }
    Ok(n)
}

fn parse_seconds(line: &Line, name: &str) -> Result<f64, HubError> {
    let t: f64 = parse_number(line, name, "a number of seconds")?;
    if !t.is_finite() || t < 0.0 {
        // Quoted as written: `-1e308` is not written out in 309 digits.
        return Err(HubError::new(format!(
            "{} {name}=`{}`: expected a number of seconds, at least 0",
            line.command,
            shown(line.get(name).unwrap_or(""))
        )));
    }
    Ok(t)
}

impl Command {
    /// Reads a line from the GUI.
    pub fn parse(text: &str) -> Result<Command, HubError> {
        Command::from_line(&tokenize(text)?)
    }

    /// The typed command of a tokenized line. Unknown commands and arguments are accepted
    /// (and ignored); known arguments with unusable values are errors.
    pub fn from_line(line: &Line) -> Result<Command, HubError> {
        Ok(match line.command.as_str() {
            "hub" => Command::Hub,
            "set-param" => {
                let name = line.get("name").unwrap_or("");
                if name.is_empty() {
                    return Err(HubError::new("set-param needs name=<parameter>"));
                }
                Command::SetParam {
                    name: name.to_string(),
                    value: line.get("value").unwrap_or("").to_string(),
                }
            }
            "init" => Command::Init,
            "new-game" => Command::NewGame,
            "pos" => {
                let mut pos = None;
                let mut moves = Vec::new();
                for arg in &line.args {
                    match arg.name.as_str() {
                        "start" => pos = None,
                        "pos" => {
                            let value = arg.value.as_deref().unwrap_or("");
                            if value.is_empty() {
                                return Err(HubError::new("pos needs pos=<position>"));
                            }
                            pos = Some(value.to_string())
                        }
                        "moves" => {
                            moves = arg
                                .value
                                .as_deref()
                                .unwrap_or("")
                                .split_whitespace()
                                .map(str::to_string)
                                .collect()
                        }
                        _ => {}
                    }
                }
                Command::Pos { pos, moves }
            }
            "level" => {
                let mut level = Level::default();
                let mut clock = None::<ClockLevel>;
                for arg in &line.args {
                    let name = arg.name.as_str();
                    match name {
                        "depth" => {
                            level.depth = Some(parse_ranged(line, name, "depth", 1, MAX_DEPTH)?)
                        }
                        "nodes" => {
                            level.nodes =
                                Some(parse_ranged(line, name, "number of nodes", 1, u64::MAX)?)
                        }
                        "move-time" => level.move_time = Some(parse_seconds(line, name)?),
                        "time" | "moves" | "inc" => {
                            let c = clock.get_or_insert(ClockLevel {
                                moves: None,
                                time: 0.0,
                                inc: 0.0,
                            });
                            match name {
                                "time" => c.time = parse_seconds(line, name)?,
                                "inc" => c.inc = parse_seconds(line, name)?,
                                _ => {
                                    c.moves = Some(parse_ranged(
                                        line,
                                        name,
                                        "number of moves",
                                        1,
                                        u32::MAX,
                                    )?)
                                }
                            }
                        }
                        "infinite" => level.infinite = true,
                        _ => {}
                    }
                }
                if let Some(c) = clock {
                    if !line.has("time") {
                        return Err(HubError::new("level: moves= and inc= need time="));
                    }
                    level.clock = Some(c);
                }
                Command::Level(level)
            }
            "go" => Command::Go(if line.has("ponder") {
                GoMode::Ponder
            } else if line.has("analyze") {
                GoMode::Analyze
            } else {
                GoMode::Think
            }),
            "stop" => Command::Stop,
            "ping" => Command::Ping,
            "ponder-hit" => Command::PonderHit,
            "quit" => Command::Quit,
            other => Command::Unknown(other.to_string()),
        })
    }
}

/// An engine parameter's type and constraints, as declared by `param`.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    Bool,
    Int {
        min: i64,
        max: i64,
    },
    Real {
        min: f64,
        max: f64,
    },
    String,
    Enum {
        values: Vec<String>,
    },
    /// A type this side does not know.
    Other(String),
}

/// A `param` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub name: String,
    pub value: String,
    pub kind: ParamKind,
}

/// The engine's `id`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineId {
    pub name: String,
    pub version: String,
    pub author: String,
    pub country: String,
}

/// Search progress (`info`); every field is optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfoLine {
    pub depth: Option<u32>,
    pub mean_depth: Option<f64>,
    /// In men; see [`crate::hub::score_in_men`].
    pub score: Option<f64>,
    pub nodes: Option<u64>,
    /// Seconds.
    pub time: Option<f64>,
    /// Million nodes per second.
    pub nps: Option<f64>,
    pub pv: Vec<String>,
}

/// A message from the engine to the GUI.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    Id(EngineId),
    Param(ParamDecl),
    Wait,
    Ready,
    Info(InfoLine),
    Done {
        mv: Option<String>,
        ponder: Option<String>,
    },
    Pong,
    Error(String),
    /// A line this side does not know: ignored.
    Unknown(String),
}

fn optional<T: std::str::FromStr>(line: &Line, name: &str) -> Option<T> {
    line.get(name).and_then(|v| v.parse().ok())
}

impl Response {
    /// Reads a line from the engine.
    pub fn parse(text: &str) -> Result<Response, HubError> {
        Response::from_line(&tokenize(text)?)
    }

    /// The typed response of a tokenized line. Fields with unusable values are dropped rather
    /// than refused: progress information is advisory.
    pub fn from_line(line: &Line) -> Result<Response, HubError> {
        let text = |name: &str| line.get(name).unwrap_or("").to_string();
        Ok(match line.command.as_str() {
            "id" => Response::Id(EngineId {
                name: text("name"),
                version: text("version"),
                author: text("author"),
                country: text("country"),
            }),
            "param" => {
                let kind = match line.get("type").unwrap_or("string") {
                    "bool" => ParamKind::Bool,
                    "int" => ParamKind::Int {
                        min: optional(line, "min").unwrap_or(i64::MIN),
                        max: optional(line, "max").unwrap_or(i64::MAX),
                    },
                    "real" => ParamKind::Real {
                        min: optional(line, "min").unwrap_or(f64::MIN),
                        max: optional(line, "max").unwrap_or(f64::MAX),
                    },
                    "string" => ParamKind::String,
                    "enum" => ParamKind::Enum {
                        values: line
                            .get("values")
                            .unwrap_or("")
                            .split_whitespace()
                            .map(str::to_string)
                            .collect(),
                    },
                    other => ParamKind::Other(other.to_string()),
                };
                Response::Param(ParamDecl {
                    name: text("name"),
                    value: text("value"),
                    kind,
                })
            }
            "wait" => Response::Wait,
            "ready" => Response::Ready,
            "info" => Response::Info(InfoLine {
                depth: optional(line, "depth"),
                mean_depth: optional(line, "mean-depth"),
                score: optional(line, "score"),
                nodes: optional(line, "nodes"),
                time: optional(line, "time"),
                nps: optional(line, "nps"),
                pv: line
                    .get("pv")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            }),
            "done" => Response::Done {
                mv: line
                    .get("move")
                    .filter(|m| !m.is_empty())
                    .map(str::to_string),
                ponder: line
                    .get("ponder")
                    .filter(|m| !m.is_empty())
                    .map(str::to_string),
            },
            "pong" => Response::Pong,
            "error" => Response::Error(text("message")),
            other => Response::Unknown(other.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(name: &str, value: Option<&str>) -> Arg {
        Arg {
            name: name.into(),
            value: value.map(Into::into),
        }
    }

    #[test]
    fn tokenizer_reads_names_values_quotes_and_flags() {
        let line =
            tokenize("  info depth=21 score=-0.01 pv=\"32-28 17-22\"  flag  x = y e=\"\"\r\n")
                .unwrap();
        assert_eq!(line.command, "info");
        assert_eq!(
            line.args,
            vec![
                arg("depth", Some("21")),
                arg("score", Some("-0.01")),
                arg("pv", Some("32-28 17-22")),
                arg("flag", None),
                arg("x", Some("y")),
                arg("e", Some("")),
            ]
        );
        assert_eq!(line.get("flag"), Some(""));
        assert_eq!(line.get("missing"), None);
        assert!(line.has("flag"));
        // A quoted value may hold `=`.
        assert_eq!(
            tokenize("error message=\"a=b\"").unwrap().get("message"),
            Some("a=b")
        );
    }

    #[test]
    fn tokenizer_refuses_malformed_lines() {
        for bad in [
            "",
            "   ",
            "=",
            "\"hub\"",
            "pos pos=\"Wbbb",
            "level depth=",
            "level =3",
            "set-param name==x",
            "go \"think\"",
            "ping\u{1}",
            "level depth=3 \u{7f}",
        ] {
            let err = tokenize(bad).expect_err(bad);
            assert!(!err.message.is_empty());
        }
        assert_eq!(tokenize("").unwrap_err().message, "missing command");
        assert!(tokenize("pos pos=\"Wb")
            .unwrap_err()
            .message
            .contains("no closing quote"));
    }

    #[test]
    fn commands_of_the_protocol() {
        assert_eq!(Command::parse("hub").unwrap(), Command::Hub);
        assert_eq!(
            Command::parse("set-param name=variant value=killer").unwrap(),
            Command::SetParam {
                name: "variant".into(),
                value: "killer".into()
            }
        );
        assert_eq!(Command::parse("init").unwrap(), Command::Init);
        assert_eq!(Command::parse("new-game").unwrap(), Command::NewGame);
        assert_eq!(
            Command::parse(
                "pos pos=BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee moves=\"38-15 5-41 48-26\""
            )
            .unwrap(),
            Command::Pos {
                pos: Some("BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee".into()),
                moves: vec!["38-15".into(), "5-41".into(), "48-26".into()]
            }
        );
        assert_eq!(
            Command::parse("pos start").unwrap(),
            Command::Pos {
                pos: None,
                moves: vec![]
            }
        );
        assert_eq!(
            Command::parse("level depth=12").unwrap(),
            Command::Level(Level {
                depth: Some(12),
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("level nodes=100000").unwrap(),
            Command::Level(Level {
                nodes: Some(100_000),
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("level move-time=1.5").unwrap(),
            Command::Level(Level {
                move_time: Some(1.5),
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("level moves=9 time=291.587").unwrap(),
            Command::Level(Level {
                clock: Some(ClockLevel {
                    moves: Some(9),
                    time: 291.587,
                    inc: 0.0
                }),
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("level time=60 inc=1").unwrap(),
            Command::Level(Level {
                clock: Some(ClockLevel {
                    moves: None,
                    time: 60.0,
                    inc: 1.0
                }),
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("level infinite").unwrap(),
            Command::Level(Level {
                infinite: true,
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("go think").unwrap(),
            Command::Go(GoMode::Think)
        );
        assert_eq!(Command::parse("go").unwrap(), Command::Go(GoMode::Think));
        assert_eq!(
            Command::parse("go ponder").unwrap(),
            Command::Go(GoMode::Ponder)
        );
        assert_eq!(
            Command::parse("go analyze").unwrap(),
            Command::Go(GoMode::Analyze)
        );
        assert_eq!(Command::parse("stop").unwrap(), Command::Stop);
        assert_eq!(Command::parse("ping").unwrap(), Command::Ping);
        assert_eq!(Command::parse("ponder-hit").unwrap(), Command::PonderHit);
        assert_eq!(Command::parse("quit").unwrap(), Command::Quit);
    }

    #[test]
    fn unknown_commands_and_arguments_are_accepted() {
        assert_eq!(
            Command::parse("frobnicate now=1").unwrap(),
            Command::Unknown("frobnicate".into())
        );
        assert_eq!(
            Command::parse("level depth=3 colour=blue").unwrap(),
            Command::Level(Level {
                depth: Some(3),
                ..Level::default()
            })
        );
        assert_eq!(
            Command::parse("go think turbo").unwrap(),
            Command::Go(GoMode::Think)
        );
    }

    #[test]
    fn known_arguments_with_bad_values_are_errors() {
        for bad in [
            "level depth=deep",
            "level depth=-1",
            "level nodes=1e99",
            "level depth=0",
            "level depth=65",
            "level nodes=0",
            "level moves=0 time=60",
            "level move-time=fast",
            "level move-time=-1",
            "level move-time=inf",
            "level move-time=NaN",
            "level moves=9",
            "level time=10 inc=x",
            "set-param value=3",
            "pos pos=\"\"",
        ] {
            assert!(Command::parse(bad).is_err(), "{bad}");
        }
        // A number out of range is quoted as written, not in its hundreds of digits.
        let e = Command::parse("level time=-1e308").unwrap_err();
        assert_eq!(
            e.to_string(),
            "level time=`-1e308`: expected a number of seconds, at least 0"
        );
    }

    #[test]
    fn think_time_of_a_level() {
        let level = |text: &str| match Command::parse(text).unwrap() {
            Command::Level(l) => l,
            other => panic!("{other:?}"),
        };
        assert_eq!(level("level move-time=2").think_seconds(), Some(2.0));
        assert_eq!(level("level time=60").think_seconds(), Some(2.0));
        assert_eq!(level("level moves=10 time=60").think_seconds(), Some(6.0));
        assert_eq!(level("level time=30 inc=2").think_seconds(), Some(2.5));
        assert_eq!(level("level moves=1 time=10").think_seconds(), Some(5.0));
        assert_eq!(level("level depth=5").think_seconds(), None);
        assert_eq!(level("level infinite").think_seconds(), None);
        assert!(level("level time=1").is_timed());
        assert!(!level("level nodes=5").is_timed());
    }

    #[test]
    fn responses_of_the_protocol() {
        assert_eq!(
            Response::parse("id name=Scan version=3.0 author=\"Fabien Letouzey\" country=France")
                .unwrap(),
            Response::Id(EngineId {
                name: "Scan".into(),
                version: "3.0".into(),
                author: "Fabien Letouzey".into(),
                country: "France".into()
            })
        );
        assert_eq!(
            Response::parse(
                "param name=variant value=normal type=enum values=\"normal killer bt\""
            )
            .unwrap(),
            Response::Param(ParamDecl {
                name: "variant".into(),
                value: "normal".into(),
                kind: ParamKind::Enum {
                    values: vec!["normal".into(), "killer".into(), "bt".into()]
                }
            })
        );
        assert_eq!(
            Response::parse("param name=threads value=1 type=int min=1 max=16").unwrap(),
            Response::Param(ParamDecl {
                name: "threads".into(),
                value: "1".into(),
                kind: ParamKind::Int { min: 1, max: 16 }
            })
        );
        assert_eq!(Response::parse("wait").unwrap(), Response::Wait);
        assert_eq!(Response::parse("ready").unwrap(), Response::Ready);
        assert_eq!(
            Response::parse(
                "info depth=21 mean-depth=20.8 score=-0.01 nodes=31261613 time=3.906 nps=8.0 pv=\"32-28 17-22 28x17x22\""
            )
            .unwrap(),
            Response::Info(InfoLine {
                depth: Some(21),
                mean_depth: Some(20.8),
                score: Some(-0.01),
                nodes: Some(31_261_613),
                time: Some(3.906),
                nps: Some(8.0),
                pv: vec!["32-28".into(), "17-22".into(), "28x17x22".into()]
            })
        );
        assert_eq!(
            Response::parse("done move=32-28 ponder=17-22").unwrap(),
            Response::Done {
                mv: Some("32-28".into()),
                ponder: Some("17-22".into())
            }
        );
        assert_eq!(
            Response::parse("done").unwrap(),
            Response::Done {
                mv: None,
                ponder: None
            }
        );
        assert_eq!(Response::parse("pong").unwrap(), Response::Pong);
        assert_eq!(
            Response::parse("error message=\"bad position\"").unwrap(),
            Response::Error("bad position".into())
        );
        assert_eq!(
            Response::parse("Scan 3.1 says hello").unwrap(),
            Response::Unknown("Scan".into())
        );
    }
}
