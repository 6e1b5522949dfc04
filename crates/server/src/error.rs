//! API errors: a status and a message saying what is wrong.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// A number a request gave, as an error quotes it: as written for everyday sizes, in
/// exponent form past them (`1e308` is not written out in 309 digits).
pub(crate) struct Quoted(pub f64);

impl std::fmt::Display for Quoted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x != 0.0 && !(1e-6..1e9).contains(&x.abs()) {
            write!(f, "{x:e}")
        } else {
            write!(f, "{x}")
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::Quoted;

    #[test]
    fn numbers_are_quoted_short() {
        for (x, text) in [
            (1e308, "1e308"),
            (-1e308, "-1e308"),
            (1e-300, "1e-300"),
            (0.0, "0"),
            (-5.0, "-5"),
            (0.25, "0.25"),
            (99999999999.0, "9.9999999999e10"),
            (120.5, "120.5"),
        ] {
            assert_eq!(Quoted(x).to_string(), text);
        }
    }
}
