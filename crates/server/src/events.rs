//! Each game's server-sent events: its state after every change, and the progress of its
//! searches and review (docs/api.md).
//!
//! A state is kept once per game, the latest only: a listener that does not read (or reads
//! slowly) gets the newest state when it reads again, not every state since. A state can be
//! megabytes (a game of 20,000 moves in all its lines: 2.7 MB of JSON), and a queue of 64 of
//! them per game, kept for a listener that never read, grew the server by 1.4 GB per game.
//! Progress messages are small; the last `PROGRESS_KEPT` wait for a slow listener, older ones
//! are skipped. A progress message may be for one seat only (a player's own search in a game
//! between two players): a listener gets it only if it presents that seat (`Listener`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::seats::Presented;
use tokio::sync::{broadcast, watch};
use tokio_stream::wrappers::{BroadcastStream, WatchStream};
use tokio_stream::{Stream, StreamExt};

/// Progress messages kept for a listener that has not read them yet.
const PROGRESS_KEPT: usize = 64;

/// An event: its kind (`state`, `info`, `review`) and its data as JSON text.
pub(crate) type Message = (&'static str, Arc<str>);

/// A progress message and the hash of the seat it is for (None: every listener).
type Addressed = (&'static str, Arc<str>, Option<Arc<str>>);

struct Channel {
    /// The latest state, while someone listens (none: nobody did when it changed).
    state: watch::Sender<Option<Arc<str>>>,
    progress: broadcast::Sender<Addressed>,
}

impl Channel {
    fn new() -> Self {
        Channel {
            state: watch::channel(None).0,
            progress: broadcast::channel(PROGRESS_KEPT).0,
        }
    }

    fn listened(&self) -> bool {
        self.state.receiver_count() > 0 || self.progress.receiver_count() > 0
    }
}

/// The event channels of the games somebody listens to or that are in memory.
#[derive(Default)]
pub(crate) struct Events {
    channels: Mutex<HashMap<String, Channel>>,
}

/// Sends the progress of one search (from its thread), to every listener or to the holder of
/// one seat.
#[derive(Clone)]
pub(crate) struct Progress {
    sender: broadcast::Sender<Addressed>,
    seat: Option<Arc<str>>,
}

impl Progress {
    pub fn send(&self, kind: &'static str, data: &Value) {
        if self.sender.receiver_count() > 0 {
            // Nobody listening any more is fine.
            let _ = self
                .sender
                .send((kind, Arc::from(data.to_string()), self.seat.clone()));
        }
    }
}

impl Events {
    fn with<T>(&self, id: &str, f: impl FnOnce(&Channel) -> T) -> T {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        f(channels.entry(id.to_string()).or_insert_with(Channel::new))
    }

    /// Tells the game's listeners its new state (written out only if someone listens).
    pub fn state(&self, id: &str, state: &Value) {
        self.with(id, |c| {
            let text = (c.state.receiver_count() > 0).then(|| Arc::from(state.to_string()));
            c.state.send_replace(text);
        });
    }

    /// Tells the game's listeners something other than a state (progress).
    #[cfg(test)]
    pub fn progress(&self, id: &str, kind: &'static str, data: &Value) {
        self.progress_sender(id, None).send(kind, data);
    }

    /// A sender of progress messages for every listener, or (`seat`: a seat's hash) for the
    /// listeners that present that seat only.
    pub fn progress_sender(&self, id: &str, seat: Option<String>) -> Progress {
        self.with(id, |c| Progress {
            sender: c.progress.clone(),
            seat: seat.map(Arc::from),
        })
    }

    /// The game's events from now on: each state that is the latest when the listener reads,
    /// and the progress messages for everyone or for a seat `listener` presents.
    pub fn subscribe(
        &self,
        id: &str,
        listener: Presented,
    ) -> impl Stream<Item = Message> + Send + 'static {
        let (states, progress) = self.with(id, |c| (c.state.subscribe(), c.progress.subscribe()));
        let states =
            WatchStream::from_changes(states).filter_map(|state| state.map(|text| ("state", text)));
        // A slow listener that missed progress messages just gets the next ones.
        let progress = BroadcastStream::new(progress).filter_map(move |m| match m {
            Ok((kind, text, seat)) if seat.as_deref().is_none_or(|s| listener.has_hash(s)) => {
                Some((kind, text))
            }
            _ => None,
        });
        states.merge(progress)
    }

    /// Drops the channels of games nobody listens to that `keep` does not keep.
    pub fn retain(&self, keep: impl Fn(&str) -> bool) {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        channels.retain(|id, c| c.listened() || keep(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    /// Everything a listener can read without waiting (all of it is sent before).
    async fn ready(stream: &mut (impl Stream<Item = Message> + Unpin)) -> Vec<Message> {
        let mut got = Vec::new();
        while let Ok(Some(m)) =
            tokio::time::timeout(Duration::from_millis(100), stream.next()).await
        {
            got.push(m);
        }
        got
    }

    #[tokio::test]
    async fn a_listener_that_does_not_read_is_owed_the_latest_state_only() {
        let events = Events::default();
        let mut listener = Box::pin(events.subscribe("g", Presented::default()));
        for version in 1..=100 {
            events.state("g", &json!({"version": version}));
        }
        events.progress("g", "info", &json!({"depth": 3}));
        let got = ready(&mut listener).await;
        let states: Vec<&str> = got
            .iter()
            .filter(|(kind, _)| *kind == "state")
            .map(|(_, text)| &**text)
            .collect();
        // Before: the last 64 of the 100 states, each kept in memory for it.
        assert_eq!(states, [r#"{"version":100}"#]);
        assert!(got
            .iter()
            .any(|(kind, text)| *kind == "info" && &**text == r#"{"depth":3}"#));
        // A state nobody listens to is not kept.
        drop(listener);
        events.state("g", &json!({"version": 101}));
        events.with("g", |c| assert!(c.state.borrow().is_none()));
        events.retain(|_| false);
        assert!(events.channels.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_seats_progress_reaches_its_holder_only() {
        let events = Events::default();
        let mut holder = Presented::default();
        holder.add("white-secret");
        let mut other = Presented::default();
        other.add("black-secret");
        let mut white = Box::pin(events.subscribe("g", holder));
        let mut black = Box::pin(events.subscribe("g", other));
        let mut watcher = Box::pin(events.subscribe("g", Presented::default()));
        let seat = Some(crate::seats::hash("white-secret"));
        events
            .progress_sender("g", seat)
            .send("info", &json!({"depth": 7}));
        events.progress("g", "review", &json!({"done": 1}));
        let kinds = |got: Vec<Message>| got.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(kinds(ready(&mut white).await), ["info", "review"]);
        assert_eq!(kinds(ready(&mut black).await), ["review"]);
        assert_eq!(kinds(ready(&mut watcher).await), ["review"]);
    }
}
