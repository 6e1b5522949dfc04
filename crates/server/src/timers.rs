//! The clock's timers: one per game whose clock runs, waking at the mover's deadline to end the
//! game on time. A move that sets a new deadline replaces the game's timer, which is aborted:
//! each move's timer used to sleep to its own deadline (up to the clock's hours) and then wake
//! the game, read back from the database if it had left memory, for nothing.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::task::{AbortHandle, Id};

#[derive(Default)]
pub(crate) struct ClockTimers(Mutex<HashMap<String, AbortHandle>>);

impl ClockTimers {
    /// `timer` watches game `id` from now on; the one before it is aborted.
    pub fn replace(&self, id: &str, timer: AbortHandle) {
        let mut timers = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = timers.insert(id.to_string(), timer) {
            old.abort();
        }
    }

    /// No timer watches game `id` (its clock stopped, or the game is over).
    pub fn cancel(&self, id: &str) {
        let mut timers = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = timers.remove(id) {
            old.abort();
        }
    }

    /// The timer `fired` of game `id` has woken: it is forgotten, unless another replaced it.
    pub fn fired(&self, id: &str, fired: Id) {
        let mut timers = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if timers.get(id).is_some_and(|t| t.id() == fired) {
            timers.remove(id);
        }
    }

    /// Timers kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::ClockTimers;

    fn sleeper(secs: u64) -> tokio::task::JoinHandle<()> {
        tokio::spawn(tokio::time::sleep(Duration::from_secs(secs)))
    }

    /// A game's timer replaced is aborted (it slept on to its deadline), one is kept a game,
    /// a fired timer is forgotten unless replaced, and a cancelled one is aborted.
    #[tokio::test]
    async fn a_game_keeps_one_timer() {
        let timers = ClockTimers::default();
        let first = sleeper(3600);
        timers.replace("g", first.abort_handle());
        let second = sleeper(3600);
        timers.replace("g", second.abort_handle());
        assert!(first.await.unwrap_err().is_cancelled());
        assert_eq!(timers.len(), 1);
        timers.replace("h", sleeper(3600).abort_handle());
        assert_eq!(timers.len(), 2);
        // An old timer that fires does not forget the new one.
        timers.fired("g", tokio::spawn(async {}).id());
        assert_eq!(timers.len(), 2);
        timers.fired("g", second.id());
        assert_eq!(timers.len(), 1);
        second.abort();
        let third = sleeper(3600);
        timers.replace("g", third.abort_handle());
        timers.cancel("g");
        assert!(third.await.unwrap_err().is_cancelled());
        timers.cancel("h");
        assert_eq!(timers.len(), 0);
    }
}
