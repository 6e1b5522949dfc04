//! Directions: absolute compass directions on the board, and the rule book's relative directions
//! (F, B, L, R, FL, FR, BL, BR) in each player's own frame (§0: Black's frame is White's rotated 180°).

use std::fmt;

use crate::Color;

/// An absolute direction, indexed clockwise from north so that `d ^ 4` is the opposite direction
/// and even indices are orthogonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dir(pub u8);

impl Dir {
    pub const N: Dir = Dir(0);
    pub const NE: Dir = Dir(1);
    pub const E: Dir = Dir(2);
    pub const SE: Dir = Dir(3);
    pub const S: Dir = Dir(4);
    pub const SW: Dir = Dir(5);
    pub const W: Dir = Dir(6);
    pub const NW: Dir = Dir(7);

    pub const ALL: [Dir; 8] = [
        Dir::N,
        Dir::NE,
        Dir::E,
        Dir::SE,
        Dir::S,
        Dir::SW,
        Dir::W,
        Dir::NW,
    ];

    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub fn opposite(self) -> Dir {
        Dir(self.0 ^ 4)
    }

    #[inline(always)]
    pub fn is_orthogonal(self) -> bool {
        self.0 & 1 == 0
    }

    /// The unit vector (dx, dy) in board cells, before the Frisian scaling of dark-only boards.
    pub fn vector(self) -> (i32, i32) {
        [
            (0, 1),
            (1, 1),
            (1, 0),
            (1, -1),
            (0, -1),
            (-1, -1),
            (-1, 0),
            (-1, 1),
        ][self.index()]
    }
}

/// A direction in the owner's frame: F = toward the opponent, R = the owner's right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RelDir {
    F = 0,
    FR = 1,
    R = 2,
    BR = 3,
    B = 4,
    BL = 5,
    L = 6,
    FL = 7,
}

impl RelDir {
    pub const ALL: [RelDir; 8] = [
        RelDir::F,
        RelDir::FR,
        RelDir::R,
        RelDir::BR,
        RelDir::B,
        RelDir::BL,
        RelDir::L,
        RelDir::FL,
    ];

    /// The absolute direction for a player: White's frame is the board's, Black's is rotated 180°.
    #[inline(always)]
    pub fn absolute(self, color: Color) -> Dir {
        match color {
            Color::White => Dir(self as u8),
            Color::Black => Dir((self as u8 + 4) & 7),
        }
    }

    pub fn name(self) -> &'static str {
        ["F", "FR", "R", "BR", "B", "BL", "L", "FL"][self as usize]
    }

    pub fn from_name(name: &str) -> Option<RelDir> {
        RelDir::ALL.into_iter().find(|d| d.name() == name)
    }

    /// How a player reads the direction.
    pub fn words(self) -> &'static str {
        [
            "forward",
            "diagonally forward right",
            "right",
            "diagonally backward right",
            "backward",
            "diagonally backward left",
            "left",
            "diagonally forward left",
        ][self as usize]
    }
}

/// A set of relative directions (bit i = `RelDir` i).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DirSet(pub u8);

impl DirSet {
    pub const NONE: DirSet = DirSet(0);
    /// {F, B, L, R}
    pub const ORTH: DirSet = DirSet(0b0101_0101);
    /// {FL, FR, BL, BR}
    pub const DIAG: DirSet = DirSet(0b1010_1010);
    pub const ALL8: DirSet = DirSet(0xff);
    /// {F, FL, FR}
    pub const FWD3: DirSet = DirSet(0b1000_0011);
    /// {F, FL, FR, L, R}: Winther's "five non-retreating directions".
    pub const FIVE: DirSet = DirSet(0b1100_0111);
    /// {F, L, R}: the Turkish man.
    pub const TURK_MAN: DirSet = DirSet(0b0100_0101);
    /// {FL, FR}
    pub const DIAG_FORWARD: DirSet = DirSet(0b1000_0010);

    /// Named sets accepted in variant files, with their rule-book names.
    pub const NAMED: [(&'static str, DirSet); 8] = [
        ("none", DirSet::NONE),
        ("orth", DirSet::ORTH),
        ("diag", DirSet::DIAG),
        ("all8", DirSet::ALL8),
        ("fwd3", DirSet::FWD3),
        ("five", DirSet::FIVE),
        ("turk-man", DirSet::TURK_MAN),
        ("diag-forward", DirSet::DIAG_FORWARD),
    ];

    pub fn of(dirs: &[RelDir]) -> DirSet {
        DirSet(dirs.iter().fold(0, |acc, d| acc | 1 << *d as u8))
    }

    #[inline(always)]
    pub fn contains(self, d: RelDir) -> bool {
        self.0 >> d as u8 & 1 == 1
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn is_subset(self, other: DirSet) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn union(self, other: DirSet) -> DirSet {
        DirSet(self.0 | other.0)
    }

    pub fn minus(self, other: DirSet) -> DirSet {
        DirSet(self.0 & !other.0)
    }

    pub fn iter(self) -> impl Iterator<Item = RelDir> {
        RelDir::ALL.into_iter().filter(move |d| self.contains(*d))
    }

    /// The absolute directions of the set for one player.
    pub fn absolute(self, color: Color) -> Vec<Dir> {
        self.iter().map(|d| d.absolute(color)).collect()
    }

    /// The name of a named set, if the set is one.
    pub fn set_name(self) -> Option<&'static str> {
        DirSet::NAMED
            .iter()
            .find(|(_, s)| *s == self)
            .map(|(name, _)| *name)
    }

    /// Parses a set name or a single direction name.
    pub fn parse(text: &str) -> Option<DirSet> {
        DirSet::NAMED
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, s)| *s)
            .or_else(|| RelDir::from_name(text).map(|d| DirSet::of(&[d])))
    }

    /// Player-readable list: "forward, left or right".
    pub fn words(self) -> String {
        const ORDER: [RelDir; 8] = [
            RelDir::F,
            RelDir::FL,
            RelDir::FR,
            RelDir::L,
            RelDir::R,
            RelDir::BL,
            RelDir::BR,
            RelDir::B,
        ];
        let words: Vec<&str> = ORDER
            .iter()
            .filter(|d| self.contains(**d))
            .map(|d| d.words())
            .collect();
        match words.len() {
            0 => "in no direction".to_string(),
            1 => words[0].to_string(),
            n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
        }
    }
}

impl fmt::Display for DirSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(RelDir::name).collect();
        write!(f, "{{{}}}", names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn black_frame_is_rotated() {
        assert_eq!(RelDir::F.absolute(Color::Black), Dir::S);
        assert_eq!(RelDir::R.absolute(Color::Black), Dir::W);
        assert_eq!(RelDir::FL.absolute(Color::White), Dir::NW);
        assert_eq!(RelDir::FL.absolute(Color::Black), Dir::SE);
        assert_eq!(Dir::NE.opposite(), Dir::SW);
    }

    #[test]
    fn named_sets_match_the_rule_book() {
        assert_eq!(
            DirSet::FIVE,
            DirSet::of(&[RelDir::F, RelDir::FL, RelDir::FR, RelDir::L, RelDir::R])
        );
        assert_eq!(
            DirSet::TURK_MAN,
            DirSet::of(&[RelDir::F, RelDir::L, RelDir::R])
        );
        assert_eq!(
            DirSet::FWD3,
            DirSet::of(&[RelDir::F, RelDir::FL, RelDir::FR])
        );
        assert_eq!(DirSet::ORTH.union(DirSet::DIAG), DirSet::ALL8);
        assert_eq!(DirSet::DIAG_FORWARD, DirSet::of(&[RelDir::FL, RelDir::FR]));
    }
}
