//! The variant file format: one TOML file per variant, every rule dimension of the rule book's §7
//! a key (the D-numbers in the comments). A file sets each key or inherits it with
//! `extends = "ID"`; unknown and missing keys are errors. `Variant` (variant.rs) is the checked
//! form of a `VariantFile`.

use serde::Deserialize;

use crate::direction::DirSet;

/// A variant file as written, after `extends` has been resolved.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    pub id: String,
    pub name: String,
    /// Other names (optional in a user's file, like `block` and `description`).
    #[serde(default)]
    pub aliases: Vec<String>,
    pub family: String,
    /// The rule book block, e.g. "1.01"; empty for a variant of the user's own.
    #[serde(default)]
    pub block: String,
    /// The seed document the rules come from (a file of shared/seeds), or "reference".
    pub seed: String,
    #[serde(default)]
    pub description: String,
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
    /// D1
    pub width: u8,
    /// D1
    pub height: u8,
    /// D2 (D3, the unit vectors, follow from it)
    pub squares: SquaresSpec,
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
                    "unknown direction `{name}`: expected F, B, L, R, FL, FR, BL, BR or one of the sets {}",
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
    /// D18: what a captured man counts for under the majority rule
    pub man_value: u32,
    /// D18: what a captured king counts for under the majority rule
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
    /// D22: the same position with the same side to move this many times is a draw (0: never).
    pub repetition: u32,
    /// D22: this many moves by each side without a man move or a capture is a draw (0: never).
    pub no_progress_moves: u32,
    /// D22: the FMJD endgame limits (16 moves for three pieces against a king, 5 for fewer).
    pub fmjd_endgame: bool,
}
