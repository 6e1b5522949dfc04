//! Who may change a game: each human seat has a secret, given once to whoever created the game
//! (or claimed the seat) and kept by the server only as a hash. A request proves a seat by
//! sending its secret in the `X-Damspel-Seat` header (several secrets separated by commas, for
//! one browser holding both seats). Everyone else may watch.
//!
//! Kept small and apart so that "join the other seat by a link" can hand out a seat later.

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use damspel_rules::Color;
use rand::RngExt;
use sha2::{Digest, Sha256};

/// The header that carries seat secrets.
pub const HEADER: &str = "x-damspel-seat";

/// The cookie that carries seat secrets to a game's event stream, and there only (the page sets
/// it for that path: a browser's `EventSource` sends no header). Secrets separated by dots.
pub const EVENTS_COOKIE: &str = "damspel_seat";

/// Hex digest of a secret (what the database keeps).
pub fn hash(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new secret: 160 random bits as 32 base-32 characters.
pub fn new_secret() -> String {
    let mut rng = rand::rng();
    (0..32)
        .map(|_| char::from(b"abcdefghijkmnpqrstuvwxyz23456789"[rng.random_range(0..32)]))
        .collect()
}

/// The stored hashes of a game's two seats (`None`: no secret, an engine seat, or a game stored
/// before seats existed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatKeys {
    pub white: Option<String>,
    pub black: Option<String>,
}

impl SeatKeys {
    pub fn get(&self, color: Color) -> Option<&String> {
        match color {
            Color::White => self.white.as_ref(),
            Color::Black => self.black.as_ref(),
        }
    }

    pub fn set(&mut self, color: Color, hash: String) {
        match color {
            Color::White => self.white = Some(hash),
            Color::Black => self.black = Some(hash),
        }
    }
}

/// The secrets a request presents, as hashes.
#[derive(Clone, Debug, Default)]
pub struct Presented(Vec<String>);

/// A handler's argument: the secrets of the request's seat headers (none is no error: the
/// request may still watch).
impl<S: Send + Sync> FromRequestParts<S> for Presented {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Presented::from_headers(&parts.headers))
    }
}

impl Presented {
    fn from_headers(headers: &HeaderMap) -> Presented {
        Presented::of(
            headers
                .get_all(HEADER)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(',')),
        )
    }

    /// At most four secrets of plausible length, hashed.
    fn of<'a>(secrets: impl Iterator<Item = &'a str>) -> Presented {
        Presented(
            secrets
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= 128)
                .take(4)
                .map(hash)
                .collect(),
        )
    }

    /// The secrets of the event stream's cookie (`EVENTS_COOKIE`), read only by the stream: it
    /// changes nothing, and a cookie is sent with requests no page of ours made.
    pub fn from_events_cookie(headers: &HeaderMap) -> Presented {
        Presented::of(
            headers
                .get_all(axum::http::header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(';'))
                .filter_map(|pair| pair.trim().split_once('='))
                .filter(|(name, _)| *name == EVENTS_COOKIE)
                .flat_map(|(_, value)| value.split('.')),
        )
    }

    /// Whether the request presents the secret whose hash is `hash`.
    pub fn has_hash(&self, hash: &str) -> bool {
        self.0.iter().any(|h| h == hash)
    }

    /// Adds a secret (one just given to this request).
    pub fn add(&mut self, secret: &str) {
        self.0.push(hash(secret));
    }

    /// Whether the request holds the seat of `color`.
    pub fn holds(&self, keys: &SeatKeys, color: Color) -> bool {
        keys.get(color)
            .is_some_and(|k| self.0.iter().any(|h| h == k))
    }

    /// Whether the request holds either seat.
    pub fn holds_any(&self, keys: &SeatKeys) -> bool {
        self.holds(keys, Color::White) || self.holds(keys, Color::Black)
    }
}

/// The refusal a watcher gets.
pub fn watching() -> crate::error::ApiError {
    crate::error::ApiError::new(
        axum::http::StatusCode::FORBIDDEN,
        "you are watching this game: only the player of a seat may change it (send the seat's \
         secret in the X-Damspel-Seat header)",
    )
}
