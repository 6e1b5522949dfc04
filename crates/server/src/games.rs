//! The games in memory: a cache over the store. Every change is committed to the store before
//! it reaches memory, so a game may leave memory at any time it is not in use: when it has been
//! idle for a while, or when more games than the cap are loaded (least recently used first). It
//! is read back from the store when it is asked for again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Counts evictions, so that a load that raced with one is not trusted (it may have read
    /// the row before a change that was made and then evicted).
    evictions: AtomicU64,
}

impl Games {
    pub fn new(idle: Duration, cap: usize) -> Games {
        Games {
            map: Mutex::new(HashMap::new()),
            idle,
            cap: cap.max(1),
            evictions: AtomicU64::new(0),
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic elsewhere while holding this lock leaves the map consistent (every operation
        // is one insert or remove), so a poisoned lock is still usable.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn epoch(&self) -> u64 {
        self.evictions.load(Ordering::SeqCst)
    }

    pub fn get(&self, id: &str) -> Option<Shared> {
        let mut map = self.map();
        let entry = map.get_mut(id)?;
        entry.used = Instant::now();
        Some(entry.slot.clone())
    }

    /// Adds a game read from the store at `epoch`. Returns the game in memory (an earlier copy
    /// wins), or None if an eviction happened since the read (read it again).
    pub fn insert(
        &self,
        id: &str,
        session: Box<dyn Session>,
        epoch: Option<u64>,
    ) -> Option<Shared> {
        let mut map = self.map();
        if let Some(entry) = map.get_mut(id) {
            entry.used = Instant::now();
            return Some(entry.slot.clone());
        }
        if epoch.is_some_and(|e| e != self.epoch()) {
            return None;
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
        Some(slot)
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
        let gone = before - map.len();
        if gone > 0 {
            self.evictions.fetch_add(1, Ordering::SeqCst);
        }
        gone
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
