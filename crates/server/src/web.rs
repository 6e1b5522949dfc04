//! The web page, built into the binary: no build step and no network at run time.

use axum::http::header;
use axum::response::{Html, IntoResponse};

pub async fn index() -> Html<&'static str> {
    Html(include_str!("../web/index.html"))
}

pub async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../web/app.js"),
    )
}

pub async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../web/style.css"),
    )
}

pub async fn review_script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../web/review.js"),
    )
}

/* ---------- interface languages and board options (issue 12, item 7) ---------- */

/// The interface languages: code and catalogue. Adding a language is one file in web/i18n/ and
/// one line here (docs/translating.md).
pub const LANGUAGES: &[(&str, &str)] = &[
    ("en", include_str!("../web/i18n/en.json")),
    ("tr", include_str!("../web/i18n/tr.json")),
    ("ru", include_str!("../web/i18n/ru.json")),
    ("nl", include_str!("../web/i18n/nl.json")),
];

pub async fn i18n_script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../web/i18n.js"),
    )
}

pub async fn prefs_script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../web/prefs.js"),
    )
}

/// `/i18n/languages.json` (the codes, each with its name in its own language) or
/// `/i18n/{code}.json` (one catalogue).
pub async fn i18n_catalogue(
    axum::extract::Path(file): axum::extract::Path<String>,
) -> axum::response::Response {
    let json = [(header::CONTENT_TYPE, "application/json; charset=utf-8")];
    if file == "languages.json" {
        let list: Vec<serde_json::Value> = LANGUAGES
            .iter()
            .map(|(code, text)| {
                let name = serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .and_then(|v| v.get("_name").and_then(|n| n.as_str()).map(String::from))
                    .unwrap_or_else(|| code.to_string());
                serde_json::json!({ "code": code, "name": name })
            })
            .collect();
        return (json, serde_json::Value::Array(list).to_string()).into_response();
    }
    let code = file.strip_suffix(".json").unwrap_or("");
    match LANGUAGES.iter().find(|(c, _)| *c == code) {
        Some((_, text)) => (json, *text).into_response(),
        None => (
            axum::http::StatusCode::NOT_FOUND,
            "no such language catalogue",
        )
            .into_response(),
    }
}

pub async fn friend_script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../web/friend.js"),
    )
}
