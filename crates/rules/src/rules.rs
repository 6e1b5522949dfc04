//! `Rules<B>`: a checked `Variant` compiled into the tables the move generator runs on, for the
//! bitboard type `B`. Everything per-variant that the hot paths need is decided here, once.

use std::sync::Arc;

use crate::bitboard::Bits;
use crate::direction::{Dir, DirSet, RelDir};
use crate::spec::{
    HaltRule, Landing, LineLeap, LineMembers, Precedence, PromotionInCapture, Range, Removal,
    Reversal, Targets,
};
use crate::variant::Variant;
use crate::Color;

/// Marks "no square" in neighbour tables.
pub(crate) const NO_SQUARE: u8 = u8::MAX;

/// A short list of absolute directions (at most 8).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DirList {
    dirs: [u8; 8],
    len: u8,
}

impl DirList {
    fn new(set: DirSet, color: Color) -> DirList {
        let mut list = DirList::default();
        for d in set.iter() {
            list.dirs[list.len as usize] = d.absolute(color).0;
            list.len += 1;
        }
        list
    }

    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.dirs[..self.len as usize]
    }
}

/// The variant compiled for bitboard type `B`.
#[derive(Clone, Debug)]
pub struct Rules<B: Bits> {
    variant: Arc<Variant>,
    /// Every square of the board.
    pub(crate) squares: B,
    /// Layout delta of a unit step, per absolute direction.
    pub(crate) delta: [i8; 8],
    /// Squares from which a unit step in the direction stays on the board.
    pub(crate) step_src: [B; 8],
    /// Squares from which two unit steps in the direction stay on the board.
    pub(crate) jump_src: [B; 8],
    /// How `reach::run` fills the longest line after its first step: rounds of shifts of 1, 2,
    /// 4... steps (as many as needed and as the bitboard holds), then single steps for the rest.
    pub(crate) fill_rounds: u32,
    pub(crate) fill_steps: u32,
    /// `next[sq][d]`: the square one unit step away, or NO_SQUARE.
    pub(crate) next: Vec<[u8; 8]>,
    /// `ray[d][sq]`: every square beyond `sq` in direction `d`, up to the edge.
    pub(crate) ray: [Vec<B>; 8],
    pub(crate) man_step: [DirList; 2],
    pub(crate) man_capture_first: [DirList; 2],
    pub(crate) man_capture_later: [DirList; 2],
    pub(crate) king_moves: [DirList; 2],
    pub(crate) king_captures: [DirList; 2],
    pub(crate) line_leap_dirs: [DirList; 2],
    /// Men that may line-leap: their first rank, or everywhere.
    pub(crate) line_leap_from: [B; 2],
    pub(crate) line_leap_over_men_only: bool,
    pub(crate) promotion: [B; 2],
    /// Per absolute direction: a king may capture only kings that way (D13).
    pub(crate) kings_only: [bool; 8],
    pub(crate) targets_first_jump_only: bool,
    pub(crate) king_moves_fly: bool,
    pub(crate) king_captures_fly: bool,
    pub(crate) landing_adjacent: bool,
    pub(crate) immediate_removal: bool,
    pub(crate) no_reversal: bool,
    pub(crate) majority: bool,
    pub(crate) man_value: u32,
    pub(crate) king_value: u32,
    pub(crate) promotion_mode: PromotionInCapture,
    pub(crate) halt: HaltRule,
    pub(crate) bahrain: bool,
    pub(crate) has_line_leap: bool,
}

/// The variant's board needs more bits than the bitboard type has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("variant `{id}` needs {bits} bitboard bits, more than the {available} of this board type")]
pub struct BoardTooLarge {
    pub id: String,
    pub bits: u32,
    pub available: u32,
}

impl<B: Bits> Rules<B> {
    pub fn new(variant: impl Into<Arc<Variant>>) -> Result<Rules<B>, BoardTooLarge> {
        let variant: Arc<Variant> = variant.into();
        let g = &variant.geometry;
        if g.bits() > B::BITS {
            return Err(BoardTooLarge {
                id: variant.id.clone(),
                bits: g.bits(),
                available: B::BITS,
            });
        }
        let bits = g.bits() as usize;
        let mut next = vec![[NO_SQUARE; 8]; bits];
        let mut step_src = [B::ZERO; 8];
        let mut jump_src = [B::ZERO; 8];
        let mut ray: [Vec<B>; 8] = Default::default();
        let mut delta = [0i8; 8];
        for d in Dir::ALL {
            delta[d.index()] = g.delta(d);
            ray[d.index()] = vec![B::ZERO; bits];
            for &sq in g.all_squares() {
                if let Some(t) = g.step(sq, d) {
                    next[sq.0 as usize][d.index()] = t.0;
                    step_src[d.index()] |= B::bit(sq.0);
                    if g.step(t, d).is_some() {
                        jump_src[d.index()] |= B::bit(sq.0);
                    }
                }
                let mut r = B::ZERO;
                let mut s = g.step(sq, d);
                while let Some(t) = s {
                    r |= B::bit(t.0);
                    s = g.step(t, d);
                }
                ray[d.index()][sq.0 as usize] = r;
            }
        }
        // The steps a line may take after its first: rounds of 1, 2, 4... steps cover 2^k - 1 of
        // them, while a shift of 2^(k-1) steps fits the bitboard (and an i8); single steps the
        // rest (one on boards of 10x10 in 64 bits).
        let after_first = ray
            .iter()
            .flatten()
            .map(|r| r.count())
            .max()
            .unwrap_or(0)
            .saturating_sub(1);
        let widest = delta
            .iter()
            .map(|d| u32::from(d.unsigned_abs()))
            .max()
            .unwrap_or(0);
        let most_shift = (i8::MAX as u32).min(B::BITS - 1);
        let mut fill_rounds = 0;
        while (1u32 << fill_rounds) - 1 < after_first && widest << fill_rounds <= most_shift {
            fill_rounds += 1;
        }
        let fill_steps = after_first.saturating_sub((1u32 << fill_rounds) - 1);
        let per_color = |set: DirSet| {
            [
                DirList::new(set, Color::White),
                DirList::new(set, Color::Black),
            ]
        };
        let men = variant.men;
        let kings = variant.kings;
        let mut kings_only = [false; 8];
        for d in Dir::ALL {
            let targets = if d.is_orthogonal() {
                kings.orth_targets
            } else {
                kings.diag_targets
            };
            kings_only[d.index()] = targets == Targets::Kings;
        }
        let first_rank = |color: Color| {
            let y = match color {
                Color::White => 0,
                Color::Black => g.height() as i32 - 1,
            };
            (0..g.width() as i32)
                .filter_map(|x| g.square_at(x, y))
                .fold(B::ZERO, |acc, sq| acc | B::bit(sq.0))
        };
        let all = B::from_u128(g.mask());
        let line_leap_from = match men.line_leap {
            LineLeap::None => [B::ZERO; 2],
            LineLeap::FirstRank => [first_rank(Color::White), first_rank(Color::Black)],
            LineLeap::Anywhere => [all; 2],
        };
        let capture = variant.capture;
        Ok(Rules {
            squares: all,
            delta,
            step_src,
            jump_src,
            fill_rounds,
            fill_steps,
            next,
            ray,
            man_step: per_color(men.step),
            man_capture_first: per_color(men.capture.minus(men.first_jump_forbidden)),
            man_capture_later: per_color(men.capture),
            king_moves: per_color(kings.moves),
            king_captures: per_color(kings.captures),
            line_leap_dirs: per_color(if men.line_leap == LineLeap::None {
                DirSet::NONE
            } else {
                DirSet::of(&[RelDir::F, RelDir::FL, RelDir::FR])
            }),
            line_leap_from,
            line_leap_over_men_only: men.line_leap_over == LineMembers::Men,
            promotion: [
                B::from_u128(variant.promotion[0]),
                B::from_u128(variant.promotion[1]),
            ],
            kings_only,
            targets_first_jump_only: kings.targets_first_jump_only,
            king_moves_fly: kings.move_range == Range::Flying,
            king_captures_fly: kings.capture_range == Range::Flying,
            landing_adjacent: kings.landing == Landing::Adjacent,
            immediate_removal: capture.removal == Removal::Immediate,
            no_reversal: capture.reversal == Reversal::Forbidden,
            majority: capture.precedence == Precedence::Majority,
            man_value: capture.man_value,
            king_value: capture.king_value,
            promotion_mode: capture.promotion,
            halt: capture.halt,
            bahrain: variant.bahrain,
            has_line_leap: men.line_leap != LineLeap::None,
            variant,
        })
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Whether only the most valuable captures are legal (the majority rule).
    pub fn majority(&self) -> bool {
        self.majority
    }

    /// Shared handle to the variant.
    pub fn variant_arc(&self) -> Arc<Variant> {
        self.variant.clone()
    }

    /// Every square of the board, as a bitboard.
    pub fn squares(&self) -> B {
        self.squares
    }

    /// A player's promotion squares.
    pub fn promotion_squares(&self, color: Color) -> B {
        self.promotion[color.index()]
    }

    /// Whether taking a piece can change what the rest of a capture may do: captured pieces
    /// leave the board at once and a king flies over or onto their squares. A short leap lands
    /// two squares on along a line, on a square of its start's class (both coordinates'
    /// parities), and every piece it jumps stands on another class: no capture changes the
    /// squares it lands on, so both removals make the same moves (the walk then takes the
    /// deferred one, whose jump graph does not change).
    #[inline(always)]
    pub(crate) fn removal_changes_captures(&self) -> bool {
        self.immediate_removal && self.king_captures_fly
    }

    /// First blocker from `sq` along `d` within `occ`, if any.
    #[inline(always)]
    pub(crate) fn first_blocker(&self, sq: u8, d: usize, occ: B) -> Option<u8> {
        let blockers = self.ray[d][sq as usize] & occ;
        if blockers.is_empty() {
            None
        } else if self.delta[d] > 0 {
            Some(blockers.lowest())
        } else {
            Some(blockers.highest())
        }
    }

    /// The square of the piece a king's capture from `sq` along `d` would take, if any: the
    /// first blocker in `occ` for a flying king, the neighbour for a short one (which may be
    /// empty: the caller tests it against the pieces it may take).
    #[inline(always)]
    pub(crate) fn king_victim(&self, sq: u8, d: usize, occ: B) -> Option<u8> {
        let victim = if self.king_captures_fly {
            self.first_blocker(sq, d, occ)?
        } else {
            self.next[sq as usize][d]
        };
        (victim != NO_SQUARE).then_some(victim)
    }

    /// Squares a sliding piece on `sq` reaches along `d` before the first blocker in `occ`.
    #[inline(always)]
    pub(crate) fn slide(&self, sq: u8, d: usize, occ: B) -> B {
        let ray = self.ray[d][sq as usize];
        match self.first_blocker(sq, d, occ) {
            None => ray,
            Some(b) => ray & !(self.ray[d][b as usize] | B::bit(b)),
        }
    }
}
