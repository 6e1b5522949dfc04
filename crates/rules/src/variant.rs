//! `Variant`: a checked variant file. Every combination that makes no sense is rejected here with
//! the file, the key and the reason, so that the move generator can trust its input.

use std::fmt;

use crate::direction::DirSet;
use crate::geometry::{Geometry, Square, SquareNames, Squares};
use crate::spec::*;
use crate::Color;

/// A variant, checked and ready to compile into move-generation tables (`Rules`).
#[derive(Clone, Debug)]
pub struct Variant {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub family: String,
    pub block: String,
    pub seed: String,
    pub description: String,
    pub sources: Vec<String>,
    /// The file the variant was read from (for messages).
    pub file: String,
    /// The variant this one extends, if any.
    pub extends: Option<String>,
    pub geometry: Geometry,
    /// The start position: each player's men, as layout masks.
    pub setup: [u128; 2],
    pub first_player: Color,
    pub men: MenRules,
    pub kings: KingRules,
    pub capture: CaptureSpec,
    /// Each player's promotion squares, as layout masks.
    pub promotion: [u128; 2],
    /// Whether the promotion squares are the far rank (as opposed to a custom set).
    pub promotion_far_rank: bool,
    pub bahrain: bool,
    pub draw: DrawSpec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MenRules {
    pub step: DirSet,
    pub capture: DirSet,
    pub first_jump_forbidden: DirSet,
    pub line_leap: LineLeap,
    pub line_leap_over: LineMembers,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingRules {
    pub move_range: Range,
    pub moves: DirSet,
    pub capture_range: Range,
    pub captures: DirSet,
    pub landing: Landing,
    pub orth_targets: Targets,
    pub diag_targets: Targets,
    pub targets_first_jump_only: bool,
}

/// A variant file that cannot be used: the file, the key (dotted path) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantError {
    pub file: String,
    pub key: Option<String>,
    pub reason: String,
}

impl VariantError {
    pub fn new(file: &str, key: Option<&str>, reason: impl Into<String>) -> VariantError {
        VariantError {
            file: file.to_string(),
            key: key.map(str::to_string),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "{}: key `{}`: {}", self.file, key, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl std::error::Error for VariantError {}

impl Variant {
    /// A stable hash of everything that decides how the game is played from a position: the
    /// board, the men's and kings' rules, captures, promotion, the Bahrain rule and the draw
    /// rules. Names, descriptions, the file's path and the start position are left out. Files
    /// keyed by a variant's id (tablebases, the atlas) store it, so that a variant file of the
    /// same id with other rules is refused rather than mixed with what the first one made.
    pub fn rules_hash(&self) -> u64 {
        // The text hashed is the tables' since the first of them: changing it orphans every
        // table built.
        let text = format!(
            "{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{:?}",
            self.geometry,
            self.men,
            self.kings,
            self.capture,
            self.promotion,
            self.promotion_far_rank,
            self.bahrain,
            self.draw
        );
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
    }

    /// Checks a resolved variant file.
    pub fn from_file(file: &str, spec: VariantFile) -> Result<Variant, VariantError> {
        let err = |key: &str, reason: String| VariantError::new(file, Some(key), reason);

        check_id(&spec.id).map_err(|r| err("id", r))?;
        for alias in &spec.aliases {
            check_id(alias).map_err(|r| err("aliases", r))?;
        }
        for (key, value) in [("name", &spec.name), ("family", &spec.family)] {
            if value.trim().is_empty() {
                return Err(err(key, "must not be empty".into()));
            }
        }
        // Printed in tables and on terminals (`variants`, `rules`): a control character (an
        // escape sequence, a line break) would rewrite the terminal or break the table, and a
        // bidirectional control (U+202E) shows the text after it reversed. A description may
        // break lines.
        let texts = [
            ("name", &spec.name, false),
            ("family", &spec.family, false),
            ("description", &spec.description, true),
            ("block", &spec.block, false),
            ("seed", &spec.seed, false),
        ];
        let sources = spec.sources.iter().map(|s| ("sources", s, false));
        let bidi = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
        for (key, value, lines) in texts.into_iter().chain(sources) {
            if let Some(c) = value
                .chars()
                .find(|&c| (c.is_control() && !(lines && (c == '\n' || c == '\t'))) || bidi(c))
            {
                let what = if bidi(c) { "bidirectional" } else { "control" };
                return Err(err(
                    key,
                    format!(
                        "holds the {what} character {:?}",
                        c.escape_unicode().to_string()
                    ),
                ));
            }
        }

        let squares = match spec.board.squares {
            SquaresSpec::All => Squares::All,
            SquaresSpec::Dark => Squares::Dark,
        };
        let geometry = Geometry::new(spec.board.width, spec.board.height, squares)
            .map_err(|e| err("board", e.to_string()))?;
        let geometry = match spec.board.notation {
            None => geometry,
            Some(notation) => geometry
                .with_names(match notation {
                    NotationSpec::Numbers => SquareNames::Numbers,
                    NotationSpec::Algebraic => SquareNames::Algebraic,
                })
                .map_err(|e| err("board.notation", e.to_string()))?,
        };

        // D4: the setup, and Black's as its rotation.
        let white_setup = match &spec.setup.white {
            SetupSquares::Ranks(ranks) => {
                if ranks.is_empty() {
                    return Err(err("setup.white", "no ranks given".into()));
                }
                let mut mask = 0u128;
                for (i, &rank) in ranks.iter().enumerate() {
                    if ranks[..i].contains(&rank) {
                        // As a square listed twice is: a slip in the file, not a setup.
                        return Err(err("setup.white", format!("rank {rank} is listed twice")));
                    }
                    if rank == 0 || rank > geometry.height() {
                        return Err(err(
                            "setup.white",
                            format!(
                                "rank {rank} is not on a board of {} ranks",
                                geometry.height()
                            ),
                        ));
                    }
                    for x in 0..geometry.width() {
                        if let Some(sq) = geometry.square_at(x as i32, rank as i32 - 1) {
                            mask |= 1 << sq.0;
                        }
                    }
                }
                mask
            }
            SetupSquares::Squares(names) => {
                if names.is_empty() {
                    return Err(err("setup.white", "no squares given".into()));
                }
                square_list(&geometry, names).map_err(|r| err("setup.white", r))?
            }
        };
        let black_setup = rotate_mask(&geometry, white_setup);
        if white_setup & black_setup != 0 {
            return Err(err(
                "setup.white",
                "White's squares overlap their 180° rotation, which are Black's".into(),
            ));
        }

        // D20: promotion squares.
        let (white_promotion, far_rank) = match &spec.promotion.squares {
            PromotionSquares::Named(name) if name == "far-rank" => {
                let mut mask = 0u128;
                for x in 0..geometry.width() {
                    if let Some(sq) = geometry.square_at(x as i32, geometry.height() as i32 - 1) {
                        mask |= 1 << sq.0;
                    }
                }
                (mask, true)
            }
            PromotionSquares::Named(other) => {
                return Err(err(
                    "promotion.squares",
                    format!("expected \"far-rank\" or a list of squares, not \"{other}\""),
                ))
            }
            PromotionSquares::List(names) => (
                square_list(&geometry, names).map_err(|r| err("promotion.squares", r))?,
                false,
            ),
        };
        if white_promotion == 0 {
            return Err(err("promotion.squares", "no promotion square".into()));
        }
        let black_promotion = rotate_mask(&geometry, white_promotion);
        if white_setup & white_promotion != 0 {
            return Err(err(
                "setup.white",
                "a man starts on one of its own promotion squares".into(),
            ));
        }

        let men = MenRules {
            step: spec.men.step.0,
            capture: spec.men.capture.0,
            first_jump_forbidden: spec.men.first_jump_forbidden.0,
            line_leap: spec.men.line_leap,
            line_leap_over: spec.men.line_leap_over,
        };
        if men.step.is_empty() && men.line_leap == LineLeap::None {
            return Err(err(
                "men.step",
                "men have no step and no line-leap: a man could move only by capturing, and would have no move in any position without a capture".into(),
            ));
        }
        if !men.first_jump_forbidden.is_subset(men.capture) {
            return Err(err(
                "men.first_jump_forbidden",
                format!(
                    "{} is not part of the men's capture directions {}",
                    men.first_jump_forbidden.minus(men.capture),
                    men.capture
                ),
            ));
        }
        if men.capture.minus(men.first_jump_forbidden).is_empty() && !men.capture.is_empty() {
            return Err(err(
                "men.first_jump_forbidden",
                "every capture direction is forbidden as a first jump, so men could never capture"
                    .into(),
            ));
        }

        let kings = KingRules {
            move_range: spec.kings.move_range,
            moves: spec.kings.moves.0,
            capture_range: spec.kings.capture_range,
            captures: spec.kings.capture.0,
            landing: spec.kings.landing,
            orth_targets: spec.kings.orth_targets,
            diag_targets: spec.kings.diag_targets,
            targets_first_jump_only: spec.kings.targets_first_jump_only,
        };
        if kings.moves.is_empty() {
            return Err(err("kings.move", "kings have no move direction".into()));
        }
        if kings.landing == Landing::Adjacent && kings.capture_range == Range::Short {
            return Err(err(
                "kings.landing",
                "`adjacent` only restricts flying kings; a short king always lands adjacent (use \"any\")"
                    .into(),
            ));
        }
        if kings.orth_targets == Targets::Kings && kings.captures.minus(DirSet::DIAG).is_empty() {
            return Err(err(
                "kings.orth_targets",
                "restricts orthogonal king captures, but kings do not capture orthogonally".into(),
            ));
        }
        if kings.diag_targets == Targets::Kings && kings.captures.minus(DirSet::ORTH).is_empty() {
            return Err(err(
                "kings.diag_targets",
                "restricts diagonal king captures, but kings do not capture diagonally".into(),
            ));
        }
        if kings.targets_first_jump_only
            && kings.orth_targets == Targets::Any
            && kings.diag_targets == Targets::Any
        {
            return Err(err(
                "kings.targets_first_jump_only",
                "is set, but no capture target is restricted".into(),
            ));
        }
        if kings.captures.is_empty() && men.capture.is_empty() {
            return Err(err(
                "kings.capture",
                "neither men nor kings can capture".into(),
            ));
        }

        let capture = spec.capture;
        if capture.halt != HaltRule::None && kings.capture_range != Range::Flying {
            return Err(err(
                "capture.halt",
                "a halt rule restricts a flying king's final landing, but kings capture short"
                    .into(),
            ));
        }
        let draw = spec.draw;
        // A file read from TOML was range-checked as it was read; a `VariantFile` built in
        // code is checked here, so that the generator's sums and the ply counts cannot overflow.
        for (key, value) in [
            ("capture.man_value", capture.man_value),
            ("capture.king_value", capture.king_value),
            ("draw.repetition", draw.repetition),
            ("draw.no_progress_moves", draw.no_progress_moves),
        ] {
            let range = KEY_RANGES
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, r)| r)
                .expect("every numeric key has a range");
            if !(range.min..=range.max).contains(&i64::from(value)) {
                return Err(err(key, range.refusal(i64::from(value))));
            }
        }
        if draw.repetition == 1 {
            return Err(err(
                "draw.repetition",
                "1 would make every position a draw; use 0 (off) or at least 2".into(),
            ));
        }

        Ok(Variant {
            id: spec.id,
            name: spec.name,
            aliases: spec.aliases,
            family: spec.family,
            block: spec.block,
            seed: spec.seed,
            // A user's file may leave the description out; say what it is instead.
            description: if spec.description.trim().is_empty() {
                match &spec.extends {
                    Some(parent) => format!("A variant of your own, built on `{parent}`."),
                    None => "A variant of your own.".to_string(),
                }
            } else {
                spec.description
            },
            sources: spec.sources,
            file: file.to_string(),
            extends: spec.extends,
            geometry,
            setup: [white_setup, black_setup],
            first_player: match spec.setup.first_player {
                ColorSpec::White => Color::White,
                ColorSpec::Black => Color::Black,
            },
            men,
            kings,
            capture,
            promotion: [white_promotion, black_promotion],
            promotion_far_rank: far_rank,
            bahrain: spec.special.bahrain,
            draw,
        })
    }

    /// Whether the variant's bitboards fit in 64 bits (otherwise 128).
    pub fn fits_u64(&self) -> bool {
        self.geometry.bits() <= 64
    }

    /// Whether `name` is this variant's id or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.id == name || self.aliases.iter().any(|a| a == name)
    }

    /// "8x8, all squares" / "10x10, dark squares".
    pub fn board_label(&self) -> String {
        format!(
            "{}x{} {}",
            self.geometry.width(),
            self.geometry.height(),
            match self.geometry.squares_kind() {
                Squares::All => "all",
                Squares::Dark => "dark",
            }
        )
    }
}

/// The longest id or alias (they are typed on command lines and shown in menus).
pub const MAX_ID_LEN: usize = 64;

fn check_id(id: &str) -> Result<(), String> {
    if id.len() > MAX_ID_LEN {
        return Err(format!(
            "an id has at most {MAX_ID_LEN} characters, not {}",
            id.len()
        ));
    }
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(format!(
            "`{id}` is not a valid id: use lowercase letters, digits and '-'"
        ));
    }
    Ok(())
}

fn square_list(geometry: &Geometry, names: &[SquareName]) -> Result<u128, String> {
    let mut mask = 0u128;
    for name in names {
        let text = name.to_string();
        let sq: Square = geometry.parse_square(&text).map_err(|e| e.to_string())?;
        if mask & 1 << sq.0 != 0 {
            return Err(format!("square {text} is listed twice"));
        }
        mask |= 1 << sq.0;
    }
    Ok(mask)
}

fn rotate_mask(geometry: &Geometry, mask: u128) -> u128 {
    geometry
        .all_squares()
        .iter()
        .filter(|sq| mask & 1 << sq.0 != 0)
        .fold(0, |acc, sq| acc | 1 << geometry.rotate(*sq).0)
}
