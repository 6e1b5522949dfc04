//! Whom the server answers: requests to one of its own host names (a Host allow-list, against
//! DNS rebinding), with the access token when it has one, and, for anything that changes
//! state, from its own page or no page at all (an Origin check) with a JSON body (no
//! cross-site "simple" requests). Seats (seats.rs) then decide who may change which game.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// The cookie that carries the access token once the printed address has been visited.
pub const COOKIE: &str = "damspel_token";

pub struct Guard {
    port: u16,
    /// Host names (lowercase, IPv6 in brackets) allowed with the bound port.
    own: Vec<String>,
    /// Names given with --allow-host: `name` (any port) or `name:port`.
    extra: Vec<String>,
    /// Bound to every interface: any IP address written as such is one of ours (DNS rebinding
    /// needs a name, so an address literal is safe).
    any_address: bool,
    /// SHA-256 of the access token, if there is one.
    token: Option<[u8; 32]>,
}

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Splits `host[:port]` (IPv6 in brackets); no port gives `default`.
fn split_host(text: &str, default: u16) -> Option<(String, u16)> {
    let text = text.trim().to_ascii_lowercase();
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (inner, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None if after.is_empty() => default,
            None => return None,
        };
        (format!("[{inner}]"), port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse().ok()?),
            None => (text.clone(), default),
        }
    };
    (!host.is_empty()).then_some((host, port))
}

/// Checks a name given with `--allow-host`: a host name or an IP address (IPv6 in brackets), with
/// a port or without (any port), as it stands in a browser's address bar. What the Host check
/// could never match (an empty name, a whole address with `http://` or a path, a wildcard) is
/// refused here instead of being kept and matching nothing. Gives the name as the check
/// compares it (lowercase).
pub fn allowed_host(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("an empty name".into());
    }
    if t.contains("://") || t.contains('/') {
        return Err(format!(
            "`{t}` is an address; give the host name alone (as in `box.lan` or `box.lan:8080`)"
        ));
    }
    if t.contains('*') {
        return Err(format!(
            "`{t}`: wildcards are not allowed (they would let any site's name reach the server)"
        ));
    }
    let Some((host, port)) = split_host(t, 0) else {
        return Err(format!("`{t}` is not a host name with an optional port"));
    };
    if port == 0 && t.rsplit_once(':').is_some_and(|(_, p)| p == "0") {
        return Err(format!("`{t}`: a port is 1 to 65535"));
    }
    let name_ok = if let Some(inner) = host.strip_prefix('[') {
        inner
            .strip_suffix(']')
            .is_some_and(|a| a.parse::<std::net::Ipv6Addr>().is_ok())
    } else {
        host.len() <= 253
            && host.trim_end_matches('.').split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
    };
    if !name_ok {
        return Err(format!("`{t}` is not a host name with an optional port"));
    }
    Ok(t.to_ascii_lowercase())
}

fn ip_literal(host: &str) -> bool {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .is_ok()
}

impl Guard {
    pub fn new(bound: SocketAddr, allow_hosts: &[String], token: Option<&str>) -> Guard {
        let ip = bound.ip();
        let mut own = vec![match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("[{v6}]"),
        }];
        if ip.is_loopback() || ip.is_unspecified() {
            own.extend(["localhost", "127.0.0.1", "[::1]"].map(String::from));
        }
        Guard {
            port: bound.port(),
            own,
            extra: allow_hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
            any_address: ip.is_unspecified(),
            token: token.map(digest),
        }
    }

    /// Whether `host[:port]` names this server (`default` is the port when none is written).
    pub fn allows_host(&self, text: &str, default: u16) -> bool {
        let Some((host, port)) = split_host(text, default) else {
            return false;
        };
        if port == self.port
            && (self.own.contains(&host) || (self.any_address && ip_literal(&host)))
        {
            return true;
        }
        self.extra.iter().any(|e| match split_host(e, 0) {
            Some((h, 0)) => h == host,
            Some((h, p)) => h == host && p == port,
            None => false,
        })
    }

    /// Whether an Origin header names this server's own page.
    fn allows_origin(&self, origin: &str) -> bool {
        let (default, rest) = if let Some(rest) = origin.strip_prefix("http://") {
            (80, rest)
        } else if let Some(rest) = origin.strip_prefix("https://") {
            (443, rest)
        } else {
            return false;
        };
        !rest.contains('/') && self.allows_host(rest, default)
    }

    fn token_ok(&self, candidate: &str) -> bool {
        // Hashes compared, so the comparison's time tells nothing about the token.
        self.token.is_some_and(|t| t == digest(candidate))
    }

    fn has_token(&self, req: &Request) -> bool {
        let headers = req.headers();
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` too.
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("Bearer"))
            .is_some_and(|(_, t)| self.token_ok(t.trim()));
        bearer
            || headers
                .get_all(header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(';'))
                .filter_map(|c| c.trim().split_once('='))
                .any(|(name, value)| name == COOKIE && self.token_ok(value))
    }

    /// `/?token=...` with the right token: the address the server printed.
    fn token_in_query(&self, req: &Request) -> bool {
        req.uri().path() == "/"
            && req
                .uri()
                .query()
                .unwrap_or("")
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .any(|(k, v)| k == "token" && self.token_ok(v))
    }
}

fn refuse(status: StatusCode, message: &str) -> Response {
    ApiError::new(status, message).into_response()
}

fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The most a request head may hold. The connection's buffer is capped at this size too, but
/// hyper reads past it by up to a read's worth (heads of 112 KiB passed): the head is measured
/// here.
pub const MAX_HEAD: usize = 64 * 1024;

/// The middleware.
pub async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let head = req.uri().to_string().len()
        + req
            .headers()
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 4)
            .sum::<usize>();
    if head > MAX_HEAD {
        return refuse(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            &format!("the request head is larger than {MAX_HEAD} bytes"),
        );
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    match host {
        Some(h) if guard.allows_host(&h, 80) => {}
        Some(h) => {
            return refuse(
                StatusCode::MISDIRECTED_REQUEST,
                &format!(
                    "this server does not answer to the host name `{}`; start it with \
                     --allow-host NAME to allow a name of your own",
                    damspel_rules::quoted(&h)
                ),
            )
        }
        None => return refuse(StatusCode::BAD_REQUEST, "a Host header is needed"),
    }
    if guard.token.is_some() && !guard.has_token(&req) {
        if req.method() == Method::GET && guard.token_in_query(&req) {
            // The printed address: keep the token in a cookie the page's requests carry, and
            // take it out of the address bar.
            let token = req
                .uri()
                .query()
                .unwrap_or("")
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .find(|(k, _)| *k == "token")
                .map(|(_, v)| v.to_string())
                .unwrap_or_default();
            let cookie = format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/");
            let mut response = StatusCode::SEE_OTHER.into_response();
            let headers = response.headers_mut();
            headers.insert(header::LOCATION, HeaderValue::from_static("/"));
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                headers.insert(header::SET_COOKIE, v);
            }
            return response;
        }
        return refuse(
            StatusCode::UNAUTHORIZED,
            "this server needs its access token: open the address it printed \
             (http://HOST:PORT/?token=...), or send Authorization: Bearer TOKEN",
        );
    }
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > crate::MAX_BODY as u64) {
        // Refused before a byte of it is read.
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the body is larger than {} bytes", crate::MAX_BODY),
        );
    }
    if changes_state(req.method()) {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let ok = origin.to_str().is_ok_and(|o| guard.allows_origin(o));
            if !ok {
                return refuse(
                    StatusCode::FORBIDDEN,
                    "requests that change something must come from this server's own page \
                     (the Origin header names another site)",
                );
            }
        }
        let headers = req.headers();
        let content_type = headers.get(header::CONTENT_TYPE);
        let has_body = headers.contains_key(header::TRANSFER_ENCODING)
            || headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim() != "0");
        let json = content_type
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if (content_type.is_some() || has_body) && !json {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send the body as JSON with Content-Type: application/json",
            );
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        let g = Guard::new("127.0.0.1:8080".parse().unwrap(), &["box.lan".into()], None);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
            "box.lan",
            "box.lan:9000",
        ] {
            assert!(g.allows_host(ok, 80), "{ok}");
        }
        for bad in [
            "attacker.example:8080",
            "127.0.0.1:8081",
            "localhost",
            "10.0.0.1:8080",
            "",
            ":8080",
            "[::1",
        ] {
            assert!(!g.allows_host(bad, 80), "{bad}");
        }
        let g = Guard::new("0.0.0.0:8080".parse().unwrap(), &[], None);
        assert!(g.allows_host("192.168.1.5:8080", 80));
        assert!(g.allows_host("[fe80::1]:8080", 80));
        assert!(!g.allows_host("rebind.example:8080", 80));
        assert!(g.allows_origin("http://192.168.1.5:8080"));
        assert!(!g.allows_origin("http://rebind.example:8080"));
        assert!(!g.allows_origin("null"));
    }

    #[test]
    fn names_for_allow_host() {
        for ok in [
            "box.lan",
            "Box.LAN:8080",
            "my-pc",
            "192.168.1.5",
            "192.168.1.5:80",
            "[fe80::1]",
            "[::1]:8080",
        ] {
            let name = allowed_host(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
            // What is kept is what the Host check then allows.
            let g = Guard::new("127.0.0.1:8080".parse().unwrap(), &[name], None);
            let asked = if ok.contains("]:") || (!ok.contains('[') && ok.contains(':')) {
                ok.to_string()
            } else {
                format!("{ok}:8080")
            };
            assert!(g.allows_host(&asked, 80), "{ok}");
        }
        for bad in [
            "",
            "  ",
            "http://box.lan:8080/",
            "box.lan/",
            "*",
            "*.lan",
            "box.lan:",
            "box.lan:0",
            "box.lan:70000",
            "box..lan",
            "bo x",
            "[::1",
            "[zz]:80",
            ":8080",
        ] {
            assert!(allowed_host(bad).is_err(), "{bad:?}");
        }
    }
}
