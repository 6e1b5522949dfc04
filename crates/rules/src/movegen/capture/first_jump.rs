//! Which pieces of the side to move have a first jump: the test every move generation and
//! search node asks before any capture is walked.

use super::*;

/// Men that have a first jump, found for all men at once.
#[inline(always)]
fn men_that_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> B {
    let us = pos.side.index();
    let men = pos.pieces[us] & !pos.kings;
    let enemy = pos.pieces[us ^ 1];
    let empty = rules.squares & !pos.occupied();
    let mut able = B::ZERO;
    for &d in rules.man_capture_first[us].as_slice() {
        let d = d as usize;
        let delta = rules.delta[d];
        let landings = ((men & rules.jump_src[d]).shift(delta) & enemy).shift(delta) & empty;
        able |= landings.shift(-2 * delta);
    }
    able
}

/// Whether a king on `sq` has a first jump.
#[inline(always)]
pub(super) fn king_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>, sq: u8) -> bool {
    let us = pos.side.index();
    let enemy = pos.pieces[us ^ 1];
    let occupied = pos.occupied();
    let enemy_kings = enemy & pos.kings;
    for &d in rules.king_captures[us].as_slice() {
        let di = d as usize;
        let Some(victim) = rules.king_victim(sq, di, occupied) else {
            continue;
        };
        let targets = if rules.kings_only[di] {
            enemy_kings
        } else {
            enemy
        };
        if !targets.has(victim) {
            continue;
        }
        let behind = rules.next[victim as usize][di];
        if behind != NO_SQUARE && !occupied.has(behind) {
            return true;
        }
    }
    false
}

/// The pieces of the side to move that have a first jump.
#[derive(Clone, Copy)]
pub(crate) struct Capturing<B: Bits> {
    pub(super) men: B,
    pub(super) kings: B,
}

impl<B: Bits> Capturing<B> {
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        (self.men | self.kings).is_empty()
    }
}

/// Which pieces of the side to move have a first jump.
#[inline(always)]
pub(crate) fn capturing<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> Capturing<B> {
    let kings = pos.pieces[pos.side.index()] & pos.kings;
    Capturing {
        men: men_that_can_capture(rules, pos),
        kings: kings
            .squares()
            .filter(|&k| king_can_capture(rules, pos, k))
            .fold(B::ZERO, |acc, k| acc | B::bit(k)),
    }
}

/// Whether the side to move has a capture.
pub(crate) fn has_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> bool {
    if !men_that_can_capture(rules, pos).is_empty() {
        return true;
    }
    let kings = pos.pieces[pos.side.index()] & pos.kings;
    kings.squares().any(|k| king_can_capture(rules, pos, k))
}

/// Whether the piece on `sq` (of the side to move) has a first jump.
pub(crate) fn piece_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>, sq: u8) -> bool {
    if pos.kings.has(sq) {
        king_can_capture(rules, pos, sq)
    } else {
        men_that_can_capture(rules, pos).has(sq)
    }
}
