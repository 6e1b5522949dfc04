//! Damspel's web server: the page to play and study every variant (built into the binary), the
//! JSON API behind it (docs/api.md) with server-sent events for the engine's progress, and the
//! games kept in SQLite so that a reload or a restart resumes them.

mod api;
mod atlas;
mod error;
mod events;
mod friend;
mod games;
mod guard;
mod import;
mod pool;
mod review;
mod seats;
mod session;
mod store;
mod tables;
mod timers;
mod transport;
mod tree;
mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use damspel_rules::Catalogue;
use tower_http::timeout::RequestBodyDeadlineLayer;

pub use api::{AppState, Settings, MAX_EXPORT, MAX_FEN, MAX_PDN, MAX_WAITING};
pub use error::ApiError;
pub use guard::{allowed_host, COOKIE};
pub use seats::HEADER as SEAT_HEADER;
pub use session::{MAX_ENGINE_TIME, MAX_LEGAL_MOVES, MAX_PLIES};
pub use store::{OpenError, Store, BUSY_TIMEOUT};
pub use transport::Transport;

/// Largest request body (a PDN import of one long game fits many times over).
pub const MAX_BODY: usize = 1 << 20;

/// How to run the server.
pub struct Config {
    pub addr: SocketAddr,
    pub db: PathBuf,
    pub settings: Settings,
    pub transport: Transport,
    /// Host names the server answers to besides its own address (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// Access token; a server on a non-loopback address gets a generated one if this is None.
    pub token: Option<String>,
    /// How long a database write waits for a lock held by another process.
    pub busy_timeout: Duration,
    /// The variant atlas's database shown at /atlas (`--atlas-db`), opened read-only.
    pub atlas_db: Option<PathBuf>,
}

impl Config {
    pub fn new(addr: SocketAddr, db: PathBuf) -> Config {
        Config {
            addr,
            db,
            settings: Settings::default(),
            transport: Transport::default(),
            allow_hosts: Vec::new(),
            token: None,
            busy_timeout: BUSY_TIMEOUT,
            atlas_db: None,
        }
    }
}

/// What the server listens on, once it does.
#[derive(Clone, Debug)]
pub struct Bound {
    pub addr: SocketAddr,
    /// The access token requests need (None: none needed, a loopback server without --token).
    pub token: Option<String>,
}

/// The application: every route over a shared state.
pub fn router(
    state: Arc<AppState>,
    guard: Arc<guard::Guard>,
    transport: &Transport,
    atlas: Arc<atlas::Atlas>,
) -> Router {
    Router::new()
        .route("/", get(web::index))
        .route("/app.js", get(web::script))
        .route("/review.js", get(web::review_script))
        .route("/friend.js", get(web::friend_script))
        .route("/style.css", get(web::style))
        .route("/i18n.js", get(web::i18n_script))
        .route("/prefs.js", get(web::prefs_script))
        .route("/i18n/{file}", get(web::i18n_catalogue))
        .route("/api/variants", get(api::variants))
        .route("/api/variants/{id}", get(api::variant))
        .route("/api/games", get(api::list).post(api::new_game))
        .route("/api/games/import", post(api::import))
        .route("/api/pdn", post(api::list_pdn))
        .route("/api/games/{id}", get(api::game))
        .route("/api/games/{id}/move", post(api::play))
        .route("/api/games/{id}/engine", post(api::engine_move))
        .route("/api/games/{id}/hint", post(api::hint))
        .route("/api/games/{id}/undo", post(api::undo))
        .route("/api/games/{id}/redo", post(api::redo))
        .route("/api/games/{id}/goto", post(api::goto))
        .route("/api/games/{id}/promote", post(api::promote))
        .route("/api/games/{id}/delete", post(api::delete_node))
        .route("/api/games/{id}/annotate", post(api::annotate))
        .route("/api/games/{id}/analyse", post(api::analyse))
        .route("/api/games/{id}/pdn", get(api::pdn))
        .route("/api/games/{id}/resign", post(api::resign))
        .route("/api/games/{id}/draw", post(api::draw))
        .route("/api/games/{id}/join", post(api::join))
        .route("/api/games/{id}/events", get(api::events))
        .route(
            "/api/games/{id}/review",
            get(review::get).post(review::start).delete(review::cancel),
        )
        .route("/api/positions/check", post(api::check_position))
        .route("/api/tablebase", get(api::tablebase))
        .route("/api/{*rest}", get(api::not_found).post(api::not_found))
        .merge(atlas::routes(atlas))
        .method_not_allowed_fallback(api::method_not_allowed)
        .fallback(api::no_such_page)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(RequestBodyDeadlineLayer::new(transport.body_timeout))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .with_state(state)
}

/// A server bound to its address and database, not yet answering.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    app: Router,
    bound: Bound,
    transport: Transport,
}

impl Server {
    /// Takes the database (refused if another server holds it) and binds the address.
    pub async fn bind(
        catalogue: Catalogue,
        config: Config,
    ) -> Result<Server, Box<dyn std::error::Error + Send + Sync>> {
        let store = Store::open(&config.db, config.busy_timeout)?;
        let mut state = AppState::new(catalogue, store, &config.settings);
        state.event_streams = Arc::new(tokio::sync::Semaphore::new(
            config.transport.max_event_streams(),
        ));
        let state = Arc::new(state);
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let token = match config.token {
            Some(t) => Some(t),
            None if !addr.ip().is_loopback() => Some(seats::new_secret()),
            None => None,
        };
        if let Some(t) = &token {
            let _ = state.access_token.set(t.clone());
        }
        let guard = Arc::new(guard::Guard::new(
            addr,
            &config.allow_hosts,
            token.as_deref(),
        ));
        let atlas = Arc::new(atlas::Atlas::new(config.atlas_db));
        let app = router(state.clone(), guard, &config.transport, atlas);
        Ok(Server {
            listener,
            state,
            app,
            bound: Bound { addr, token },
            transport: config.transport,
        })
    }

    pub fn bound(&self) -> &Bound {
        &self.bound
    }

    /// The shared state (for tests: the gauges of searches and games in memory).
    pub fn state(&self) -> Arc<AppState> {
        self.state.clone()
    }

    /// Serves until `shutdown` completes, then finishes the requests under way (for a while).
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let evictor = tokio::spawn(evict_idle_games(Arc::downgrade(&self.state)));
        let watcher = tokio::spawn(watch_files(Arc::downgrade(&self.state)));
        let result = transport::serve(self.listener, self.app, &self.transport, shutdown).await;
        evictor.abort();
        watcher.abort();
        // A review holds a search slot for minutes: stopping the server stops it. Then the work
        // under way, which holds the database (and its lock), is waited for.
        self.state.reviews.stop_all();
        self.state.settle(self.transport.shutdown_grace).await;
        result
    }
}

/// Drops idle games from memory now and then (they stay in the database). Holds the state
/// weakly, so that a stopped server's database is closed (and its lock file freed) at once.
async fn evict_idle_games(state: std::sync::Weak<AppState>) {
    let Some(every) = state.upgrade().map(|s| s.idle_time() / 2) else {
        return;
    };
    let every = every.clamp(Duration::from_millis(50), Duration::from_secs(60));
    loop {
        tokio::time::sleep(every).await;
        match state.upgrade() {
            Some(state) => {
                state.evict_idle();
            }
            None => return,
        }
    }
}

/// How often the database's files are checked besides each use (a crash within it can still
/// lose what a deleted file held).
const FILES_CHECK: Duration = Duration::from_millis(250);

/// Checks the database's files now and then (store.rs): a log or database deleted under a
/// server that nobody changed games on was put right only at the next change, and a crash
/// before it lost every change the deleted files held (the games of a whole round of kill -9
/// tests, ended before the files were deleted: 404 after the restart).
async fn watch_files(state: std::sync::Weak<AppState>) {
    loop {
        tokio::time::sleep(FILES_CHECK).await;
        let Some(state) = state.upgrade() else {
            return;
        };
        let store = state.store.clone();
        // A refusal is said to the next request that changes something.
        let _ = state.work.run(None, move || store.check_files()).await;
    }
}

/// Serves until Ctrl-C or SIGTERM; every change is already in the database, so stopping loses
/// nothing. `ready` is called once the server listens.
pub async fn serve(
    catalogue: Catalogue,
    config: Config,
    ready: impl FnOnce(&Bound),
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    serve_until(catalogue, config, ready, shutdown_signal()).await
}

/// Serves until `shutdown` completes, then finishes the requests under way.
pub async fn serve_until(
    catalogue: Catalogue,
    config: Config,
    ready: impl FnOnce(&Bound),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = Server::bind(catalogue, config).await?;
    ready(server.bound());
    server.run_until(shutdown).await?;
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
    ready: impl FnOnce(&Bound),
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(catalogue, config, ready))
}
