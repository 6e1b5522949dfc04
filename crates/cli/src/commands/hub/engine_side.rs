//! The engine side: one thread that runs the protocol's state machine in the order the GUI
//! sent its commands, and does the slow work (building the engine and its hash table, setting
//! positions whose moves must be generated, clearing the table), each search on a thread of its
//! own. It may take as long as the work takes: the desk answers for it meanwhile.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use damspel_engine::{
    Clock, Engine, Info, Level as Strength, Limits, Reporter, ScoreKind, SearchResult,
};
use damspel_protocol::hub::{
    info_response, write_move, Action, Command, GoMode, HubError, Identity, Level, Params,
    Response, SearchOrder, SearchScore, Session, Setup, SetupStep,
};
use damspel_rules::{with_rules, Bits, Catalogue, Move, Rules};

use super::desk::TIME_GRACE;
use super::shared::{Search, Shared};
use super::EngineEvent;

/// The hash table used when the one asked for cannot be had (the protocol's default).
const FALLBACK_HASH_MB: usize = 64;

/// How a session ended.
enum End {
    Closed,
    /// Rebuild the engine (`init` with new parameters); `true` while the desk still counts
    /// that command as in hand (not when it waited for a search and came back from it).
    Reinit(Params, bool),
    /// The variant was inferred from a position: rebuild silently, then run these commands.
    Switch(Params, Vec<Command>, bool),
}

/// Runs until the desk goes (the program ends with the desk, so this only returns if the
/// channel closes first).
pub(super) fn run(
    catalogue: Catalogue,
    identity: Identity,
    events: Receiver<EngineEvent>,
    sender: Sender<EngineEvent>,
    shared: Arc<Shared>,
) {
    let side = Side {
        events,
        sender,
        shared,
    };
    let mut setup = Setup::new(identity.clone());
    let Some((params, announce, pending)) = side.wait_for_init(&mut setup) else {
        return;
    };
    // The command that asked for `init` stays in hand until the engine is built.
    let mut start = (params, announce, pending, true);
    loop {
        let (params, announce, pending, in_hand) = start;
        let variant = match catalogue.get(&params.variant) {
            Ok(v) => v,
            Err(e) => {
                // Cannot happen: the variant was resolved against this catalogue.
                side.shared.say(&Response::Error(e.to_string()));
                return;
            }
        };
        let end = with_rules!(variant, |rules| side.serve(
            Arc::new(rules),
            &identity,
            params,
            announce,
            pending,
            in_hand
        ));
        match end {
            End::Closed => return,
            End::Reinit(params, in_hand) => start = (params, true, vec![], in_hand),
            End::Switch(params, pending, in_hand) => start = (params, false, pending, in_hand),
        }
    }
}

struct Side {
    events: Receiver<EngineEvent>,
    sender: Sender<EngineEvent>,
    shared: Arc<Shared>,
}

/// A search on its own thread.
struct Running<B: Bits> {
    handle: JoinHandle<(Engine<B>, SearchResult<B>)>,
    stop: Arc<AtomicBool>,
}

/// Sends `SearchDone` when the search thread ends, even by a panic.
struct DoneGuard(Sender<EngineEvent>);

impl Drop for DoneGuard {
    fn drop(&mut self) {
        let _ = self.0.send(EngineEvent::SearchDone);
    }
}

impl Side {
    /// The next command (`None`: the desk has gone); pings are answered on the way.
    fn next(&self) -> Option<Option<Result<Command, HubError>>> {
        match self.events.recv() {
            Ok(EngineEvent::Command(c)) => Some(Some(c)),
            Ok(EngineEvent::Ping(id)) => {
                let mut state = self.shared.lock();
                state.pong(id);
                state.in_flight -= 1;
                Some(None)
            }
            Ok(EngineEvent::SearchDone) => Some(None),
            Err(_) => None,
        }
    }

    /// A command has been handled.
    fn handled(&self) {
        self.shared.lock().in_flight -= 1;
    }

    /// The conversation before `init`: the parameters to build the engine with, whether to say
    /// `ready`, and the command that asked for it if it was not `init`.
    fn wait_for_init(&self, setup: &mut Setup) -> Option<(Params, bool, Vec<Command>)> {
        loop {
            let Some(command) = self.next()? else {
                continue;
            };
            let command = match command {
                Ok(c) => c,
                Err(e) => {
                    self.shared.say(&Response::Error(e.message));
                    self.handled();
                    continue;
                }
            };
            let step = setup.handle(command);
            let init = match step {
                SetupStep::Reply(lines) => {
                    let mut state = self.shared.lock();
                    for line in &lines {
                        state.say(line);
                    }
                    None
                }
                // The desk handles `quit` itself.
                SetupStep::Quit => None,
                SetupStep::Init {
                    params,
                    announce,
                    pending,
                } => Some((params, announce, pending.into_iter().collect())),
            };
            if init.is_some() {
                // The command that asked for `init` stays in hand until the engine is built.
                return init;
            }
            self.handled();
        }
    }

    /// The conversation for one variant.
    fn serve<B: Bits>(
        &self,
        rules: Arc<Rules<B>>,
        identity: &Identity,
        mut params: Params,
        announce: bool,
        pending: Vec<Command>,
        mut in_hand: bool,
    ) -> End {
        let mut engine = Some(self.build_engine(&rules, &mut params));
        // The `level` parameter (checked by the protocol: 1 to 8), and the seed of its draws.
        let strength = Strength::new(params.level).unwrap_or(Strength::FULL);
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut session = Session::new(identity.clone(), params.clone(), rules.clone());
        let mut running: Option<Running<B>> = None;
        let mut actions: VecDeque<Action<B>> = session.resume(pending).into();
        if announce {
            actions.push_front(Action::Reply(Response::Ready));
        }
        // `in_hand`: the command that asked for this engine is still counted by the desk (it
        // was counted off already if it waited for a search: counting it off again made the
        // desk believe 2^64 commands were waiting, and drop every one after).
        loop {
            while let Some(action) = actions.pop_front() {
                match action {
                    Action::Reply(r @ Response::Done { .. }) => self.shared.lock().done(&r),
                    Action::Reply(r) => self.shared.say(&r),
                    Action::NewGame => {
                        if let Some(e) = engine.as_mut() {
                            e.new_game();
                        }
                    }
                    Action::Search(order) => match engine.take() {
                        Some(e) => match self.start_search(e, order, strength, seed) {
                            Ok(r) => running = Some(r),
                            Err(e) => {
                                // The desk has answered this `go` already: end it unsearched.
                                engine = Some(e);
                                for a in session.finished(None, None).into_iter().rev() {
                                    actions.push_front(a);
                                }
                            }
                        },
                        None => self.shared.say(&Response::Error(
                            "internal: no engine to search with".into(),
                        )),
                    },
                    Action::Stop => {
                        if let Some(r) = running.as_ref() {
                            r.stop.store(true, Ordering::Relaxed);
                        }
                    }
                    // The desk times the search from `ponder-hit` on.
                    Action::PonderHit => {}
                    Action::Reinit(params) => {
                        // Free this engine's table before the next one is allocated.
                        drop(engine.take());
                        return End::Reinit(params, in_hand);
                    }
                    Action::Switch { params, pending } => {
                        drop(engine.take());
                        return End::Switch(params, pending, in_hand);
                    }
                    // The desk handles `quit` itself.
                    Action::Quit => {}
                }
            }
            if in_hand {
                self.handled();
                in_hand = false;
            }
            let next = match self.events.recv() {
                Err(_) => return End::Closed,
                Ok(EngineEvent::Ping(id)) => {
                    let mut state = self.shared.lock();
                    state.pong(id);
                    state.in_flight -= 1;
                    continue;
                }
                Ok(EngineEvent::SearchDone) => {
                    let Some(r) = running.take() else { continue };
                    match r.handle.join() {
                        Ok((e, result)) => {
                            engine = Some(e);
                            session.finished(result.best, result.ponder)
                        }
                        Err(_) => {
                            engine = Some(self.build_engine(&rules, &mut params.clone()));
                            self.shared
                                .say(&Response::Error("the search failed".into()));
                            session.finished(None, None)
                        }
                    }
                }
                Ok(EngineEvent::Command(Ok(command))) => {
                    in_hand = true;
                    session.handle(command)
                }
                Ok(EngineEvent::Command(Err(e))) => {
                    in_hand = true;
                    vec![Action::Reply(Response::Error(e.message))]
                }
            };
            actions.extend(next);
        }
    }

    /// The engine for `params`; if its hash table cannot be had, a smaller one, with an `error`
    /// line saying so (`params.hash_mb` becomes the size in use).
    fn build_engine<B: Bits>(&self, rules: &Arc<Rules<B>>, params: &mut Params) -> Engine<B> {
        let wanted = params.hash_mb as usize;
        let mut engine = match Engine::try_new(rules.clone(), wanted) {
            Ok(e) => e,
            Err(e) => {
                let engine = Engine::new(rules.clone(), FALLBACK_HASH_MB.min(wanted));
                self.shared.say(&Response::Error(format!(
                    "{e}; the hash table has {} MiB",
                    engine.hash_mb()
                )));
                params.hash_mb = engine.hash_mb().max(1) as u32;
                engine
            }
        };
        engine.set_threads(params.threads as usize);
        let dir = (!params.tb_dir.is_empty()).then(|| std::path::Path::new(&params.tb_dir));
        // The tables play perfectly: at full strength only (levels 1-7 are made to be beaten).
        let full = params.level == damspel_protocol::hub::MAX_LEVEL;
        match crate::commands::tables(rules, dir).map(|tb| tb.filter(|_| full)) {
            Ok(tb) => engine.set_tablebase(tb),
            // The engine plays on without tables, and says why.
            // Each cause once: a table's error already names its cause.
            Err(e) => self.shared.say(&Response::Error(format!(
                "tb-dir: {}",
                crate::catalogue::explain(&e)
            ))),
        }
        engine
    }

    /// Starts a search and tells the desk about it; `Err` gives the engine back when the desk
    /// has already answered this `go` (a `stop` that came while earlier work was running).
    fn start_search<B: Bits>(
        &self,
        mut engine: Engine<B>,
        order: SearchOrder<B>,
        strength: Strength,
        seed: u64,
    ) -> Result<Running<B>, Engine<B>> {
        let stop = engine.stop_flag();
        let limits = limits(&order.level, order.mode);
        let now = Instant::now();
        {
            let mut state = self.shared.lock();
            if state.skip_dones > 0 {
                return Err(engine);
            }
            // A stop meant for an earlier search must not end this one; a stop that came with
            // this `go` must, and so must `quit`.
            stop.store(
                state.stop_answer_at.is_some() || state.quitting,
                Ordering::Relaxed,
            );
            let pondering = order.mode == GoMode::Ponder && limits.infinite;
            state.search = Some(Search {
                stop: stop.clone(),
                stop_at: None,
                answer_at: if pondering || limits.infinite {
                    None
                } else {
                    limits.hard_limit().map(|t| now + t + TIME_GRACE)
                },
                pondering,
                think: order.level.think_seconds().map(seconds),
                best: None,
                ponder: None,
                answered: false,
            });
        }
        let guard = DoneGuard(self.sender.clone());
        let shared = self.shared.clone();
        let handle = std::thread::spawn(move || {
            let _guard = guard;
            let rules = order.game.rules_arc();
            let mut report = Report {
                rules: &rules,
                shared: &shared,
            };
            let result = strength.choose(&mut engine, &order.game, &limits, seed, &mut report);
            (engine, result)
        });
        Ok(Running { handle, stop })
    }
}

/// Writes `info` lines and keeps the desk's best move up to date.
struct Report<'a, B: Bits> {
    rules: &'a Rules<B>,
    shared: &'a Shared,
}

impl<B: Bits> Reporter<B> for Report<'_, B> {
    fn iteration(&mut self, info: &Info<B>) {
        let v = self.rules.variant();
        let mut state = self.shared.lock();
        let Some(search) = state.live_search() else {
            return;
        };
        if let Some(best) = info.pv.first() {
            search.best = Some(write_move(v, best));
            search.ponder = info.pv.get(1).map(|m| write_move(v, m));
        }
        state.say(&info_response(
            self.rules,
            info.depth,
            search_score(info.score.kind(), info.score.0),
            info.nodes,
            info.elapsed,
            &info.pv,
        ));
    }

    fn root_moves(&mut self, moves: &[Move<B>]) {
        let v = self.rules.variant();
        let mut state = self.shared.lock();
        if let Some(search) = state.live_search() {
            if search.best.is_none() {
                search.best = moves.first().map(|m| write_move(v, m));
            }
        }
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

#[cfg(test)]
mod tests {
    /// The protocol refuses `level depth=` past its maximum; it must be the engine's.
    #[test]
    fn the_deepest_level_is_the_engines_deepest_search() {
        assert_eq!(damspel_protocol::hub::MAX_DEPTH, damspel_engine::MAX_DEPTH);
    }
}
