//! A plain, editable board for the search: pieces by layout square and the side to move, turned
//! into a checked `Position` only to be measured.

use damspel_rules::{Bits, Color, Piece, Position, Rules, Setup, Square};
use rand::RngExt;

use crate::Rng;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Indexed by layout square; `None` is empty (and every layout index that is not a square).
    cells: Vec<Option<Piece>>,
    pub side: Color,
}

/// What the search needs to know about the variant's board.
pub struct Shape {
    /// Every square of the board.
    pub squares: Vec<Square>,
    pub width: i32,
    pub height: i32,
    /// Per colour, the promotion squares (layout bits), where a man of that colour cannot stand.
    promotion: [u128; 2],
    layout: usize,
    /// (x, y) of each layout index, and the square at each (x, y).
    coords: Vec<(i32, i32)>,
    at: Vec<Option<Square>>,
    /// With `--game-counts`: per colour index, the most pieces a side may have (its start's).
    pub limits: Option<[usize; 2]>,
}

impl Shape {
    pub fn new<B: Bits>(rules: &Rules<B>) -> Shape {
        let g = &rules.variant().geometry;
        let squares = g.all_squares().to_vec();
        let layout = squares.iter().map(|s| s.0 as usize + 1).max().unwrap_or(0);
        let (width, height) = (i32::from(g.width()), i32::from(g.height()));
        let mut coords = vec![(-1, -1); layout];
        let mut at = vec![None; (width * height) as usize];
        for &sq in &squares {
            let (x, y) = g.coords(sq);
            let (x, y) = (i32::from(x), i32::from(y));
            coords[sq.0 as usize] = (x, y);
            at[(y * width + x) as usize] = Some(sq);
        }
        Shape {
            squares,
            width,
            height,
            promotion: Color::BOTH.map(|c| rules.promotion_squares(c).to_u128()),
            layout,
            coords,
            at,
            limits: None,
        }
    }

    pub fn coords(&self, sq: Square) -> (i32, i32) {
        self.coords[sq.0 as usize]
    }

    /// The square at (x, y), if that cell is a square of the board.
    pub fn square_at(&self, x: i32, y: i32) -> Option<Square> {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return None;
        }
        self.at[(y * self.width + x) as usize]
    }

    /// Whether a man of `color` may stand on `sq` (not on its own promotion squares).
    pub fn man_may_stand(&self, color: Color, sq: Square) -> bool {
        self.promotion[color.index()] >> sq.0 & 1 == 0
    }
}

impl Board {
    pub fn empty(shape: &Shape, side: Color) -> Board {
        Board {
            cells: vec![None; shape.layout],
            side,
        }
    }

    pub fn from_position<B: Bits>(shape: &Shape, pos: &Position<B>) -> Board {
        let mut board = Board::empty(shape, pos.side_to_move());
        for &sq in &shape.squares {
            board.cells[sq.0 as usize] = pos.piece_at(sq);
        }
        board
    }

    /// Takes random pieces off a side that has more than the shape's limit (if any) allows, so
    /// that the position keeps the material a game could have.
    pub fn trim(&mut self, shape: &Shape, rng: &mut Rng) {
        let Some(limits) = shape.limits else {
            return;
        };
        for color in Color::BOTH {
            let mut own: Vec<Square> = self
                .pieces(shape)
                .into_iter()
                .filter(|&s| self.get(s).is_some_and(|p| p.color == color))
                .collect();
            while own.len() > limits[color.index()] {
                let sq = own.swap_remove(rng.random_range(0..own.len()));
                self.clear(sq);
            }
        }
    }

    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.cells[sq.0 as usize]
    }

    /// Puts a piece (a man where it may not stand becomes a king).
    pub fn put(&mut self, shape: &Shape, sq: Square, mut piece: Piece) {
        if !piece.king && !shape.man_may_stand(piece.color, sq) {
            piece.king = true;
        }
        self.cells[sq.0 as usize] = Some(piece);
    }

    pub fn clear(&mut self, sq: Square) {
        self.cells[sq.0 as usize] = None;
    }

    pub fn pieces(&self, shape: &Shape) -> Vec<Square> {
        shape
            .squares
            .iter()
            .copied()
            .filter(|&s| self.get(s).is_some())
            .collect()
    }

    pub fn empties(&self, shape: &Shape) -> Vec<Square> {
        shape
            .squares
            .iter()
            .copied()
            .filter(|&s| self.get(s).is_none())
            .collect()
    }

    /// The checked position; `None` if the side to move has no piece (nothing to measure).
    pub fn position<B: Bits>(&self, shape: &Shape, rules: &Rules<B>) -> Option<Position<B>> {
        let pieces: Vec<(Square, Piece)> = shape
            .squares
            .iter()
            .filter_map(|&s| self.get(s).map(|p| (s, p)))
            .collect();
        if !pieces.iter().any(|(_, p)| p.color == self.side) {
            return None;
        }
        let setup = Setup {
            side_to_move: Some(self.side),
            pieces,
        };
        Position::from_setup(rules, &setup).ok()
    }
}

/// A random piece kind: a king with probability `kings`.
pub fn piece(rng: &mut Rng, color: Color, kings: f64) -> Piece {
    Piece {
        color,
        king: rng.random_bool(kings),
    }
}

pub fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| items[rng.random_range(0..items.len())])
}
