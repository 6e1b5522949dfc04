//! Non-capturing moves: man steps, the line-leap (D10), and king steps or flying moves.

use crate::bitboard::Bits;
use crate::movegen::sink::Sink;
use crate::position::Position;
use crate::rules::{Rules, NO_SQUARE};

pub(crate) fn generate_quiet<B: Bits, S: Sink<B>>(
    rules: &Rules<B>,
    pos: &Position<B>,
    sink: &mut S,
) {
    let us = pos.side.index();
    let empty = rules.squares & !pos.occupied();
    let men = pos.pieces[us] & !pos.kings;
    let promotion = rules.promotion[us];
    for &d in rules.man_step[us].as_slice() {
        let d = d as usize;
        let delta = rules.delta[d];
        let targets = (men & rules.step_src[d]).shift(delta) & empty;
        for to in targets.squares() {
            sink.quiet((to as i32 - delta as i32) as u8, to, promotion.has(to));
        }
    }
    if rules.has_line_leap {
        line_leaps(rules, pos, |from, to| {
            sink.quiet(from, to, promotion.has(to))
        });
    }
    let kings = pos.pieces[us] & pos.kings;
    for k in kings.squares() {
        for &d in rules.king_moves[us].as_slice() {
            let d = d as usize;
            if rules.king_moves_fly {
                for to in (rules.slide(k, d, !empty) & empty).squares() {
                    sink.quiet(k, to, false);
                }
            } else {
                let to = rules.next[k as usize][d];
                if to != NO_SQUARE && empty.has(to) {
                    sink.quiet(k, to, false);
                }
            }
        }
    }
}

/// Counts the non-capturing moves without listing them.
pub(crate) fn count_quiet<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> u64 {
    let us = pos.side.index();
    let empty = rules.squares & !pos.occupied();
    let men = pos.pieces[us] & !pos.kings;
    let mut count = 0u64;
    for &d in rules.man_step[us].as_slice() {
        let d = d as usize;
        count += ((men & rules.step_src[d]).shift(rules.delta[d]) & empty).count() as u64;
    }
    if rules.has_line_leap {
        line_leaps(rules, pos, |_, _| count += 1);
    }
    let kings = pos.pieces[us] & pos.kings;
    for k in kings.squares() {
        for &d in rules.king_moves[us].as_slice() {
            let d = d as usize;
            if rules.king_moves_fly {
                count += (rules.slide(k, d, !empty) & empty).count() as u64;
            } else {
                let to = rules.next[k as usize][d];
                if to != NO_SQUARE && empty.has(to) {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Line-leaps: a man behind an unbroken line of friendly pieces (or men) in direction F, FL or FR
/// moves to the first square beyond the line, which must be empty.
fn line_leaps<B: Bits>(rules: &Rules<B>, pos: &Position<B>, mut emit: impl FnMut(u8, u8)) {
    let us = pos.side.index();
    let own = pos.pieces[us];
    let members = if rules.line_leap_over_men_only {
        own & !pos.kings
    } else {
        own
    };
    let movers = own & !pos.kings & rules.line_leap_from[us];
    for from in movers.squares() {
        for &d in rules.line_leap_dirs[us].as_slice() {
            let d = d as usize;
            let mut s = rules.next[from as usize][d];
            if s == NO_SQUARE || !members.has(s) {
                continue;
            }
            while s != NO_SQUARE && members.has(s) {
                s = rules.next[s as usize][d];
            }
            if s != NO_SQUARE && !pos.occupied().has(s) {
                emit(from, s);
            }
        }
    }
}
