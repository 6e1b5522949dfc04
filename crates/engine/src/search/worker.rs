//! One search thread: iterative deepening over the alpha-beta search. The main thread (id 0)
//! reports and decides; helper threads (Lazy SMP) only fill the shared table.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_rules::game::{endgame_limit, endgame_plies_after};
use damspel_rules::{Bits, Duplicates, Move, Position, Rules};

use super::tables::Tables;
use super::{Info, PvLine, Reporter, SearchResult};
use crate::eval::Evaluator;
use crate::score::Score;
use crate::tt::{Bound, Entry, Table};

/// The deepest ply a search path may reach (extensions and quiescence included).
const MAX_PLY: usize = 128;

#[derive(Clone)]
pub(super) struct Context<B: Bits> {
    pub rules: Arc<Rules<B>>,
    pub eval: Arc<Evaluator<B>>,
    pub tt: Arc<Table>,
    pub stop: Arc<AtomicBool>,
    pub start: Instant,
    pub hard_deadline: Option<Instant>,
    pub soft_limit: Option<Duration>,
    pub node_limit: Option<u64>,
    pub max_depth: u32,
    /// Hashes of the game's positions since the last capture, ending with the root.
    pub history: Vec<u64>,
    pub king_only: u32,
    pub since_capture: u32,
    /// Plies since the material of an FMJD endgame limit was reached.
    pub endgame: u32,
    pub infinite: bool,
    /// Lines the main thread finds at each depth (1: the ordinary search).
    pub multipv: usize,
    /// Endgame tables probed inside the search.
    pub tables: Option<Arc<Tables<B>>>,
    /// The root moves searched, when the tables allow only some (the drawing moves of a drawn
    /// position); empty: all.
    pub root_only: Vec<Move<B>>,
}

pub(super) struct Worker<'a, B: Bits> {
    ctx: &'a Context<B>,
    rules: &'a Rules<B>,
    eval: &'a Evaluator<B>,
    id: usize,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    /// Position hashes along the game and the current path (for repetitions).
    hashes: Vec<u64>,
    lists: Vec<Vec<Move<B>>>,
    scores: Vec<Vec<i32>>,
    killers: Vec<[(u8, u8); 2]>,
    /// History heuristic by side, from and to.
    history: Vec<i32>,
    pv: Vec<Vec<Move<B>>>,
    /// Root moves the current root search leaves out (the lines already found, for MultiPV).
    excluded: Vec<Move<B>>,
}

/// Draw-rule counters along a path.
#[derive(Clone, Copy)]
struct Counters {
    king_only: u32,
    since_capture: u32,
    endgame: u32,
}

/// A worker's memory, allocated by the thread that starts the search: hundreds of helpers
/// allocating at once would contend for the allocator and the address space, and stall every
/// other thread of the program (the Hub's, which must answer at once) while they start.
pub(super) struct Buffers<B: Bits> {
    hashes: Vec<u64>,
    lists: Vec<Vec<Move<B>>>,
    scores: Vec<Vec<i32>>,
    killers: Vec<[(u8, u8); 2]>,
    history: Vec<i32>,
    pv: Vec<Vec<Move<B>>>,
}

impl<B: Bits> Buffers<B> {
    pub fn new(ctx: &Context<B>) -> Buffers<B> {
        Buffers {
            hashes: ctx.history.clone(),
            lists: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            scores: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            killers: vec![[(u8::MAX, u8::MAX); 2]; MAX_PLY + 1],
            history: vec![0; 2 * 128 * 128],
            pv: (0..MAX_PLY + 1).map(|_| Vec::new()).collect(),
        }
    }
}

impl<'a, B: Bits> Worker<'a, B> {
    pub fn new(ctx: &'a Context<B>, id: usize, buffers: Buffers<B>) -> Worker<'a, B> {
        let Buffers {
            hashes,
            lists,
            scores,
            killers,
            history,
            pv,
        } = buffers;
        Worker {
            ctx,
            rules: &ctx.rules,
            eval: &ctx.eval,
            id,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            hashes,
            lists,
            scores,
            killers,
            history,
            pv,
            excluded: Vec::new(),
        }
    }

    /// Iterative deepening from the root.
    pub fn iterate(
        &mut self,
        root: &Position<B>,
        reporter: &mut dyn Reporter<B>,
    ) -> SearchResult<B> {
        let mut moves = Vec::new();
        self.rules.legal_moves(root, &mut moves, Duplicates::Merge);
        // The moves the tables leave to the search come first, in move order (a caller may
        // play the first); the report tells every legal move (a caller names moves among them
        // and counts them), the search keeps the first `searched`.
        let root_only = &self.ctx.root_only;
        let searched = if root_only.is_empty() {
            moves.len()
        } else {
            moves.sort_by_key(|m| !root_only.contains(m));
            moves.iter().filter(|m| root_only.contains(m)).count()
        };
        if self.id == 0 {
            reporter.root_moves(&moves);
        }
        moves.truncate(searched);
        let mut result = SearchResult {
            best: moves.first().copied(),
            ponder: None,
            score: Score::ZERO,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: moves.first().copied().into_iter().collect(),
        };
        if moves.is_empty() {
            result.score = Score::loss_in(0);
            return result;
        }
        let counters = Counters {
            king_only: self.ctx.king_only,
            since_capture: self.ctx.since_capture,
            endgame: self.ctx.endgame,
        };
        let mut score = Score::ZERO;
        // Helpers start one ply deeper to spread the work.
        let first = 1 + (self.id % 2) as u32;
        // The main thread finds this many lines; helpers only fill the table.
        let lines = if self.id == 0 {
            self.ctx.multipv.clamp(1, moves.len())
        } else {
            1
        };
        let mut previous: Vec<PvLine<B>> = Vec::new();
        for depth in first..=self.ctx.max_depth {
            self.seldepth = 0;
            let s = self.aspiration(root, depth as i32, score, counters);
            if self.aborted {
                break;
            }
            score = s;
            if lines > 1 {
                let mut found = vec![PvLine {
                    score: s,
                    pv: self.pv[0].clone(),
                }];
                // Each further line is the best root move not yet in a line.
                while found.len() < lines {
                    self.excluded = found.iter().filter_map(|l| l.pv.first().copied()).collect();
                    let hint = previous.get(found.len()).map_or(s, |l| l.score);
                    let s = self.aspiration(root, depth as i32, hint, counters);
                    if self.aborted {
                        break;
                    }
                    found.push(PvLine {
                        score: s,
                        pv: self.pv[0].clone(),
                    });
                }
                self.excluded.clear();
                if self.aborted {
                    break;
                }
                // A later line may score above an earlier one (aspiration and reductions
                // are not exact); the lines are shown best first.
                found.sort_by_key(|l| std::cmp::Reverse(l.score));
                score = found[0].score;
                self.pv[0] = found[0].pv.clone();
                reporter.lines(depth, &found);
                previous = found;
            }
            if self.id == 0 {
                let pv = self.pv[0].clone();
                result.best = pv.first().copied().or(result.best);
                result.ponder = pv.get(1).copied();
                result.score = score;
                result.depth = depth;
                result.pv = pv.clone();
                let info = Info {
                    depth,
                    seldepth: self.seldepth as u32,
                    score,
                    nodes: self.nodes,
                    elapsed: self.ctx.start.elapsed(),
                    pv,
                };
                reporter.iteration(&info);
                // One legal move, or a forced result found: no need to look further.
                if !self.ctx.infinite
                    && (moves.len() == 1 && self.ctx.soft_limit.is_some()
                        || score.plies_to_result().is_some_and(|n| n <= depth))
                {
                    break;
                }
                if let Some(soft) = self.ctx.soft_limit {
                    if !self.ctx.infinite && self.ctx.start.elapsed() >= soft {
                        break;
                    }
                }
            }
            if self.ctx.stop.load(Ordering::Relaxed) {
                break;
            }
        }
        if self.id == 0 && self.ctx.infinite {
            // Analysis ends only when told to.
            while !self.ctx.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        result.nodes = self.nodes;
        result.elapsed = self.ctx.start.elapsed();
        result
    }

    fn aspiration(
        &mut self,
        root: &Position<B>,
        depth: i32,
        previous: Score,
        c: Counters,
    ) -> Score {
        if depth < 4 || previous.is_decisive() {
            return self.alphabeta(root, depth, -Score::INFINITE, Score::INFINITE, 0, c);
        }
        let mut window = 35;
        loop {
            let alpha = Score((previous.0 - window).max(-Score::INFINITE.0));
            let beta = Score((previous.0 + window).min(Score::INFINITE.0));
            let s = self.alphabeta(root, depth, alpha, beta, 0, c);
            if self.aborted || (s > alpha && s < beta) {
                return s;
            }
            if window > 1000 {
                return self.alphabeta(root, depth, -Score::INFINITE, Score::INFINITE, 0, c);
            }
            window *= 4;
        }
    }

    /// Whether to stop now. The flag is read at every node (a relaxed load of a line no one
    /// writes costs nothing): the clock thread, a helper or the caller may have raised it. The
    /// main thread also reads the clock every 1024 nodes, in case the clock thread could not
    /// be started.
    fn should_stop(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.ctx.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        } else if self.id == 0
            && (self.ctx.node_limit.is_some_and(|n| self.nodes >= n)
                || (self.nodes & 1023 == 0
                    && self.ctx.hard_deadline.is_some_and(|d| Instant::now() >= d)))
        {
            self.aborted = true;
            self.ctx.stop.store(true, Ordering::Relaxed);
        }
        self.aborted
    }

    /// A draw by the variant's rules or by repetition along the path (a first repetition is
    /// scored as a draw: the side that repeats could not do better).
    fn is_draw(&self, pos: &Position<B>, ply: usize, c: Counters) -> bool {
        let draw = &self.rules.variant().draw;
        let white = pos.pieces(damspel_rules::Color::White).count();
        let black = pos.pieces(damspel_rules::Color::Black).count();
        if draw.one_piece_each && white == 1 && black == 1 {
            return true;
        }
        if draw.no_progress_moves > 0 && c.king_only >= 2 * draw.no_progress_moves {
            return true;
        }
        if let Some(limit) = endgame_limit(draw, pos) {
            if limit.reached(c.endgame, pos.side_to_move()) {
                return true;
            }
        }
        if ply > 0 {
            let n = self.hashes.len();
            let reach = (c.since_capture as usize).min(n - 1);
            let mut i = 2;
            while i <= reach {
                if self.hashes[n - 1 - i] == pos.hash() {
                    return true;
                }
                i += 2;
            }
        }
        false
    }

    fn alphabeta(
        &mut self,
        pos: &Position<B>,
        depth: i32,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        c: Counters,
    ) -> Score {
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 && self.is_draw(pos, ply, c) {
            return Score::DRAW;
        }
        if ply > 0 {
            if let Some(s) = self.ctx.tables.as_ref().and_then(|t| t.score(pos, ply)) {
                self.nodes += 1;
                return s;
            }
        }
        if ply >= MAX_PLY {
            return self.eval.evaluate(self.rules, pos);
        }
        let captures = self.rules.has_capture(pos);
        if depth <= 0 && !captures {
            // Quiet position: stand pat.
            self.nodes += 1;
            if !self.rules.has_legal_move(pos) {
                return Score::loss_in(ply as u32);
            }
            return self.eval.evaluate(self.rules, pos);
        }
        self.nodes += 1;
        if self.should_stop() {
            return Score::ZERO;
        }
        let pv_node = beta.0 - alpha.0 > 1;
        let key = pos.hash();
        // Capture sequences below the horizon are short and many: the table would cost more
        // (a cache miss each) than it saves there.
        let entry = if depth > 0 {
            self.ctx.tt.probe(key)
        } else {
            None
        };
        if let Some(e) = entry {
            if ply > 0 && !pv_node && e.depth >= depth {
                let s = e.score.from_tt(ply as u32);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let mut list = std::mem::take(&mut self.lists[ply]);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        if self
            .rules
            .legal_moves_until(pos, &mut list, Duplicates::Merge, &self.ctx.stop)
            .is_err()
        {
            // Stopped in a long capture walk: the search is over.
            self.aborted = true;
            self.lists[ply] = list;
            self.scores[ply] = scores;
            return Score::ZERO;
        }
        if list.is_empty() {
            self.lists[ply] = list;
            self.scores[ply] = scores;
            return Score::loss_in(ply as u32);
        }
        self.order(pos, &list, &mut scores, entry.and_then(|e| e.best), ply);

        // Forced replies cost nothing to look at more deeply.
        let extension = i32::from(list.len() == 1 && ply < 2 * self.ctx.max_depth as usize);
        let new_depth = depth - 1 + extension;
        let original_alpha = alpha;
        let mut best = -Score::INFINITE;
        let mut best_move = list[0];
        let side = pos.side_to_move().index();
        let mut searched = 0;
        for n in 0..list.len() {
            pick(&mut list, &mut scores, n);
            let mv = list[n];
            if ply == 0
                && (self.excluded.contains(&mv)
                    || !self.ctx.root_only.is_empty() && !self.ctx.root_only.contains(&mv))
            {
                continue;
            }
            searched += 1;
            let child = pos.play(&mv);
            let next = Counters {
                king_only: if mv.is_capture() || !pos.kings(pos.side_to_move()).has(mv.from().0) {
                    0
                } else {
                    c.king_only + 1
                },
                since_capture: if mv.is_capture() {
                    0
                } else {
                    c.since_capture + 1
                },
                endgame: endgame_plies_after(
                    &self.rules.variant().draw,
                    pos,
                    &mv,
                    &child,
                    c.endgame,
                ),
            };
            self.hashes.push(child.hash());
            let quiet = !mv.is_capture() && !mv.promotes();
            let mut score;
            if searched == 1 {
                score = self
                    .alphabeta(&child, new_depth, beta.flip(), alpha.flip(), ply + 1, next)
                    .flip();
            } else {
                // Late quiet moves are searched less deeply first.
                let reduction = if quiet && depth >= 3 && n >= 3 && !captures && extension == 0 {
                    if n >= 8 && depth >= 5 {
                        2
                    } else {
                        1
                    }
                } else {
                    0
                };
                let null = Score(-alpha.0 - 1);
                score = self
                    .alphabeta(
                        &child,
                        new_depth - reduction,
                        null,
                        alpha.flip(),
                        ply + 1,
                        next,
                    )
                    .flip();
                if score > alpha && reduction > 0 {
                    score = self
                        .alphabeta(&child, new_depth, null, alpha.flip(), ply + 1, next)
                        .flip();
                }
                if score > alpha && score < beta {
                    score = self
                        .alphabeta(&child, new_depth, beta.flip(), alpha.flip(), ply + 1, next)
                        .flip();
                }
            }
            self.hashes.pop();
            if self.aborted {
                self.lists[ply] = list;
                self.scores[ply] = scores;
                return Score::ZERO;
            }
            if score > best {
                best = score;
                best_move = mv;
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(mv);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        if quiet {
                            self.reward(side, &mv, depth, ply);
                        }
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        self.scores[ply] = scores;
        // A root search without some moves must not stand in the table for the root.
        if depth > 0 && (ply != 0 || self.excluded.is_empty() && self.ctx.root_only.is_empty()) {
            let bound = if best.0 >= beta.0 {
                Bound::Lower
            } else if best.0 > original_alpha.0 {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.ctx.tt.store(
                key,
                Entry {
                    score: best.to_tt(ply as u32),
                    depth,
                    bound,
                    best: Some((
                        capture_tag(&best_move),
                        best_move.from().0,
                        best_move.to().0,
                    )),
                    age: 0,
                },
            );
        }
        best
    }

    /// Scores the moves for ordering: the table's move, promotions and bigger captures, killers,
    /// then history.
    fn order(
        &self,
        pos: &Position<B>,
        list: &[Move<B>],
        scores: &mut Vec<i32>,
        hash_move: Option<(u8, u8, u8)>,
        ply: usize,
    ) {
        let side = pos.side_to_move().index();
        scores.clear();
        let killers = self.killers[ply];
        for mv in list {
            let (from, to) = (mv.from().0, mv.to().0);
            let score = if hash_move == Some((capture_tag(mv), from, to)) {
                1 << 30
            } else if mv.is_capture() || mv.promotes() {
                (1 << 28)
                    + (mv.captured() & pos.kings(!pos.side_to_move())).count() as i32 * 16
                    + i32::from(mv.promotes()) * 64
            } else if killers[0] == (from, to) {
                1 << 27
            } else if killers[1] == (from, to) {
                (1 << 27) - 1
            } else {
                self.history[(side * 128 + from as usize) * 128 + to as usize]
            };
            scores.push(score);
        }
    }

    fn reward(&mut self, side: usize, mv: &Move<B>, depth: i32, ply: usize) {
        let key = (mv.from().0, mv.to().0);
        let k = &mut self.killers[ply];
        if k[0] != key {
            k[1] = k[0];
            k[0] = key;
        }
        let h = &mut self.history[(side * 128 + key.0 as usize) * 128 + key.1 as usize];
        *h = (*h + depth * depth).min(1 << 26);
    }
}

/// Selection sort, one step: brings the best remaining move to position `n`.
fn pick<B: Bits>(list: &mut [Move<B>], scores: &mut [i32], n: usize) {
    let mut best = n;
    for i in n + 1..scores.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    scores.swap(n, best);
    list.swap(n, best);
}

/// Eight bits of the captured set, to tell apart table moves with the same from and to.
fn capture_tag<B: Bits>(mv: &Move<B>) -> u8 {
    let c = mv.captured().to_u128();
    let folded = c ^ (c >> 64);
    let folded = (folded as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (folded >> 56) as u8 ^ u8::from(mv.promotes())
}
