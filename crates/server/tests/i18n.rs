//! The interface languages (issue 12, item 7): every catalogue in web/i18n/ has exactly the keys
//! of en.json, with the same {placeholders}; every key the page uses (data-i18n attributes in
//! index.html, t('...') calls and the numbered variants' notes in the scripts) is in en.json; and
//! the server serves every catalogue, the list of languages and the two new scripts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::{Scratch, TestServer};
use serde_json::Value;

fn web() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The catalogues on disk: code -> (key -> string).
fn catalogues() -> BTreeMap<String, BTreeMap<String, String>> {
    let dir = web().join("i18n");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let code = path.file_stem().unwrap().to_str().unwrap().to_string();
        let value: Value = serde_json::from_str(&read(&path))
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        let map = value
            .as_object()
            .unwrap_or_else(|| panic!("{code}.json is not an object"))
            .iter()
            .map(|(k, v)| {
                let s = v
                    .as_str()
                    .unwrap_or_else(|| panic!("{code}.json: {k} is not a string"));
                assert!(!s.trim().is_empty(), "{code}.json: {k} is empty");
                (k.clone(), s.to_string())
            })
            .collect();
        out.insert(code, map);
    }
    out
}

/// The `{name}` placeholders of a string.
fn placeholders(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                out.insert(after[..close].to_string());
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

/// The values of `attr="..."` attributes whose name starts with `prefix` (data-i18n, data-i18n-title, ...).
fn attribute_values(html: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let name_end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'));
        match name_end {
            Some(end) if after[end..].starts_with("=\"") => {
                let value = &after[end + 2..];
                let close = value.find('"').expect("closing quote");
                out.push(value[..close].to_string());
                rest = &value[close..];
            }
            _ => rest = after,
        }
    }
    out
}

/// The keys of the `name('key'` calls of a script (literal keys only): `t` in review.js, `tr` in
/// app.js (which imports t as tr).
fn t_calls(js: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let call = format!("{name}('");
    for (i, _) in js.match_indices(&call) {
        // a call of t itself, not of some other function ending in t (e.g. `select('`)
        let before = js[..i].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$') {
            continue;
        }
        let key = &js[i + call.len()..];
        let close = key.find('\'').expect("closing quote");
        out.push(key[..close].to_string());
    }
    out
}

#[test]
fn every_catalogue_has_exactly_the_keys_of_english() {
    let all = catalogues();
    let en = all.get("en").expect("web/i18n/en.json exists");
    for lang in ["tr", "ru", "nl"] {
        assert!(all.contains_key(lang), "web/i18n/{lang}.json exists");
    }
    let en_keys: BTreeSet<_> = en.keys().collect();
    for (code, cat) in &all {
        let keys: BTreeSet<_> = cat.keys().collect();
        let missing: Vec<_> = en_keys.difference(&keys).collect();
        let extra: Vec<_> = keys.difference(&en_keys).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{code}.json: missing {missing:?}, not in en.json {extra:?}"
        );
        for (k, v) in cat {
            assert_eq!(
                placeholders(v),
                placeholders(&en[k]),
                "{code}.json: {k} has other placeholders than in en.json"
            );
        }
        assert!(
            code == "en" || cat["_name"] != en["_name"],
            "{code}.json names its own language"
        );
    }
}

#[test]
fn every_key_the_page_uses_is_in_english() {
    let en = catalogues().remove("en").expect("en.json");
    let html = read(&web().join("index.html"));
    let mut used: Vec<(String, &str)> = attribute_values(&html, "data-i18n")
        .into_iter()
        .map(|k| (k, "index.html"))
        .collect();
    // i18n.js only defines t() and applyI18n(): its comments show the syntax with "key".
    for script in ["app.js", "review.js", "prefs.js"] {
        let js = read(&web().join(script));
        for name in ["t", "tr"] {
            used.extend(t_calls(&js, name).into_iter().map(|k| (k, script)));
        }
        used.extend(
            attribute_values(&js, "data-i18n")
                .into_iter()
                .map(|k| (k, script)),
        );
        used.extend(
            attribute_values(
                &js.replace("'data-i18n': '", "data-i18n=\"")
                    .replace("' }", "\" }"),
                "data-i18n",
            )
            .into_iter()
            .map(|k| (k, script)),
        );
    }
    assert!(
        used.len() > 100,
        "the page's keys were found ({})",
        used.len()
    );
    // The notes of the numbered variants are looked up as `note.${id}` for the ids of NOTED.
    let app = read(&web().join("app.js"));
    let noted = app
        .split("const NOTED = [")
        .nth(1)
        .and_then(|s| s.split("];").next())
        .expect("app.js lists the noted variants");
    let ids: Vec<&str> = noted
        .split('\'')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.trim().is_empty())
        .collect();
    assert!(
        ids.contains(&"greek-2") && ids.contains(&"babylonian-c"),
        "{ids:?}"
    );
    used.extend(ids.iter().map(|id| (format!("note.{id}"), "app.js NOTED")));
    let missing: Vec<_> = used.iter().filter(|(k, _)| !en.contains_key(k)).collect();
    assert!(
        missing.is_empty(),
        "keys used but not in en.json: {missing:?}"
    );
}

#[test]
fn the_noted_variants_exist() {
    let app = read(&web().join("app.js"));
    let catalogue = damspel_rules::Catalogue::builtin();
    let ids: BTreeSet<String> = catalogue.ids().into_iter().collect();
    for list in ["const NOTED = [", "const POPULAR = ["] {
        let body = app
            .split(list)
            .nth(1)
            .and_then(|s| s.split("];").next())
            .unwrap_or_else(|| panic!("app.js has {list}"));
        for id in body.split('\'').skip(1).step_by(2) {
            if id.trim().is_empty() {
                continue;
            }
            assert!(
                ids.contains(id),
                "{list}: {id} is not a variant of the catalogue"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_serves_every_catalogue_and_the_list_of_languages() {
    let scratch = Scratch::new();
    let server = TestServer::start(scratch.db("i18n"), 1).await;
    let c = reqwest::Client::new();
    let all = catalogues();
    let r = c
        .get(server.url("/i18n/languages.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let list: Value = r.json().await.unwrap();
    let listed: BTreeMap<String, String> = list
        .as_array()
        .expect("an array")
        .iter()
        .map(|l| {
            (
                l["code"].as_str().unwrap().to_string(),
                l["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        listed.keys().collect::<Vec<_>>(),
        all.keys().collect::<Vec<_>>(),
        "every file of web/i18n/ is served (one line in web.rs's LANGUAGES)"
    );
    for (code, cat) in &all {
        assert_eq!(listed[code], cat["_name"]);
        let r = c
            .get(server.url(&format!("/i18n/{code}.json")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{code}");
        let served: BTreeMap<String, String> = r.json().await.unwrap();
        assert_eq!(&served, cat, "{code}.json is served as it is on disk");
    }
    for bad in ["/i18n/xx.json", "/i18n/en", "/i18n/..%2Fapp.js"] {
        let r = c.get(server.url(bad)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 404, "{bad}");
    }
    for script in ["/i18n.js", "/prefs.js"] {
        let r = c.get(server.url(script)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "{script}");
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with("text/javascript"), "{script}: {ct}");
    }
    server.stop().await;
}
