//! What the desk and the engine side share: standard output and the few facts that decide
//! which of them writes `pong` and `done`. Both live behind one lock, so a line is queued and
//! the state that decides it changes in one step. A writer thread of its own writes the queued
//! lines: no thread holds the lock across a system call, so a thread preempted while holding
//! it (hundreds of search threads share two cores) holds it for a few instructions at most.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use damspel_protocol::hub::Response;

pub(super) struct Shared {
    state: Mutex<State>,
    /// Lines the writer thread has written out (none where lines go to a channel).
    written: Option<Arc<AtomicU64>>,
}

pub(super) struct State {
    /// Lines for the writer thread.
    out: Sender<String>,
    /// Messages handed to the engine side and not yet handled: while there are some, a `ping`
    /// waits for them (so it follows their answers) but not for long.
    pub in_flight: usize,
    /// The highest ping number answered.
    pub pongs: u64,
    /// `go` commands handed to the engine side, and `done` lines written for them.
    pub gos: u64,
    pub dones: u64,
    /// `done` lines the desk wrote before the engine side could: the engine side's next ones
    /// are not written.
    pub skip_dones: u64,
    /// When the desk answers the `go` that a `stop` is for, if nobody has by then.
    pub stop_answer_at: Option<Instant>,
    /// The search running (or answered by the desk and still running).
    pub search: Option<Search>,
    /// `quit` or the end of input came: a search is stopped as it starts.
    pub quitting: bool,
    /// Lines queued for standard output.
    said: u64,
}

/// A running search, as the desk sees it.
pub(super) struct Search {
    pub stop: Arc<AtomicBool>,
    /// When the desk raises the stop flag (after `ponder-hit`).
    pub stop_at: Option<Instant>,
    /// When the desk answers `done` itself if the search has not (its time and a little).
    pub answer_at: Option<Instant>,
    /// A ponder search waiting for `ponder-hit`, and the think time it then has.
    pub pondering: bool,
    pub think: Option<std::time::Duration>,
    /// The best move known so far and the expected answer, in Hub notation.
    pub best: Option<String>,
    pub ponder: Option<String>,
    /// `done` has been written for it.
    pub answered: bool,
}

impl Search {
    pub fn raise_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl State {
    /// Queues one line for standard output.
    pub fn say(&mut self, response: &Response) {
        // The writer only ends with the program.
        let _ = self.out.send(response.to_string());
        self.said += 1;
    }

    /// Answers ping number `id` unless it was answered.
    pub fn pong(&mut self, id: u64) {
        if self.pongs < id {
            self.pongs = id;
            self.say(&Response::Pong);
        }
    }

    /// A `done` from the engine side: written unless the desk wrote it already. It ends the
    /// search the desk knows of.
    pub fn done(&mut self, response: &Response) {
        self.search = None;
        if self.skip_dones > 0 {
            // The desk answered this search already, so a stop waiting for its answer is for a
            // later `go` (sent while this search ran on past its time): it must still end that
            // one.
            self.skip_dones -= 1;
        } else {
            self.stop_answer_at = None;
            self.dones += 1;
            self.say(response);
        }
    }

    /// The desk answers the oldest `go` now: with the running search's best move so far, or
    /// without a move if none is known yet (the search has not finished generating the root's
    /// moves, or has not started).
    pub fn answer_now(&mut self) {
        let (mv, ponder) = match self.search.as_mut() {
            Some(s) if !s.answered => {
                s.answered = true;
                s.raise_stop();
                (s.best.clone(), s.best.as_ref().and(s.ponder.clone()))
            }
            _ => (None, None),
        };
        if mv.is_none() {
            self.say(&Response::Error(
                "no move known yet: the engine is still busy with earlier work".into(),
            ));
        }
        self.say(&Response::Done { mv, ponder });
        self.dones += 1;
        self.skip_dones += 1;
        self.stop_answer_at = None;
    }

    /// A `go` is waiting for its `done`.
    pub fn owes_done(&self) -> bool {
        self.gos > self.dones
    }

    /// The running search, unless it has been answered.
    pub fn live_search(&mut self) -> Option<&mut Search> {
        self.search.as_mut().filter(|s| !s.answered)
    }
}

impl Shared {
    /// The shared state and the thread that writes standard output (if the GUI has gone, the
    /// engine quits).
    pub fn new() -> Shared {
        let (out, lines) = mpsc::channel::<String>();
        let written = Arc::new(AtomicU64::new(0));
        let count = written.clone();
        std::thread::spawn(move || {
            let stdout = io::stdout();
            for line in lines {
                let mut out = stdout.lock();
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    std::process::exit(0);
                }
                count.fetch_add(1, Ordering::Release);
            }
        });
        Shared {
            written: Some(written),
            ..Shared::writing_to(out)
        }
    }

    /// The shared state, its lines going to `out`.
    pub fn writing_to(out: Sender<String>) -> Shared {
        Shared {
            state: Mutex::new(State {
                out,
                in_flight: 0,
                pongs: 0,
                gos: 0,
                dones: 0,
                skip_dones: 0,
                stop_answer_at: None,
                search: None,
                quitting: false,
                said: 0,
            }),
            written: None,
        }
    }

    /// Whether every line queued has been written out (`state` is this one's, locked).
    pub fn all_written(&self, state: &State) -> bool {
        self.written
            .as_ref()
            .is_none_or(|w| w.load(Ordering::Acquire) >= state.said)
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock (there is no code that can) leaves the state usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn say(&self, response: &Response) {
        self.lock().say(response);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A search that ran on past its time was answered by the desk; a `go` and then a `stop`
    /// came before it ended. Its late `done` from the engine side is not written, and the stop
    /// still waits for the second `go` (it once ended with it, and the next search, an analysis,
    /// then ran until the GUI gave up).
    #[test]
    fn a_late_done_leaves_the_stop_of_the_next_go() {
        let (out, lines) = mpsc::channel();
        let shared = Shared::writing_to(out);
        let mut state = shared.lock();
        state.gos = 1;
        state.answer_now();
        assert_eq!(state.skip_dones, 1);
        // The second `go`, then its `stop`.
        state.gos = 2;
        assert!(state.owes_done());
        let at = Instant::now() + Duration::from_millis(10);
        state.stop_answer_at = Some(at);
        // The first search's own `done` arrives.
        state.done(&Response::Done {
            mv: Some("32-28".into()),
            ponder: None,
        });
        assert_eq!(
            state.stop_answer_at,
            Some(at),
            "the second go's stop is kept"
        );
        assert!(state.owes_done(), "the second go is still owed its done");
        drop(state);
        let written: Vec<String> = lines.try_iter().collect();
        assert_eq!(
            written.iter().filter(|l| l.starts_with("done")).count(),
            1,
            "{written:?}"
        );
    }
}
