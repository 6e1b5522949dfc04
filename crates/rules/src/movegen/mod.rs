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
mod entry;
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

#[doc(hidden)]
pub use entry::Generate;
pub use route::RouteFilter;
pub use sink::Duplicates;
pub use until::Until;

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
        let complete = B::fill_legal_moves(self, pos, list, duplicates, Until::NEVER);
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
        if B::fill_legal_moves(self, pos, list, duplicates, until.into()) {
            Ok(())
        } else {
            list.clear();
            Err(Stopped)
        }
    }

    /// Fills `list` with the distinct legal moves, each with its number of capture sequences (1
    /// for a quiet move): perft's "paths" convention without walking every sequence.
    pub fn legal_moves_counted(&self, pos: &Position<B>, list: &mut Vec<(Move<B>, u64)>) {
        B::legal_moves_counted(self, pos, list);
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
        B::capture_routes(self, pos, filter, until.into())
    }

    /// The work of listing the legal moves of `pos`: the number of jumps its capture walk makes
    /// (0 when the side to move has no capture). Independent of the machine: a measure of the
    /// generator's cost for benchmarks and tests.
    pub fn capture_work(&self, pos: &Position<B>) -> u64 {
        B::capture_work(self, pos)
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
        B::detailed(self, pos, duplicates, Until::NEVER)
            .expect("a walk without a stop condition completes")
    }

    /// `legal_moves_detailed`, given up when `until` is reached.
    pub fn legal_moves_detailed_until<'a>(
        &self,
        pos: &Position<B>,
        duplicates: Duplicates,
        until: impl Into<Until<'a>>,
    ) -> Result<Vec<MoveDetail<B>>, Stopped> {
        B::detailed(self, pos, duplicates, until.into())
    }

    /// Number of legal moves, without listing quiet moves.
    pub fn count_moves(&self, pos: &Position<B>, duplicates: Duplicates) -> u64 {
        B::count_moves(self, pos, duplicates)
    }

    /// Number of non-capturing moves of the side to move, as if it had no capture (mobility);
    /// Bahrain's restriction, which forbids some of them while a man is threatened, is not
    /// applied.
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
}
