//! The layered walk and the dive against the enumerating walk, with small layers, forgetting
//! dives and aims, on crowded positions of every variant.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::*;
use crate::movegen::capture::{capturing, generate_captures, Walk as CaptureWalk};
use crate::movegen::testing::{all_variants, crowded};

/// Every capture handed over, with its value (and, where the sink asks for routes, its
/// route): none is dropped or merged.
#[derive(Default)]
struct Every<const ROUTES: bool> {
    got: Vec<Captured>,
}

/// (from, to, pieces taken, value, promotes, landings, pieces in order)
type Captured = (u8, u8, u128, u32, bool, Vec<u8>, Vec<u8>);

impl<const ROUTES: bool> Sink<u128> for Every<ROUTES> {
    const COUNTS: bool = false;
    const ROUTES: bool = ROUTES;

    fn capture(
        &mut self,
        from: u8,
        to: u8,
        captured: u128,
        value: u32,
        promotes: bool,
        path: &[u8],
        order: &[u8],
        _: u64,
    ) {
        self.got.push((
            from,
            to,
            captured,
            value,
            promotes,
            path.to_vec(),
            order.to_vec(),
        ));
    }

    fn quiet(&mut self, _: u8, _: u8, _: bool) {}

    fn floor(&self) -> u32 {
        0
    }

    fn reset(&mut self) {
        self.got.clear();
    }
}

/// `pos`, and the same with the side to move's kings made men (unless one stands where it
/// would be crowned).
fn with_men(rules: &Rules<u128>, pos: Position<u128>) -> Vec<Position<u128>> {
    let own = pos.pieces[0] & pos.kings;
    let mut men = pos;
    men.kings &= !own;
    if (own & rules.promotion[0]).is_empty() {
        vec![pos, men]
    } else {
        vec![pos]
    }
}

/// Every capture sequence of `pos` by the enumerating walk, if it is done within a second.
fn enumerated<const ROUTES: bool>(
    rules: &Rules<u128>,
    pos: &Position<u128>,
) -> Option<Every<ROUTES>> {
    let capturing = capturing(rules, pos);
    if capturing.is_empty() {
        return None;
    }
    let mut every = Every::default();
    let walk = CaptureWalk {
        merge: false,
        stop: Until::deadline(Instant::now() + Duration::from_secs(1)),
        ..CaptureWalk::default()
    };
    generate_captures(rules, pos, &mut every, walk, capturing)
        .complete
        .then_some(every)
}

/// Each piece's captures by the layered walk against the walk that enumerates every
/// sequence, in crowded positions of every variant, kings and men: the same moves (the
/// most valuable under the majority rule), each once, promoting as they should. It fails if
/// a node's squares are not kept by the direction of the last jump where the 180° rule
/// applies, if the completion rule is kept per node rather than per jump, if a halt rule's
/// landing is not pinned, or if a man crowned during a capture does not go on as the
/// variant says.
#[test]
fn layered_walks_list_what_the_enumerating_walk_lists() {
    let variants = all_variants();
    let (mut kings, mut men, mut big, mut crowned) = (0, 0, 0, 0);
    for seed in 0..3000u64 {
        let rules = &variants[seed as usize % variants.len()];
        let crowded = crowded(
            rules,
            seed.wrapping_mul(0x2545_F491_4F6C_DD1D),
            6 + seed as usize % 18,
        );
        for pos in with_men(rules, crowded) {
            let Some(every) = enumerated::<false>(rules, &pos) else {
                continue;
            };
            for from in pos.pieces[0].squares() {
                let mine: Vec<_> = every.got.iter().filter(|c| c.0 == from).collect();
                let best = mine.iter().map(|c| c.3).max().unwrap_or(0);
                let expected: HashSet<(u8, u128, bool)> = mine
                    .iter()
                    .filter(|c| c.3 == best)
                    .map(|c| (c.1, c.2, c.4))
                    .collect();
                let mut got = Every::<false>::default();
                let king = pos.kings.has(from);
                let done = walk_piece(
                    rules,
                    &pos,
                    from,
                    king,
                    0,
                    None,
                    &mut got,
                    Until::NEVER,
                    u64::MAX,
                    &mut 0,
                    false,
                );
                assert_eq!(done, Layered::Done);
                let id = &rules.variant().id;
                let set: HashSet<(u8, u128, bool)> =
                    got.got.iter().map(|c| (c.1, c.2, c.4)).collect();
                // Under halt rule II one set can be two nodes (the last victim a king or
                // not), and the sink merges their moves.
                if rules.halt != HaltRule::SequentialHalt2 {
                    assert_eq!(set.len(), got.got.len(), "{id} {seed}: a move listed twice");
                }
                assert!(got.got.iter().all(|c| c.0 == from && c.3 == best));
                assert_eq!(set, expected, "{id} {seed}: the piece on {from}");
                if king {
                    kings += 1;
                } else {
                    men += 1;
                    crowned += usize::from(expected.iter().any(|m| m.2));
                }
                big += usize::from(expected.len() >= 20);
            }
        }
    }
    assert!(
        kings >= 2000 && men >= 1500 && big >= 100 && crowned >= 100,
        "{kings} kings, {men} men ({crowned} promoting), {big} with 20 moves or more"
    );
}

/// Under the majority rule the layered walk finds a route for each move backwards through
/// its layers: in crowded positions of every majority variant, kings and men, each route
/// is one the enumerating walk walks for that move (the same landings and pieces in the
/// same order; a flying king that goes on straight under deferred removal written with the
/// square right behind the piece it took), and the moves are those it lists. It fails if a
/// route's last jump is taken for one that goes on (or the other way), if the 180° rule's
/// slot of a square is not kept, if a man crowned on the way is not walked back as a man,
/// or if straight sweeps are written with a later landing. With no memory for the layers
/// the walk is given back to the merged walk.
#[test]
fn layered_routes_are_routes_the_enumerating_walk_walks() {
    let variants: Vec<_> = all_variants()
        .into_iter()
        .filter(|rules| rules.majority)
        .collect();
    let (mut moves, mut long, mut straight, mut men) = (0, 0, 0, 0);
    for seed in 0..2500u64 {
        let rules = &variants[seed as usize % variants.len()];
        let crowded = crowded(
            rules,
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            6 + seed as usize % 16,
        );
        for pos in with_men(rules, crowded) {
            let Some(every) = enumerated::<true>(rules, &pos) else {
                continue;
            };
            let id = &rules.variant().id;
            for from in pos.pieces[0].squares() {
                let mine: Vec<_> = every.got.iter().filter(|c| c.0 == from).collect();
                let Some(best) = mine.iter().map(|c| c.3).max() else {
                    continue;
                };
                let routes: HashSet<&Captured> =
                    mine.iter().filter(|c| c.3 == best).copied().collect();
                let expected: HashSet<_> = routes.iter().map(|c| (c.1, c.2, c.4)).collect();
                let mut got = Every::<true>::default();
                let king = pos.kings.has(from);
                let done = walk_piece(
                    rules,
                    &pos,
                    from,
                    king,
                    0,
                    None,
                    &mut got,
                    Until::NEVER,
                    u64::MAX,
                    &mut 0,
                    false,
                );
                assert_eq!(done, Layered::Done, "{id} {seed}");
                for c in &got.got {
                    assert!(routes.contains(c), "{id} {seed}: {c:?} is no route walked");
                    straight += usize::from(
                        c.5.len() >= 2
                            && !rules.removal_changes_captures()
                            && rules.king_captures_fly,
                    );
                }
                let listed: HashSet<_> = got.got.iter().map(|c| (c.1, c.2, c.4)).collect();
                assert_eq!(listed, expected, "{id} {seed}: the piece on {from}");
                moves += got.got.len();
                long += got.got.iter().filter(|c| c.5.len() >= 4).count();
                men += usize::from(!king);
                MAX_KEPT_BYTES_IN_TESTS.with(|m| m.set(0));
                let given_back = walk_piece(
                    rules,
                    &pos,
                    from,
                    king,
                    0,
                    None,
                    &mut Every::<true>::default(),
                    Until::NEVER,
                    u64::MAX,
                    &mut 0,
                    false,
                );
                MAX_KEPT_BYTES_IN_TESTS.with(|m| m.set(MAX_KEPT_BYTES));
                assert_eq!(given_back, Layered::TooBig, "{id} {seed}");
            }
        }
    }
    assert!(
        moves >= 3000 && long >= 500 && straight >= 300 && men >= 500,
        "{moves} moves, {long} of 4 jumps or more, {straight} of deferred flying kings, {men} men"
    );
}
