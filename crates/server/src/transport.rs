//! Connections: hyper's HTTP/1 server with our own accept loop (axum::serve has no timeouts).
//! A connection that does not send its request head in time, or sits idle between requests,
//! is closed; a body must arrive within its deadline (router.rs's layer); and beyond a cap of
//! open connections new ones are closed at once, so slow or idle clients can never use up the
//! process's file descriptors and lock everyone else out.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;

/// Transport limits (documented in docs/api.md).
#[derive(Clone, Debug)]
pub struct Transport {
    /// Time to send a request head, and longest idle time between requests of a keep-alive
    /// connection (hyper times both with one timer).
    pub header_timeout: Duration,
    /// Time to send a whole request body.
    pub body_timeout: Duration,
    /// Open connections at most.
    pub max_connections: usize,
    /// Time requests under way get to finish at shutdown (event streams never do).
    pub shutdown_grace: Duration,
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

pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: &Transport,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
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
        let Ok(permit) = open.clone().try_acquire_owned() else {
            // Over the cap: closed at once (the client sees a reset and may retry).
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(limits.shutdown_grace) => {}
    }
    Ok(())
}
