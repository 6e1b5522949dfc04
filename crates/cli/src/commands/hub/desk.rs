//! The desk: the main thread, which reads the GUI's lines and answers `ping`, `stop` and
//! `quit` within a few milliseconds whatever the engine side is doing. It never generates a
//! move, builds an engine or waits for a search: everything else is handed to the engine side
//! in order.
//!
//! * `quit` and the end of input stop the search and end the program once the commands before
//!   them are answered and written out, or after [`QUIT_GRACE`] ([`EOF_GRACE`]; the search
//!   threads die with it): a script that pipes its commands in gets its answers.
//! * `ping` is answered at once when the engine side has nothing in hand; otherwise it goes
//!   after the commands before it (so its `pong` follows their answers), and the desk answers
//!   it itself if they take longer than [`PING_GRACE`].
//! * `stop` raises the running search's stop flag; if no `done` follows within [`STOP_GRACE`]
//!   (a move generation that takes long, a `go` still behind slow work), the desk answers
//!   `done` with the best move known so far.
//! * A timed search that overruns its time by [`TIME_GRACE`] is answered the same way, and
//!   `ponder-hit` starts the think time of a ponder search.
//! * At most [`MAX_IN_HAND`] commands wait for the engine side: a GUI that sends faster than
//!   the engine works gets an error for each command past that, not an ever longer queue.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use damspel_protocol::hub::{Command, HubError, Response};

use super::shared::Shared;
use super::{EngineEvent, Input};

/// How long a `ping` waits for the commands sent before it.
pub(super) const PING_GRACE: Duration = Duration::from_millis(40);
/// How long a stopped search has to answer before the desk does.
pub(super) const STOP_GRACE: Duration = Duration::from_millis(50);
/// How far a timed search may overrun its time before the desk answers for it.
pub(super) const TIME_GRACE: Duration = Duration::from_millis(50);

/// How long `quit` waits for the answers to the commands before it (a GUI waits for it to end).
pub(super) const QUIT_GRACE: Duration = Duration::from_millis(80);
/// How long the end of input waits for them: nobody waits for the engine to end, and a script
/// piped in may end with an `init` that allocates a big table.
pub(super) const EOF_GRACE: Duration = Duration::from_secs(2);

/// Commands (and pings) the engine side may have in hand at once. A GUI waits for answers
/// long before this; only a runaway sender reaches it.
pub(super) const MAX_IN_HAND: usize = 1024;

/// Runs until `quit` or the end of input.
pub(super) fn run(input: &Receiver<Input>, engine: &Sender<EngineEvent>, shared: &Shared) {
    let mut pings = 0u64;
    // Pings handed to the engine side, with the time the desk answers them itself.
    let mut waiting: VecDeque<(u64, Instant)> = VecDeque::new();
    loop {
        let wake = keep_promises(shared, &mut waiting);
        let received = match wake {
            Some(at) => input.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => input.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        let line = match received {
            Ok(Input::Line(line)) => line,
            Ok(Input::TooLong(limit)) => {
                let error = HubError::new(format!(
                    "line longer than {limit} bytes: ignored (no Hub command is that long)"
                ));
                if shared.lock().in_flight < MAX_IN_HAND {
                    hand_over(shared, engine, EngineEvent::Command(Err(error)));
                } else {
                    shared.say(&Response::Error(error.message));
                }
                continue;
            }
            Err(RecvTimeoutError::Timeout) => continue,
            Ok(Input::Eof) | Err(RecvTimeoutError::Disconnected) => {
                return finish(shared, &mut waiting, EOF_GRACE)
            }
        };
        let command = Command::parse(&line);
        let now = Instant::now();
        let full = shared.lock().in_flight >= MAX_IN_HAND;
        match &command {
            Ok(Command::Quit) => return finish(shared, &mut waiting, QUIT_GRACE),
            Ok(Command::Ping) => {
                pings += 1;
                let mut state = shared.lock();
                if state.in_flight == 0 && waiting.is_empty() {
                    state.pong(pings);
                } else if full {
                    // The engine side's hands are full: the desk answers it after the grace.
                    waiting.push_back((pings, now + PING_GRACE));
                } else {
                    state.in_flight += 1;
                    drop(state);
                    waiting.push_back((pings, now + PING_GRACE));
                    send(engine, EngineEvent::Ping(pings));
                }
                continue;
            }
            Ok(Command::Stop) => {
                let mut state = shared.lock();
                if let Some(search) = state.live_search() {
                    search.raise_stop();
                }
                if state.owes_done() {
                    let at = now + STOP_GRACE;
                    state.stop_answer_at = Some(state.stop_answer_at.map_or(at, |t| t.min(at)));
                }
            }
            Ok(Command::PonderHit) => {
                let mut state = shared.lock();
                if let Some(search) = state.live_search().filter(|s| s.pondering) {
                    search.pondering = false;
                    if let Some(think) = search.think {
                        search.stop_at = Some(now + think);
                        search.answer_at = Some(now + think + TIME_GRACE);
                    }
                }
            }
            _ if full => {
                shared.say(&Response::Error(format!(
                    "{MAX_IN_HAND} commands are waiting for the engine: this one is dropped"
                )));
                continue;
            }
            Ok(Command::Go(_)) => shared.lock().gos += 1,
            _ => {}
        }
        hand_over(shared, engine, EngineEvent::Command(command));
    }
}

/// Stops the search and waits, at most `grace`, until the engine side has answered every
/// command handed to it (a `go` its `done`) and every line is written out.
fn finish(shared: &Shared, waiting: &mut VecDeque<(u64, Instant)>, grace: Duration) {
    let deadline = Instant::now() + grace;
    {
        let mut state = shared.lock();
        state.quitting = true;
        if let Some(search) = state.live_search() {
            search.raise_stop();
        }
    }
    loop {
        keep_promises(shared, waiting);
        {
            let state = shared.lock();
            let answered = state.in_flight == 0 && !state.owes_done();
            if (answered && shared.all_written(&state)) || Instant::now() >= deadline {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn hand_over(shared: &Shared, engine: &Sender<EngineEvent>, event: EngineEvent) {
    shared.lock().in_flight += 1;
    send(engine, event);
}

fn send(engine: &Sender<EngineEvent>, event: EngineEvent) {
    // The engine side only ends with the program.
    let _ = engine.send(event);
}

/// Answers what is due (pings, stops, searches past their time); the next time something will
/// be due.
fn keep_promises(shared: &Shared, waiting: &mut VecDeque<(u64, Instant)>) -> Option<Instant> {
    let now = Instant::now();
    let mut state = shared.lock();
    while let Some(&(id, due)) = waiting.front() {
        if state.pongs >= id {
            waiting.pop_front();
        } else if due <= now {
            state.pong(id);
            waiting.pop_front();
        } else {
            break;
        }
    }
    let mut answer = false;
    if let Some(search) = state.live_search() {
        if search.stop_at.is_some_and(|t| t <= now) {
            search.raise_stop();
            search.stop_at = None;
        }
        answer = search.answer_at.is_some_and(|t| t <= now);
    }
    if state.stop_answer_at.is_some_and(|t| t <= now) {
        if state.owes_done() {
            answer = true;
        } else {
            state.stop_answer_at = None;
        }
    }
    if answer {
        state.answer_now();
    }
    let search = state
        .search
        .as_ref()
        .filter(|s| !s.answered)
        .map(|s| [s.stop_at, s.answer_at]);
    [waiting.front().map(|&(_, due)| due), state.stop_answer_at]
        .into_iter()
        .chain(search.into_iter().flatten())
        .flatten()
        .min()
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    /// An engine side that takes nothing (a slow capture, a long build) while the GUI floods
    /// the engine with commands: the desk keeps at most `MAX_IN_HAND` for it and answers the
    /// rest with an error, and a ping still gets its pong.
    #[test]
    fn a_flood_of_commands_is_bounded_while_the_engine_side_is_busy() {
        let (out, lines) = mpsc::channel();
        let shared = Shared::writing_to(out);
        let (input_tx, input) = mpsc::sync_channel(8);
        let (engine, events) = mpsc::channel();
        let sent = MAX_IN_HAND + 500;
        let reader = std::thread::spawn(move || {
            for _ in 0..sent {
                input_tx
                    .send(Input::Line(
                        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww".into(),
                    ))
                    .unwrap();
            }
            input_tx.send(Input::Line("ping".into())).unwrap();
            // The end of input ends the program at once: give the desk its grace to answer.
            std::thread::sleep(PING_GRACE * 25);
            input_tx.send(Input::Eof).unwrap();
        });
        run(&input, &engine, &shared);
        reader.join().unwrap();
        assert_eq!(
            events.try_iter().count(),
            MAX_IN_HAND,
            "commands handed over"
        );
        let lines: Vec<String> = lines.try_iter().collect();
        let errors = lines.iter().filter(|l| l.starts_with("error")).count();
        assert_eq!(errors, 500, "one error per dropped command");
        assert!(lines.iter().any(|l| l == "pong"), "{:?}", lines.last());
    }
}
