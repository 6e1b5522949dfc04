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
//! `edges - odd/2 + 1` edges, `odd` being the number of vertices of odd degree (one fewer if the
//! king's square is even); and it takes at most the pieces of that component. The reach search
//! counts every piece of the component: in a crowded position, where most squares touch an odd
//! number of pieces, this is much tighter.
//!
//! A piece with edges along two lines is taken along one at most, which the count of edges
//! does not see. When that count allows every piece, the pieces with one line only (forced
//! edges) are looked at alone: a vertex of odd degree among them that no other piece's edge
//! touches must be an end of the trail or of a forced edge it leaves out
//! (`pieces_left_out`).

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
    // Each edge is counted from both of its ends. A trail from an even vertex (with odd ones
    // about) leaves one edge more out: that vertex is odd in what it leaves.
    let edges = degrees / 2;
    let most = (edges + u32::from(odd.has(sq))).saturating_sub(odd.count() / 2);
    let n = pieces.count();
    let most = if most >= n {
        n - pieces_left_out(r, dirs, &ends, at, sq).min(n)
    } else {
        most
    };
    let all = value_of(r, pieces, enemy_kings);
    if most >= n {
        return all;
    }
    // Leave out the cheapest pieces the trail cannot take too.
    all - (n - most) * r.man_value.min(r.king_value)
}

/// How many pieces of the component `at` a trail from `sq` must leave out at least (`ends` as
/// in `trail_value`), as parity tells. A trail jumps each piece it takes along one of the
/// piece's lines, so a piece with one line only has its edge in the trail unless left out (a
/// forced edge). Every vertex but the trail's two ends has an even degree in it. A vertex of odd
/// degree among the forced edges that no other piece's edge touches (stuck) is therefore an end
/// or the end of a forced edge left out, and each piece left out frees two. The start is one
/// end and not counted; if its own degree is even and fixed too, the trail is closed (its other
/// end is the start) unless it leaves out a forced edge there.
fn pieces_left_out<B: Bits>(r: &Rules<B>, dirs: &[u8], ends: &[B; 8], at: B, sq: u8) -> u32 {
    // Per line through a piece (one direction of each opposite pair), the pieces that have an
    // edge along it; pieces with edges along two lines or more have a choice.
    let mut once = B::ZERO;
    let mut more = B::ZERO;
    for &d in dirs.iter().filter(|&&d| d < 4) {
        let d = d as usize;
        let on_line = step(r, ends[d] & at, d);
        more |= once & on_line;
        once |= on_line;
    }
    let forced = once & !more;
    let mut odd = B::ZERO;
    let mut touched = B::ZERO;
    for &d in dirs.iter().filter(|&&d| d < 4) {
        let d = d as usize;
        let from = ends[d] & at;
        let single = from & step(r, forced, d ^ 4);
        odd ^= single ^ leap(r, single, d);
        let choice = from & step(r, more, d ^ 4);
        touched |= choice | leap(r, choice, d);
    }
    let stuck = (odd & !touched & !B::bit(sq)).count();
    if !odd.has(sq) && !touched.has(sq) {
        // Closed, or a forced edge at the start left out (which frees the start and one more).
        stuck.div_ceil(2)
    } else {
        // The other end frees one.
        stuck / 2
    }
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

    /// A Gothic king on c3 among enemy men on `pieces` (file, rank from 0) and nothing else:
    /// the most it can take (the oracle walk) and the bound, in pieces.
    fn king_on_c3_among(pieces: &[(u8, u8)]) -> (u32, u32) {
        let rules = Rules::<u128>::new(Catalogue::builtin().get("gothic").unwrap()).unwrap();
        let square = |file: u8, rank: u8| rank * 8 + file;
        let king = square(2, 2);
        let enemy = pieces
            .iter()
            .fold(0u128, |acc, &(f, r)| acc | 1 << square(f, r));
        let most = longest(&rules, king, enemy, enemy);
        let bound = trail_value(&rules, 0, 0, king, enemy, enemy) / rules.man_value;
        (most, bound)
    }

    /// A king on c3 with a piece on each side of it (c4, c2, b3, d3) on an empty Gothic board:
    /// four spokes, each a dead end, so it takes one piece. Euler's count of odd vertices alone
    /// allows three (four edges, four odd ends, the start among them or not); the start is even
    /// (one more edge left out) and the four ends are stuck on forced edges (two pieces left
    /// out), which allows two.
    #[test]
    fn a_king_among_four_spokes_is_bounded_by_their_dead_ends() {
        let (most, bound) = king_on_c3_among(&[(2, 3), (2, 1), (1, 2), (3, 2)]);
        assert_eq!(most, 1, "the oracle walk");
        assert_eq!(bound, 2);
    }

    /// A king on c3 with pieces on c2, b3, d2 and f3 (Gothic): c2 joins c3 and c1, b3 joins c3
    /// and a3, f3 joins e3 and g3, and d2 lies on two lines (c1-e3, c3-e1). Five edges, odd
    /// vertices c3, a3, e1 and g3: the count of edges allows all four pieces. But a3 and g3 are
    /// odd among the forced edges and d2 touches neither, so one of them is the trail's end and
    /// the other the end of a piece left out: three (c3-c1-e3-g3, as the oracle walk finds).
    #[test]
    fn a_piece_on_two_lines_is_taken_along_one() {
        let (most, bound) = king_on_c3_among(&[(2, 1), (1, 2), (3, 1), (5, 2)]);
        assert_eq!(most, 3, "the oracle walk");
        assert_eq!(bound, 3);
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
