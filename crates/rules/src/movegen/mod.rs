//! Legal move generation. Captures take precedence over every other move; the majority rule is
//! applied by the sinks; the Bahrain restriction (D21) is the one post-generation filter.
//!
//! Capture sequences are walked state by state (`capture`): the distinct moves and the number
//! of sequences behind each come out without enumerating the sequences, so a position whose
//! captures have millions of routes costs what its distinct states cost. Only the `Keep`
//! listings (`legal_moves`/`legal_moves_detailed` with `Duplicates::Keep`) enumerate every
//! sequence; they exist for the oracles and tests.
//!
//! Some positions (a flying king among twenty kings, under the majority rule) still need much
//! work: the `*_until` forms take a stop flag or a deadline (`Until`) and give up when it is
//! reached.

/// A limit the walks read through `fn $name()`: the constant, or in tests the value of the
/// thread-local `$cell`, which a test sets to see what happens past the limit.
macro_rules! limit_set_by_tests {
    (fn $name:ident() -> $ty:ty = $value:expr; $vis:vis $cell:ident) => {
        #[cfg(not(test))]
        fn $name() -> $ty {
            $value
        }

        #[cfg(test)]
        thread_local! {
            $vis static $cell: std::cell::Cell<$ty> = const { std::cell::Cell::new($value) };
        }

        #[cfg(test)]
        fn $name() -> $ty {
            $cell.with(|c| c.get())
        }
    };
}

mod capture;
mod layers;
mod matching;
mod memo;
mod pairing;
mod parity;
mod quiet;
mod reach;
mod route;
mod sink;
#[cfg(test)]
mod testing;
mod trail;
mod until;

use crate::bitboard::Bits;
use crate::mv::{Move, MoveDetail};
use crate::position::Position;
use crate::rules::Rules;

use capture::Walk;
pub use route::RouteFilter;
pub use sink::Duplicates;
use sink::{CountSink, CountedSink, DetailSink, DistinctCountSink, ListSink, Listed};
pub use until::Until;

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

/// A move generation given up because its caller's stop flag was raised or its deadline passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move generation stopped before it was complete")]
pub struct Stopped;

impl<B: Bits> Rules<B> {
    /// Fills `list` with the legal moves of the side to move. With `Duplicates::Keep`, a capture
    /// appears once per sequence: that enumerates every sequence, which can take minutes in
    /// positions with many kings; `legal_moves_counted` gives the same information at the cost
    /// of the distinct moves.
    pub fn legal_moves(&self, pos: &Position<B>, list: &mut Vec<Move<B>>, duplicates: Duplicates) {
        let complete = self.fill_legal_moves(pos, list, duplicates, Until::NEVER);
        debug_assert!(complete);
    }

    /// `legal_moves`, given up (with `list` cleared) when `until` is reached (a raised flag,
    /// a deadline); long capture walks look at it every thousand jumps or so.
    pub fn legal_moves_until<'a>(
        &self,
        pos: &Position<B>,
        list: &mut Vec<Move<B>>,
        duplicates: Duplicates,
        until: impl Into<Until<'a>>,
    ) -> Result<(), Stopped> {
        if self.fill_legal_moves(pos, list, duplicates, until.into()) {
            Ok(())
        } else {
            list.clear();
            Err(Stopped)
        }
    }

    fn fill_legal_moves(
        &self,
        pos: &Position<B>,
        list: &mut Vec<Move<B>>,
        duplicates: Duplicates,
        stop: Until<'_>,
    ) -> bool {
        list.clear();
        let mut sink = ListSink::new(list, duplicates == Duplicates::Merge);
        let capturing = capture::capturing(self, pos);
        if !capturing.is_empty() {
            capture::generate_captures(self, pos, &mut sink, walk(duplicates, stop), capturing)
                .complete
        } else {
            quiet::generate_quiet(self, pos, &mut sink);
            if self.bahrain {
                self.bahrain_filter(pos, list);
            }
            true
        }
    }

    /// Fills `list` with the distinct legal moves, each with its number of capture sequences (1
    /// for a quiet move): perft's "paths" convention without walking every sequence.
    pub fn legal_moves_counted(&self, pos: &Position<B>, list: &mut Vec<(Move<B>, u64)>) {
        list.clear();
        let mut sink = CountedSink {
            list,
            best: 0,
            listed: Listed::default(),
        };
        let capturing = capture::capturing(self, pos);
        if !capturing.is_empty() {
            capture::generate_captures(self, pos, &mut sink, MERGED, capturing);
        } else {
            quiet::generate_quiet(self, pos, &mut sink);
            if self.bahrain {
                let mut moves: Vec<Move<B>> = list.iter().map(|&(m, _)| m).collect();
                self.bahrain_filter(pos, &mut moves);
                list.retain(|(m, _)| moves.contains(m));
            }
        }
    }

    /// The capture moves with a route that `filter` keeps, each with the first such route found
    /// (empty when the side to move has no capture). For reading move text that names squares
    /// between the ends: a capture can have millions of routes, which are matched during the
    /// walk instead of listed.
    pub fn capture_routes(&self, pos: &Position<B>, filter: RouteFilter) -> Vec<MoveDetail<B>> {
        self.capture_routes_until(pos, filter, Until::NEVER)
            .expect("a walk without a stop condition completes")
    }

    /// `capture_routes`, given up when `until` is reached.
    pub fn capture_routes_until<'a>(
        &self,
        pos: &Position<B>,
        filter: RouteFilter,
        until: impl Into<Until<'a>>,
    ) -> Result<Vec<MoveDetail<B>>, Stopped> {
        let mut sink = DetailSink {
            list: Vec::new(),
            best: 0,
            merge: true,
            listed: Listed::default(),
        };
        let capturing = capture::capturing(self, pos);
        if !capturing.is_empty() {
            let walk = Walk {
                merge: true,
                filter,
                stop: until.into(),
            };
            if !capture::generate_captures(self, pos, &mut sink, walk, capturing).complete {
                return Err(Stopped);
            }
        }
        Ok(sink.list)
    }

    /// The work of listing the legal moves of `pos`: the number of jumps its capture walk makes
    /// (0 when the side to move has no capture). Independent of the machine: a measure of the
    /// generator's cost for benchmarks and tests.
    pub fn capture_work(&self, pos: &Position<B>) -> u64 {
        let capturing = capture::capturing(self, pos);
        if capturing.is_empty() {
            return 0;
        }
        let mut sink = DistinctCountSink::new();
        capture::generate_captures(self, pos, &mut sink, MERGED, capturing).jumps
    }

    /// The legal moves, de-duplicated, in a new list.
    pub fn moves(&self, pos: &Position<B>) -> Vec<Move<B>> {
        let mut list = Vec::new();
        self.legal_moves(pos, &mut list, Duplicates::Merge);
        list
    }

    /// The legal moves with their routes. With `Duplicates::Merge`, each move keeps the first
    /// route found; with `Duplicates::Keep`, every route is listed (exponential in the worst
    /// case: for tests).
    pub fn legal_moves_detailed(
        &self,
        pos: &Position<B>,
        duplicates: Duplicates,
    ) -> Vec<MoveDetail<B>> {
        self.detailed(pos, duplicates, Until::NEVER)
            .expect("a walk without a stop condition completes")
    }

    /// `legal_moves_detailed`, given up when `until` is reached.
    pub fn legal_moves_detailed_until<'a>(
        &self,
        pos: &Position<B>,
        duplicates: Duplicates,
        until: impl Into<Until<'a>>,
    ) -> Result<Vec<MoveDetail<B>>, Stopped> {
        self.detailed(pos, duplicates, until.into())
    }

    fn detailed(
        &self,
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
        let capturing = capture::capturing(self, pos);
        if !capturing.is_empty() {
            let walked =
                capture::generate_captures(self, pos, &mut sink, walk(duplicates, stop), capturing);
            if walked.complete {
                Ok(sink.list)
            } else {
                Err(Stopped)
            }
        } else {
            quiet::generate_quiet(self, pos, &mut sink);
            let mut list = sink.list;
            if self.bahrain {
                let mut moves: Vec<Move<B>> = list.iter().map(|d| d.mv).collect();
                self.bahrain_filter(pos, &mut moves);
                list.retain(|d| moves.contains(&d.mv));
            }
            Ok(list)
        }
    }

    /// Number of legal moves, without listing quiet moves.
    #[inline(always)]
    pub fn count_moves(&self, pos: &Position<B>, duplicates: Duplicates) -> u64 {
        let capturing = capture::capturing(self, pos);
        if !capturing.is_empty() {
            match duplicates {
                Duplicates::Keep => {
                    let mut sink = CountSink::default();
                    capture::generate_captures(self, pos, &mut sink, MERGED, capturing);
                    sink.count
                }
                Duplicates::Merge => {
                    let mut sink = DistinctCountSink::new();
                    capture::generate_captures(self, pos, &mut sink, MERGED, capturing);
                    sink.count()
                }
            }
        } else if self.bahrain {
            let mut list = Vec::new();
            self.legal_moves(pos, &mut list, duplicates);
            list.len() as u64
        } else {
            quiet::count_quiet(self, pos)
        }
    }

    /// Number of non-capturing moves of the side to move, as if it had no capture (mobility).
    pub fn quiet_move_count(&self, pos: &Position<B>) -> u32 {
        quiet::count_quiet(self, pos) as u32
    }

    /// Whether the side to move must capture.
    pub fn has_capture(&self, pos: &Position<B>) -> bool {
        capture::has_capture(self, pos)
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self, pos: &Position<B>) -> bool {
        // The Bahrain filter never removes every move (it is lifted instead).
        capture::has_capture(self, pos) || quiet::count_quiet(self, pos) > 0
    }

    /// D21, the Bahrain restriction (rule book 1.29): when some of the mover's men are threatened,
    /// a quiet move of an unthreatened man may not make that man threaten an enemy piece; lifted
    /// when it would leave no move.
    fn bahrain_filter(&self, pos: &Position<B>, moves: &mut Vec<Move<B>>) {
        let us = pos.side;
        let theirs = pos.with_side_to_move(!us);
        let mut threats = Vec::new();
        let mut sink = ListSink::new(&mut threats, true);
        let capturing = capture::capturing(self, &theirs);
        capture::generate_captures(self, &theirs, &mut sink, MERGED, capturing);
        let threatened = threats.iter().fold(B::ZERO, |acc, m| acc | m.captured) & pos.men(us);
        if threatened.is_empty() {
            return;
        }
        let allowed: Vec<Move<B>> = moves
            .iter()
            .copied()
            .filter(|m| {
                if pos.kings.has(m.from) || threatened.has(m.from) {
                    return true;
                }
                let after = pos.play(m).with_side_to_move(us);
                !capture::piece_can_capture(self, &after, m.to)
            })
            .collect();
        if !allowed.is_empty() {
            *moves = allowed;
        }
    }
}
