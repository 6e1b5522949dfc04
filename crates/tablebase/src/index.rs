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

/// Squares of `set` below `sq`.
#[inline(always)]
fn below(set: u128, sq: u8) -> u32 {
    (set & ((1u128 << sq) - 1)).count_ones()
}

/// Rank of a set of squares given each square's place `pos[sq]` among the available ones.
#[inline(always)]
fn rank_static(set: u128, pos: &[u8; 128]) -> u64 {
    let mut r = 0;
    let mut s = set;
    let mut i = 1;
    while s != 0 {
        let sq = s.trailing_zeros() as u8;
        s &= s - 1;
        r += binomial(pos[sq as usize] as u32, i);
        i += 1;
    }
    r
}

/// Rank of a set among the board's squares less `occupied`.
#[inline(always)]
fn rank_free(set: u128, occupied: u128, all_pos: &[u8; 128]) -> u64 {
    let mut r = 0;
    let mut s = set;
    let mut i = 1;
    while s != 0 {
        let sq = s.trailing_zeros() as u8;
        s &= s - 1;
        r += binomial(all_pos[sq as usize] as u32 - below(occupied, sq), i);
        i += 1;
    }
    r
}

/// The places (among `n` available squares, ascending) of the `k`-subset of rank `r`.
#[inline]
fn unrank(k: u32, mut r: u64, n: u32, out: &mut [u32; MAX_K]) {
    let mut top = n;
    for i in (1..=k).rev() {
        // Largest c < top with C(c, i) <= r, by binary search (C(c, i) grows with c).
        let (mut lo, mut hi) = (i - 1, top - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if binomial(mid, i) <= r {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        r -= binomial(lo, i);
        out[i as usize - 1] = lo;
        top = lo;
    }
}

/// The square at place `c` among the board's squares less `occupied` (skipping the occupied
/// ones below it, lowest first).
#[inline(always)]
fn free_square(c: u32, occupied: u128, all_list: &[u8], all_pos: &[u8; 128]) -> u8 {
    let mut idx = c;
    let mut o = occupied;
    while o != 0 {
        let sq = o.trailing_zeros() as usize;
        if all_pos[sq] as u32 <= idx {
            idx += 1;
            o &= o - 1;
        } else {
            break;
        }
    }
    all_list[idx as usize]
}

/// The index of one signature's positions.
#[derive(Clone, Debug)]
pub struct Indexer {
    material: Material,
    /// The board's squares, ascending, and each square's place in that list.
    all_list: Vec<u8>,
    all_pos: Box<[u8; 128]>,
    /// Squares a man of each colour may stand on, ascending, and their places.
    man_list: [Vec<u8>; 2],
    man_pos: Box<[[u8; 128]; 2]>,
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
        let list =
            |set: u128| -> Vec<u8> { (0..128u8).filter(|&sq| set & (1u128 << sq) != 0).collect() };
        let places = |list: &[u8]| -> [u8; 128] {
            let mut pos = [0u8; 128];
            for (i, &sq) in list.iter().enumerate() {
                pos[sq as usize] = i as u8;
            }
            pos
        };
        let all_list = list(all);
        let man_list = [list(man_squares[0]), list(man_squares[1])];
        Indexer {
            material,
            all_pos: Box::new(places(&all_list)),
            man_pos: Box::new([places(&man_list[0]), places(&man_list[1])]),
            all_list,
            man_list,
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
        let men = wm | bm;
        let i_wm = rank_static(wm, &self.man_pos[0]);
        let i_bm = rank_static(bm, &self.man_pos[1]);
        let i_wk = rank_free(wk, men, &self.all_pos);
        let i_bk = rank_free(bk, men | wk, &self.all_pos);
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
        let mut places = [0u32; MAX_K];
        let mut wm = 0u128;
        unrank(n_wm, i_wm, self.man_list[0].len() as u32, &mut places);
        for &c in &places[..n_wm as usize] {
            wm |= 1u128 << self.man_list[0][c as usize];
        }
        let mut bm = 0u128;
        unrank(n_bm, i_bm, self.man_list[1].len() as u32, &mut places);
        for &c in &places[..n_bm as usize] {
            bm |= 1u128 << self.man_list[1][c as usize];
        }
        if wm & bm != 0 {
            return None;
        }
        let free_n = self.all_list.len() as u32 - n_wm - n_bm;
        let mut wk = 0u128;
        unrank(n_wk, i_wk, free_n, &mut places);
        for &c in &places[..n_wk as usize] {
            wk |= 1u128 << free_square(c, wm | bm, &self.all_list, &self.all_pos);
        }
        let mut bk = 0u128;
        unrank(n_bk, i_bk, free_n - n_wk, &mut places);
        for &c in &places[..n_bk as usize] {
            bk |= 1u128 << free_square(c, wm | bm | wk, &self.all_list, &self.all_pos);
        }
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
        let list: Vec<u8> = (0..128u8).filter(|&q| avail & (1u128 << q) != 0).collect();
        let mut pos = [0u8; 128];
        for (i, &q) in list.iter().enumerate() {
            pos[q as usize] = i as u8;
        }
        let n = list.len() as u32;
        let mut seen = std::collections::HashSet::new();
        for k in 0..=3u32 {
            for r in 0..binomial(n, k) {
                let mut places = [0u32; MAX_K];
                unrank(k, r, n, &mut places);
                let set = places[..k as usize]
                    .iter()
                    .fold(0u128, |acc, &c| acc | 1u128 << list[c as usize]);
                assert_eq!(set.count_ones(), k);
                assert!(seen.insert((k, set)));
                assert_eq!(rank_static(set, &pos), r);
                // The same through the free-square path, with the unavailable squares occupied.
                let occupied = !avail & ((1u128 << 12) - 1);
                let mut all_pos = [0u8; 128];
                for q in 0..12u8 {
                    all_pos[q as usize] = q;
                }
                let all_list: Vec<u8> = (0..12).collect();
                assert_eq!(rank_free(set, occupied, &all_pos), r);
                let again = places[..k as usize].iter().fold(0u128, |acc, &c| {
                    acc | 1u128 << free_square(c, occupied, &all_list, &all_pos)
                });
                assert_eq!(again, set);
            }
        }
    }
}
