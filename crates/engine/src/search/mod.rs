//! The search: iterative deepening alpha-beta with principal variation search, aspiration
//! windows, a shared lock-free transposition table, quiescence over captures, hash/killer/history
//! move ordering, late move reductions and single-reply extensions. It knows repetition and the
//! variant's draw rules. It reports through `Reporter` and never prints.

mod limits;
mod worker;

pub use limits::{Clock, Limits};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_rules::{Bits, Game, Move, Rules};

use crate::eval::{Evaluator, Weights};
use crate::score::Score;
use crate::tt::Table;
use worker::Worker;

/// The deepest iteration.
pub const MAX_DEPTH: u32 = 64;

/// What one iteration found.
#[derive(Clone, Debug)]
pub struct Info<B: Bits> {
    pub depth: u32,
    /// The deepest ply reached, quiescence included.
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Move<B>>,
}

impl<B: Bits> Info<B> {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// Receives the search's progress.
pub trait Reporter<B: Bits> {
    fn iteration(&mut self, info: &Info<B>);
}

impl<B: Bits, F: FnMut(&Info<B>)> Reporter<B> for F {
    fn iteration(&mut self, info: &Info<B>) {
        self(info)
    }
}

/// A reporter that ignores everything.
pub struct Silent;

impl<B: Bits> Reporter<B> for Silent {
    fn iteration(&mut self, _: &Info<B>) {}
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult<B: Bits> {
    /// None only when the position has no legal move.
    pub best: Option<Move<B>>,
    pub ponder: Option<Move<B>>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Move<B>>,
}

/// An engine for one variant: rules, evaluation, transposition table, threads.
pub struct Engine<B: Bits> {
    rules: Arc<Rules<B>>,
    eval: Arc<Evaluator<B>>,
    tt: Arc<Table>,
    threads: usize,
    stop: Arc<AtomicBool>,
}

impl<B: Bits> Engine<B> {
    /// An engine with the variant's own weights and a table of `hash_mb` MiB.
    pub fn new(rules: Arc<Rules<B>>, hash_mb: usize) -> Engine<B> {
        let weights = Weights::for_variant(rules.variant());
        Engine::with_weights(rules, weights, hash_mb)
    }

    pub fn with_weights(rules: Arc<Rules<B>>, weights: Weights, hash_mb: usize) -> Engine<B> {
        let eval = Arc::new(Evaluator::new(&rules, weights));
        Engine {
            rules,
            eval,
            tt: Arc::new(Table::new(hash_mb)),
            threads: 1,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn rules(&self) -> &Arc<Rules<B>> {
        &self.rules
    }

    pub fn evaluator(&self) -> &Evaluator<B> {
        &self.eval
    }

    /// Search threads (1 by default). With one thread and a depth limit, results repeat exactly.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Setting this flag stops the running search, which still returns its best move (a flag
    /// raised between searches stops the next one at once; each search lowers it when done).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Forgets everything learnt (a new game).
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Searches the game's current position.
    pub fn search(
        &mut self,
        game: &Game<B>,
        limits: &Limits,
        reporter: &mut dyn Reporter<B>,
    ) -> SearchResult<B> {
        // A stop raised before the search starts is kept (it stops this search at once); the
        // flag is lowered when the search is over.
        self.tt.next_age();
        let start = Instant::now();
        let (soft, hard) = limits.budget();
        let context = worker::Context {
            rules: self.rules.clone(),
            eval: self.eval.clone(),
            tt: self.tt.clone(),
            stop: self.stop.clone(),
            start,
            hard_deadline: hard.map(|h| start + h),
            soft_limit: soft,
            node_limit: limits.nodes,
            max_depth: limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH),
            history: game.reversible_hashes(),
            king_only: game.king_only_plies(),
            since_capture: game.plies_since_capture(),
            endgame: game.endgame_plies(),
            infinite: limits.infinite,
        };
        let root = *game.position();
        let result = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|id| {
                    let context = context.clone();
                    scope.spawn(move || {
                        let mut worker = Worker::new(&context, id);
                        worker.iterate(&root, &mut Silent);
                    })
                })
                .collect();
            let mut main = Worker::new(&context, 0);
            let result = main.iterate(&root, reporter);
            // The helpers stop when the main thread does.
            context.stop.store(true, Ordering::Relaxed);
            for helper in helpers {
                let _ = helper.join();
            }
            result
        });
        self.stop.store(false, Ordering::Relaxed);
        result
    }
}
