//! Work that must not run on the async threads: move generation, imports, database writes and
//! engine searches. Each kind has a bounded number of slots and a bounded queue; a request that
//! finds the queue full gets a 503 at once. A slot's permit moves into the blocking closure, so a
//! slot stays taken until the work has really finished, even when the client has gone.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// A bounded set of blocking slots with a bounded wait.
pub struct Pool {
    name: &'static str,
    size: usize,
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
    max_wait: Duration,
    /// Closures running now (for tests and the load script's figures).
    running: Arc<AtomicUsize>,
}

impl Pool {
    pub fn new(name: &'static str, size: usize, max_waiting: usize, max_wait: Duration) -> Pool {
        let size = size.max(1);
        Pool {
            name,
            size,
            slots: Arc::new(Semaphore::new(size)),
            waiting: AtomicUsize::new(0),
            max_waiting,
            max_wait,
            running: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Closures running at this moment.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// Waits, at most `within`, until no work runs (a stopped server's work would hold its
    /// database open).
    pub async fn settle(&self, within: Duration) {
        let all = u32::try_from(self.size).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(within, self.slots.acquire_many(all)).await;
    }

    fn busy(&self) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the server is busy ({}); try again in a moment", self.name),
        )
    }

    /// A slot: at once if one is free, else after the work ahead, within the queue's bounds.
    async fn slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(self.busy());
        }
        let permit = tokio::time::timeout(self.max_wait, self.slots.clone().acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        match permit {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) => Err(ApiError::internal("the server is shutting down")),
            Err(_) => Err(self.busy()),
        }
    }

    /// Runs `work` on a blocking thread once a slot is free. If the caller goes away (the client
    /// disconnected), the work still finishes and holds its slot until then; `cancel` is raised
    /// so that work that can stop (a search) stops early.
    pub async fn run<T: Send + 'static>(
        &self,
        cancel: Option<Arc<Cancel>>,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = self.slot().await?;
        let running = self.running.clone();
        let _on_drop = cancel.map(CancelOnDrop);
        let handle = tokio::task::spawn_blocking(move || {
            // The slot is held until the work has returned (or panicked); it is counted as
            // running until just before (locals drop in reverse order).
            let _permit = permit;
            let _running = Running::start(running);
            work()
        });
        handle
            .await
            .map_err(|e| ApiError::internal(format!("{} failed: {e}", self.name)))
    }
}

/// Counts a closure as running for as long as it lives.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn start(count: Arc<AtomicUsize>) -> Running {
        count.fetch_add(1, Ordering::SeqCst);
        Running(count)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A stop request for work on another thread, raised when its request is dropped. The work
/// attaches its own stop flag (the engine's) once it has one; whichever comes second raises it.
#[derive(Default)]
pub struct Cancel {
    cancelled: AtomicBool,
    flag: OnceLock<Arc<AtomicBool>>,
}

impl Cancel {
    pub fn new() -> Arc<Cancel> {
        Arc::new(Cancel::default())
    }

    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(flag) = self.flag.get() {
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// Connects the work's stop flag; raises it at once if the request is already gone.
    pub fn attach(&self, flag: Arc<AtomicBool>) {
        let flag = self.flag.get_or_init(|| flag);
        if self.cancelled.load(Ordering::SeqCst) {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

/// Raises the stop flag when the request's future is dropped, finished or not (after the work
/// has returned, raising it does nothing).
struct CancelOnDrop(Arc<Cancel>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
