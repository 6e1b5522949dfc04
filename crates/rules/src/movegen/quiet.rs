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
    let steps = |d: u8| {
        let d = d as usize;
        (men & rules.step_src[d]).shift(rules.delta[d]) & empty
    };
    // The mobility term counts both sides' quiet moves at every evaluation: a third of the
    // search's time. Two sets are counted as they are; three or more are added first.
    let dirs = rules.man_step[us].as_slice();
    let mut count = if dirs.len() <= 2 {
        dirs.iter().map(|&d| u64::from(steps(d).count())).sum()
    } else {
        count_sum(dirs.iter().map(|&d| steps(d)))
    };
    if rules.has_line_leap {
        line_leaps(rules, pos, |_, _| count += 1);
    }
    let kings = pos.pieces[us] & pos.kings;
    let king_dirs = rules.king_moves[us].as_slice();
    for k in kings.squares() {
        if rules.king_moves_fly {
            // One king's lines in different directions share no square: one count a king.
            let lines = king_dirs
                .iter()
                .fold(B::ZERO, |acc, &d| acc | rules.slide(k, d as usize, !empty));
            count += u64::from((lines & empty).count());
        } else {
            for &d in king_dirs {
                let to = rules.next[k as usize][d as usize];
                if to != NO_SQUARE && empty.has(to) {
                    count += 1;
                }
            }
        }
    }
    count
}

/// The sum of the counts of `sets`, which may share squares (up to 15 share one). A count of
/// bits takes a dozen instructions where the processor has no popcnt (the baseline x86-64):
/// the sets are added bitwise first (a carry-save adder: each square's number in binary, a set
/// a digit) and each digit counted once, so three or more sets take fewer counts.
fn count_sum<B: Bits>(sets: impl Iterator<Item = B>) -> u64 {
    let (mut ones, mut twos, mut fours, mut eights) = (B::ZERO, B::ZERO, B::ZERO, B::ZERO);
    for set in sets {
        let carry = ones & set;
        ones ^= set;
        let carry2 = twos & carry;
        twos ^= carry;
        let carry4 = fours & carry2;
        fours ^= carry2;
        eights |= carry4;
    }
    [ones, twos, fours, eights]
        .iter()
        .enumerate()
        .filter(|(_, digit)| !digit.is_empty())
        .map(|(i, digit)| u64::from(digit.count()) << i)
        .sum()
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::count_sum;

    proptest! {
        #[test]
        fn a_sum_of_sets_counts_each_set(
            narrow in prop::collection::vec(any::<u64>(), 0..=15),
            wide in prop::collection::vec(any::<u128>(), 0..=15),
        ) {
            let expected: u64 = narrow.iter().map(|s| u64::from(s.count_ones())).sum();
            prop_assert_eq!(count_sum(narrow.iter().copied()), expected);
            let expected: u64 = wide.iter().map(|s| u64::from(s.count_ones())).sum();
            prop_assert_eq!(count_sum(wide.iter().copied()), expected);
        }
    }
}
