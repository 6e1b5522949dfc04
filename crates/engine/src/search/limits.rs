//! What bounds a search, and how a clock becomes a time budget.

use std::time::Duration;

/// Limits of one search. With none set, the search runs until stopped (or to `MAX_DEPTH`).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub move_time: Option<Duration>,
    pub clock: Option<Clock>,
    /// Search until told to stop, whatever else is set.
    pub infinite: bool,
}

/// The mover's clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub remaining: Duration,
    pub increment: Duration,
    /// Moves until the next time control, if any.
    pub moves_to_go: Option<u32>,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    pub fn move_time(time: Duration) -> Limits {
        Limits {
            move_time: Some(time),
            ..Limits::default()
        }
    }

    /// The time after which the search is stopped (None: no time bound).
    pub fn hard_limit(&self) -> Option<Duration> {
        self.budget().1
    }

    /// (soft, hard): stop starting new iterations after `soft`, abort at `hard`.
    pub(crate) fn budget(&self) -> (Option<Duration>, Option<Duration>) {
        if self.infinite {
            return (None, None);
        }
        if let Some(t) = self.move_time {
            return (Some(t), Some(t));
        }
        if let Some(c) = self.clock {
            let moves = c.moves_to_go.unwrap_or(30).clamp(1, 50);
            let safety = Duration::from_millis(20).min(c.remaining / 10);
            let usable = c.remaining.saturating_sub(safety);
            let soft = (usable / moves + c.increment * 3 / 4).min(usable / 2);
            let hard = (soft * 4).min(usable * 3 / 4).max(soft);
            return (Some(soft), Some(hard));
        }
        (None, None)
    }
}
