//! Board geometry: which cells are squares, how they map to bitboard indices, their names, and
//! the unit steps of each direction.
//!
//! Layout: on an all-squares board the index of cell (x, y) is `y * W + x`. On a dark-squares
//! board (cells with x + y even, so a1 is dark) it is `(y * (W + 1) + x) / 2`, the classic
//! "ghost square" layout: every direction is then one constant index delta, and orthogonal moves
//! use Frisian steps of two cells (§0), whose delta is 1 along a rank and W + 1 along a file.

use crate::direction::Dir;

/// Which cells of the board are squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Squares {
    /// All cells are used (the Turkish and Gothic families).
    All,
    /// Only the dark cells, x + y even, with a1 dark.
    Dark,
}

/// How squares are written in the variant's notation (a variant file's `board.notation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SquareNames {
    /// FMJD numbers, 1 at the top left as White sees the board (PDN `N2`); dark boards only.
    Numbers,
    /// a1, b2, ... with a1 at White's bottom left (PDN `A0`).
    Algebraic,
}

/// A square, as its bitboard index in the board's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    #[inline(always)]
    pub fn index(self) -> u8 {
        self.0
    }
}

const NONE: u8 = u8::MAX;

/// The board shape and everything derived from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    width: u8,
    height: u8,
    squares: Squares,
    names: SquareNames,
    /// Number of layout bits (including ghost bits).
    bits: u8,
    /// Layout index of each cell `y * W + x`, or NONE.
    cell_to_index: Vec<u8>,
    /// (x, y) of each layout index, or (NONE, NONE) for a ghost bit.
    index_to_cell: Vec<(u8, u8)>,
    /// The board's squares in numbering order (FMJD order on dark boards: rows from the top,
    /// left to right as White sees the board; a1, b1, ... on all-squares boards).
    numbered: Vec<Square>,
    /// Number (1-based) of each layout index, 0 for ghosts.
    number_of: Vec<u16>,
    mask: u128,
}

/// Geometry errors are about the shape itself; the variant loader reports them with the key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    #[error("a board must be between 4 and 16 cells wide and high, not {0}x{1}")]
    Size(u8, u8),
    #[error("a dark-squares board must have an even width and height, not {0}x{1}")]
    OddDarkSide(u8, u8),
    #[error("numbered squares need a dark-squares board; an all-squares board is algebraic")]
    NumbersOnAllSquares,
    #[error("the board's layout needs {0} bits, more than the 128 a bitboard holds (a dark-squares board is laid out with a spare cell each row: 16x16 is the one size within the ranges that does not fit)")]
    TooLarge(u32),
}

impl Geometry {
    pub fn new(width: u8, height: u8, squares: Squares) -> Result<Geometry, GeometryError> {
        if !(4..=16).contains(&width) || !(4..=16).contains(&height) {
            return Err(GeometryError::Size(width, height));
        }
        // Dark squares need an even width for the layout, and an even height so that the 180°
        // rotation (Black's setup and frame) maps dark squares to dark squares.
        if squares == Squares::Dark && (!width.is_multiple_of(2) || !height.is_multiple_of(2)) {
            return Err(GeometryError::OddDarkSide(width, height));
        }
        let (w, h) = (width as u32, height as u32);
        let bits = match squares {
            Squares::All => w * h,
            Squares::Dark => ((h - 1) * (w + 1) + (w - 1)) / 2 + 1,
        };
        if bits > 128 {
            return Err(GeometryError::TooLarge(bits));
        }
        let mut geometry = Geometry {
            width,
            height,
            squares,
            names: match squares {
                Squares::Dark => SquareNames::Numbers,
                Squares::All => SquareNames::Algebraic,
            },
            bits: bits as u8,
            cell_to_index: vec![NONE; (w * h) as usize],
            index_to_cell: vec![(NONE, NONE); bits as usize],
            numbered: Vec::new(),
            number_of: vec![0; bits as usize],
            mask: 0,
        };
        for y in 0..height {
            for x in 0..width {
                if let Some(i) = geometry.layout_index(x, y) {
                    geometry.cell_to_index[y as usize * width as usize + x as usize] = i;
                    geometry.index_to_cell[i as usize] = (x, y);
                    geometry.mask |= 1 << i;
                }
            }
        }
        // Numbering: dark boards follow FMJD (from the top row down, left to right as White sees
        // the board); all-squares boards count a1, b1, ..., like their algebraic names.
        let rows: Vec<u8> = match squares {
            Squares::Dark => (0..height).rev().collect(),
            Squares::All => (0..height).collect(),
        };
        for y in rows {
            for x in 0..width {
                if let Some(sq) = geometry.square_at(x as i32, y as i32) {
                    geometry.numbered.push(sq);
                    geometry.number_of[sq.0 as usize] = geometry.numbered.len() as u16;
                }
            }
        }
        Ok(geometry)
    }

    /// The same board with its squares written as `names`. Numbers name dark squares only: an
    /// all-squares board keeps its algebraic names and says so.
    pub fn with_names(mut self, names: SquareNames) -> Result<Geometry, GeometryError> {
        if names == SquareNames::Numbers && self.squares == Squares::All {
            return Err(GeometryError::NumbersOnAllSquares);
        }
        self.names = names;
        Ok(self)
    }

    /// How the variant writes its squares.
    pub fn names(&self) -> SquareNames {
        self.names
    }

    fn layout_index(&self, x: u8, y: u8) -> Option<u8> {
        let (x, y, w) = (x as u32, y as u32, self.width as u32);
        match self.squares {
            Squares::All => Some((y * w + x) as u8),
            Squares::Dark if (x + y) % 2 == 0 => Some(((y * (w + 1) + x) / 2) as u8),
            Squares::Dark => None,
        }
    }

    pub fn width(&self) -> u8 {
        self.width
    }

    pub fn height(&self) -> u8 {
        self.height
    }

    pub fn squares_kind(&self) -> Squares {
        self.squares
    }

    /// Layout bits needed (the bitboard type must hold this many).
    pub fn bits(&self) -> u32 {
        self.bits as u32
    }

    /// The set of all squares, as a 128-bit mask of layout indices.
    pub fn mask(&self) -> u128 {
        self.mask
    }

    /// Number of squares on the board.
    pub fn len(&self) -> usize {
        self.numbered.len()
    }

    pub fn is_empty(&self) -> bool {
        self.numbered.is_empty()
    }

    /// The square at cell (x, y), if that cell is on the board and used.
    pub fn square_at(&self, x: i32, y: i32) -> Option<Square> {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return None;
        }
        let i = self.cell_to_index[(y * self.width as i32 + x) as usize];
        (i != NONE).then_some(Square(i))
    }

    /// The cell (x, y) of a square.
    pub fn coords(&self, sq: Square) -> (u8, u8) {
        self.index_to_cell[sq.0 as usize]
    }

    pub fn contains(&self, sq: Square) -> bool {
        (sq.0 as usize) < self.index_to_cell.len() && self.index_to_cell[sq.0 as usize].0 != NONE
    }

    /// All squares in numbering order.
    pub fn all_squares(&self) -> &[Square] {
        &self.numbered
    }

    /// The unit vector of a direction in cells: orthogonal steps are two cells long on a
    /// dark-squares board (Frisian geometry).
    pub fn unit(&self, dir: Dir) -> (i32, i32) {
        let (dx, dy) = dir.vector();
        match (self.squares, dir.is_orthogonal()) {
            (Squares::Dark, true) => (2 * dx, 2 * dy),
            _ => (dx, dy),
        }
    }

    /// The neighbouring square one unit step away in `dir`.
    pub fn step(&self, sq: Square, dir: Dir) -> Option<Square> {
        let (x, y) = self.coords(sq);
        let (dx, dy) = self.unit(dir);
        self.square_at(x as i32 + dx, y as i32 + dy)
    }

    /// The constant layout delta of one unit step in `dir`.
    pub fn delta(&self, dir: Dir) -> i8 {
        let (dx, dy) = self.unit(dir);
        let w = self.width as i32;
        (match self.squares {
            Squares::All => dy * w + dx,
            Squares::Dark => (dy * (w + 1) + dx) / 2,
        }) as i8
    }

    /// The 180° rotation of a square (how Black's setup mirrors White's).
    pub fn rotate(&self, sq: Square) -> Square {
        let (x, y) = self.coords(sq);
        self.square_at(
            self.width as i32 - 1 - x as i32,
            self.height as i32 - 1 - y as i32,
        )
        .expect("the rotation of a used square is used")
    }

    /// Whether squares are written as numbers or algebraically (see [`SquareNames`]).
    pub fn numeric_names(&self) -> bool {
        self.names == SquareNames::Numbers
    }

    /// The square's name in the variant's notation: FMJD numbers (the default on dark-squares
    /// boards), or a1..h8 (a1..j10) (all-squares boards, and Russian and Brazilian draughts).
    pub fn name(&self, sq: Square) -> String {
        if self.numeric_names() {
            self.number_of[sq.0 as usize].to_string()
        } else {
            let (x, y) = self.coords(sq);
            format!("{}{}", (b'a' + x) as char, y + 1)
        }
    }

    /// The algebraic name of a square's cell, whatever the notation.
    pub fn algebraic(&self, sq: Square) -> String {
        let (x, y) = self.coords(sq);
        format!("{}{}", (b'a' + x) as char, y + 1)
    }

    /// The square with number `n` (1-based numbering order).
    pub fn numbered(&self, n: usize) -> Option<Square> {
        n.checked_sub(1).and_then(|i| self.numbered.get(i)).copied()
    }

    /// The 1-based number of a square.
    pub fn number(&self, sq: Square) -> usize {
        self.number_of[sq.0 as usize] as usize
    }

    /// Parses a square name: a number or an algebraic name on dark-squares boards, algebraic on
    /// all-squares boards. On a dark board written algebraically (Russian, Brazilian) a number
    /// is read in FMJD order (PDN `N2`), the numbering Damspel wrote for them before: a bare
    /// number cannot be mistaken for an algebraic name, so old exports still read.
    pub fn parse_square(&self, text: &str) -> Result<Square, SquareNameError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SquareNameError::Empty);
        }
        if text.bytes().all(|b| b.is_ascii_digit()) {
            if self.squares == Squares::All {
                return Err(SquareNameError::NumberOnAlgebraicBoard(text.to_string()));
            }
            let n: usize = text
                .parse()
                .map_err(|_| SquareNameError::NoSuchSquare(text.to_string()))?;
            return self
                .numbered(n)
                .ok_or_else(|| SquareNameError::NoSuchSquare(text.to_string()));
        }
        if !text.is_ascii() {
            return Err(SquareNameError::Malformed(text.to_string()));
        }
        let bytes = text.as_bytes();
        let file = bytes[0].to_ascii_lowercase();
        let rank = &text[1..];
        // A rank is written without leading zeros (`a01` is no name of a1: one square, one
        // name, as a FEN or a move text is compared).
        if !file.is_ascii_lowercase()
            || rank.is_empty()
            || rank.starts_with('0')
            || !rank.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(SquareNameError::Malformed(text.to_string()));
        }
        let x = (file - b'a') as i32;
        let y = rank
            .parse::<i32>()
            .map_err(|_| SquareNameError::Malformed(text.to_string()))?
            - 1;
        if x >= self.width as i32 || y < 0 || y >= self.height as i32 {
            return Err(SquareNameError::NoSuchSquare(text.to_string()));
        }
        self.square_at(x, y)
            .ok_or_else(|| SquareNameError::NotPlayable(text.to_string()))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SquareNameError {
    #[error("empty square name")]
    Empty,
    #[error("`{0}` is not a square name")]
    Malformed(String),
    #[error("there is no square `{0}` on this board")]
    NoSuchSquare(String),
    #[error("`{0}` is a light square, which this variant does not use")]
    NotPlayable(String),
    #[error("`{0}` is a number, but this variant names squares a1, b1, ...")]
    NumberOnAlgebraicBoard(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmjd_numbering_10x10() {
        // shared/reference/README.md §5: 1-5 = b10..j10, 46-50 = a1..i1.
        let g = Geometry::new(10, 10, Squares::Dark).unwrap();
        assert_eq!(g.len(), 50);
        assert_eq!(g.algebraic(g.numbered(1).unwrap()), "b10");
        assert_eq!(g.algebraic(g.numbered(5).unwrap()), "j10");
        assert_eq!(g.algebraic(g.numbered(6).unwrap()), "a9");
        assert_eq!(g.algebraic(g.numbered(46).unwrap()), "a1");
        assert_eq!(g.algebraic(g.numbered(50).unwrap()), "i1");
        assert!(g.bits() <= 64);
    }

    #[test]
    fn english_numbering_8x8() {
        // §0: 1 = b8 … 4 = h8, 5 = a7 … 8 = g7, 29 = a1 … 32 = g1.
        let g = Geometry::new(8, 8, Squares::Dark).unwrap();
        assert_eq!(g.len(), 32);
        for (n, name) in [
            (1, "b8"),
            (4, "h8"),
            (5, "a7"),
            (8, "g7"),
            (29, "a1"),
            (32, "g1"),
        ] {
            assert_eq!(g.algebraic(g.numbered(n).unwrap()), name);
        }
    }

    #[test]
    fn deltas_are_constant() {
        for (w, h, s) in [
            (8, 8, Squares::All),
            (8, 8, Squares::Dark),
            (10, 10, Squares::Dark),
            (10, 10, Squares::All),
            (6, 10, Squares::Dark),
        ] {
            let g = Geometry::new(w, h, s).unwrap();
            for &sq in g.all_squares() {
                for d in Dir::ALL {
                    if let Some(t) = g.step(sq, d) {
                        assert_eq!(t.0 as i32 - sq.0 as i32, g.delta(d) as i32);
                    }
                }
            }
        }
    }

    #[test]
    fn algebraic_dark_board_names_and_reads_numbers() {
        // Russian and Brazilian: a1 dark, c3 is FMJD number 22 on 8x8 (§0: 21 = a3 ... 24 = g3).
        let g = Geometry::new(8, 8, Squares::Dark)
            .unwrap()
            .with_names(SquareNames::Algebraic)
            .unwrap();
        assert!(!g.numeric_names());
        let c3 = g.parse_square("c3").unwrap();
        assert_eq!(g.name(c3), "c3");
        assert_eq!(g.parse_square("22"), Ok(c3));
        assert_eq!(g.number(c3), 22);
        assert!(g.parse_square("33").is_err());
        assert!(matches!(
            g.parse_square("b3"),
            Err(SquareNameError::NotPlayable(_))
        ));
        assert_eq!(
            Geometry::new(8, 8, Squares::All)
                .unwrap()
                .with_names(SquareNames::Numbers),
            Err(GeometryError::NumbersOnAllSquares)
        );
    }

    #[test]
    fn square_names_round_trip() {
        let g = Geometry::new(8, 8, Squares::All).unwrap();
        assert_eq!(g.parse_square("d4").map(|s| g.name(s)), Ok("d4".into()));
        assert!(g.parse_square("i1").is_err());
        assert!(g.parse_square("12").is_err());
        for bad in ["a01", "a0", "d04"] {
            assert_eq!(
                g.parse_square(bad),
                Err(SquareNameError::Malformed(bad.into())),
                "{bad}"
            );
        }
        let d = Geometry::new(10, 10, Squares::Dark).unwrap();
        assert_eq!(d.parse_square("28").map(|s| d.name(s)), Ok("28".into()));
        assert!(d.parse_square("51").is_err());
        assert!(d.parse_square("0").is_err());
        assert!(matches!(
            d.parse_square("a2"),
            Err(SquareNameError::NotPlayable(_))
        ));
    }
}
