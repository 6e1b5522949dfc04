//! Timing `Rules::moves` with a cap: a watchdog thread raises the stop flag of the running
//! evaluation once its deadline passes, so one bad candidate cannot stall the search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use damspel_rules::{Bits, Duplicates, Move, Position, Rules};

/// The running evaluation's deadline and stop flag (a fresh flag per evaluation, so a late
/// wake-up of the watchdog can never stop the next one).
type Armed = Mutex<Option<(Instant, Arc<AtomicBool>)>>;

pub struct Watchdog {
    armed: Arc<Armed>,
}

impl Watchdog {
    pub fn start() -> Watchdog {
        let armed: Arc<Armed> = Arc::default();
        let watched = Arc::clone(&armed);
        // Detached: it sleeps in 1 ms steps for as long as the program runs.
        thread::spawn(move || loop {
            thread::sleep(Duration::from_millis(1));
            let guard = watched.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((deadline, flag)) = guard.as_ref() {
                if Instant::now() >= *deadline {
                    flag.store(true, Ordering::Relaxed);
                }
            }
        });
        Watchdog { armed }
    }

    /// Runs `f` with a stop flag that is raised after `cap`.
    pub fn run<T>(&self, cap: Duration, f: impl FnOnce(&AtomicBool) -> T) -> T {
        let flag = Arc::new(AtomicBool::new(false));
        *self.armed.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((Instant::now() + cap, Arc::clone(&flag)));
        let out = f(&flag);
        *self.armed.lock().unwrap_or_else(|e| e.into_inner()) = None;
        out
    }
}

/// One timed generation of the distinct legal moves.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub seconds: f64,
    /// False when the cap stopped it (then `seconds` is about the cap).
    pub complete: bool,
    pub moves: usize,
}

/// Times `legal_moves_until(.., Duplicates::Merge, ..)`, the work of `Rules::moves`.
pub fn time_moves<B: Bits>(
    watchdog: &Watchdog,
    rules: &Rules<B>,
    pos: &Position<B>,
    list: &mut Vec<Move<B>>,
    cap: Duration,
) -> Timing {
    watchdog.run(cap, |stop| {
        let started = Instant::now();
        let result = rules.legal_moves_until(pos, list, Duplicates::Merge, stop);
        Timing {
            seconds: started.elapsed().as_secs_f64(),
            complete: result.is_ok(),
            moves: list.len(),
        }
    })
}

/// The cost the search ranks by. A cheap position is timed over batches of runs that take some
/// 50 µs each (the fastest batch's mean), so that the climb is not led by the timer's noise; a
/// slow one (or one the cap stopped) is timed once.
pub fn cost<B: Bits>(
    watchdog: &Watchdog,
    rules: &Rules<B>,
    pos: &Position<B>,
    list: &mut Vec<Move<B>>,
    cap: Duration,
) -> Timing {
    const BATCH: f64 = 50e-6;
    let first = time_moves(watchdog, rules, pos, list, cap);
    if !first.complete || first.seconds > BATCH {
        return first;
    }
    let runs = ((BATCH / first.seconds.max(1e-8)) as u32).clamp(1, 2000);
    let mut best = first.seconds;
    for _ in 0..2 {
        let started = Instant::now();
        for _ in 0..runs {
            // No cap needed: each run took under 50 µs.
            rules.legal_moves(pos, list, Duplicates::Merge);
        }
        best = best.min(started.elapsed().as_secs_f64() / f64::from(runs));
    }
    Timing {
        seconds: best,
        ..first
    }
}

/// The median of `runs` runs (fewer when a run takes over `slow` seconds: a few runs of a slow
/// position are enough), for the table. Stops at the first run the cap stops.
pub fn median<B: Bits>(
    watchdog: &Watchdog,
    rules: &Rules<B>,
    pos: &Position<B>,
    runs: usize,
    cap: Duration,
    slow: f64,
) -> Timing {
    let mut list = Vec::new();
    let mut times = Vec::new();
    let mut last = None;
    for i in 0..runs.max(1) {
        let t = time_moves(watchdog, rules, pos, &mut list, cap);
        if !t.complete {
            return t;
        }
        times.push(t.seconds);
        last = Some(t);
        if t.seconds > slow && i >= 2 {
            break;
        }
        if t.seconds > 10.0 * slow {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    Timing {
        seconds: times[times.len() / 2],
        ..last.expect("at least one run")
    }
}
