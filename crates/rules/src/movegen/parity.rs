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
    /// A basis of the span in echelon form: one vector per pivot (its lowest bit), made by
    /// taking the pieces' rows in the order of their squares. A vector joins it and is never
    /// changed, so the basis of the first `k` pieces is that of all less the pivots added
    /// after them: `pivots_after[k]`. Only the pivots' entries are meaningful.
    echelon: Vec<B>,
    pivots_after: Vec<B>,
    /// The same basis reduced: no vector has another's pivot.
    basis: Vec<B>,
    pivots: B,
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
            echelon: vec![B::ZERO; size],
            pivots_after: vec![B::ZERO],
            basis: vec![B::ZERO; size],
            pivots: B::ZERO,
            pieces: None,
        }
    }

    /// Makes the span of the jumps over `pieces` (nothing to do if it is made over them). The
    /// pieces below the lowest square in which they differ from the last ones keep their part
    /// of the basis: a walk asks for sets that differ by a piece or two.
    pub fn make(&mut self, pieces: B) {
        let kept = match self.pieces {
            Some(last) if last == pieces => return,
            Some(last) => {
                let below = B::from_u128((1u128 << (pieces ^ last).lowest()) - 1);
                (pieces & below).count() as usize
            }
            None => 0,
        };
        self.pieces = Some(pieces);
        self.pivots_after.truncate(kept + 1);
        let mut pivots = self.pivots_after[kept];
        for u in pieces.squares().skip(kept) {
            let rows = self.first[u as usize] as usize..self.first[u as usize + 1] as usize;
            for i in rows {
                let mut v = self.rows[i].1;
                // Reduced only until its lowest bit is no pivot: it joins the basis there.
                while !v.is_empty() {
                    let low = v.lowest();
                    if !pivots.has(low) {
                        self.echelon[low as usize] = v;
                        pivots |= B::bit(low);
                        break;
                    }
                    v ^= self.echelon[low as usize];
                }
            }
            self.pivots_after.push(pivots);
        }
        // Each vector's bits are its pivot and higher ones: from the highest pivot down, those
        // above are reduced already (no pivot but their own), so one pass clears the others.
        self.pivots = pivots;
        let mut left = pivots;
        while !left.is_empty() {
            let p = left.highest();
            left ^= B::bit(p);
            let mut v = self.echelon[p as usize];
            for q in (v & pivots & !B::bit(p)).squares() {
                v ^= self.basis[q as usize];
            }
            self.basis[p as usize] = v;
        }
    }

    /// The vector of `v`'s coset without a pivot: `v` is in the span exactly when it is empty.
    #[inline(always)]
    fn reduce(&self, v: B) -> B {
        (v & self.pivots)
            .squares()
            .fold(v, |acc, p| acc ^ self.basis[p as usize])
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
        // A square that is no pivot reduces to itself.
        let plain = ends & !self.pivots;
        if from.count() == 1 && plain.has(from.lowest()) {
            return true;
        }
        (ends & self.pivots)
            .squares()
            .any(|e| self.ends_like(e, from))
    }

    /// The reduced vector of the start and the pieces: a capture may end on `e` exactly when
    /// `e`'s is the same (the reduction is linear).
    fn start_image(&self, start: u8) -> B {
        self.reduce(B::bit(start) ^ self.pieces.unwrap_or(B::ZERO))
    }

    /// Whether `e` reduces to `from`: a pivot to its vector less itself, any other square to
    /// itself.
    #[inline(always)]
    fn ends_like(&self, e: u8, from: B) -> bool {
        let image = if self.pivots.has(e) {
            self.basis[e as usize] ^ B::bit(e)
        } else {
            B::bit(e)
        };
        image == from
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

    /// The rank of `vectors` over GF(2), by plain elimination on the highest bit (another
    /// method than the span's).
    fn rank(vectors: &[u64]) -> usize {
        let mut basis: Vec<u64> = Vec::new();
        for &v in vectors {
            let v = basis.iter().fold(v, |v, &b| v.min(v ^ b));
            if v != 0 {
                basis.push(v);
                basis.sort_unstable_by(|a, b| b.cmp(a));
            }
        }
        basis.len()
    }

    proptest::proptest! {
        /// Random jumps on 48 squares (pieces on the first 16, one or two squares on each
        /// side), and a run of piece sets each a piece or two from the last, as a walk asks for
        /// them: the ends the span allows are those whose vector `start + end + pieces` is in
        /// the span of the jumps over the set. It fails if the basis kept for the pieces a set
        /// shares with the last one is wrong, or if the reduced form or the shortcuts of the
        /// queries are.
        #[test]
        fn the_span_allows_the_ends_elimination_allows(
            jumps in proptest::collection::vec((0u8..16, (16u8..48, 16u8..48, 16u8..48, 16u8..48)), 1..40),
            sets in proptest::collection::vec((0u8..16, 0u8..16), 1..30),
            masks in proptest::collection::vec(proptest::num::u32::ANY, 8),
        ) {
            let jumps: Vec<(u8, u64, u64)> = jumps
                .into_iter()
                .map(|(victim, (x, x2, y, y2))| {
                    (victim, (1 << x) | (1 << x2), (1 << y) | (1 << y2))
                })
                .collect();
            let mut span = JumpSpan::new(48, &jumps);
            // A square in front of a piece, where captures can start.
            let start = jumps[0].1.lowest();
            // A piece no jump takes leaves nothing possible: sets of those the jumps take.
            let taken = jumps.iter().fold(0u64, |acc, j| acc | (1 << j.0));
            let mut set = 0u64;
            for (a, b) in sets {
                set ^= (1 << a) | (1 << b);
                let pieces = set & taken;
                span.make(pieces);
                let mut rows = Vec::new();
                for &(victim, front, behind) in &jumps {
                    if (pieces >> victim) & 1 == 0 {
                        continue;
                    }
                    for x in front.squares() {
                        for y in behind.squares() {
                            rows.push((1u64 << x) ^ (1 << victim) ^ (1 << y));
                        }
                    }
                }
                let base = rank(&rows);
                let all_ends = 0xffff_ffffu64 << 16;
                let mut expected = 0u64;
                for e in all_ends.squares() {
                    rows.push((1u64 << start) ^ (1 << e) ^ pieces);
                    if rank(&rows) == base {
                        expected |= 1 << e;
                    }
                    rows.pop();
                }
                proptest::prop_assert_eq!(span.possible_ends(start, all_ends), expected);
                for ends in masks.iter().map(|&m| u64::from(m) << 16).chain([all_ends & !expected]) {
                    proptest::prop_assert_eq!(span.may_end_on(start, ends), expected & ends != 0);
                }
            }
        }
    }
}
