//! The search: iterative deepening alpha-beta with principal variation search, aspiration
//! windows, a shared lock-free transposition table, quiescence over captures, hash/killer/history
//! move ordering, late move reductions and single-reply extensions. It knows repetition and the
//! variant's draw rules. It reports through `Reporter` and never prints.

mod limits;
mod tables;
mod worker;

pub use limits::{Clock, Limits};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use damspel_rules::{Bits, Game, Move, Rules};
use damspel_tablebase::Tablebase;

use crate::eval::{Evaluator, Weights};
use crate::score::Score;
use crate::tt::{Table, TableError};
use tables::{Root, Tables};
use worker::{Buffers, Worker};

/// The deepest iteration.
pub const MAX_DEPTH: u32 = 64;

/// The most lines a MultiPV search finds.
pub const MAX_MULTIPV: usize = 16;

/// The most search threads an engine runs (more only share the same cores and memory).
pub const MAX_THREADS: usize = 256;

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

/// One line of a MultiPV search: its score and moves (the first is the root move).
#[derive(Clone, Debug)]
pub struct PvLine<B: Bits> {
    pub score: Score,
    pub pv: Vec<Move<B>>,
}

/// Receives the search's progress.
pub trait Reporter<B: Bits> {
    fn iteration(&mut self, info: &Info<B>);

    /// With [`Engine::set_multipv`] above 1: the best lines of each completed iteration, best
    /// first (called just before `iteration`, whose PV is the first line's).
    fn lines(&mut self, _depth: u32, _lines: &[PvLine<B>]) {}

    /// The root's legal moves, all of them, once generated (before the first iteration); when
    /// the endgame tables leave only some to the search (the drawing ones of a drawn root),
    /// those come first. A caller that must answer before the search ends can play the first.
    fn root_moves(&mut self, _moves: &[Move<B>]) {}
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
    multipv: usize,
    stop: Arc<AtomicBool>,
    tables: Option<Arc<Tables<B>>>,
}

impl<B: Bits> Engine<B> {
    /// An engine with the variant's own weights and a table of `hash_mb` MiB, for sizes the
    /// program chose (if even that cannot be had, it searches with a table of one bucket). A
    /// size a user asked for goes through [`Engine::try_new`], which reports failure.
    pub fn new(rules: Arc<Rules<B>>, hash_mb: usize) -> Engine<B> {
        let weights = Weights::for_variant(rules.variant());
        Engine::with_weights(rules, weights, hash_mb)
    }

    /// Like [`Engine::new`] with these weights.
    pub fn with_weights(rules: Arc<Rules<B>>, weights: Weights, hash_mb: usize) -> Engine<B> {
        let table = Table::new(hash_mb).unwrap_or_else(|_| Table::tiny());
        Engine::build(rules, weights, table)
    }

    /// An engine with a table of exactly `hash_mb` MiB (rounded down to a power of two), or why
    /// not: out of [`crate::HASH_MB_RANGE`] or not enough memory.
    pub fn try_new(rules: Arc<Rules<B>>, hash_mb: usize) -> Result<Engine<B>, TableError> {
        let weights = Weights::for_variant(rules.variant());
        Engine::try_with_weights(rules, weights, hash_mb)
    }

    pub fn try_with_weights(
        rules: Arc<Rules<B>>,
        weights: Weights,
        hash_mb: usize,
    ) -> Result<Engine<B>, TableError> {
        Ok(Engine::build(rules, weights, Table::new(hash_mb)?))
    }

    fn build(rules: Arc<Rules<B>>, weights: Weights, table: Table) -> Engine<B> {
        let eval = Arc::new(Evaluator::new(&rules, weights));
        Engine {
            rules,
            eval,
            tt: Arc::new(table),
            threads: 1,
            multipv: 1,
            stop: Arc::new(AtomicBool::new(false)),
            tables: None,
        }
    }

    /// Replaces the table by one of `hash_mb` MiB; on failure the old table stays. The old one
    /// is freed first when the new one would not fit beside it.
    pub fn set_hash(&mut self, hash_mb: usize) -> Result<(), TableError> {
        match Table::new(hash_mb) {
            Ok(t) => {
                self.tt = Arc::new(t);
                Ok(())
            }
            Err(TableError::NoMemory(_)) => {
                let old = self.tt.megabytes().max(1);
                self.tt = Arc::new(Table::tiny());
                match Table::new(hash_mb) {
                    Ok(t) => {
                        self.tt = Arc::new(t);
                        Ok(())
                    }
                    Err(e) => {
                        self.tt = Arc::new(Table::new(old).unwrap_or_else(|_| Table::tiny()));
                        Err(e)
                    }
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The table's size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.tt.megabytes()
    }

    pub fn rules(&self) -> &Arc<Rules<B>> {
        &self.rules
    }

    pub fn evaluator(&self) -> &Evaluator<B> {
        &self.eval
    }

    /// Search threads (1 by default, at most [`MAX_THREADS`]; other values are brought into
    /// that range). With one thread and a depth limit, results repeat exactly.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// How many lines each iteration finds (MultiPV; 1 by default, at most [`MAX_MULTIPV`]):
    /// line k is the best root move not in lines 1..k, reported through [`Reporter::lines`].
    /// With 1 the search is the ordinary one, at its full speed.
    pub fn set_multipv(&mut self, lines: usize) {
        self.multipv = lines.clamp(1, MAX_MULTIPV);
    }

    pub fn multipv(&self) -> usize {
        self.multipv
    }

    /// Endgame tables to probe (None: none, the default). In a position within them the root
    /// move comes from the tables (the fastest win, the longest resistance, or the search's
    /// choice among the drawing moves), and the search scores positions within them exactly.
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase<B>>>) {
        self.tables = tb.map(|tb| Arc::new(Tables::new(tb)));
    }

    pub fn tablebase(&self) -> Option<&Arc<Tablebase<B>>> {
        self.tables.as_ref().map(|t| &t.tb)
    }

    /// Setting this flag stops the running search, which still returns its best move (a flag
    /// raised between searches stops the next one at once; each search lowers it when done).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Forgets everything learnt (a new game).
    pub fn new_game(&mut self) {
        Table::clear(&mut self.tt);
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
        let root = *game.position();
        let mut root_only = Vec::new();
        if let Some(tables) = &self.tables {
            match tables.root(&self.rules, &root) {
                Root::Search => {}
                Root::Draw(moves) => root_only = moves,
                Root::Decided(lines) => {
                    return self.decided(lines, start, limits.infinite, reporter);
                }
            }
        }
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
            multipv: self.multipv,
            tables: self.tables.clone(),
            root_only,
        };
        let result = std::thread::scope(|scope| {
            // The clock is watched by its own thread, which raises the stop flag at the hard
            // deadline: every node checks the flag, so a search stops within one node (one move
            // generation) of its deadline however slow its nodes are or however many threads
            // share the cores. The thread ends when `finished` is dropped.
            let (finished, ended) = mpsc::channel::<()>();
            if let Some(deadline) = context.hard_deadline {
                let stop = context.stop.clone();
                let _ = std::thread::Builder::new()
                    .name("search clock".into())
                    .spawn_scoped(scope, move || {
                        let wait = deadline.saturating_duration_since(Instant::now());
                        if let Err(mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(wait) {
                            stop.store(true, Ordering::Relaxed);
                        }
                    });
            }
            // Helpers wait at a gate until all are started: running helpers would otherwise
            // take the cores from the thread that starts the others. Helpers the system refuses
            // are simply not there, and none is started once the search is stopped.
            let gate = Arc::new((Mutex::new(false), Condvar::new()));
            let helpers: Vec<_> = (1..self.threads)
                .map_while(|id| {
                    if context.stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    let context = context.clone();
                    let buffers = Buffers::new(&context);
                    let gate = gate.clone();
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || {
                            let (open, opened) = &*gate;
                            let mut is_open = open.lock().unwrap_or_else(|e| e.into_inner());
                            while !*is_open {
                                is_open = opened.wait(is_open).unwrap_or_else(|e| e.into_inner());
                            }
                            drop(is_open);
                            let mut worker = Worker::new(&context, id, buffers);
                            worker.iterate(&root, &mut Silent);
                        })
                        .ok()
                })
                .collect();
            *gate.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            gate.1.notify_all();
            let mut main = Worker::new(&context, 0, Buffers::new(&context));
            let result = main.iterate(&root, reporter);
            // The helpers stop when the main thread does.
            context.stop.store(true, Ordering::Relaxed);
            drop(finished);
            for helper in helpers {
                let _ = helper.join();
            }
            result
        });
        self.stop.store(false, Ordering::Relaxed);
        result
    }

    /// The result of a root the tables decide, reported like a search's (one iteration; the
    /// lines for MultiPV). An analysis still runs until it is stopped.
    fn decided(
        &mut self,
        lines: Vec<PvLine<B>>,
        start: Instant,
        infinite: bool,
        reporter: &mut dyn Reporter<B>,
    ) -> SearchResult<B> {
        let moves: Vec<Move<B>> = lines.iter().filter_map(|l| l.pv.first().copied()).collect();
        reporter.root_moves(&moves);
        let best = &lines[0];
        let depth = best.pv.len() as u32;
        if self.multipv > 1 {
            reporter.lines(depth, &lines[..self.multipv.min(lines.len())]);
        }
        let info = Info {
            depth,
            seldepth: depth,
            score: best.score,
            nodes: 0,
            elapsed: start.elapsed(),
            pv: best.pv.clone(),
        };
        reporter.iteration(&info);
        if infinite {
            while !self.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.stop.store(false, Ordering::Relaxed);
        SearchResult {
            best: best.pv.first().copied(),
            ponder: best.pv.get(1).copied(),
            score: best.score,
            depth,
            nodes: 0,
            elapsed: start.elapsed(),
            pv: best.pv.clone(),
        }
    }
}
