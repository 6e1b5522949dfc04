//! When a long move generation gives up: a flag its caller raises (a search stopped, a client
//! gone), a deadline (a server's bound on one request's work), or both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The condition on which a move generation gives up, looked at every thousand jumps or so of a
/// long capture walk.
#[derive(Clone, Copy, Debug, Default)]
pub struct Until<'a> {
    flag: Option<&'a AtomicBool>,
    deadline: Option<Instant>,
}

impl<'a> Until<'a> {
    /// Never: the generation runs to its end.
    pub const NEVER: Until<'static> = Until {
        flag: None,
        deadline: None,
    };

    /// Gives up when `flag` is raised.
    pub fn flag(flag: &'a AtomicBool) -> Self {
        Until {
            flag: Some(flag),
            deadline: None,
        }
    }

    /// Gives up at `deadline`.
    pub fn deadline(deadline: Instant) -> Self {
        Until {
            flag: None,
            deadline: Some(deadline),
        }
    }

    /// Gives up at `deadline` too.
    pub fn or_at(self, deadline: Instant) -> Self {
        Until {
            deadline: Some(self.deadline.map_or(deadline, |d| d.min(deadline))),
            ..self
        }
    }

    /// Whether the generation should give up now.
    pub(crate) fn reached(&self) -> bool {
        self.flag.is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl<'a> From<&'a AtomicBool> for Until<'a> {
    fn from(flag: &'a AtomicBool) -> Self {
        Until::flag(flag)
    }
}

impl<'a> From<&'a Arc<AtomicBool>> for Until<'a> {
    fn from(flag: &'a Arc<AtomicBool>) -> Self {
        Until::flag(flag)
    }
}
