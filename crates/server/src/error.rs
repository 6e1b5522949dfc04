//! API errors: a status and a message saying what is wrong.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }

    /// The same error, its message prefixed with what was being done.
    pub fn context(self, what: &str) -> ApiError {
        ApiError {
            status: self.status,
            message: format!("{what}: {}", self.message),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        // Busy or locked (another process holds the database), full or read-only: the change
        // was not made and may succeed later.
        use rusqlite::ErrorCode::*;
        match e.sqlite_error_code() {
            Some(
                DatabaseBusy | DatabaseLocked | DiskFull | ReadOnly | CannotOpen | SystemIoFailure,
            ) => ApiError::unavailable(format!(
                "the database cannot take the change now ({e}); nothing was changed, try again"
            )),
            _ => ApiError::internal(format!("database: {e}")),
        }
    }
}
