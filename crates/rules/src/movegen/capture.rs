//! Capture sequences (§0 "A capture move"): a depth-first search over jumps by one piece that
//! applies every capture rule of the variant: short and flying leaps, per-direction targets,
//! removal timing, the 180° rule, first-jump restrictions, the completion rule, king landing,
//! the halt rules and the three promotion modes.

use crate::bitboard::Bits;
use crate::movegen::sink::Sink;
use crate::position::Position;
use crate::rules::{Rules, NO_SQUARE};
use crate::spec::{HaltRule, PromotionInCapture};

/// The most jumps one move can make (every piece on the largest board).
const MAX_JUMPS: usize = 128;

/// The state of the capturing piece between jumps.
#[derive(Clone, Copy)]
struct Jumper<B: Bits> {
    sq: u8,
    /// Squares that block passage and landing.
    occupied: B,
    /// Enemy pieces that may still be jumped.
    capturable: B,
    captured: B,
    value: u32,
    jumps: u32,
    /// Direction of the previous jump (8 = none).
    prev: u8,
}

struct Search<'a, B: Bits, S: Sink<B>> {
    rules: &'a Rules<B>,
    sink: &'a mut S,
    us: usize,
    from: u8,
    started_as_king: bool,
    enemy_kings: B,
    path: [u8; MAX_JUMPS],
    order: [u8; MAX_JUMPS],
}

impl<B: Bits, S: Sink<B>> Search<'_, B, S> {
    /// Explores every jump of a man from the jumper's square; returns whether there was one.
    /// Men always make short leaps, so there is one landing per jump, and the 180° rule and
    /// the removal timing cannot change their moves (§0, "Fact used below").
    fn explore_man(&mut self, j: Jumper<B>, depth: usize) -> bool {
        let r = self.rules;
        let dirs = if j.jumps == 0 {
            r.man_capture_first[self.us]
        } else {
            r.man_capture_later[self.us]
        };
        let mut found = false;
        for &d in dirs.as_slice() {
            let d = d as usize;
            let victim = r.next[j.sq as usize][d];
            if victim == NO_SQUARE || !j.capturable.has(victim) {
                continue;
            }
            let landing = r.next[victim as usize][d];
            if landing == NO_SQUARE || j.occupied.has(landing) {
                continue;
            }
            found = true;
            let mut next = self.after_jump(&j, victim, d as u8);
            next.sq = landing;
            self.order[depth] = victim;
            self.path[depth] = landing;
            let promotes = r.promotion[self.us].has(landing);
            let continued = if promotes {
                match r.promotion_mode {
                    PromotionInCapture::Stop => false,
                    PromotionInCapture::PromoteAndContinue => {
                        self.explore_king(next, depth + 1, false)
                    }
                    PromotionInCapture::ContinueAsMan => self.explore_man(next, depth + 1),
                }
            } else {
                self.explore_man(next, depth + 1)
            };
            if !continued {
                self.emit(&next, depth, promotes);
            }
        }
        found
    }

    /// Explores every jump of a king (or a man crowned mid-capture) from the jumper's square.
    ///
    /// `straight_done` is set when an earlier landing of the same jump already explored going on
    /// in the same direction, which meets the same pieces from every landing. With deferred
    /// removal the king sweeps on without stopping: that is one sequence, written with the square
    /// right behind the captured piece (PDN), as dctl counts it. With immediate removal each
    /// capture is completed (the piece leaves the board) before the next, so every landing square
    /// is a stop of its own and a sequence of its own, as kish counts it. Only the "paths" count
    /// sees the difference: both give the same moves.
    fn explore_king(&mut self, j: Jumper<B>, depth: usize, straight_done: bool) -> bool {
        let r = self.rules;
        let flying = r.king_captures_fly;
        let mut found = false;
        for &d in r.king_captures[self.us].as_slice() {
            if r.no_reversal && j.prev == d ^ 4 {
                continue;
            }
            let di = d as usize;
            let mut targets = j.capturable;
            if r.kings_only[di] {
                if r.targets_first_jump_only && j.jumps > 0 {
                    continue;
                }
                targets &= self.enemy_kings;
            }
            let victim = if flying {
                match r.first_blocker(j.sq, di, j.occupied) {
                    Some(s) => s,
                    None => continue,
                }
            } else {
                r.next[j.sq as usize][di]
            };
            if victim == NO_SQUARE || !targets.has(victim) {
                continue;
            }
            let after = self.after_jump(&j, victim, d);
            let first = r.next[victim as usize][di];
            if first == NO_SQUARE || after.occupied.has(first) {
                continue;
            }
            found = true;
            if straight_done && j.prev == d {
                // A legal continuation (so the completion rule holds), explored from the first landing.
                continue;
            }

            // Landing squares: the one behind the victim, or (flying, landing anywhere) every
            // empty square up to the next piece or the edge.
            let mut landings = [0u8; 16];
            let mut count = 0;
            let mut s = first;
            loop {
                landings[count] = s;
                count += 1;
                if !flying || r.landing_adjacent {
                    break;
                }
                s = r.next[s as usize][di];
                if s == NO_SQUARE || after.occupied.has(s) {
                    break;
                }
            }
            self.order[depth] = victim;

            // Completion rule: if some landing allows another jump, the piece must take one.
            let mut continued = false;
            for (i, &landing) in landings[..count].iter().enumerate() {
                self.path[depth] = landing;
                let mut next = after;
                next.sq = landing;
                continued |= self.explore_king(next, depth + 1, i > 0 && !r.immediate_removal);
            }
            if continued {
                continue;
            }

            // The move ends with this jump; a halt rule may pin the final landing behind the victim.
            let victim_is_king = self.enemy_kings.has(victim);
            let halt = match r.halt {
                HaltRule::None => false,
                HaltRule::Killer => victim_is_king,
                HaltRule::SequentialKiller => after.jumps >= 2 && victim_is_king,
                HaltRule::SequentialHalt => after.jumps >= 2,
                HaltRule::SequentialHalt2 => {
                    after.jumps >= 2
                        && victim_is_king
                        && self.enemy_kings.has(self.order[depth - 1])
                }
            };
            let finals = if halt && flying { 1 } else { count };
            for &landing in &landings[..finals] {
                self.path[depth] = landing;
                let mut end = after;
                end.sq = landing;
                // A man crowned during this capture (PromoteAndContinue) ends it as a new king.
                self.emit(&end, depth, !self.started_as_king);
            }
        }
        found
    }

    /// The jumper after capturing `victim` in direction `d` (its square is set by the caller).
    #[inline(always)]
    fn after_jump(&self, j: &Jumper<B>, victim: u8, d: u8) -> Jumper<B> {
        let r = self.rules;
        let bit = B::bit(victim);
        Jumper {
            sq: j.sq,
            occupied: if r.immediate_removal {
                j.occupied ^ bit
            } else {
                j.occupied
            },
            capturable: j.capturable ^ bit,
            captured: j.captured | bit,
            value: j.value
                + if self.enemy_kings.has(victim) {
                    r.king_value
                } else {
                    r.man_value
                },
            jumps: j.jumps + 1,
            prev: d,
        }
    }

    /// Hands a complete sequence ending on `end.sq` to the sink.
    #[inline(always)]
    fn emit(&mut self, end: &Jumper<B>, depth: usize, promotes: bool) {
        let value = if self.rules.majority { end.value } else { 0 };
        self.sink.capture(
            self.from,
            end.sq,
            end.captured,
            value,
            promotes,
            &self.path[..=depth],
            &self.order[..=depth],
        );
    }
}

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
fn king_can_capture<B: Bits>(rules: &Rules<B>, pos: &Position<B>, sq: u8) -> bool {
    let us = pos.side.index();
    let enemy = pos.pieces[us ^ 1];
    let occupied = pos.occupied();
    let enemy_kings = enemy & pos.kings;
    for &d in rules.king_captures[us].as_slice() {
        let di = d as usize;
        let victim = if rules.king_captures_fly {
            match rules.first_blocker(sq, di, occupied) {
                Some(s) => s,
                None => continue,
            }
        } else {
            rules.next[sq as usize][di]
        };
        if victim == NO_SQUARE {
            continue;
        }
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

/// Generates every complete capture sequence of the side to move into the sink.
pub(crate) fn generate_captures<B: Bits, S: Sink<B>>(
    rules: &Rules<B>,
    pos: &Position<B>,
    sink: &mut S,
) {
    let us = pos.side.index();
    let occupied = pos.occupied();
    let enemy = pos.pieces[us ^ 1];
    let enemy_kings = enemy & pos.kings;
    let own_kings = pos.pieces[us] & pos.kings;
    let mut search = Search {
        rules,
        sink,
        us,
        from: 0,
        started_as_king: false,
        enemy_kings,
        path: [0; MAX_JUMPS],
        order: [0; MAX_JUMPS],
    };
    let start = |sq: u8| Jumper {
        sq,
        occupied: occupied ^ B::bit(sq),
        capturable: enemy,
        captured: B::ZERO,
        value: 0,
        jumps: 0,
        prev: 8,
    };
    for sq in men_that_can_capture(rules, pos).squares() {
        search.from = sq;
        search.started_as_king = false;
        search.explore_man(start(sq), 0);
    }
    for sq in own_kings.squares() {
        search.from = sq;
        search.started_as_king = true;
        search.explore_king(start(sq), 0, false);
    }
}
