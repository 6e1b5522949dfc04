//! Retrograde analysis of one signature, given the tables of the signatures its captures and
//! promotions lead to.
//!
//! 1. Forward pass (rayon, in chunks): each slot's position, its legal moves (the rules crate
//!    decides them); a move that stays in the signature (a quiet move without promotion) is an
//!    edge to another slot; one that leaves it (a capture, a promotion) is looked up in the
//!    table it leads to and folded into three numbers: the fastest win it offers, whether it
//!    offers a draw, the longest loss. No legal move: lost now. One piece each where the
//!    variant draws it: drawn (after the no-move check, as `Game::outcome` orders them).
//! 2. The edges reversed (counting sort), then positions settled in order of distance with a
//!    bucket queue: a position lost in d makes its predecessors won in d + 1 (the first bucket
//!    a position is taken from holds its fastest win); a position won in d counts down its
//!    predecessors' open moves, and one with no open move, no drawing and no winning exit is
//!    lost in 1 + its longest successor. What is never settled is a draw.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use damspel_rules::{Bits, Color, Duplicates, Position, Rules, Setup};
use rayon::prelude::*;

use crate::index::Indexer;
use crate::material::Material;
use crate::value::{decided, decode, Value, DRAW, INVALID, MAX_DISTANCE};
use crate::Error;

/// Slots per forward-pass chunk.
const CHUNK: u64 = 4096;
/// Not settled yet (build time only).
const OPEN: u16 = u16::MAX;
const NO_WIN: u16 = u16::MAX;

/// Tables already built: what the moves leaving a signature lead to.
#[derive(Default)]
pub struct Known {
    tables: HashMap<Material, (Indexer, Arc<Vec<u16>>)>,
}

impl Known {
    pub fn insert(&mut self, indexer: Indexer, codes: Arc<Vec<u16>>) {
        self.tables.insert(indexer.material(), (indexer, codes));
    }

    /// Keeps only the tables of the signatures `keep` says yes to (frees the others).
    pub fn retain(&mut self, mut keep: impl FnMut(&Material) -> bool) {
        self.tables.retain(|m, _| keep(m));
    }

    /// The code of `pos` for its side to move: lost when it has no piece, else from its table.
    pub fn code<B: Bits>(&self, pos: &Position<B>) -> Result<u16, Error> {
        let side = pos.side_to_move();
        if pos.pieces(side).is_empty() {
            return Ok(decided(0));
        }
        // The side that just moved always has a piece; a set-up position where it has none
        // has no table and no code (a win in 0 plies is not a code): MissingTable below.
        let material = Material::of(pos);
        let (indexer, codes) = self
            .tables
            .get(&material)
            .ok_or(Error::MissingTable(material))?;
        Ok(codes[indexer.index(pos) as usize])
    }
}

/// Where a build is.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub material: Material,
    /// Positions whose moves were generated so far (forward pass).
    pub done: u64,
    pub total: u64,
}

/// What the moves leaving a position's signature offer.
#[derive(Clone, Copy)]
struct Exits {
    /// Fastest win through an exit (NO_WIN: none).
    win: u16,
    draw: bool,
    /// Longest loss through an exit (0: none).
    loss: u16,
}

struct Chunk {
    codes: Vec<u16>,
    exits: Vec<Exits>,
    /// Edges per slot.
    degree: Vec<u16>,
    edges: Vec<u32>,
}

/// The value of a position from the codes of its successors (for `verify` as well).
pub fn combine(codes: impl IntoIterator<Item = u16>) -> u16 {
    let mut win = u32::MAX;
    let mut draw = false;
    let mut loss = 0;
    let mut any = false;
    for c in codes {
        any = true;
        match decode(c) {
            Some((Value::Loss, d)) => win = win.min(d + 1),
            Some((Value::Draw, _)) => draw = true,
            Some((Value::Win, d)) => loss = loss.max(d + 1),
            None => draw = true,
        }
    }
    if !any {
        decided(0)
    } else if win != u32::MAX {
        decided(win)
    } else if draw {
        DRAW
    } else {
        decided(loss)
    }
}

/// Whether the variant draws `pos` on the spot (one piece each), once it has a legal move.
pub fn drawn_by_material<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> bool {
    rules.variant().draw.one_piece_each
        && pos.pieces(Color::White).count() == 1
        && pos.pieces(Color::Black).count() == 1
}

/// Every slot's code for one signature. `progress` is called from the worker threads after
/// each chunk; when it returns false the build stops (Error::Stopped) within a chunk per thread.
pub fn solve<B: Bits>(
    rules: &Rules<B>,
    material: Material,
    known: &Known,
    progress: &(dyn Fn(Progress) -> bool + Sync),
) -> Result<Vec<u16>, Error> {
    let indexer = Indexer::new(rules, material);
    let slots = indexer.len();
    if slots > u32::MAX as u64 {
        return Err(Error::TooLarge { material, slots });
    }
    let done = AtomicU64::new(0);
    let stopped = AtomicBool::new(false);
    let chunks: Vec<Chunk> = (0..slots.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            if stopped.load(Ordering::Relaxed) {
                return Err(Error::Stopped);
            }
            let range = c * CHUNK..((c + 1) * CHUNK).min(slots);
            let chunk = forward(rules, &indexer, known, range.clone());
            let n = done.fetch_add(range.end - range.start, Ordering::Relaxed);
            let go_on = progress(Progress {
                material,
                done: n + range.end - range.start,
                total: slots,
            });
            if !go_on {
                stopped.store(true, Ordering::Relaxed);
            }
            chunk
        })
        .collect::<Result<_, _>>()?;
    if stopped.load(Ordering::Relaxed) {
        return Err(Error::Stopped);
    }
    Ok(retrograde(slots as usize, chunks))
}

fn forward<B: Bits>(
    rules: &Rules<B>,
    indexer: &Indexer,
    known: &Known,
    range: std::ops::Range<u64>,
) -> Result<Chunk, Error> {
    let n = (range.end - range.start) as usize;
    let mut out = Chunk {
        codes: Vec::with_capacity(n),
        exits: Vec::with_capacity(n),
        degree: Vec::with_capacity(n),
        edges: Vec::new(),
    };
    let material = indexer.material();
    let mut moves = Vec::new();
    let mut scratch = Setup::default();
    for slot in range {
        let mut exits = Exits {
            win: NO_WIN,
            draw: false,
            loss: 0,
        };
        let mut degree = 0u16;
        let code = match indexer.position_with(rules, slot, &mut scratch) {
            None => INVALID,
            Some(pos) => {
                rules.legal_moves(&pos, &mut moves, Duplicates::Merge);
                if moves.is_empty() {
                    decided(0)
                } else if drawn_by_material(rules, &pos) {
                    DRAW
                } else {
                    for mv in &moves {
                        let after = pos.play(mv);
                        if !mv.is_capture() && !mv.promotes() {
                            debug_assert_eq!(Material::of(&after), material);
                            out.edges.push(indexer.index(&after) as u32);
                            degree += 1;
                            continue;
                        }
                        match decode(known.code(&after)?) {
                            Some((Value::Loss, d)) => {
                                exits.win = exits.win.min((d + 1).min(MAX_DISTANCE) as u16)
                            }
                            Some((Value::Win, d)) => {
                                exits.loss = exits.loss.max((d + 1).min(MAX_DISTANCE) as u16)
                            }
                            Some((Value::Draw, _)) => exits.draw = true,
                            None => {
                                return Err(Error::MissingTable(Material::of(&after)));
                            }
                        }
                    }
                    OPEN
                }
            }
        };
        out.codes.push(code);
        out.exits.push(exits);
        out.degree.push(degree);
    }
    Ok(out)
}

fn retrograde(slots: usize, chunks: Vec<Chunk>) -> Vec<u16> {
    let mut codes = Vec::with_capacity(slots);
    let mut exits = Vec::with_capacity(slots);
    let mut remaining = Vec::with_capacity(slots);
    let mut edge_start = Vec::with_capacity(slots + 1);
    let mut edges = Vec::new();
    edge_start.push(0usize);
    for c in chunks {
        codes.extend_from_slice(&c.codes);
        exits.extend_from_slice(&c.exits);
        let mut at = edges.len();
        for &d in &c.degree {
            at += d as usize;
            edge_start.push(at);
        }
        remaining.extend_from_slice(&c.degree);
        edges.extend_from_slice(&c.edges);
    }
    // Predecessors, by counting sort of the edges on their target.
    let mut pred_start = vec![0usize; slots + 1];
    for &t in &edges {
        pred_start[t as usize + 1] += 1;
    }
    for i in 0..slots {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; edges.len()];
    for s in 0..slots {
        for &t in &edges[edge_start[s]..edge_start[s + 1]] {
            preds[fill[t as usize]] = s as u32;
            fill[t as usize] += 1;
        }
    }
    drop(edges);
    drop(edge_start);
    drop(fill);

    // Bucket d: positions that may be settled d plies from the end (odd d: won, even: lost).
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let push = |buckets: &mut Vec<Vec<u32>>, d: u16, s: usize| {
        let d = d as usize;
        if buckets.len() <= d {
            buckets.resize_with(d + 1, Vec::new);
        }
        buckets[d].push(s as u32);
    };
    let mut longest = vec![0u16; slots];
    for s in 0..slots {
        if codes[s] == OPEN {
            longest[s] = exits[s].loss;
            if exits[s].win != NO_WIN {
                push(&mut buckets, exits[s].win, s);
            } else if remaining[s] == 0 && !exits[s].draw {
                push(&mut buckets, exits[s].loss, s);
            }
        } else if codes[s] == decided(0) {
            // Lost now: settled, but its predecessors still learn of it below.
            codes[s] = OPEN;
            push(&mut buckets, 0, s);
        }
    }
    let mut d = 0;
    while d < buckets.len() {
        let bucket = std::mem::take(&mut buckets[d]);
        for s in bucket {
            let s = s as usize;
            if codes[s] != OPEN {
                continue;
            }
            codes[s] = decided(d as u32);
            let next = (d + 1).min(MAX_DISTANCE as usize) as u16;
            for &p in &preds[pred_start[s]..pred_start[s + 1]] {
                let p = p as usize;
                if codes[p] != OPEN {
                    continue;
                }
                if d % 2 == 0 {
                    push(&mut buckets, next, p);
                } else {
                    remaining[p] -= 1;
                    longest[p] = longest[p].max(next);
                    if remaining[p] == 0 && !exits[p].draw && exits[p].win == NO_WIN {
                        push(&mut buckets, longest[p], p);
                    }
                }
            }
        }
        d += 1;
    }
    for c in &mut codes {
        if *c == OPEN {
            *c = DRAW;
        }
    }
    codes
}
