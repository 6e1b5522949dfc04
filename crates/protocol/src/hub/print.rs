//! Writing Hub lines: typed messages to text. A value is written bare when it is a name and in
//! double quotes otherwise (empty, or holding blanks, `=` or control characters). The protocol
//! has no escape for `"` inside a quoted value, so a `"` in a value is written as `'`.

use std::fmt::{self, Write};

use super::parse::{is_name, is_name_char};
use super::parse::{Command, GoMode, InfoLine, Level, ParamKind, Response};

/// `value` as it appears after `name=`.
pub fn quote(value: &str) -> String {
    if is_name(value) {
        value.to_string()
    } else {
        let inner: String = value
            .chars()
            .map(|c| match c {
                '"' => '\'',
                c if c.is_control() => ' ',
                c => c,
            })
            .collect();
        format!("\"{inner}\"")
    }
}

/// A line under construction.
struct Out(String);

impl Out {
    fn new(command: &str) -> Out {
        Out(command.to_string())
    }

    fn pair(&mut self, name: &str, value: &str) -> &mut Out {
        debug_assert!(name.chars().all(is_name_char));
        let _ = write!(self.0, " {name}={}", quote(value));
        self
    }

    fn flag(&mut self, name: &str) -> &mut Out {
        let _ = write!(self.0, " {name}");
        self
    }

    fn finish(&mut self) -> String {
        std::mem::take(&mut self.0)
    }
}

/// A real number as Scan writes it: fixed decimals, no exponent.
fn real(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = match self {
            Command::Hub => "hub".to_string(),
            Command::SetParam { name, value } => Out::new("set-param")
                .pair("name", name)
                .pair("value", value)
                .finish(),
            Command::Init => "init".to_string(),
            Command::NewGame => "new-game".to_string(),
            Command::Pos { pos, moves } => {
                let mut out = Out::new("pos");
                match pos {
                    Some(p) => out.pair("pos", p),
                    None => out.flag("start"),
                };
                if !moves.is_empty() {
                    out.pair("moves", &moves.join(" "));
                }
                out.finish()
            }
            Command::Level(level) => level_line(level),
            Command::Go(mode) => format!(
                "go {}",
                match mode {
                    GoMode::Think => "think",
                    GoMode::Ponder => "ponder",
                    GoMode::Analyze => "analyze",
                }
            ),
            Command::Stop => "stop".to_string(),
            Command::Ping => "ping".to_string(),
            Command::PonderHit => "ponder-hit".to_string(),
            Command::Quit => "quit".to_string(),
            Command::Unknown(command) => command.clone(),
        };
        f.write_str(&line)
    }
}

fn level_line(level: &Level) -> String {
    let mut out = Out::new("level");
    if let Some(d) = level.depth {
        out.pair("depth", &d.to_string());
    }
    if let Some(n) = level.nodes {
        out.pair("nodes", &n.to_string());
    }
    if let Some(t) = level.move_time {
        out.pair("move-time", &real(t, 3));
    }
    if let Some(c) = level.clock {
        if let Some(m) = c.moves {
            out.pair("moves", &m.to_string());
        }
        out.pair("time", &real(c.time, 3));
        if c.inc > 0.0 {
            out.pair("inc", &real(c.inc, 3));
        }
    }
    if level.infinite {
        out.flag("infinite");
    }
    out.finish()
}

fn info_line(info: &InfoLine) -> String {
    let mut out = Out::new("info");
    if let Some(d) = info.depth {
        out.pair("depth", &d.to_string());
    }
    if let Some(d) = info.mean_depth {
        out.pair("mean-depth", &real(d, 1));
    }
    if let Some(s) = info.score {
        out.pair("score", &real(s, 2));
    }
    if let Some(n) = info.nodes {
        out.pair("nodes", &n.to_string());
    }
    if let Some(t) = info.time {
        out.pair("time", &real(t, 3));
    }
    if let Some(n) = info.nps {
        out.pair("nps", &real(n, 2));
    }
    if !info.pv.is_empty() {
        out.pair("pv", &info.pv.join(" "));
    }
    out.finish()
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = match self {
            Response::Id(id) => {
                let mut out = Out::new("id");
                for (name, value) in [
                    ("name", &id.name),
                    ("version", &id.version),
                    ("author", &id.author),
                    ("country", &id.country),
                ] {
                    if !value.is_empty() {
                        out.pair(name, value);
                    }
                }
                out.finish()
            }
            Response::Param(p) => {
                let mut out = Out::new("param");
                out.pair("name", &p.name).pair("value", &p.value);
                match &p.kind {
                    ParamKind::Bool => {
                        out.pair("type", "bool");
                    }
                    ParamKind::Int { min, max } => {
                        out.pair("type", "int")
                            .pair("min", &min.to_string())
                            .pair("max", &max.to_string());
                    }
                    ParamKind::Real { min, max } => {
                        out.pair("type", "real")
                            .pair("min", &min.to_string())
                            .pair("max", &max.to_string());
                    }
                    ParamKind::String => {
                        out.pair("type", "string");
                    }
                    ParamKind::Enum { values } => {
                        out.pair("type", "enum").pair("values", &values.join(" "));
                    }
                    ParamKind::Other(t) => {
                        out.pair("type", t);
                    }
                }
                out.finish()
            }
            Response::Wait => "wait".to_string(),
            Response::Ready => "ready".to_string(),
            Response::Info(info) => info_line(info),
            Response::Done { mv, ponder } => {
                let mut out = Out::new("done");
                if let Some(m) = mv {
                    out.pair("move", m);
                    if let Some(p) = ponder {
                        out.pair("ponder", p);
                    }
                }
                out.finish()
            }
            Response::Pong => "pong".to_string(),
            Response::Error(message) => Out::new("error").pair("message", message).finish(),
            Response::Unknown(command) => command.clone(),
        };
        f.write_str(&line)
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::{ClockLevel, EngineId, ParamDecl};
    use super::*;

    #[test]
    fn values_are_quoted_only_when_needed() {
        assert_eq!(quote("normal"), "normal");
        assert_eq!(quote("32-28"), "32-28");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("Fabien Letouzey"), "\"Fabien Letouzey\"");
        assert_eq!(quote("a=b"), "\"a=b\"");
        assert_eq!(quote("say \"hi\""), "\"say 'hi'\"");
        assert_eq!(quote("tab\there"), "\"tab here\"");
    }

    #[test]
    fn responses_print_as_in_the_protocol_text() {
        assert_eq!(
            Response::Id(EngineId {
                name: "Scan".into(),
                version: "3.0".into(),
                author: "Fabien Letouzey".into(),
                country: "France".into()
            })
            .to_string(),
            "id name=Scan version=3.0 author=\"Fabien Letouzey\" country=France"
        );
        assert_eq!(
            Response::Param(ParamDecl {
                name: "variant".into(),
                value: "normal".into(),
                kind: ParamKind::Enum {
                    values: vec!["normal".into(), "killer".into(), "bt".into()]
                }
            })
            .to_string(),
            "param name=variant value=normal type=enum values=\"normal killer bt\""
        );
        assert_eq!(
            Response::Param(ParamDecl {
                name: "threads".into(),
                value: "1".into(),
                kind: ParamKind::Int { min: 1, max: 16 }
            })
            .to_string(),
            "param name=threads value=1 type=int min=1 max=16"
        );
        assert_eq!(
            Response::Info(InfoLine {
                depth: Some(21),
                score: Some(-0.01),
                nodes: Some(31_261_613),
                time: Some(3.906),
                nps: Some(8.0),
                pv: vec!["32-28".into(), "17-22".into()],
                ..InfoLine::default()
            })
            .to_string(),
            "info depth=21 score=-0.01 nodes=31261613 time=3.906 nps=8.00 pv=\"32-28 17-22\""
        );
        assert_eq!(
            Response::Info(InfoLine {
                pv: vec!["32-28".into()],
                ..InfoLine::default()
            })
            .to_string(),
            "info pv=32-28"
        );
        assert_eq!(
            Response::Done {
                mv: Some("32-28".into()),
                ponder: Some("17-22".into())
            }
            .to_string(),
            "done move=32-28 ponder=17-22"
        );
        assert_eq!(
            Response::Done {
                mv: Some("28x19x23".into()),
                ponder: None
            }
            .to_string(),
            "done move=28x19x23"
        );
        assert_eq!(Response::Pong.to_string(), "pong");
        assert_eq!(Response::Wait.to_string(), "wait");
        assert_eq!(Response::Ready.to_string(), "ready");
        assert_eq!(
            Response::Error("bad position".into()).to_string(),
            "error message=\"bad position\""
        );
    }

    #[test]
    fn commands_print_as_in_the_protocol_text() {
        assert_eq!(
            Command::Pos {
                pos: Some("Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww".into()),
                moves: vec![]
            }
            .to_string(),
            "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"
        );
        assert_eq!(
            Command::Pos {
                pos: Some("BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee".into()),
                moves: vec!["38-15".into(), "5-41".into(), "48-26".into()]
            }
            .to_string(),
            "pos pos=BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee moves=\"38-15 5-41 48-26\""
        );
        assert_eq!(
            Command::Level(Level {
                clock: Some(ClockLevel {
                    moves: Some(9),
                    time: 291.587,
                    inc: 0.0
                }),
                ..Level::default()
            })
            .to_string(),
            "level moves=9 time=291.587"
        );
        assert_eq!(
            Command::Level(Level {
                move_time: Some(0.1),
                ..Level::default()
            })
            .to_string(),
            "level move-time=0.100"
        );
        assert_eq!(
            Command::SetParam {
                name: "book-file".into(),
                value: String::new()
            }
            .to_string(),
            "set-param name=book-file value=\"\""
        );
        assert_eq!(Command::Go(GoMode::Ponder).to_string(), "go ponder");
    }

    #[test]
    fn every_message_reads_back_as_itself() {
        let commands = [
            Command::Hub,
            Command::SetParam {
                name: "variant".into(),
                value: "killer".into(),
            },
            Command::Init,
            Command::NewGame,
            Command::Pos {
                pos: None,
                moves: vec![],
            },
            Command::Pos {
                pos: Some("Weeeee".into()),
                moves: vec!["1-2".into(), "3x4x5".into()],
            },
            Command::Level(Level {
                depth: Some(3),
                nodes: Some(99),
                move_time: Some(0.25),
                clock: Some(ClockLevel {
                    moves: Some(40),
                    time: 120.5,
                    inc: 2.0,
                }),
                infinite: true,
            }),
            Command::Go(GoMode::Think),
            Command::Go(GoMode::Analyze),
            Command::Stop,
            Command::Ping,
            Command::PonderHit,
            Command::Quit,
        ];
        for c in commands {
            assert_eq!(Command::parse(&c.to_string()).unwrap(), c, "{c}");
        }
        let responses = [
            Response::Wait,
            Response::Ready,
            Response::Pong,
            Response::Error("illegal move `1-2`: \"no\"".into()),
            Response::Info(InfoLine {
                depth: Some(3),
                mean_depth: Some(2.5),
                score: Some(99.93),
                nodes: Some(12),
                time: Some(0.5),
                nps: Some(1.25),
                pv: vec!["a1-b2".into(), "c3xe5xd4".into()],
            }),
            Response::Done {
                mv: Some("1-7".into()),
                ponder: None,
            },
        ];
        for r in responses {
            let back = Response::parse(&r.to_string()).unwrap();
            match (&r, &back) {
                (Response::Error(a), Response::Error(b)) => {
                    assert_eq!(a.replace('"', "'"), *b)
                }
                _ => assert_eq!(back, r, "{r}"),
            }
        }
    }
}
