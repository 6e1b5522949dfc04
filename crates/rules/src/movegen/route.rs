//! Route filters: which capture routes to list when move text names intermediate squares
//! (`c3xe5xc7`, or a few squares of a long capture). The filter is a small automaton advanced at
//! every jump, so that routes are matched during the walk instead of enumerating every route of
//! a move, which can be millions.

use crate::bitboard::Bits;
use crate::geometry::Square;
use crate::rules::{Rules, NO_SQUARE};

/// Which capture routes a listing keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RouteFilter<'a> {
    /// Every route.
    #[default]
    Any,
    /// The landing squares before the last one are exactly these (a full path).
    Landings(&'a [Square]),
    /// These squares are landing squares of the route, in this order (others may come between).
    LandingsInOrder(&'a [Square]),
    /// These squares are passed over or landed on, in this order (captured squares aside).
    PassedInOrder(&'a [Square]),
}

/// The automaton's state after a route that can no longer match.
pub(crate) const DEAD: u8 = u8::MAX;

impl RouteFilter<'_> {
    /// No route can match: more squares than a capture can have jumps.
    pub(crate) fn impossible(&self, max_jumps: usize) -> bool {
        match self {
            RouteFilter::Any => false,
            RouteFilter::Landings(p)
            | RouteFilter::LandingsInOrder(p)
            | RouteFilter::PassedInOrder(p) => p.len() >= max_jumps.min(DEAD as usize),
        }
    }

    /// The state after jump number `depth` (from 0) from `from` over `victim` to `landing` in
    /// direction `d`; `matched` is the state before it and `captured` the pieces taken before it.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn advance<B: Bits>(
        &self,
        rules: &Rules<B>,
        matched: u8,
        from: u8,
        d: u8,
        victim: u8,
        landing: u8,
        captured: B,
        depth: usize,
    ) -> u8 {
        if matched == DEAD {
            return DEAD;
        }
        match *self {
            RouteFilter::Any => 0,
            RouteFilter::Landings(p) => match depth.cmp(&p.len()) {
                std::cmp::Ordering::Less if p[depth].0 == landing => matched + 1,
                std::cmp::Ordering::Less => DEAD,
                // The last landing: the route must end here.
                std::cmp::Ordering::Equal => matched,
                std::cmp::Ordering::Greater => DEAD,
            },
            RouteFilter::LandingsInOrder(p) => {
                let m = matched as usize;
                if m < p.len() && p[m].0 == landing {
                    matched + 1
                } else {
                    matched
                }
            }
            RouteFilter::PassedInOrder(p) => {
                let skip = captured | B::bit(victim);
                let mut m = matched as usize;
                let mut s = from;
                while s != landing {
                    s = rules.next[s as usize][d as usize];
                    if s == NO_SQUARE {
                        break;
                    }
                    if m < p.len() && !skip.has(s) && p[m].0 == s {
                        m += 1;
                    }
                }
                m as u8
            }
        }
    }

    /// Whether a route that ends after jump number `depth` in state `matched` is kept.
    #[inline(always)]
    pub(crate) fn accepts(&self, matched: u8, depth: usize) -> bool {
        match self {
            RouteFilter::Any => true,
            RouteFilter::Landings(p) => matched != DEAD && depth == p.len(),
            RouteFilter::LandingsInOrder(p) | RouteFilter::PassedInOrder(p) => {
                matched as usize == p.len()
            }
        }
    }
}
