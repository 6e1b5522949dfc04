//! A bound on what a short-leaping king can still take, from the parity of a graph (Euler's
//! argument for trails), for the majority rule's walk in the Gothic family.
//!
//! A short leap moves the king two squares along a line, so it stays on the squares whose
//! coordinates have the parity of its start, and every piece it jumps stands on another square
//! class. The squares of its class therefore never change during a capture (under either
//! removal), and its captures are trails in a fixed graph: the vertices are the empty squares
//! of its class, and each capturable piece joins the two squares on either side of it along a
//! capture direction (one edge per line through it). A trail uses each piece at most once.
//!
//! At a vertex other than a trail's two ends, the trail leaves as often as it arrives, so it
//! uses an even number of the edges there: at most the vertex's degree, less one if that is
//! odd. Summing over the component of the king's square, a trail has at most
//! `edges - odd/2 + 1` edges, `odd` being the number of vertices of odd degree; and it takes at
//! most the pieces of that component. The reach search counts every piece of the component: in
//! a crowded position, where most squares touch an odd number of pieces, this is much tighter.

use crate::bitboard::Bits;
use crate::movegen::reach::{step, value_of};
use crate::rules::Rules;

/// Whether the bound holds for the kings of player `us`: short leaps along capture directions
/// that come in opposite pairs (so the graph's edges go both ways), each over any piece.
pub(crate) fn applies<B: Bits>(rules: &Rules<B>, us: usize) -> bool {
    let dirs = rules.king_captures[us].as_slice();
    !rules.king_captures_fly
        && dirs
            .iter()
            .all(|&d| !rules.kings_only[d as usize] && dirs.contains(&(d ^ 4)))
}

/// Every square of `set` moved two unit steps along `d` (those that would leave the board drop).
#[inline(always)]
fn leap<B: Bits>(rules: &Rules<B>, set: B, d: usize) -> B {
    (set & rules.jump_src[d]).shift(2 * rules.delta[d])
}

/// What a king on `sq` could still take at most, by value, when `occupied` blocks and
/// `capturable` may be taken (see the module documentation).
pub(crate) fn trail_value<B: Bits>(
    rules: &Rules<B>,
    us: usize,
    enemy_kings: B,
    sq: u8,
    occupied: B,
    capturable: B,
) -> u32 {
    let r = rules;
    let dirs = r.king_captures[us].as_slice();
    let empty = (r.squares & !occupied) | B::bit(sq);
    // Per direction, the vertices with an edge that way: a capturable piece next to them and
    // an empty square behind it.
    let mut ends = [B::ZERO; 8];
    for &d in dirs {
        let d = d as usize;
        // x + d capturable, x + 2d empty.
        ends[d] = empty & step(r, capturable, d ^ 4) & leap(r, empty, d ^ 4);
    }
    // The component of the king's square.
    let mut at = B::bit(sq);
    loop {
        let mut grown = at;
        for &d in dirs {
            let d = d as usize;
            grown |= leap(r, at & ends[d], d);
        }
        if grown == at {
            break;
        }
        at = grown;
    }
    let mut odd = B::ZERO;
    let mut degrees = 0;
    let mut pieces = B::ZERO;
    for &d in dirs {
        let d = d as usize;
        let here = ends[d] & at;
        odd ^= here;
        degrees += here.count();
        pieces |= step(r, here, d);
    }
    // Each edge is counted from both of its ends.
    let edges = degrees / 2;
    let most = (edges + 1).saturating_sub(odd.count() / 2);
    let n = pieces.count();
    let all = value_of(r, pieces, enemy_kings);
    if most >= n {
        return all;
    }
    // Leave out the cheapest pieces the trail cannot take too.
    all - (n - most) * r.man_value.min(r.king_value)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::Catalogue;

    /// The most a king can take, by walking every capture with the variant's removal (the
    /// oracle).
    fn longest(rules: &Rules<u128>, sq: u8, occupied: u128, capturable: u128) -> u32 {
        let mut best = 0;
        for &d in rules.king_captures[0].as_slice() {
            let d = d as usize;
            let victim = rules.next[sq as usize][d];
            if victim == crate::rules::NO_SQUARE || capturable & (1 << victim) == 0 {
                continue;
            }
            let landing = rules.next[victim as usize][d];
            if landing == crate::rules::NO_SQUARE || occupied & (1 << landing) != 0 {
                continue;
            }
            let rest = capturable & !(1 << victim);
            let blocking = if rules.immediate_removal {
                occupied & !(1 << victim)
            } else {
                occupied
            };
            let taken = 1 + longest(rules, landing, blocking, rest);
            best = best.max(taken);
        }
        best
    }

    /// Every variant whose kings the bound holds for (Gothic, Altdeutsche, American, ...).
    fn short_leaping() -> Vec<String> {
        let catalogue = Catalogue::builtin();
        catalogue
            .ids()
            .into_iter()
            .filter(|id| {
                let rules = Rules::<u128>::new(catalogue.get(id).unwrap()).unwrap();
                applies(&rules, 0)
            })
            .collect()
    }

    #[test]
    fn it_holds_for_the_short_leaping_kings_only() {
        let ids = short_leaping();
        for id in ["gothic", "altdeutsche", "american", "modified-gothic"] {
            assert!(ids.iter().any(|i| i == id), "{id} is missing from {ids:?}");
        }
        for id in ["international", "turkish", "dameo", "universal"] {
            assert!(!ids.iter().any(|i| i == id), "{id}'s kings fly");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The bound is never below the longest capture, on random boards, for the variants
        /// whose kings make short leaps (under both removals: the square class argument).
        #[test]
        fn no_capture_takes_more_than_the_bound(
            variant in prop::sample::select(short_leaping()),
            seed in any::<u64>(),
            density in 20u32..70,
        ) {
            let rules = Rules::<u128>::new(Catalogue::builtin().get(&variant).unwrap()).unwrap();
            let squares: Vec<u8> = (0..rules.next.len() as u8).collect();
            let mut state = seed | 1;
            let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
            let king = squares[(next() % squares.len() as u64) as usize];
            let mut enemy = 0u128;
            let mut own = 0u128;
            for &s in &squares {
                if s == king { continue; }
                let roll = (next() % 100) as u32;
                if roll < density { enemy |= 1 << s; } else if roll < density + 5 { own |= 1 << s; }
            }
            let occupied = enemy | own;
            let bound = trail_value(&rules, 0, 0, king, occupied, enemy) / rules.man_value;
            let most = longest(&rules, king, occupied, enemy);
            prop_assert!(most <= bound, "{most} pieces taken, bound {bound}");
        }
    }
}
