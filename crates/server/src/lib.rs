//! Damspel's web server: the page to play and study every variant (built into the binary), the
//! JSON API behind it (docs/api.md) with server-sent events for the engine's progress, and the
//! games kept in SQLite so that a reload or a restart resumes them.

mod api;
mod error;
mod session;
mod store;
mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use damspel_rules::Catalogue;

pub use api::{AppState, MAX_ENGINE_TIME};
pub use error::ApiError;
pub use store::Store;

/// How to run the server.
pub struct Config {
    pub addr: SocketAddr,
    pub db: PathBuf,
    /// Searches that may run at once (others wait).
    pub concurrent_searches: usize,
}

/// The application: every route over a shared state.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(web::index))
        .route("/app.js", get(web::script))
        .route("/style.css", get(web::style))
        .route("/api/variants", get(api::variants))
        .route("/api/variants/{id}", get(api::variant))
        .route("/api/games", get(api::list).post(api::new_game))
        .route("/api/games/import", post(api::import))
        .route("/api/games/{id}", get(api::game))
        .route("/api/games/{id}/move", post(api::play))
        .route("/api/games/{id}/engine", post(api::engine_move))
        .route("/api/games/{id}/hint", post(api::hint))
        .route("/api/games/{id}/undo", post(api::undo))
        .route("/api/games/{id}/redo", post(api::redo))
        .route("/api/games/{id}/pdn", get(api::pdn))
        .route("/api/games/{id}/events", get(api::events))
        .route("/api/positions/check", post(api::check_position))
        .route("/api/{*rest}", get(api::not_found).post(api::not_found))
        .method_not_allowed_fallback(api::method_not_allowed)
        .fallback(api::no_such_page)
        .layer(DefaultBodyLimit::max(1 << 20))
        .with_state(state)
}

/// Serves until Ctrl-C or SIGTERM; every change is already in the database, so stopping loses
/// nothing. `ready` is called with the bound address once the server listens.
pub async fn serve(
    catalogue: Catalogue,
    config: Config,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    serve_until(catalogue, config, ready, shutdown_signal()).await
}

/// Serves until `shutdown` completes, then finishes the requests under way.
pub async fn serve_until(
    catalogue: Catalogue,
    config: Config,
    ready: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let store = Store::open(&config.db)?;
    let state = Arc::new(AppState::new(catalogue, store, config.concurrent_searches));
    let listener = tokio::net::TcpListener::bind(config.addr).await?;
    ready(listener.local_addr()?);
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}

/// Runs the server on its own runtime until it is stopped (for the command line).
pub fn run(
    catalogue: Catalogue,
    config: Config,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(catalogue, config, ready))
}
