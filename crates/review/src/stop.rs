//! Stopping a review from another thread. The engine lowers its own stop flag at the end of each
//! search, so a review cannot rely on it alone: it keeps its own flag, looked at between
//! searches, and raises the engine's to end the search under way.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// A handle that stops a review; clones stop the same review.
#[derive(Clone, Default)]
pub struct Stopper {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    stopped: AtomicBool,
    engine: OnceLock<Arc<AtomicBool>>,
}

impl Stopper {
    pub fn new() -> Stopper {
        Stopper::default()
    }

    /// Stops the review: the search under way ends within a node, no other one starts.
    pub fn stop(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        if let Some(flag) = self.inner.engine.get() {
            flag.store(true, Ordering::SeqCst);
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// Connects the engine's stop flag (once); raised at once if the review is already stopped.
    pub(crate) fn attach(&self, flag: Arc<AtomicBool>) {
        let flag = self.inner.engine.get_or_init(|| flag);
        if self.is_stopped() {
            flag.store(true, Ordering::SeqCst);
        }
    }
}
