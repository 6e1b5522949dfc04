//! Where the search starts (structured candidates) and how it moves on (small edits).
//!
//! Long capture walks need a capturing piece with many pieces to take and many ways to take
//! them, so the starts put one or two kings (or men) of the side to move among many enemy pieces:
//! scattered over a window or the whole board, or on a regular lattice with a free square
//! between pieces (the pattern that lets a piece take many of them in many orders), kings and men
//! mixed in every proportion; and positions reached from the start position by random play.

use std::fmt;
use std::time::Duration;

use damspel_rules::{Bits, Color, Move, Piece, Position, Rules, Square};
use rand::RngExt;

use crate::board::{pick, piece, Board, Shape};
use crate::measure::{time_moves, Watchdog};
use crate::Rng;

/// The kind of structured start a candidate came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Kings of the side to move among enemy pieces scattered over a window of the board.
    Scatter,
    /// Enemy pieces on a lattice with gaps.
    Lattice,
    /// Men only: men of the side to move among enemy men.
    Men,
    /// Random play from the start position.
    Play,
}

impl Start {
    pub const ALL: [Start; 4] = [Start::Scatter, Start::Lattice, Start::Men, Start::Play];
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Start::Scatter => "scatter",
            Start::Lattice => "lattice",
            Start::Men => "men",
            Start::Play => "play",
        })
    }
}

/// A window of the board: (x0, y0, x1, y1), inclusive.
type Window = (i32, i32, i32, i32);

fn window(rng: &mut Rng, shape: &Shape) -> Window {
    if rng.random_bool(0.4) {
        return (0, 0, shape.width - 1, shape.height - 1);
    }
    let w = rng.random_range(4..=shape.width);
    let h = rng.random_range(4..=shape.height);
    let x0 = rng.random_range(0..=shape.width - w);
    let y0 = rng.random_range(0..=shape.height - h);
    (x0, y0, x0 + w - 1, y0 + h - 1)
}

fn inside(shape: &Shape, sq: Square, (x0, y0, x1, y1): Window) -> bool {
    let (x, y) = shape.coords(sq);
    x >= x0 && x <= x1 && y >= y0 && y <= y1
}

/// Puts `n` pieces of `color` (kings with probability `kings`) on random empty squares of `area`.
fn scatter(
    rng: &mut Rng,
    shape: &Shape,
    board: &mut Board,
    area: &[Square],
    n: usize,
    color: Color,
    kings: f64,
) {
    let mut free: Vec<Square> = area
        .iter()
        .copied()
        .filter(|&s| board.get(s).is_none())
        .collect();
    for _ in 0..n {
        if free.is_empty() {
            return;
        }
        let sq = free.swap_remove(rng.random_range(0..free.len()));
        board.put(shape, sq, piece(rng, color, kings));
    }
}

/// A structured candidate of the given kind.
pub fn start<B: Bits>(
    kind: Start,
    rng: &mut Rng,
    shape: &Shape,
    rules: &Rules<B>,
    watchdog: &Watchdog,
) -> Board {
    let us = if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    let n = shape.squares.len();
    let mut board = Board::empty(shape, us);
    match kind {
        Start::Scatter => {
            let area: Vec<Square> = {
                let w = window(rng, shape);
                shape
                    .squares
                    .iter()
                    .copied()
                    .filter(|&s| inside(shape, s, w))
                    .collect()
            };
            let enemies = rng.random_range(4..=(area.len() * 3 / 4).max(5));
            let kings = [1.0, 1.0, 0.8, 0.5, 0.2][rng.random_range(0..5)];
            scatter(rng, shape, &mut board, &area, enemies, !us, kings);
            let ours = rng.random_range(1..=2);
            scatter(rng, shape, &mut board, &area, ours, us, 1.0);
            if rng.random_bool(0.3) {
                // A few blockers of the side to move.
                let own = rng.random_range(1..=4);
                scatter(rng, shape, &mut board, &shape.squares, own, us, 0.3);
            }
        }
        Start::Lattice | Start::Men => {
            let (px, py) = [
                (2, 2),
                (2, 2),
                (2, 1),
                (1, 2),
                (3, 3),
                (2, 3),
                (3, 2),
                (4, 2),
            ][rng.random_range(0..8)];
            let (ox, oy) = (rng.random_range(0..px), rng.random_range(0..py));
            let w = window(rng, shape);
            let density = rng.random_range(0.5..=1.0);
            let kings = if kind == Start::Men {
                0.0
            } else {
                [1.0, 1.0, 0.7, 0.4, 0.0][rng.random_range(0..5)]
            };
            for &sq in &shape.squares {
                let (x, y) = shape.coords(sq);
                if (x - ox).rem_euclid(px) == 0
                    && (y - oy).rem_euclid(py) == 0
                    && inside(shape, sq, w)
                    && rng.random_bool(density)
                {
                    board.put(shape, sq, piece(rng, !us, kings));
                }
            }
            let ours = rng.random_range(1..=if kind == Start::Men { 3 } else { 2 });
            let own_kings = if kind == Start::Men { 0.0 } else { 1.0 };
            scatter(rng, shape, &mut board, &shape.squares, ours, us, own_kings);
        }
        Start::Play => return played(rng, shape, rules, watchdog, n),
    }
    board
}

/// A position reached by random play from the start position: the first position with a
/// capture after a random number of plies (or wherever the game stopped).
fn played<B: Bits>(
    rng: &mut Rng,
    shape: &Shape,
    rules: &Rules<B>,
    watchdog: &Watchdog,
    squares: usize,
) -> Board {
    let mut pos = Position::start(rules);
    let plies = rng.random_range(4..=squares * 4);
    let mut list: Vec<Move<B>> = Vec::new();
    for ply in 0.. {
        let timing = time_moves(watchdog, rules, &pos, &mut list, Duration::from_millis(200));
        if !timing.complete || list.is_empty() {
            break;
        }
        if ply >= plies && list[0].is_capture() {
            break;
        }
        let mv = list[rng.random_range(0..list.len())];
        pos = pos.play(&mv);
        if ply > 4 * plies {
            break;
        }
    }
    Board::from_position(shape, &pos)
}

/// One small random edit: move, add, remove or crown a piece, or change the side to move.
/// Most edits add or move enemy pieces and kings, what long captures are made of.
pub fn mutate(rng: &mut Rng, shape: &Shape, board: &mut Board) {
    let pieces = board.pieces(shape);
    let empties = board.empties(shape);
    let us = board.side;
    match rng.random_range(0..100) {
        // Add a piece: mostly an enemy king.
        0..=34 => {
            if let Some(sq) = pick(rng, &empties) {
                let (color, king) = match rng.random_range(0..20) {
                    0..=11 => (!us, true),
                    12..=16 => (!us, false),
                    17..=18 => (us, true),
                    _ => (us, false),
                };
                board.put(shape, sq, Piece { color, king });
            }
        }
        // Move a piece: to a neighbouring cell or anywhere.
        35..=69 => {
            if let (Some(from), false) = (pick(rng, &pieces), empties.is_empty()) {
                let p = board.get(from).expect("a piece");
                let to = if rng.random_bool(0.5) {
                    let (x, y) = shape.coords(from);
                    let (dx, dy) = (rng.random_range(-2..=2), rng.random_range(-2..=2));
                    shape
                        .square_at(x + dx, y + dy)
                        .filter(|&s| board.get(s).is_none())
                } else {
                    pick(rng, &empties)
                };
                if let Some(to) = to {
                    board.clear(from);
                    board.put(shape, to, p);
                }
            }
        }
        // Remove a piece.
        70..=84 => {
            if let Some(sq) = pick(rng, &pieces) {
                board.clear(sq);
            }
        }
        // Crown or uncrown a piece.
        85..=95 => {
            if let Some(sq) = pick(rng, &pieces) {
                let p = board.get(sq).expect("a piece");
                board.put(
                    shape,
                    sq,
                    Piece {
                        color: p.color,
                        king: !p.king,
                    },
                );
            }
        }
        // Change the colour of a piece.
        96..=97 => {
            if let Some(sq) = pick(rng, &pieces) {
                let p = board.get(sq).expect("a piece");
                board.put(
                    shape,
                    sq,
                    Piece {
                        color: !p.color,
                        king: p.king,
                    },
                );
            }
        }
        _ => board.side = !board.side,
    }
}
