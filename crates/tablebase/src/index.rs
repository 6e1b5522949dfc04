//! Indexing by combinatorial ranking. A position of a signature maps to
//! `side * half + (((wm * Nbm + bm) * Nwk + wk) * Nbk + bk)`, where each term is the rank of a
//! set of squares in the combinatorial number system:
//! - White's men among the squares a white man may stand on (all but White's promotion
//!   squares), Black's men likewise among theirs. The two sets are ranked independently, so
//!   slots where a white and a black man share a square exist and are marked invalid (few:
//!   men are few in small tables);
//! - White's kings among the squares the men left free, then Black's kings among the rest:
//!   no waste.

use damspel_rules::{Bits, Color, Piece, Position, Rules, Setup, Square};

use crate::material::Material;

/// Binomial coefficients C(n, k) for n <= 128, k <= 16.
const MAX_K: usize = 16;
static BINOMIAL: [[u64; MAX_K + 1]; 129] = binomials();

const fn binomials() -> [[u64; MAX_K + 1]; 129] {
    let mut t = [[0u64; MAX_K + 1]; 129];
    let mut n = 0;
    while n <= 128 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_K {
            t[n][k] = if n == 0 {
                0
            } else {
                // Saturates far above any table this crate will build.
                t[n - 1][k - 1].saturating_add(t[n - 1][k])
            };
            k += 1;
        }
        n += 1;
    }
    t
}

fn binomial(n: u32, k: u32) -> u64 {
    if k as usize > MAX_K || n > 128 {
        return u64::MAX;
    }
    BINOMIAL[n as usize][k as usize]
}

/// Squares of `avail` below `sq`.
#[inline(always)]
fn below(avail: u128, sq: u8) -> u32 {
    (avail & ((1u128 << sq) - 1)).count_ones()
}

/// Rank of `set` (a subset of `avail`) among the subsets of `avail` of its size.
#[inline]
fn rank(set: u128, avail: u128) -> u64 {
    let mut r = 0;
    let mut s = set;
    let mut i = 1;
    while s != 0 {
        let sq = s.trailing_zeros() as u8;
        s &= s - 1;
        r += binomial(below(avail, sq), i);
        i += 1;
    }
    r
}

/// The `n`-th (from 0) square of `avail`.
#[inline]
fn select(avail: u128, n: u32) -> u8 {
    let mut a = avail;
    for _ in 0..n {
        a &= a - 1;
    }
    a.trailing_zeros() as u8
}

/// The subset of `avail` with `k` squares and rank `r`.
#[inline]
fn unrank(k: u32, mut r: u64, avail: u128) -> u128 {
    let mut set = 0u128;
    let mut top = avail.count_ones();
    for i in (1..=k).rev() {
        // Largest c < top with C(c, i) <= r.
        let mut c = top - 1;
        while binomial(c, i) > r {
            c -= 1;
        }
        r -= binomial(c, i);
        set |= 1u128 << select(avail, c);
        top = c;
    }
    set
}

/// The index of one signature's positions.
#[derive(Clone, Debug)]
pub struct Indexer {
    material: Material,
    all: u128,
    /// Squares a man of each colour may stand on.
    man_squares: [u128; 2],
    /// Sizes of the four factors: white men, black men, white kings, black kings.
    sizes: [u64; 4],
    half: u64,
}

impl Indexer {
    pub fn new<B: Bits>(rules: &Rules<B>, material: Material) -> Indexer {
        let all = rules.squares().to_u128();
        let man_squares = [
            all & !rules.promotion_squares(Color::White).to_u128(),
            all & !rules.promotion_squares(Color::Black).to_u128(),
        ];
        let n = all.count_ones();
        let [wm, wk, bm, bk] = material.counts.map(u32::from);
        let free = n.saturating_sub(wm + bm);
        let sizes = [
            binomial(man_squares[0].count_ones(), wm),
            binomial(man_squares[1].count_ones(), bm),
            binomial(free, wk),
            binomial(free.saturating_sub(wk), bk),
        ];
        let half = sizes
            .iter()
            .try_fold(1u64, |acc, &s| acc.checked_mul(s))
            .unwrap_or(u64::MAX);
        Indexer {
            material,
            all,
            man_squares,
            sizes,
            half,
        }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Positions with one side to move (slots, including the invalid ones).
    pub fn half(&self) -> u64 {
        self.half
    }

    /// Slots of the table: both sides to move.
    pub fn len(&self) -> u64 {
        self.half.saturating_mul(2)
    }

    pub fn is_empty(&self) -> bool {
        self.half == 0
    }

    /// The slot of a position of this signature.
    #[inline]
    pub fn index<B: Bits>(&self, pos: &Position<B>) -> u64 {
        debug_assert_eq!(Material::of(pos), self.material);
        let wm = pos.men(Color::White).to_u128();
        let bm = pos.men(Color::Black).to_u128();
        let wk = pos.kings(Color::White).to_u128();
        let bk = pos.kings(Color::Black).to_u128();
        let free = self.all & !(wm | bm);
        let i_wm = rank(wm, self.man_squares[0]);
        let i_bm = rank(bm, self.man_squares[1]);
        let i_wk = rank(wk, free);
        let i_bk = rank(bk, free & !wk);
        let [_, s_bm, s_wk, s_bk] = self.sizes;
        let i = ((i_wm * s_bm + i_bm) * s_wk + i_wk) * s_bk + i_bk;
        pos.side_to_move().index() as u64 * self.half + i
    }

    /// The position in a slot, or None for an invalid slot (a white and a black man on one
    /// square).
    pub fn position<B: Bits>(&self, rules: &Rules<B>, index: u64) -> Option<Position<B>> {
        self.position_with(rules, index, &mut Setup::default())
    }

    /// `position`, reusing `scratch`'s allocation (the build's hot loop).
    pub fn position_with<B: Bits>(
        &self,
        rules: &Rules<B>,
        index: u64,
        scratch: &mut Setup,
    ) -> Option<Position<B>> {
        let side = if index >= self.half {
            Color::Black
        } else {
            Color::White
        };
        let mut i = index % self.half;
        let [s_wm, s_bm, s_wk, s_bk] = self.sizes;
        let i_bk = i % s_bk;
        i /= s_bk;
        let i_wk = i % s_wk;
        i /= s_wk;
        let i_bm = i % s_bm;
        i /= s_bm;
        let i_wm = i;
        debug_assert!(i_wm < s_wm);
        let [n_wm, n_wk, n_bm, n_bk] = self.material.counts.map(u32::from);
        let wm = unrank(n_wm, i_wm, self.man_squares[0]);
        let bm = unrank(n_bm, i_bm, self.man_squares[1]);
        if wm & bm != 0 {
            return None;
        }
        let free = self.all & !(wm | bm);
        let wk = unrank(n_wk, i_wk, free);
        let bk = unrank(n_bk, i_bk, free & !wk);
        scratch.side_to_move = Some(side);
        let pieces = &mut scratch.pieces;
        pieces.clear();
        for (set, piece) in [
            (wm, Piece::man(Color::White)),
            (wk, Piece::king(Color::White)),
            (bm, Piece::man(Color::Black)),
            (bk, Piece::king(Color::Black)),
        ] {
            let mut s = set;
            while s != 0 {
                pieces.push((Square(s.trailing_zeros() as u8), piece));
                s &= s - 1;
            }
        }
        Position::from_setup(rules, scratch).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse() {
        let avail: u128 = 0b1011_0110_1101;
        let n = avail.count_ones();
        for k in 0..=3u32 {
            for r in 0..binomial(n, k) {
                let set = unrank(k, r, avail);
                assert_eq!(set & !avail, 0);
                assert_eq!(set.count_ones(), k);
                assert_eq!(rank(set, avail), r);
            }
        }
    }
}
