//! The variant file format: one TOML file per variant, every rule dimension of the rule book's §7
//! a key (the D-numbers in the comments). A file sets each key or inherits it with
//! `extends = "ID"`; unknown and missing keys are errors. `Variant` (variant.rs) is the checked
//! form of a `VariantFile`.
//!
//! Every numeric key has a range ([`KEY_RANGES`], documented in docs/variant-files.md), checked
//! as the file is read: a value outside it is refused with the key, the range and the reason.

use serde::{Deserialize, Deserializer};

use crate::direction::DirSet;

/// The values a numeric key accepts (inclusive), and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRange {
    pub min: i64,
    pub max: i64,
    pub why: &'static str,
}

impl KeyRange {
    /// The error text for a value outside the range.
    pub fn refusal(&self, value: i64) -> String {
        format!(
            "must be between {} and {}, not {value} ({})",
            self.min, self.max, self.why
        )
    }
}

/// D1: a board side. The layout needs at least 4 cells, and a bitboard holds 128 squares.
pub const BOARD_SIDE: KeyRange = KeyRange {
    min: 4,
    max: 16,
    why: "a board is 4 to 16 cells wide and high, and its layout fits one 128-bit bitboard (every size but a 16x16 dark-squares board, whose layout needs 136 bits)",
};

/// D18: what a captured piece counts for under the majority rule. The generator adds them up in
/// a u32 over a whole capture (at most 127 pieces on the largest board): 127 x 1000 is far
/// below 2^32, and 1000 allows any ratio a rule set may give a king against a man.
pub const PIECE_VALUE: KeyRange = KeyRange {
    min: 1,
    max: 1000,
    why: "a captured piece's count under the majority rule; a whole capture's sum must fit",
};

/// D22: how often a position must occur to be a draw (0 is off; 1 is refused by `Variant`).
pub const REPETITION: KeyRange = KeyRange {
    min: 0,
    max: 100,
    why: "0 turns the rule off; 2 or more is the number of occurrences that draws",
};

/// D22: moves by each side without progress that draw (0 is off). Real rules use 15 to 50;
/// the limit keeps every ply count (twice the moves) far inside a u32.
pub const NO_PROGRESS_MOVES: KeyRange = KeyRange {
    min: 0,
    max: 1000,
    why: "0 turns the rule off; otherwise the moves each side may make without progress",
};

/// D22: moves of an endgame limit (§10 A1, A3): what the FMJD set gives two pieces against a
/// lone king, and the Russian limit of kings against a lone king (0 is off there).
pub const ENDGAME_MOVES: KeyRange = KeyRange {
    min: 0,
    max: 1000,
    why: "the moves an endgame limit allows; 0 turns the kings-against-a-king limit off",
};

/// Every numeric key, dotted, with its range.
pub const KEY_RANGES: [(&str, KeyRange); 8] = [
    ("board.width", BOARD_SIDE),
    ("board.height", BOARD_SIDE),
    ("capture.man_value", PIECE_VALUE),
    ("capture.king_value", PIECE_VALUE),
    ("draw.repetition", REPETITION),
    ("draw.no_progress_moves", NO_PROGRESS_MOVES),
    ("draw.fmjd_two_pieces_moves", ENDGAME_MOVES),
    ("draw.kings_against_king_moves", ENDGAME_MOVES),
];

/// Reads an integer and refuses it outside `range` (TOML integers are i64, so any written
/// number reaches the check and is named in the error).
fn ranged<'de, D, T>(deserializer: D, range: &KeyRange) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    let value = i64::deserialize(deserializer)?;
    if !(range.min..=range.max).contains(&value) {
        return Err(serde::de::Error::custom(range.refusal(value)));
    }
    T::try_from(value).map_err(|_| serde::de::Error::custom(range.refusal(value)))
}

fn board_side<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    ranged(d, &BOARD_SIDE)
}

fn piece_value<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    ranged(d, &PIECE_VALUE)
}

fn repetition<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    ranged(d, &REPETITION)
}

fn no_progress_moves<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    ranged(d, &NO_PROGRESS_MOVES)
}

fn endgame_moves<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    ranged(d, &ENDGAME_MOVES)
}

/// The FMJD limit for two pieces against a lone king (rule book 4.01).
fn fmjd_two_pieces_default() -> u32 {
    5
}

/// The family of a variant of the user's own that names none.
fn own_family() -> String {
    "custom".into()
}

/// A variant file as written, after `extends` has been resolved.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    pub id: String,
    pub name: String,
    /// Other names (optional in a user's file, like `block` and `description`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Optional in a user's file: "custom".
    #[serde(default = "own_family")]
    pub family: String,
    /// The rule book block, e.g. "1.01"; empty for a variant of the user's own.
    #[serde(default)]
    pub block: String,
    /// The seed document the rules come from (a file of shared/seeds), or "reference"; empty
    /// for a variant of the user's own.
    #[serde(default)]
    pub seed: String,
    #[serde(default)]
    pub description: String,
    /// Where the rules are documented; optional in a user's file.
    #[serde(default)]
    pub sources: Vec<String>,
    pub extends: Option<String>,
    pub board: BoardSpec,
    pub setup: SetupSpec,
    pub men: MenSpec,
    pub kings: KingSpec,
    pub capture: CaptureSpec,
    pub promotion: PromotionSpec,
    pub special: SpecialSpec,
    pub draw: DrawSpec,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSpec {
    /// D1, 4 to 16 ([`BOARD_SIDE`])
    #[serde(deserialize_with = "board_side")]
    pub width: u8,
    /// D1, 4 to 16 ([`BOARD_SIDE`])
    #[serde(deserialize_with = "board_side")]
    pub height: u8,
    /// D2 (D3, the unit vectors, follow from it)
    pub squares: SquaresSpec,
    /// How moves and positions name the squares; optional: numbers on a dark-squares board,
    /// algebraic on an all-squares board unless the variant's players write otherwise.
    #[serde(default)]
    pub notation: Option<NotationSpec>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotationSpec {
    Numbers,
    Algebraic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SquaresSpec {
    All,
    Dark,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupSpec {
    /// D4: White's men; Black's are their 180° rotation.
    pub white: SetupSquares,
    /// D5
    pub first_player: ColorSpec,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum SetupSquares {
    /// Every used square of these ranks (1-based from White's side).
    Ranks(Vec<u8>),
    /// An explicit list of squares in the variant's notation.
    Squares(Vec<SquareName>),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a square: a number like 31 or a name like \"d4\""
)]
pub enum SquareName {
    Number(u32),
    Name(String),
}

impl std::fmt::Display for SquareName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SquareName::Number(n) => write!(f, "{n}"),
            SquareName::Name(s) => f.write_str(s),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColorSpec {
    White,
    Black,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenSpec {
    /// D7, in the owner's frame (D6)
    pub step: DirSetSpec,
    /// D8: short leaps
    pub capture: DirSetSpec,
    /// D9
    pub first_jump_forbidden: DirSetSpec,
    /// D10
    pub line_leap: LineLeap,
    /// D10: what the line is made of
    pub line_leap_over: LineMembers,
}

/// A set of relative directions: a set name ("orth", "turk-man", ...) or a list of directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirSetSpec(pub DirSet);

impl<'de> Deserialize<'de> for DirSetSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "expected a direction set: a set name like \"diag\" or a list like [\"F\", \"FL\", \"FR\"]"
        )]
        enum Raw {
            One(String),
            Many(Vec<String>),
        }
        let names = match Raw::deserialize(deserializer)? {
            Raw::One(name) => vec![name],
            Raw::Many(names) => names,
        };
        let mut set = DirSet::NONE;
        for name in names {
            let part = DirSet::parse(&name).ok_or_else(|| {
                let sets: Vec<&str> = DirSet::NAMED.iter().map(|(n, _)| *n).collect();
                serde::de::Error::custom(format!(
                    "unknown direction `{}`: expected F, B, L, R, FL, FR, BL, BR or one of the sets {}",
                    crate::quoted(&name),
                    sets.join(", ")
                ))
            })?;
            set = set.union(part);
        }
        Ok(DirSetSpec(set))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineLeap {
    None,
    FirstRank,
    Anywhere,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineMembers {
    /// Men and kings (1.02, 1.07, 1.08).
    Pieces,
    /// Men only (Dameo and the variants that refer to it).
    Men,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KingSpec {
    /// D11
    pub move_range: Range,
    /// D11
    #[serde(rename = "move")]
    pub moves: DirSetSpec,
    /// D12
    pub capture_range: Range,
    /// D12
    pub capture: DirSetSpec,
    /// D14
    pub landing: Landing,
    /// D13: which enemy pieces a king may capture along ranks and files.
    pub orth_targets: Targets,
    /// D13: which enemy pieces a king may capture along diagonals.
    pub diag_targets: Targets,
    /// D13: a restricted capture (`kings`) is allowed only as the first jump of a move.
    pub targets_first_jump_only: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Range {
    /// One square (moves) or a short leap (captures).
    Short,
    Flying,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Landing {
    Any,
    /// Immediately behind every captured piece.
    Adjacent,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Targets {
    Any,
    Kings,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// D16
    pub removal: Removal,
    /// D17
    pub reversal: Reversal,
    /// D18
    pub precedence: Precedence,
    /// D18: what a captured man counts for under the majority rule, 1 to 1000 ([`PIECE_VALUE`])
    #[serde(deserialize_with = "piece_value")]
    pub man_value: u32,
    /// D18: what a captured king counts for under the majority rule, 1 to 1000 ([`PIECE_VALUE`])
    #[serde(deserialize_with = "piece_value")]
    pub king_value: u32,
    /// D19
    pub promotion: PromotionInCapture,
    /// D15
    pub halt: HaltRule,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Removal {
    Immediate,
    Deferred,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reversal {
    Allowed,
    Forbidden,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precedence {
    /// Only the sequences capturing the most (by value) are legal.
    Majority,
    /// Any complete sequence is legal.
    Free,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromotionInCapture {
    Stop,
    ContinueAsMan,
    PromoteAndContinue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HaltRule {
    None,
    /// Land immediately behind the last captured piece if it is a king (single captures too).
    Killer,
    /// As Killer, for sequences of two or more captures.
    SequentialKiller,
    /// Land immediately behind the last captured piece after two or more captures.
    SequentialHalt,
    /// As SequentialHalt, when the last two captured pieces are kings.
    #[serde(rename = "sequential-halt-2")]
    SequentialHalt2,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionSpec {
    /// D20: `"far-rank"` or White's promotion squares (Black's are their 180° rotation).
    pub squares: PromotionSquares,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected \"far-rank\" or a list of White's promotion squares, like [\"a8\", \"b8\"] or [1, 2]"
)]
pub enum PromotionSquares {
    Named(String),
    List(Vec<SquareName>),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialSpec {
    /// D21
    pub bahrain: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawSpec {
    /// D22: exactly one piece each is a draw.
    pub one_piece_each: bool,
    /// D22: the same position with the same side to move this many times is a draw (0: never;
    /// otherwise 2 to 100, [`REPETITION`]).
    #[serde(deserialize_with = "repetition")]
    pub repetition: u32,
    /// D22: this many moves by each side without a man move or a capture is a draw (0: never;
    /// at most 1000, [`NO_PROGRESS_MOVES`]).
    #[serde(deserialize_with = "no_progress_moves")]
    pub no_progress_moves: u32,
    /// D22: the FMJD endgame limits (16 moves for three pieces against a king, 5 for fewer).
    pub fmjd_endgame: bool,
    /// §10 A1: the moves each of the FMJD limit for two kings, or a king and a man, against a
    /// lone king: 5 (4.01), 16 in the variants made to win that ending.
    #[serde(
        default = "fmjd_two_pieces_default",
        deserialize_with = "endgame_moves"
    )]
    pub fmjd_two_pieces_moves: u32,
    /// §10 A3 (Russian): three or more kings against a lone king are a draw when the lone king
    /// is not captured within this many moves of the stronger side (0: no such limit).
    #[serde(default, deserialize_with = "endgame_moves")]
    pub kings_against_king_moves: u32,
}
