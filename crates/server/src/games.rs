//! The games in memory: a cache over the store. Every change is committed to the store before
//! it reaches memory, so a game may leave memory at any time it is not in use: when it has been
//! idle for a while, or when more games than the cap are loaded (least recently used first). It
//! is read back from the store when it is asked for again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::session::Session;

/// A game in memory and its last shown state (so that watching costs no move generation).
pub struct Slot {
    pub session: Box<dyn Session>,
    pub state: Option<Arc<Value>>,
}

/// A game's slot, locked while a request works on it.
pub type Shared = Arc<tokio::sync::Mutex<Slot>>;

struct Entry {
    slot: Shared,
    used: Instant,
}

pub struct Games {
    map: Mutex<HashMap<String, Entry>>,
    idle: Duration,
    cap: usize,
}

impl Games {
    pub fn new(idle: Duration, cap: usize) -> Games {
        Games {
            map: Mutex::new(HashMap::new()),
            idle,
            cap: cap.max(1),
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic elsewhere while holding this lock leaves the map consistent (every operation
        // is one insert or remove), so a poisoned lock is still usable.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, id: &str) -> Option<Shared> {
        let mut map = self.map();
        let entry = map.get_mut(id)?;
        entry.used = Instant::now();
        Some(entry.slot.clone())
    }

    /// Adds a game (new, or read from the store); returns the game in memory (an earlier copy
    /// wins). A game read from the store needs no other check: reads of one game wait for each
    /// other (`AppState::game`), so it cannot come into memory, change and leave during its
    /// own read. (Reads used to be thrown away whenever any game left memory meanwhile, and
    /// answered 503 after three: a third of the reads of games asked for at once, past the
    /// cap of games in memory.)
    pub fn insert(&self, id: &str, session: Box<dyn Session>) -> Shared {
        let mut map = self.map();
        if let Some(entry) = map.get_mut(id) {
            entry.used = Instant::now();
            return entry.slot.clone();
        }
        let slot = Arc::new(tokio::sync::Mutex::new(Slot {
            session,
            state: None,
        }));
        map.insert(
            id.to_string(),
            Entry {
                slot: slot.clone(),
                used: Instant::now(),
            },
        );
        if map.len() > self.cap {
            self.evict(&mut map, |_| false);
        }
        slot
    }

    /// Drops the games idle for longer than the idle time; returns how many.
    pub fn evict_idle(&self) -> usize {
        let idle = self.idle;
        let now = Instant::now();
        let mut map = self.map();
        self.evict(&mut map, |e| now.duration_since(e.used) >= idle)
    }

    /// Drops unused games: those `expired` says, then the least recently used beyond the cap.
    /// A game some request still holds stays (its holder may change it).
    fn evict(&self, map: &mut HashMap<String, Entry>, expired: impl Fn(&Entry) -> bool) -> usize {
        let before = map.len();
        map.retain(|_, e| Arc::strong_count(&e.slot) > 1 || !expired(e));
        if map.len() > self.cap {
            let mut free: Vec<(Instant, String)> = map
                .iter()
                .filter(|(_, e)| Arc::strong_count(&e.slot) == 1)
                .map(|(id, e)| (e.used, id.clone()))
                .collect();
            free.sort();
            let excess = map.len() - self.cap;
            for (_, id) in free.into_iter().take(excess) {
                map.remove(&id);
            }
        }
        before - map.len()
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.map().contains_key(id)
    }

    pub fn idle_time(&self) -> Duration {
        self.idle
    }
}
