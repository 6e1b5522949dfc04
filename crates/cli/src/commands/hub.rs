//! `damspel hub`: a Hub engine (Scan's protocol) on standard input and output.
//!
//! The protocol itself (parsing, printing, the session state machine) lives in
//! `damspel_protocol::hub`; this file only moves lines and runs searches. One thread reads
//! standard input, the main thread runs the session, and each search runs on its own thread so
//! that `ping`, `stop` and `ponder-hit` are answered while it thinks. Nothing is written to
//! standard error: some GUIs read it as engine output.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Result;
use damspel_engine::{Clock, Engine, Info, Limits, ScoreKind, SearchResult};
use damspel_protocol::hub::{
    info_response, Action, Command, EngineId, GoMode, Identity, Level, Params, Response,
    SearchOrder, SearchScore, Session, Setup, SetupStep,
};
use damspel_rules::{with_rules, Bits, Catalogue, Move, Rules};

enum Event {
    Line(String),
    Eof,
    SearchDone,
}

/// How a session ended.
enum End {
    Quit,
    Reinit(Params),
}

/// Writes one line; if the GUI has gone, quits.
fn say(response: &Response) {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if writeln!(out, "{response}")
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

fn identity(catalogue: &Catalogue) -> Result<Identity> {
    let variants = catalogue.variants()?;
    let mut names = Vec::new();
    for v in &variants {
        names.push((v.id.clone(), v.id.clone()));
        names.extend(v.aliases.iter().map(|a| (a.clone(), v.id.clone())));
    }
    if variants.iter().any(|v| v.id == "international") {
        // Scan's name for it.
        names.push(("normal".into(), "international".into()));
    }
    let default = if variants.iter().any(|v| v.id == "international") {
        "international".to_string()
    } else {
        variants.first().map(|v| v.id.clone()).unwrap_or_default()
    };
    Ok(Identity {
        id: EngineId {
            name: "Damspel".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: "The Damspel developers".into(),
            country: "Unknown".into(),
        },
        variants: variants.iter().map(|v| v.id.clone()).collect(),
        names,
        defaults: Params {
            variant: default,
            threads: 1,
            hash_mb: 64,
        },
    })
}

pub fn run(catalogue: &Catalogue) -> Result<()> {
    let identity = identity(catalogue)?;
    let (tx, rx) = mpsc::channel();
    let input = tx.clone();
    std::thread::spawn(move || {
        let stdin = io::stdin();
        let mut stdin = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match stdin.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if input.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = input.send(Event::Eof);
    });

    let mut setup = Setup::new(identity.clone());
    let Some(mut start) = wait_for_init(&mut setup, &rx) else {
        return Ok(());
    };
    loop {
        let (params, announce, pending) = start;
        let variant = catalogue.get(&params.variant)?;
        let end = with_rules!(variant, |rules| serve(
            Arc::new(rules),
            &identity,
            params,
            announce,
            pending,
            &rx,
            &tx
        ));
        match end {
            End::Quit => return Ok(()),
            End::Reinit(params) => start = (params, true, None),
        }
    }
}

/// The conversation before `init`: the parameters to build the engine with, whether to say
/// `ready`, and the command that asked for it if it was not `init`. `None`: quit.
fn wait_for_init(
    setup: &mut Setup,
    rx: &Receiver<Event>,
) -> Option<(Params, bool, Option<Command>)> {
    loop {
        let text = match rx.recv() {
            Ok(Event::Line(text)) => text,
            Ok(Event::SearchDone) => continue,
            Ok(Event::Eof) | Err(_) => return None,
        };
        let command = match Command::parse(&text) {
            Ok(c) => c,
            Err(e) => {
                say(&Response::Error(e.message));
                continue;
            }
        };
        match setup.handle(command) {
            SetupStep::Reply(lines) => lines.iter().for_each(say),
            SetupStep::Quit => return None,
            SetupStep::Init {
                params,
                announce,
                pending,
            } => return Some((params, announce, pending)),
        }
    }
}

/// A search on its own thread.
struct Running<B: Bits> {
    handle: JoinHandle<(Engine<B>, SearchResult<B>)>,
    /// The engine's stop flag (kept if raised before the search starts).
    engine_stop: Arc<AtomicBool>,
    /// After `ponder-hit`: when to stop.
    deadline: Option<Instant>,
    level: Level,
    /// Played if the search thread fails.
    fallback: Option<Move<B>>,
}

impl<B: Bits> Running<B> {
    fn stop(&self) {
        self.engine_stop.store(true, Ordering::Relaxed);
    }
}

/// Sends `SearchDone` when the search thread ends, even by a panic.
struct DoneGuard(Sender<Event>);

impl Drop for DoneGuard {
    fn drop(&mut self) {
        let _ = self.0.send(Event::SearchDone);
    }
}

fn seconds(s: f64) -> Duration {
    Duration::from_secs_f64(s.clamp(0.0, 1e9))
}

/// The engine's limits for a level and a search mode. A ponder search runs until `ponder-hit`
/// (then the level's think time bounds it) or `stop`, unless a depth or node count bounds it.
fn limits(level: &Level, mode: GoMode) -> Limits {
    let mut limits = Limits {
        depth: level.depth,
        nodes: level.nodes,
        infinite: level.infinite,
        ..Limits::default()
    };
    if mode == GoMode::Ponder {
        if level.is_timed() || (level.depth.is_none() && level.nodes.is_none()) {
            limits.infinite = true;
        }
        return limits;
    }
    limits.move_time = level.move_time.map(seconds);
    limits.clock = level.clock.map(|c| Clock {
        // The increment is added before every move.
        remaining: seconds(c.time + c.inc),
        increment: seconds(c.inc),
        moves_to_go: c.moves,
    });
    limits
}

fn search_score(kind: ScoreKind, centi: i32) -> SearchScore {
    match kind {
        ScoreKind::WinIn(n) => SearchScore::WinIn(n),
        ScoreKind::LossIn(n) => SearchScore::LossIn(n),
        ScoreKind::Men(_) => SearchScore::CentiMen(centi),
    }
}

fn build_engine<B: Bits>(rules: &Arc<Rules<B>>, params: &Params) -> Engine<B> {
    let mut engine = Engine::new(rules.clone(), params.hash_mb as usize);
    engine.set_threads(params.threads as usize);
    engine
}

fn start_search<B: Bits>(
    mut engine: Engine<B>,
    order: SearchOrder<B>,
    tx: &Sender<Event>,
) -> Running<B> {
    let engine_stop = engine.stop_flag();
    let limits = limits(&order.level, order.mode);
    let fallback = order
        .game
        .rules()
        .moves(order.game.position())
        .first()
        .copied();
    let guard = DoneGuard(tx.clone());
    let handle = std::thread::spawn(move || {
        let _guard = guard;
        let rules = order.game.rules_arc();
        let mut report = |info: &Info<B>| {
            say(&info_response(
                &rules,
                info.depth,
                search_score(info.score.kind(), info.score.0),
                info.nodes,
                info.elapsed,
                &info.pv,
            ));
        };
        let result = engine.search(&order.game, &limits, &mut report);
        (engine, result)
    });
    Running {
        handle,
        engine_stop,
        deadline: None,
        level: order.level,
        fallback,
    }
}

fn serve<B: Bits>(
    rules: Arc<Rules<B>>,
    identity: &Identity,
    params: Params,
    announce: bool,
    pending: Option<Command>,
    rx: &Receiver<Event>,
    tx: &Sender<Event>,
) -> End {
    let mut engine = Some(build_engine(&rules, &params));
    let mut session = Session::new(identity.clone(), params.clone(), rules.clone());
    if announce {
        say(&Response::Ready);
    }
    let mut running: Option<Running<B>> = None;
    let mut queue: VecDeque<Command> = pending.into_iter().collect();
    loop {
        let actions = if let Some(command) = queue.pop_front() {
            session.handle(command)
        } else {
            let deadline = running.as_ref().and_then(|r| r.deadline);
            let event = match deadline {
                Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                    Ok(e) => e,
                    Err(RecvTimeoutError::Timeout) => {
                        if let Some(r) = running.as_mut() {
                            r.stop();
                            r.deadline = None;
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => Event::Eof,
                },
                None => rx.recv().unwrap_or(Event::Eof),
            };
            match event {
                // The GUI has gone: quit at once, whatever runs.
                Event::Eof => return End::Quit,
                Event::SearchDone => {
                    let Some(r) = running.take() else { continue };
                    let fallback = r.fallback;
                    match r.handle.join() {
                        Ok((e, result)) => {
                            engine = Some(e);
                            session.finished(result.best.or(fallback), result.ponder)
                        }
                        Err(_) => {
                            engine = Some(build_engine(&rules, &params));
                            say(&Response::Error(
                                "the search failed; playing the first legal move".into(),
                            ));
                            session.finished(fallback, None)
                        }
                    }
                }
                Event::Line(text) => match Command::parse(&text) {
                    Ok(command) => session.handle(command),
                    Err(e) => {
                        say(&Response::Error(e.message));
                        continue;
                    }
                },
            }
        };
        for action in actions {
            match action {
                Action::Reply(r) => say(&r),
                Action::NewGame => {
                    if let Some(e) = engine.as_mut() {
                        e.new_game();
                    }
                }
                Action::Search(order) => match engine.take() {
                    Some(e) => running = Some(start_search(e, order, tx)),
                    None => say(&Response::Error(
                        "internal: no engine to search with".into(),
                    )),
                },
                Action::Stop => {
                    if let Some(r) = running.as_ref() {
                        r.stop();
                    }
                }
                Action::PonderHit => {
                    if let Some(r) = running.as_mut() {
                        r.deadline = r.level.think_seconds().map(|t| Instant::now() + seconds(t));
                    }
                }
                Action::Reinit(params) => return End::Reinit(params),
                Action::Quit => return End::Quit,
            }
        }
    }
}
