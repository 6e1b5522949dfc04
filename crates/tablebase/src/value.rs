//! Values and their 16-bit codes in the tables.
//!
//! A code is `0` for a draw, `1` for an invalid slot (no position), and `2 + d` for a decided
//! position with `d` plies to the end of the game under best play. The parity of `d` tells the
//! value: a loss ends on the loser's move (0 plies: no legal move now), so losses are even and
//! wins odd.

/// The value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win,
    Draw,
    Loss,
}

impl Value {
    pub fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
        }
    }
}

pub const DRAW: u16 = 0;
pub const INVALID: u16 = 1;
/// Longest distance a code holds.
pub const MAX_DISTANCE: u32 = u16::MAX as u32 - 3;

/// The code of a decided position `d` plies from the end.
#[inline(always)]
pub fn decided(d: u32) -> u16 {
    debug_assert!(d <= MAX_DISTANCE);
    (d + 2) as u16
}

/// Value and distance of a code (None for an invalid slot).
#[inline(always)]
pub fn decode(code: u16) -> Option<(Value, u32)> {
    match code {
        DRAW => Some((Value::Draw, 0)),
        INVALID => None,
        c => {
            let d = c as u32 - 2;
            Some((if d % 2 == 1 { Value::Win } else { Value::Loss }, d))
        }
    }
}

/// What a table says about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// For the side to move.
    pub value: Value,
    /// Plies to the end of the game under best play (fastest win, longest resistance); 0 for a
    /// draw.
    pub distance: u32,
    /// The variant's move limit for this material, in plies, if it has one (the FMJD endgame
    /// limits, or else the no-progress rule).
    pub limit: Option<u32>,
    /// A win (or loss) longer than that limit: under the limit the game would be drawn first.
    pub cursed: bool,
}

impl Probe {
    /// The probe of the position after a move, seen from the side that played it: the
    /// opponent's loss is the mover's win, one ply longer.
    pub fn for_mover(&self) -> Probe {
        let value = match self.value {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
        };
        let distance = if value == Value::Draw {
            0
        } else {
            self.distance + 1
        };
        Probe {
            value,
            distance,
            cursed: value != Value::Draw && self.limit.is_some_and(|l| distance > l),
            ..*self
        }
    }
}
