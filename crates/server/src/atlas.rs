//! `/atlas`: the variant atlas's report (crates/atlas-report) of the database given with
//! `serve --atlas-db`, the same pages and SVG plots as `damspel atlas report` writes. The
//! database is opened read-only; the report is rendered on a blocking thread (one at a time)
//! and kept until the database file changes (a run still filling it shows its new games on the
//! next request). Without a database every page is a 404 saying how to give one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use damspel_atlas_report::report::escape;
use damspel_atlas_report::Report;

use crate::pool::Pool;

/// What tells that the database changed: size and modification time of it and its WAL file.
type Stamp = Vec<Option<(SystemTime, u64)>>;

pub struct Atlas {
    db: Option<PathBuf>,
    /// The last report with the stamp it was made from; the lock also keeps renders to one.
    cache: tokio::sync::Mutex<Option<(Stamp, Arc<Report>)>>,
    pool: Pool,
}

impl Atlas {
    pub fn new(db: Option<PathBuf>) -> Atlas {
        Atlas {
            db,
            cache: tokio::sync::Mutex::new(None),
            pool: Pool::new("atlas report", 1, 16, Duration::from_secs(120)),
        }
    }

    /// The report, from the cache while the database is unchanged.
    async fn report(&self) -> Result<Arc<Report>, Response> {
        let Some(db) = self.db.clone() else {
            return Err(page(
                StatusCode::NOT_FOUND,
                "No atlas database",
                "This server shows no variant atlas: start it with <code>damspel serve \
                 --atlas-db PATH</code>, PATH being a database written by <code>damspel atlas \
                 run</code>.",
            ));
        };
        let mut cache = self.cache.lock().await;
        let previous = cache.clone();
        let (stamp, report) = self
            .pool
            .run(None, move || {
                let now = stamp(&db);
                match previous {
                    Some((then, report)) if then == now => Ok((then, report)),
                    _ => damspel_atlas_report::build(&db).map(|r| (now, Arc::new(r))),
                }
            })
            .await
            .map_err(IntoResponse::into_response)?
            .map_err(|e| {
                page(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "The atlas cannot be shown",
                    &escape(&e.to_string()),
                )
            })?;
        *cache = Some((stamp, report.clone()));
        Ok(report)
    }
}

fn stamp(db: &Path) -> Stamp {
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    [db, wal.as_path()]
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
        })
        .collect()
}

fn page(status: StatusCode, title: &str, html: &str) -> Response {
    (
        status,
        Html(format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
             </head><body style=\"font-family:sans-serif\"><h1 data-role=\"atlas-error\">{title}</h1>\
             <p>{html}</p><p><a href=\"/\">Back to the board</a></p></body></html>"
        )),
    )
        .into_response()
}

/// The routes: `/atlas` (to `/atlas/`), `/atlas/` (the index) and `/atlas/{file}`.
pub fn routes<S: Clone + Send + Sync + 'static>(atlas: Arc<Atlas>) -> Router<S> {
    Router::new()
        .route("/atlas", get(to_index))
        .route("/atlas/", get(index))
        .route("/atlas/{file}", get(file))
        .with_state(atlas)
}

/// The report's pages name each other relatively, so they must be read below `/atlas/`.
async fn to_index(RawQuery(query): RawQuery) -> Redirect {
    match query {
        Some(q) => Redirect::to(&format!("/atlas/?{q}")),
        None => Redirect::to("/atlas/"),
    }
}

async fn index(State(atlas): State<Arc<Atlas>>) -> Response {
    serve(&atlas, "index.html").await
}

async fn file(State(atlas): State<Arc<Atlas>>, UrlPath(name): UrlPath<String>) -> Response {
    serve(&atlas, &name).await
}

async fn serve(atlas: &Atlas, name: &str) -> Response {
    let report = match atlas.report().await {
        Ok(r) => r,
        Err(response) => return response,
    };
    match report.files.get(name) {
        Some(text) => (
            [(header::CONTENT_TYPE, Report::content_type(name))],
            text.clone(),
        )
            .into_response(),
        None => page(
            StatusCode::NOT_FOUND,
            "No such page of the atlas",
            &format!(
                "The atlas has no file <code>{}</code>; its index is at <a href=\"/atlas/\">/atlas/</a>.",
                escape(name)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    async fn get(atlas: &Arc<Atlas>, uri: &str) -> (StatusCode, String, String) {
        let app: Router = routes(atlas.clone());
        let response = app
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let kind = response
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = axum::body::to_bytes(response.into_body(), 1 << 24)
            .await
            .unwrap();
        (status, kind, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn without_a_database_the_atlas_is_a_clear_404() {
        let atlas = Arc::new(Atlas::new(None));
        let (status, kind, body) = get(&atlas, "/atlas/").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(kind.starts_with("text/html"));
        assert!(body.contains("--atlas-db"), "{body}");
    }

    #[tokio::test]
    async fn the_report_is_served_and_follows_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("fixture.db");
        damspel_atlas_report::fixture::write(&db).unwrap();
        let atlas = Arc::new(Atlas::new(Some(db.clone())));
        let (status, _, _) = get(&atlas, "/atlas?token=x").await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        let (status, kind, body) = get(&atlas, "/atlas/").await;
        assert_eq!(status, StatusCode::OK);
        assert!(kind.starts_with("text/html"));
        assert!(body.contains("data-role=\"atlas-metrics\"") && body.contains("turkish"));
        let (status, kind, body) = get(&atlas, "/atlas/metric-first-score.svg").await;
        assert_eq!((status, kind.as_str()), (StatusCode::OK, "image/svg+xml"));
        assert!(body.starts_with("<svg"));
        let (status, _, body) = get(&atlas, "/atlas/..%2Fetc%2Fpasswd").await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        // A database that changes is read again: here it stops being an atlas at all.
        std::fs::write(&db, "no longer a database").unwrap();
        let (status, _, body) = get(&atlas, "/atlas/").await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert!(
            body.contains("not an atlas database") || body.contains("cannot open"),
            "{body}"
        );
    }
}
