//! A parity invariant of captures under deferred removal, which rules out squares where a
//! capture of a given set of pieces cannot end, without searching.
//!
//! Under deferred removal the board does not change during a capture, so every jump is one of a
//! fixed set: over piece `u`, from a square `x` in front of it to a square `y` behind it. Give
//! each square and each piece a bit, and call an assignment *consistent* when every jump has
//! `bit(x) ^ bit(u) ^ bit(y) = 0`. Along any capture the landing of one jump is where the next
//! starts, so summing over its jumps telescopes: `bit(start) ^ bit(end) ^ (bits of the pieces
//! taken) = 0` for every consistent assignment. If some consistent assignment gives 1 instead,
//! no capture from `start` taking exactly those pieces ends on `end`.
//!
//! Such an assignment exists exactly when the vector `start + end + pieces` (over GF(2)) is
//! outside the span of the jumps' vectors `x + u + y`, which a small XOR basis decides. A king
//! in a pocket of the board that only some pieces lead into and out of is the typical case: it
//! must cross those "gates" an odd or an even number of times, which fixes the side it ends on.
//! Pieces and the squares the king stands on are disjoint, so one bitboard holds a vector.

use crate::bitboard::Bits;

/// The jumps of one capturing king as vectors, and their span over the pieces still to take.
pub(crate) struct JumpSpan<B: Bits> {
    /// Per jump, the victim and the vectors whose span is that of all its `x + u + y`: one of
    /// them and the differences within each side. Each once (a jump back repeats them).
    rows: Vec<(u8, B)>,
    /// Where each square's rows start in `rows` (sorted by victim), and where the last end.
    first: Vec<u32>,
    /// An XOR basis of the span, one vector per lowest bit (empty where none has it).
    basis: Vec<B>,
    /// The pieces it was last made over.
    pieces: Option<B>,
}

impl<B: Bits> JumpSpan<B> {
    /// The jumps (victim, squares in front, squares behind) on a board of `size` squares.
    pub fn new(size: usize, jumps: &[(u8, B, B)]) -> Self {
        let mut rows: Vec<(u8, B)> = Vec::new();
        for &(victim, front, behind) in jumps {
            if front.is_empty() || behind.is_empty() {
                continue;
            }
            let x0 = front.lowest();
            let y0 = behind.lowest();
            rows.push((victim, B::bit(x0) ^ B::bit(victim) ^ B::bit(y0)));
            for x in (front ^ B::bit(x0)).squares() {
                rows.push((victim, B::bit(x) ^ B::bit(x0)));
            }
            for y in (behind ^ B::bit(y0)).squares() {
                rows.push((victim, B::bit(y) ^ B::bit(y0)));
            }
        }
        rows.sort_unstable_by_key(|&(v, row)| (v, row.to_u128()));
        rows.dedup();
        let first = (0..=size)
            .map(|u| rows.partition_point(|&(v, _)| usize::from(v) < u) as u32)
            .collect();
        JumpSpan {
            rows,
            first,
            basis: vec![B::ZERO; size],
            pieces: None,
        }
    }

    /// Makes the span of the jumps over `pieces` (nothing to do if it is made over them).
    pub fn make(&mut self, pieces: B) {
        if self.pieces == Some(pieces) {
            return;
        }
        self.pieces = Some(pieces);
        self.basis.iter_mut().for_each(|b| *b = B::ZERO);
        for u in pieces.squares() {
            let rows = self.first[u as usize] as usize..self.first[u as usize + 1] as usize;
            for i in rows {
                let mut v = self.rows[i].1;
                // Reduced only until its lowest bit is no basis vector's: it joins the basis there
                // (the lowest bits stay distinct, which is all `reduce` needs).
                while !v.is_empty() {
                    let low = v.lowest() as usize;
                    let b = self.basis[low];
                    if b.is_empty() {
                        self.basis[low] = v;
                        break;
                    }
                    v ^= b;
                }
            }
        }
    }

    /// `v` less every basis vector whose lowest bit it has, lowest first: a vector without
    /// those bits, the same for every vector of `v`'s coset (the basis vectors' lowest bits are
    /// distinct), so `v` is in the span exactly when this is empty.
    fn reduce(&self, mut v: B) -> B {
        let mut rest = v;
        while !rest.is_empty() {
            let low = rest.lowest();
            v ^= self.basis[low as usize];
            // Bits above `low` may have changed; bits up to it are settled.
            let settled = u128::MAX >> (127 - u32::from(low));
            rest = v & !B::from_u128(settled);
        }
        v
    }

    /// The squares of `ends` where a capture from `start` that takes exactly the pieces the span
    /// is made over may end, as far as parity tells.
    pub fn possible_ends(&self, start: u8, ends: B) -> B {
        let from = self.start_image(start);
        ends.squares()
            .filter(|&e| self.ends_like(e, from))
            .fold(B::ZERO, |acc, e| acc | B::bit(e))
    }

    /// Whether such a capture may end on some square of `ends`.
    pub fn may_end_on(&self, start: u8, ends: B) -> bool {
        let from = self.start_image(start);
        ends.squares().any(|e| self.ends_like(e, from))
    }

    /// The reduced vector of the start and the pieces: a capture may end on `e` exactly when
    /// `e`'s is the same (the reduction is linear).
    fn start_image(&self, start: u8) -> B {
        self.reduce(B::bit(start) ^ self.pieces.unwrap_or(B::ZERO))
    }

    /// Whether `e` reduces to `from`. A square that is no basis vector's lowest bit reduces to
    /// itself, and one that is reduces to a vector above it: most squares are told apart
    /// without a reduction.
    fn ends_like(&self, e: u8, from: B) -> bool {
        if self.basis[e as usize].is_empty() {
            return from == B::bit(e);
        }
        (from.is_empty() || from.lowest() > e) && self.reduce(B::bit(e)) == from
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(jumps: &[(u8, u64, u64)], pieces: u64) -> JumpSpan<u64> {
        let mut span = JumpSpan::new(8, jumps);
        span.make(pieces);
        span
    }

    /// Squares 0, 2, 4, 6 of a row with pieces on 1, 3 and 5, short jumps both ways.
    #[test]
    fn a_row_of_short_jumps_fixes_where_captures_end() {
        let jumps = [
            (1, 1 << 0, 1 << 2),
            (1, 1 << 2, 1 << 0),
            (3, 1 << 2, 1 << 4),
            (3, 1 << 4, 1 << 2),
            (5, 1 << 4, 1 << 6),
            (5, 1 << 6, 1 << 4),
        ];
        let all = (1 << 1) | (1 << 3) | (1 << 5);
        // Taking all three from 0: 0 -> 2 -> 4 -> 6, and nowhere else.
        let three = span(&jumps, all);
        assert_eq!(three.possible_ends(0, 0b1010101), 1 << 6);
        // Taking only the one on 1: 0 -> 2.
        let one = span(&jumps, 1 << 1);
        assert_eq!(one.possible_ends(0, 0b1010101), 1 << 2);
    }

    /// Two pieces, each jumped between squares {0, 2} and {4, 6}: taking both crosses twice, so
    /// the capture ends on the side it started, on either square there.
    #[test]
    fn it_keeps_every_reachable_end() {
        let left = (1u64 << 0) | (1 << 2);
        let right = (1u64 << 4) | (1 << 6);
        let jumps = [
            (1, left, right),
            (1, right, left),
            (3, left, right),
            (3, right, left),
        ];
        let both = span(&jumps, (1 << 1) | (1 << 3));
        // 0 -> (over 1) 4 -> (over 3) 0 or 2.
        assert_eq!(both.possible_ends(0, left | right), left);
        let first = span(&jumps, 1 << 1);
        assert_eq!(first.possible_ends(2, left | right), right);
    }
}
