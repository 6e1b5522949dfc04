//! A spinner for work whose length nobody can say in advance (listing the moves of a position
//! built with many kings, a deep perft): shown on a terminal once the work has taken long enough
//! to wonder about, gone when it ends.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How long work runs before the spinner shows: quick answers draw nothing.
const SHOW_AFTER: Duration = Duration::from_millis(500);

/// Runs `work` on this thread; if it takes longer than [`SHOW_AFTER`] and standard error is a
/// terminal, a spinner with `message` and the time spent turns there until it ends.
pub fn with_spinner<T>(message: &str, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if finished.recv_timeout(SHOW_AFTER) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let bar = ProgressBar::new_spinner().with_message(message.to_string());
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            // Returns when `done` is dropped: the work has ended.
            let _ = finished.recv();
            bar.finish_and_clear();
        });
        let result = work();
        drop(done);
        result
    })
}
