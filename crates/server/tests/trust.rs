//! Issue 10, finding 4: the server answers only to its own host names, takes changes only from
//! its own page (or no page) with JSON bodies, needs its token when it has one, and lets only a
//! seat's holder change a game; everyone else may watch.

use crate::common::{config, get, post, post_as_watcher, seat_header, Scratch, TestServer};
use serde_json::{json, Value};

async fn new_game(c: &reqwest::Client, server: &TestServer, body: Value) -> Value {
    let (status, state) = post(c, &server.url("/api/games"), body).await;
    assert_eq!(status, 201, "{state}");
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_host_names_are_refused() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("hosts"), 1).await;
    let c = reqwest::Client::new();
    // DNS rebinding: a page of attacker.example whose name now points at 127.0.0.1.
    for path in ["/api/games", "/", "/api/variants"] {
        let r = c
            .get(server.url(path))
            .header("host", "attacker.example:8080")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 421, "{path}");
        let e: Value = r.json().await.unwrap();
        assert!(e["error"].as_str().unwrap().contains("--allow-host"), "{e}");
    }
    let port = server.base.rsplit(':').next().unwrap().to_string();
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let r = c
            .get(server.url("/api/variants"))
            .header("host", &host)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{host}");
    }
    server.stop().await;

    let mut cfg = config(scratch.db("hosts2"), 1);
    cfg.allow_hosts = vec!["damspel.lan".into()];
    let server = TestServer::start_with(cfg).await;
    let r = c
        .get(server.url("/api/variants"))
        .header("host", "damspel.lan")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_requests_cannot_change_anything() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("origin"), 1).await;
    let c = reqwest::Client::new();
    let state = new_game(&c, &server, json!({"variant": "turkish", "black": "human"})).await;
    let id = state["id"].as_str().unwrap();
    let seat = seat_header(id);
    let moved = server.url(&format!("/api/games/{id}/move"));
    // A form on another site: text/plain and form-encoded "simple" requests, no preflight.
    for (ctype, body) in [
        ("text/plain", r#"{"move": "d3-d4"}"#),
        ("application/x-www-form-urlencoded", "move=d3-d4"),
        ("multipart/form-data; boundary=x", "--x--"),
    ] {
        let r = c
            .post(&moved)
            .header("content-type", ctype)
            .header("x-damspel-seat", &seat)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 415, "{ctype}");
    }
    // The same on the endpoints whose body is optional (undo, redo, engine, hint).
    for path in ["undo", "redo", "engine", "hint"] {
        let r = c
            .post(server.url(&format!("/api/games/{id}/{path}")))
            .header("content-type", "text/plain")
            .header("x-damspel-seat", &seat)
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 415, "{path}");
    }
    // A script on another site (its Origin), even with JSON and a seat it somehow knows.
    for origin in [
        "http://attacker.example",
        "null",
        "https://127.0.0.1.attacker.example",
    ] {
        let r = c
            .post(&moved)
            .header("origin", origin)
            .header("x-damspel-seat", &seat)
            .json(&json!({"move": "d3-d4"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{origin}");
    }
    let r = c
        .post(server.url(&format!("/api/games/{id}/undo")))
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // The server's own page may.
    let r = c
        .post(&moved)
        .header("origin", &server.base)
        .header("x-damspel-seat", &seat)
        .json(&json!({"move": "d3-d4"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_seat_holder_may_change_a_game() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("seats"), 1).await;
    let c = reqwest::Client::new();
    let state = new_game(
        &c,
        &server,
        json!({"variant": "turkish", "engine_time": 0.05}),
    )
    .await;
    let id = state["id"].as_str().unwrap().to_string();
    // One human seat (white): one secret, given once, of at least 128 bits.
    let seats = state["seats"]
        .as_object()
        .expect("the creator gets the seat");
    assert_eq!(seats.len(), 1);
    assert!(seats["white"].as_str().unwrap().len() >= 26);
    let url = |p: &str| server.url(&format!("/api/games/{id}/{p}"));
    // Watchers: no secret or a wrong one.
    for (path, body) in [
        ("move", json!({"move": "d3-d4"})),
        ("undo", json!({})),
        ("engine", json!({})),
        ("hint", json!({"time": 0.05})),
    ] {
        let (status, e) = post_as_watcher(&c, &url(path), body.clone()).await;
        assert_eq!(status, 403, "{path}: {e}");
        assert!(e["error"].as_str().unwrap().contains("watching"), "{e}");
        let r = c
            .post(url(path))
            .header("x-damspel-seat", "not-the-secret")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path} with a wrong secret");
    }
    // Watching is allowed, and shows no secret.
    let (status, watched) = get(&c, &server.url(&format!("/api/games/{id}"))).await;
    assert_eq!(status, 200);
    assert!(watched.get("seats").is_none(), "{watched}");
    assert!(!watched
        .to_string()
        .contains(seats["white"].as_str().unwrap()));
    // The holder plays; the engine's seat is driven by the holder too.
    let (status, state) = post(&c, &url("move"), json!({"move": "d3-d4"})).await;
    assert_eq!(status, 200, "{state}");
    let (status, state) = post(&c, &url("engine"), json!({})).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["history"].as_array().unwrap().len(), 2);

    // Two humans: each seat has its own secret and moves only on its own turn.
    let state = new_game(&c, &server, json!({"variant": "turkish", "black": "human"})).await;
    let id = state["id"].as_str().unwrap().to_string();
    let white = state["seats"]["white"].as_str().unwrap().to_string();
    let black = state["seats"]["black"].as_str().unwrap().to_string();
    assert_ne!(white, black);
    let moved = server.url(&format!("/api/games/{id}/move"));
    let as_seat = |secret: &str, mv: &str| {
        c.post(&moved)
            .header("x-damspel-seat", secret)
            .json(&json!({ "move": mv }))
            .send()
    };
    assert_eq!(as_seat(&black, "d3-d4").await.unwrap().status(), 403);
    assert_eq!(as_seat(&white, "d3-d4").await.unwrap().status(), 200);
    assert_eq!(as_seat(&white, "d6-d5").await.unwrap().status(), 403);
    assert_eq!(as_seat(&black, "d6-d5").await.unwrap().status(), 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_a_token_answers_only_to_its_holders() {
    let scratch = Scratch::new();
    let mut cfg = config(scratch.db("token"), 1);
    cfg.token = Some("s3cret-token-for-tests".into());
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for path in ["/", "/api/variants", "/api/games"] {
        let r = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 401, "{path}");
    }
    let r = c
        .get(server.url("/api/variants"))
        .header("authorization", "Bearer wrong-token-wrong-token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // The scheme's name in any case (RFC 9110 §11.1); another scheme is not a token.
    for header in [
        "Bearer s3cret-token-for-tests",
        "bearer s3cret-token-for-tests",
        "BEARER s3cret-token-for-tests",
    ] {
        let r = c
            .get(server.url("/api/variants"))
            .header("authorization", header)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{header}");
    }
    let r = c
        .get(server.url("/api/variants"))
        .header("authorization", "Basic s3cret-token-for-tests")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // The printed address sets an HttpOnly, SameSite=Strict cookie and sends the browser to /.
    let r = c
        .get(server.url("/?token=s3cret-token-for-tests"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/");
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap().to_string();
    let r = c
        .get(server.url("/"))
        .header("cookie", &pair)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}

/// Issue 12: on a server with an access token (any server open to the LAN), the invitation link
/// must carry the token, or the friend's device is refused before it can use the invitation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_link_opens_a_server_with_a_token() {
    let scratch = Scratch::new();
    let mut cfg = config(scratch.db("token-invite"), 1);
    cfg.token = Some("s3cret-token-for-tests".into());
    let server = TestServer::start_with(cfg).await;
    let c = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = c
        .post(server.url("/api/games"))
        .header("authorization", "Bearer s3cret-token-for-tests")
        .json(&json!({"variant": "turkish", "white": "human", "black": "human", "friend": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    let link = created["invite"]["link"].as_str().unwrap().to_string();
    let invite = created["invite"]["token"].as_str().unwrap().to_string();
    // The friend's browser: no token, no cookie; it asks for the link's address (the fragment
    // stays in the browser) and is let in with a cookie.
    let (address, fragment) = link.split_once('#').unwrap();
    assert_eq!(
        fragment,
        format!("/game/{}/join/{invite}", created["id"].as_str().unwrap())
    );
    let r = c.get(server.url(address)).send().await.unwrap();
    assert_eq!(r.status(), 303, "{link}");
    let cookie = r.headers()["set-cookie"].to_str().unwrap();
    let pair = cookie.split(';').next().unwrap().to_string();
    let r = c
        .post(server.url(&format!(
            "/api/games/{}/join",
            created["id"].as_str().unwrap()
        )))
        .header("cookie", &pair)
        .header("origin", server.url(""))
        .json(&json!({ "invite": invite }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}
