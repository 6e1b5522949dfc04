//! The generator's entry points, compiled in this crate once per bitboard width.
//!
//! A generic function is compiled again in every crate that calls it with a concrete type
//! (without link-time optimisation, as in the test and dev builds), so each crate that listed
//! moves compiled its own copy of the capture walk for `u64` and `u128`: in the command line's
//! binary some 78,000 of its 540,000 lines of LLVM IR. `Rules`' methods call these through the
//! `Generate` trait instead; its implementations for `u64` and `u128` are ordinary functions,
//! compiled here and linked by the others. Release builds inline across crates all the same.

use super::capture::{self, Walk};
use super::quiet;
use super::sink::{CountSink, CountedSink, DetailSink, DistinctCountSink, ListSink, Listed};
use super::{Duplicates, RouteFilter, Stopped, Until};
use crate::bitboard::Bits;
use crate::mv::{Move, MoveDetail};
use crate::position::Position;
use crate::rules::Rules;

/// The move generator for one bitboard type, behind `Rules`' methods (which are the API: these
/// are not for other callers).
pub trait Generate: Sized {
    fn fill_legal_moves(
        rules: &Rules<Self>,
        pos: &Position<Self>,
        list: &mut Vec<Move<Self>>,
        duplicates: Duplicates,
        stop: Until<'_>,
    ) -> bool
    where
        Self: Bits;

    fn legal_moves_counted(
        rules: &Rules<Self>,
        pos: &Position<Self>,
        list: &mut Vec<(Move<Self>, u64)>,
    ) where
        Self: Bits;

    fn capture_routes(
        rules: &Rules<Self>,
        pos: &Position<Self>,
        filter: RouteFilter,
        stop: Until<'_>,
    ) -> Result<Vec<MoveDetail<Self>>, Stopped>
    where
        Self: Bits;

    fn capture_work(rules: &Rules<Self>, pos: &Position<Self>) -> u64
    where
        Self: Bits;

    fn detailed(
        rules: &Rules<Self>,
        pos: &Position<Self>,
        duplicates: Duplicates,
        stop: Until<'_>,
    ) -> Result<Vec<MoveDetail<Self>>, Stopped>
    where
        Self: Bits;

    fn count_moves(rules: &Rules<Self>, pos: &Position<Self>, duplicates: Duplicates) -> u64
    where
        Self: Bits;
}

macro_rules! impl_generate {
    ($t:ty) => {
        impl Generate for $t {
            fn fill_legal_moves(
                rules: &Rules<$t>,
                pos: &Position<$t>,
                list: &mut Vec<Move<$t>>,
                duplicates: Duplicates,
                stop: Until<'_>,
            ) -> bool {
                fill_legal_moves(rules, pos, list, duplicates, stop)
            }

            fn legal_moves_counted(
                rules: &Rules<$t>,
                pos: &Position<$t>,
                list: &mut Vec<(Move<$t>, u64)>,
            ) {
                legal_moves_counted(rules, pos, list)
            }

            fn capture_routes(
                rules: &Rules<$t>,
                pos: &Position<$t>,
                filter: RouteFilter,
                stop: Until<'_>,
            ) -> Result<Vec<MoveDetail<$t>>, Stopped> {
                capture_routes(rules, pos, filter, stop)
            }

            fn capture_work(rules: &Rules<$t>, pos: &Position<$t>) -> u64 {
                capture_work(rules, pos)
            }

            fn detailed(
                rules: &Rules<$t>,
                pos: &Position<$t>,
                duplicates: Duplicates,
                stop: Until<'_>,
            ) -> Result<Vec<MoveDetail<$t>>, Stopped> {
                detailed(rules, pos, duplicates, stop)
            }

            fn count_moves(rules: &Rules<$t>, pos: &Position<$t>, duplicates: Duplicates) -> u64 {
                count_moves(rules, pos, duplicates)
            }
        }
    };
}

impl_generate!(u64);
impl_generate!(u128);

/// The walk for a listing: merged unless every sequence is wanted.
fn walk(duplicates: Duplicates, stop: Until<'_>) -> Walk<'_> {
    Walk {
        merge: duplicates == Duplicates::Merge,
        filter: RouteFilter::Any,
        stop,
    }
}

const MERGED: Walk<'static> = Walk {
    merge: true,
    filter: RouteFilter::Any,
    stop: Until::NEVER,
};

fn fill_legal_moves<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    list: &mut Vec<Move<B>>,
    duplicates: Duplicates,
    stop: Until<'_>,
) -> bool {
    list.clear();
    let mut sink = ListSink::new(list, duplicates == Duplicates::Merge);
    let capturing = capture::capturing(rules, pos);
    if !capturing.is_empty() {
        capture::generate_captures(rules, pos, &mut sink, walk(duplicates, stop), capturing)
            .complete
    } else {
        quiet::generate_quiet(rules, pos, &mut sink);
        if rules.bahrain {
            bahrain_filter(rules, pos, list, |&m| m);
        }
        true
    }
}

fn legal_moves_counted<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    list: &mut Vec<(Move<B>, u64)>,
) {
    list.clear();
    let mut sink = CountedSink {
        list,
        best: 0,
        listed: Listed::default(),
    };
    let capturing = capture::capturing(rules, pos);
    if !capturing.is_empty() {
        capture::generate_captures(rules, pos, &mut sink, MERGED, capturing);
    } else {
        quiet::generate_quiet(rules, pos, &mut sink);
        if rules.bahrain {
            bahrain_filter(rules, pos, list, |&(m, _)| m);
        }
    }
}

fn capture_routes<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    filter: RouteFilter,
    stop: Until<'_>,
) -> Result<Vec<MoveDetail<B>>, Stopped> {
    let mut sink = DetailSink {
        list: Vec::new(),
        best: 0,
        merge: true,
        listed: Listed::default(),
    };
    let capturing = capture::capturing(rules, pos);
    if !capturing.is_empty() {
        let walk = Walk {
            merge: true,
            filter,
            stop,
        };
        if !capture::generate_captures(rules, pos, &mut sink, walk, capturing).complete {
            return Err(Stopped);
        }
    }
    Ok(sink.list)
}

fn capture_work<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> u64 {
    let capturing = capture::capturing(rules, pos);
    if capturing.is_empty() {
        return 0;
    }
    let mut sink = DistinctCountSink::new();
    capture::generate_captures(rules, pos, &mut sink, MERGED, capturing).jumps
}

fn detailed<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    duplicates: Duplicates,
    stop: Until<'_>,
) -> Result<Vec<MoveDetail<B>>, Stopped> {
    let mut sink = DetailSink {
        list: Vec::new(),
        best: 0,
        merge: duplicates == Duplicates::Merge,
        listed: Listed::default(),
    };
    let capturing = capture::capturing(rules, pos);
    if !capturing.is_empty() {
        let walked =
            capture::generate_captures(rules, pos, &mut sink, walk(duplicates, stop), capturing);
        if walked.complete {
            Ok(sink.list)
        } else {
            Err(Stopped)
        }
    } else {
        quiet::generate_quiet(rules, pos, &mut sink);
        let mut list = sink.list;
        if rules.bahrain {
            bahrain_filter(rules, pos, &mut list, |d| d.mv);
        }
        Ok(list)
    }
}

fn count_moves<B: Bits>(rules: &Rules<B>, pos: &Position<B>, duplicates: Duplicates) -> u64 {
    let capturing = capture::capturing(rules, pos);
    if !capturing.is_empty() {
        match duplicates {
            Duplicates::Keep => {
                let mut sink = CountSink::default();
                capture::generate_captures(rules, pos, &mut sink, MERGED, capturing);
                sink.count
            }
            Duplicates::Merge => {
                let mut sink = DistinctCountSink::new();
                capture::generate_captures(rules, pos, &mut sink, MERGED, capturing);
                sink.count()
            }
        }
    } else if rules.bahrain {
        let mut list = Vec::new();
        fill_legal_moves(rules, pos, &mut list, duplicates, Until::NEVER);
        list.len() as u64
    } else {
        quiet::count_quiet(rules, pos)
    }
}

/// D21, the Bahrain restriction (rule book 1.29): when some of the mover's men are threatened,
/// a quiet move of an unthreatened man may not make that man threaten an enemy piece; lifted
/// when it would leave no move. `list` holds the quiet moves, each `mv(item)`, in whatever form
/// the listing keeps them.
fn bahrain_filter<B: Bits, T>(
    rules: &Rules<B>,
    pos: &Position<B>,
    list: &mut Vec<T>,
    mv: impl Fn(&T) -> Move<B>,
) {
    let us = pos.side;
    let theirs = pos.with_side_to_move(!us);
    let mut threats = Vec::new();
    let mut sink = ListSink::new(&mut threats, true);
    let capturing = capture::capturing(rules, &theirs);
    capture::generate_captures(rules, &theirs, &mut sink, MERGED, capturing);
    let threatened = threats.iter().fold(B::ZERO, |acc, m| acc | m.captured) & pos.men(us);
    if threatened.is_empty() {
        return;
    }
    let allowed: Vec<bool> = list
        .iter()
        .map(|item| {
            let m = mv(item);
            if pos.kings.has(m.from) || threatened.has(m.from) {
                return true;
            }
            let after = pos.play(&m).with_side_to_move(us);
            !capture::piece_can_capture(rules, &after, m.to)
        })
        .collect();
    if allowed.contains(&true) {
        let mut allowed = allowed.into_iter();
        list.retain(|_| allowed.next() == Some(true));
    }
}
