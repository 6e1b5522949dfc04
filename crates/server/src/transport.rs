//! Connections: hyper's HTTP/1 server with our own accept loop (axum::serve has no timeouts).
//! A connection that does not send its request head in time, or sits idle between requests,
//! is closed; a body must arrive within its deadline (a layer of the router); and at the cap of
//! open connections the oldest is asked to close (at once if idle or an event stream, which never
//! finishes), with new ones refused only far past the cap, so slow, idle or listening clients can
//! never use up the process's file descriptors nor lock everyone else out.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{watch, Notify, Semaphore};
use tokio::task::JoinSet;
use tower::ServiceExt;

type Incoming = hyper::Request<hyper::body::Incoming>;

/// Transport limits (documented in docs/api.md).
#[derive(Clone, Debug)]
pub struct Transport {
    /// Time to send a request head, and longest idle time between requests of a keep-alive
    /// connection (hyper times both with one timer).
    pub header_timeout: Duration,
    /// Time to send a whole request body.
    pub body_timeout: Duration,
    /// Open connections before the oldest are asked to close.
    pub max_connections: usize,
    /// Time requests under way get to finish at shutdown (event streams never do); then their
    /// connections are closed.
    pub shutdown_grace: Duration,
}

impl Transport {
    /// Event streams open at once (half the connections): more get a 503, so that listeners
    /// never take every connection's place.
    pub fn max_event_streams(&self) -> usize {
        (self.max_connections / 2).max(1)
    }
}

impl Default for Transport {
    fn default() -> Transport {
        Transport {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// The open connections, oldest first, each with a way to ask it to close.
#[derive(Default)]
struct Open {
    next: u64,
    order: VecDeque<(u64, Arc<Notify>)>,
}

/// Connections allowed past the cap while the oldest ones close (a busy connection finishes
/// its request first); beyond that new ones are closed at once.
const SLACK: usize = 64;

fn is_event_stream(response: &axum::response::Response) -> bool {
    response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"))
}

pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: &Transport,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let cap = limits.max_connections.max(1);
    let permits = Arc::new(Semaphore::new(cap + SLACK));
    let open = Arc::new(Mutex::new(Open::default()));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // A request head of more than 64 KiB is refused (431): bounds each connection's buffer.
        .max_buf_size(crate::guard::MAX_HEAD)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        // Forget the connections that have closed.
        while connections.try_join_next().is_some() {}
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(_) => {
                    // Out of descriptors or a connection reset before it was accepted: wait a
                    // little rather than spin, and go on.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            // Far over the cap (the oldest connections are all busy): closed at once.
            drop(stream);
            continue;
        };
        let kick = Arc::new(Notify::new());
        let id = {
            let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
            // Over the cap: the oldest connection is asked to close. An idle one (a keep-alive
            // or a head not yet sent) closes at once, a busy one after its response, so idle
            // connections can never keep a new client out.
            if open.order.len() >= cap {
                if let Some((_, oldest)) = open.order.pop_front() {
                    oldest.notify_one();
                }
            }
            open.next += 1;
            let id = open.next;
            open.order.push_back((id, kick.clone()));
            id
        };
        let _ = stream.set_nodelay(true);
        // Whether the connection's response is an event stream: one never finishes, so asking
        // it to close must close it.
        let (streams_tx, mut streams) = watch::channel(false);
        let streams_tx = Arc::new(streams_tx);
        let service = TowerToHyperService::new(ServiceExt::<Incoming>::map_response(
            app.clone(),
            move |response: axum::response::Response| {
                if is_event_stream(&response) {
                    streams_tx.send_replace(true);
                }
                response
            },
        ));
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let open = open.clone();
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let mut connection = Box::pin(connection);
            let mut asked = false;
            loop {
                tokio::select! {
                    _ = connection.as_mut() => break,
                    _ = kick.notified(), if !asked => {
                        asked = true;
                        connection.as_mut().graceful_shutdown();
                    }
                    _ = stop.changed(), if !asked => {
                        asked = true;
                        connection.as_mut().graceful_shutdown();
                    }
                    // Asked to close while (or before) it streams events: closed now.
                    _ = streams.wait_for(|s| *s), if asked => break,
                }
            }
            // The connection (and the state its service holds) goes before its permit: once all
            // permits are back, a stopping server holds nothing of its connections.
            drop(connection);
            let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
            open.order.retain(|(i, _)| *i != id);
            drop(permit);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Wait for the connections to finish, for a while (event streams never do), then close the
    // rest: their requests are dropped, which stops their searches, and nothing of them stays
    // alive (they hold the database) once the server has stopped. A change is committed before
    // it is answered, so a dropped request loses nothing that was acknowledged.
    let finished = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(limits.shutdown_grace, finished)
        .await
        .is_err()
    {
        connections.shutdown().await;
    }
    Ok(())
}
