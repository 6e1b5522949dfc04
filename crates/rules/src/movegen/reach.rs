//! What a capturing king could still do: over-estimates that let the capture walk leave states
//! from which nothing legal can come under the majority rule. Each test is a necessary condition
//! for a continuation, never a sufficient one, so leaving a state it fails loses nothing.

use crate::bitboard::Bits;
use crate::rules::{Rules, NO_SQUARE};

/// What a king could still take and where it could still land, over-estimated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reach<B: Bits> {
    /// The enemy pieces it might still take, and their value.
    pub pieces: B,
    pub value: u32,
    /// Every square it might still land on.
    pub landings: B,
}

/// The value of a set of enemy pieces.
#[inline]
pub(crate) fn value_of<B: Bits>(rules: &Rules<B>, pieces: B, enemy_kings: B) -> u32 {
    let kings = (pieces & enemy_kings).count();
    (pieces.count() - kings) * rules.man_value + kings * rules.king_value
}

/// What a king of player `us` on `sq` could still do when `occupied` blocks and `capturable`
/// may be taken: a breadth-first search over landing squares as if every capturable piece could
/// be jumped from either side and (with immediate removal, for a flying king) might already be
/// gone. It ignores the
/// 180° rule, the halt rules and the completion rule, each of which only removes routes.
///
/// The search moves whole sets of squares at once (one shift per step along a direction), so
/// it costs a few dozen shifts per ring of landings however many squares are in it: the capture
/// walk asks it at most of the states of a big capture.
pub(crate) fn reach<B: Bits>(
    rules: &Rules<B>,
    us: usize,
    enemy_kings: B,
    sq: u8,
    occupied: B,
    capturable: B,
) -> Reach<B> {
    let r = rules;
    let empty = r.squares & !occupied;
    // Squares that are or may become free to land on and to pass (a short leap lands on none
    // that a capture empties).
    let free = if r.removal_changes_captures() {
        empty | capturable
    } else {
        empty
    };
    let dirs = r.king_captures[us].as_slice();
    // Per direction: the pieces that can be jumped that way (a free square right behind them).
    let mut jumpable = [B::ZERO; 8];
    for &d in dirs {
        let d = d as usize;
        let targets = if r.kings_only[d] {
            capturable & enemy_kings
        } else {
            capturable
        };
        jumpable[d] = targets & step(r, free, d ^ 4);
    }
    let mut seen = B::bit(sq);
    let mut frontier = seen;
    let mut landings = B::ZERO;
    let mut reached = B::ZERO;
    while !frontier.is_empty() {
        let mut landed = B::ZERO;
        for &d in dirs {
            let d = d as usize;
            let (taken, behind) = if r.king_captures_fly {
                // Along the line past free squares and pieces that can be jumped; it lands on
                // the free squares after the first piece jumped.
                let passable = free | jumpable[d];
                let taken = run(r, frontier, passable, d) & jumpable[d];
                (taken, run(r, taken, passable, d) & free)
            } else {
                // A short leap: the victim next to the king, the landing right behind it.
                let taken = step(r, frontier, d) & jumpable[d];
                (taken, step(r, taken, d))
            };
            reached |= taken;
            landed |= behind;
        }
        landings |= landed;
        frontier = landed & !seen;
        seen |= landed;
    }
    Reach {
        pieces: reached,
        value: value_of(rules, reached, enemy_kings),
        landings,
    }
}

/// Every square of `set` moved one unit step along `d` (those that would leave the board drop).
#[inline(always)]
pub(crate) fn step<B: Bits>(rules: &Rules<B>, set: B, d: usize) -> B {
    (set & rules.step_src[d]).shift(rules.delta[d])
}

/// The squares reached from `from` along `d` by one step or more, each onto a square of
/// `through`. After the first step the line is filled by shifts of 1, 2, 4... steps (a
/// Kogge-Stone fill): a fixed few rounds without a branch, where a step at a time would stop
/// at a length the processor cannot foresee.
#[inline(always)]
pub(crate) fn run<B: Bits>(rules: &Rules<B>, from: B, through: B, d: usize) -> B {
    let delta = rules.delta[d];
    let mut line = step(rules, from, d) & through;
    // The squares a line may go on to: those of `through` a step along `d` lands on. Each round
    // keeps those whose whole way back over the next shift is on it too.
    let first = through & rules.step_src[d].shift(delta);
    let mut onto = first;
    let mut shift = delta;
    for _ in 0..rules.fill_rounds {
        line |= onto & line.shift(shift);
        onto &= onto.shift(shift);
        shift = shift.wrapping_mul(2);
    }
    for _ in 0..rules.fill_steps {
        line |= first & line.shift(delta);
    }
    line
}

/// Under deferred removal nothing leaves the board during a capture, so where each enemy piece
/// can be jumped from, and where the king lands behind it, is fixed for the whole walk of one
/// king. The walk asks it whether the king could still take every piece it must take.
pub(crate) struct JumpGraph<B: Bits> {
    /// Every jump: the victim, the squares the king jumps it from, the squares it lands on.
    jumps: Vec<(u8, B, B)>,
    /// Per square: the union of the jumps over the piece there.
    approach: Vec<B>,
    land: Vec<B>,
}

impl<B: Bits> JumpGraph<B> {
    /// The jumps of a king of player `us` when `occupied` (without the king) blocks.
    pub fn new(rules: &Rules<B>, us: usize, occupied: B, enemy: B, enemy_kings: B) -> Self {
        let size = rules.next.len();
        let mut approach = vec![B::ZERO; size];
        let mut land = vec![B::ZERO; size];
        let mut jumps = Vec::new();
        let flying = rules.king_captures_fly;
        let run = |from: u8, d: usize, longest: bool| {
            let mut squares = B::ZERO;
            let mut s = rules.next[from as usize][d];
            while s != NO_SQUARE && !occupied.has(s) {
                squares |= B::bit(s);
                if !longest {
                    break;
                }
                s = rules.next[s as usize][d];
            }
            squares
        };
        for victim in enemy.squares() {
            for &d in rules.king_captures[us].as_slice() {
                let d = d as usize;
                if rules.kings_only[d] && !enemy_kings.has(victim) {
                    continue;
                }
                let front = run(victim, d ^ 4, flying);
                let behind = run(victim, d, flying && !rules.landing_adjacent);
                if !front.is_empty() && !behind.is_empty() {
                    approach[victim as usize] |= front;
                    land[victim as usize] |= behind;
                    jumps.push((victim, front, behind));
                }
            }
        }
        JumpGraph {
            jumps,
            approach,
            land,
        }
    }

    /// Every jump: the victim, the squares the king jumps it from, the squares it lands on.
    pub fn jumps(&self) -> &[(u8, B, B)] {
        &self.jumps
    }

    /// The squares behind `piece` where a capture that takes it can land.
    pub fn landings_behind(&self, piece: u8) -> B {
        self.land[piece as usize]
    }

    /// Whether a king on `sq` could still take every piece of `needed` (each once, in some order)
    /// and end on a square of `ends`: every needed piece is within reach, and one of them has a
    /// landing on `ends`.
    pub fn may_take_all(&self, sq: u8, needed: B, ends: B) -> bool {
        if needed.is_empty() {
            return true;
        }
        let (got, landings) = self.spread(sq, needed);
        got == needed && !(landings & ends).is_empty()
    }

    /// The pieces of `pieces` a king on `sq` could reach, each jumped from a square reached
    /// before (an over-estimate of what it can take).
    pub fn reachable(&self, sq: u8, pieces: B) -> B {
        self.spread(sq, pieces).0
    }

    /// The pieces of `pieces` within reach of a king on `sq`, and the squares behind them.
    fn spread(&self, sq: u8, pieces: B) -> (B, B) {
        let mut at = B::bit(sq);
        let mut landings = B::ZERO;
        let mut got = B::ZERO;
        loop {
            let mut grew = false;
            for u in (pieces & !got).squares() {
                if !(self.approach[u as usize] & at).is_empty() {
                    got |= B::bit(u);
                    at |= self.land[u as usize];
                    landings |= self.land[u as usize];
                    grew = true;
                }
            }
            if !grew {
                return (got, landings);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::movegen::testing::{all_variants, xorshift};
    use crate::Catalogue;

    /// The reach search square by square, as it was written first: the oracle of the one that
    /// moves sets of squares.
    fn reach_square_by_square(
        rules: &Rules<u128>,
        us: usize,
        enemy_kings: u128,
        sq: u8,
        occupied: u128,
        capturable: u128,
    ) -> (u128, u128) {
        let r = rules;
        let empty = r.squares & !occupied;
        // A short leap never lands on a square a capture empties (`removal_changes_captures`).
        let free = if r.immediate_removal && r.king_captures_fly {
            empty | capturable
        } else {
            empty
        };
        let mut jumpable = [0u128; 8];
        for &d in r.king_captures[us].as_slice() {
            jumpable[d as usize] = if r.kings_only[d as usize] {
                capturable & enemy_kings
            } else {
                capturable
            };
        }
        let mut seen = 1u128 << sq;
        let mut frontier = seen;
        let (mut landings, mut reached) = (0u128, 0u128);
        while frontier != 0 {
            let s = frontier.trailing_zeros() as u8;
            frontier ^= 1 << s;
            for &d in r.king_captures[us].as_slice() {
                let di = d as usize;
                let can_jump = |t: u8| {
                    jumpable[di].has(t) && {
                        let behind = r.next[t as usize][di];
                        behind != NO_SQUARE && free.has(behind)
                    }
                };
                let mut land = |t: u8, seen: &mut u128, frontier: &mut u128| {
                    landings |= 1 << t;
                    if !seen.has(t) {
                        *seen |= 1 << t;
                        *frontier |= 1 << t;
                    }
                };
                if !r.king_captures_fly {
                    let victim = r.next[s as usize][di];
                    if victim == NO_SQUARE || !can_jump(victim) {
                        continue;
                    }
                    reached |= 1 << victim;
                    land(r.next[victim as usize][di], &mut seen, &mut frontier);
                    continue;
                }
                let mut jumped = false;
                let mut t = r.next[s as usize][di];
                while t != NO_SQUARE {
                    if jumped && free.has(t) {
                        land(t, &mut seen, &mut frontier);
                    }
                    if can_jump(t) {
                        reached |= 1 << t;
                        jumped = true;
                    } else if !free.has(t) {
                        break;
                    }
                    t = r.next[t as usize][di];
                }
            }
        }
        (reached, landings)
    }

    /// Variants whose king captures differ: flying or short, diagonal, orthogonal or both,
    /// immediate or deferred removal, kings-only directions.
    const VARIANTS: &[&str] = &[
        "international",
        "turkish",
        "universal",
        "gothic",
        "dameo",
        "american",
        "tama",
        "siberian",
        "hoogland-10",
        "babylonian-a",
        "turkthic-2",
        "greek-5",
    ];

    /// The squares `run` should reach, square by square along `next`.
    fn run_along_next<B: Bits>(rules: &Rules<B>, from: B, through: B, d: usize) -> B {
        let mut line = B::ZERO;
        for sq in from.squares() {
            let mut t = rules.next[sq as usize][d];
            while t != NO_SQUARE && through.has(t) {
                line |= B::bit(t);
                t = rules.next[t as usize][d];
            }
        }
        line
    }

    #[test]
    fn lines_filled_by_doubling_shifts_are_the_lines_step_by_step() {
        let narrow: Vec<Rules<u64>> = all_variants();
        let wide: Vec<Rules<u128>> = all_variants();
        // Boards of 10x10 in 64 bits end with a single step; none is filled step by step.
        assert!(narrow.iter().any(|r| r.fill_steps > 0));
        assert!(narrow.iter().all(|r| r.fill_rounds >= 3));
        assert!(wide.iter().all(|r| r.fill_rounds >= 3));
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || xorshift(&mut state);
        let mut lines = 0;
        for _ in 0..40 {
            let (a, b, c) = (next(), next(), next());
            lines_match(&narrow, [a, b, c], &mut lines);
            let wide_sets = [
                u128::from(a) << 64 | u128::from(c),
                u128::from(b) << 64 | u128::from(a),
                u128::from(c) << 64 | u128::from(b),
            ];
            lines_match(&wide, wide_sets, &mut lines);
        }
    }

    /// Asserts that `run` fills the lines `run_along_next` follows, on every board and along
    /// every direction, from the squares of both `b` and `c` over sparse to dense `through`
    /// (`a`, then with `b`, then with `c` too, in turn); `lines` counts the lines.
    fn lines_match<B: Bits>(boards: &[Rules<B>], [a, b, c]: [B; 3], lines: &mut usize) {
        for rules in boards {
            let through = [a, a | b, a | b | c][*lines % 3] & rules.squares;
            let from = b & c & rules.squares;
            for d in 0..8 {
                let want = run_along_next(rules, from, through, d);
                assert_eq!(run(rules, from, through, d), want);
                *lines += 1;
            }
        }
    }

    proptest! {
        #[test]
        fn the_set_search_finds_what_the_square_search_finds(
            which in 0..VARIANTS.len(),
            us in 0usize..2,
            seed in any::<(u128, u128, u128, u8)>(),
        ) {
            let variant = Catalogue::builtin().get(VARIANTS[which]).unwrap();
            let rules = Rules::<u128>::new(variant).unwrap();
            let (a, b, c, at) = seed;
            let squares: Vec<u8> = rules.squares.squares().collect();
            let sq = squares[at as usize % squares.len()];
            // About half the squares taken, some three quarters of them by the enemy.
            let occupied = a & b & rules.squares & !(1u128 << sq);
            let capturable = occupied & (b | c);
            let enemy_kings = capturable & c;
            let got = reach(&rules, us, enemy_kings, sq, occupied, capturable);
            let (pieces, landings) =
                reach_square_by_square(&rules, us, enemy_kings, sq, occupied, capturable);
            prop_assert_eq!(got.pieces, pieces);
            prop_assert_eq!(got.landings, landings);
            prop_assert_eq!(got.value, value_of(&rules, pieces, enemy_kings));
        }
    }
}
