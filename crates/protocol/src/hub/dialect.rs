//! How a variant's squares are written in Hub text: which number names a square in a move,
//! in which order the position string lists the squares, and which colour its letters mean.
//!
//! The protocol (Scan's `protocol.txt`) defines 10x10 only. For the 8x8 variants pydraughts
//! plays (PyPI `pydraughts` 0.6.7, the one Hub client that speaks them), its conventions are
//! the ones that exist, and Damspel follows them; every other board keeps Damspel's extension
//! (the protocol's rule applied to the variant's own numbering). See `docs/hub.md`.
//!
//! The mappings are written here from the squares' cells (file `x` from a = 0, rank `y` from
//! 1 = 0), not from the variant's display notation, so that changing how a variant's squares
//! are shown elsewhere does not change what is said over Hub.

use damspel_rules::{Color, Geometry, Piece, Square, Squares, Variant};

/// The convention a variant's Hub text follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// The protocol's own rule, on every board: squares in the variant's numbering order
    /// (FMJD numbers on dark-squares boards, named by number; a1, b1, …, h8 on all-squares
    /// boards, named algebraically). Exactly Scan's protocol on 10x10.
    Standard,
    /// pydraughts' Russian and Brazilian (`russian`, `brazilian`): moves number the dark
    /// squares from a1: a1 = 1, c1 = 2, e1 = 3, g1 = 4, b2 = 5, …, h8 = 32 (White's men start
    /// on 1–12, its first moves are 9-13 … 12-16). The position lists b8, d8, f8, h8, a7, …,
    /// g1 (its internal numbering), in White/Black colours.
    PydraughtsRussian,
    /// pydraughts' American checkers (`english`, `american`): moves use the checkers numbering
    /// b8 = 1, d8 = 2, …, g1 = 32 (Black's men on 1–12, Black's first moves 9-13 … 12-16). The
    /// position lists squares 32, 31, …, 1 (g1, e1, c1, a1, h2, …, b8) with its colours
    /// swapped: `w`/`W` are Black's pieces, `b`/`B` White's, and `W` first means Black to move
    /// (pydraughts plays checkers internally as White-moves-first on a rotated board).
    PydraughtsEnglish,
    /// pydraughts' Turkish (`turkish`): moves number all 64 squares from a1: a1 = 1, b1 = 2, …,
    /// h1 = 8, a2 = 9, …, h8 = 64 (White's first moves are 17-25 … 24-32). The position lists
    /// a8, b8, …, h8, a7, …, h1.
    PydraughtsTurkish,
}

impl Dialect {
    /// The dialect of a variant: pydraughts' for the four 8x8 variants it shares with
    /// Damspel (when the board is the one those conventions describe), the standard one
    /// otherwise.
    pub fn of(variant: &Variant) -> Dialect {
        let g = &variant.geometry;
        let board = (g.width(), g.height(), g.squares_kind());
        match (variant.id.as_str(), board) {
            ("russian" | "brazilian", (8, 8, Squares::Dark)) => Dialect::PydraughtsRussian,
            ("american", (8, 8, Squares::Dark)) => Dialect::PydraughtsEnglish,
            ("turkish", (8, 8, Squares::All)) => Dialect::PydraughtsTurkish,
            _ => Dialect::Standard,
        }
    }

    /// The squares in the order of the position string.
    pub fn position_order(self, g: &Geometry) -> Vec<Square> {
        match self {
            Dialect::Standard => g.all_squares().to_vec(),
            // Ranks from 8 down, files from a: b8, d8, …, g1 (dark) or a8, b8, …, h1 (all).
            Dialect::PydraughtsRussian | Dialect::PydraughtsTurkish => (0..8)
                .rev()
                .flat_map(|y| (0..8).map(move |x| (x, y)))
                .filter_map(|(x, y)| g.square_at(x, y))
                .collect(),
            // Ranks from 1 up, files from h: g1, e1, c1, a1, h2, …, b8.
            Dialect::PydraughtsEnglish => (0..8)
                .flat_map(|y| (0..8).rev().map(move |x| (x, y)))
                .filter_map(|(x, y)| g.square_at(x, y))
                .collect(),
        }
    }

    /// The colour a position letter's colour stands for (`w`/`W` are `Color::White`).
    pub fn colour_of_letter(self, letter: Color) -> Color {
        match self {
            Dialect::PydraughtsEnglish => !letter,
            _ => letter,
        }
    }

    /// The number of a square in moves (`None` for the standard dialect on all-squares
    /// boards, which names squares algebraically).
    pub fn number(self, g: &Geometry, sq: Square) -> Option<usize> {
        let (x, y) = g.coords(sq);
        let (x, y) = (x as usize, y as usize);
        match self {
            Dialect::Standard => g.numeric_names().then(|| g.number(sq)),
            Dialect::PydraughtsRussian => Some(4 * y + x / 2 + 1),
            Dialect::PydraughtsEnglish => Some(4 * (7 - y) + x / 2 + 1),
            Dialect::PydraughtsTurkish => Some(8 * y + x + 1),
        }
    }

    /// The square's name in Hub moves.
    pub fn name(self, g: &Geometry, sq: Square) -> String {
        match self.number(g, sq) {
            Some(n) => n.to_string(),
            None => g.algebraic(sq),
        }
    }

    /// Reads a square of a Hub move: its number in this dialect, or its algebraic name.
    pub fn parse_square(self, g: &Geometry, text: &str) -> Result<Square, String> {
        let text = text.trim();
        if self == Dialect::Standard {
            return g.parse_square(text).map_err(|e| e.to_string());
        }
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            let n = text.parse::<usize>().ok();
            return g
                .all_squares()
                .iter()
                .copied()
                .find(|&sq| n.is_some() && self.number(g, sq) == n)
                .ok_or_else(|| format!("there is no square `{text}` on this board"));
        }
        g.parse_square(text).map_err(|e| e.to_string())
    }

    /// The position letter of a square's content.
    pub fn letter(self, piece: Option<Piece>) -> char {
        match piece {
            None => 'e',
            Some(p) => Piece {
                color: self.colour_of_letter(p.color),
                king: p.king,
            }
            .symbol(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_rules::Catalogue;

    fn variant(id: &str) -> Variant {
        Catalogue::builtin().get(id).unwrap()
    }

    fn named(g: &Geometry, d: Dialect, square: &str) -> String {
        d.name(g, g.parse_square(square).unwrap())
    }

    #[test]
    fn each_variant_has_its_dialect() {
        for (id, dialect) in [
            ("international", Dialect::Standard),
            ("killer", Dialect::Standard),
            ("russian", Dialect::PydraughtsRussian),
            ("brazilian", Dialect::PydraughtsRussian),
            ("american", Dialect::PydraughtsEnglish),
            ("turkish", Dialect::PydraughtsTurkish),
            ("siberian", Dialect::Standard),
            ("gothic", Dialect::Standard),
        ] {
            assert_eq!(Dialect::of(&variant(id)), dialect, "{id}");
        }
    }

    // The expected numbers are pydraughts' (draughts/convert.py, `_numeric_to_algebraic_square`
    // and `_rotate_move`), worked out by hand from its source, not from this code.
    #[test]
    fn pydraughts_russian_numbers_from_a1() {
        let v = variant("russian");
        let (g, d) = (&v.geometry, Dialect::of(&v));
        for (square, number) in [
            ("a1", "1"),
            ("c1", "2"),
            ("g1", "4"),
            ("b2", "5"),
            ("a3", "9"),
            ("g3", "12"),
            ("b4", "13"),
            ("h4", "16"),
            ("b8", "29"),
            ("h8", "32"),
        ] {
            assert_eq!(named(g, d, square), number, "{square}");
            assert_eq!(
                d.parse_square(g, number),
                g.parse_square(square).map_err(|_| String::new())
            );
        }
        let order: Vec<String> = d
            .position_order(g)
            .iter()
            .map(|&s| g.algebraic(s))
            .collect();
        assert_eq!(order[..5], ["b8", "d8", "f8", "h8", "a7"]);
        assert_eq!(order[31], "g1");
    }

    #[test]
    fn pydraughts_english_uses_the_checkers_numbers_and_swaps_colours() {
        let v = variant("american");
        let (g, d) = (&v.geometry, Dialect::of(&v));
        for (square, number) in [
            ("b8", "1"),
            ("h8", "4"),
            ("a7", "5"),
            ("b6", "9"),
            ("g1", "32"),
        ] {
            assert_eq!(named(g, d, square), number, "{square}");
        }
        let order: Vec<String> = d
            .position_order(g)
            .iter()
            .map(|&s| g.algebraic(s))
            .collect();
        assert_eq!(order[..5], ["g1", "e1", "c1", "a1", "h2"]);
        assert_eq!(order[31], "b8");
        assert_eq!(d.letter(Some(Piece::man(Color::Black))), 'w');
        assert_eq!(d.letter(Some(Piece::king(Color::White))), 'B');
    }

    #[test]
    fn pydraughts_turkish_numbers_all_squares_from_a1() {
        let v = variant("turkish");
        let (g, d) = (&v.geometry, Dialect::of(&v));
        for (square, number) in [
            ("a1", "1"),
            ("h1", "8"),
            ("a3", "17"),
            ("a4", "25"),
            ("h8", "64"),
        ] {
            assert_eq!(named(g, d, square), number, "{square}");
        }
        assert_eq!(d.parse_square(g, "d3"), d.parse_square(g, "20"));
        assert!(d.parse_square(g, "65").is_err());
        assert!(d.parse_square(g, "0").is_err());
        let order: Vec<String> = d
            .position_order(g)
            .iter()
            .map(|&s| g.algebraic(s))
            .collect();
        assert_eq!(order[..2], ["a8", "b8"]);
        assert_eq!(order[8], "a7");
        assert_eq!(order[63], "h1");
    }

    #[test]
    fn the_standard_dialect_is_the_variant_numbering() {
        let v = variant("international");
        let (g, d) = (&v.geometry, Dialect::of(&v));
        assert_eq!(d.position_order(g), g.all_squares());
        assert_eq!(named(g, d, "b10"), "1");
        assert_eq!(named(g, d, "a1"), "46");
        let gothic = variant("gothic");
        assert_eq!(named(&gothic.geometry, Dialect::Standard, "d3"), "d3");
    }
}
