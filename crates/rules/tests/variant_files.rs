//! Loading variant files: every error names the file, the key and a reason; nonsense rule
//! combinations are rejected; a user variant that makes sense (10x10, all squares) works.
//!
//! Files are added with `Catalogue::builtin().add_source("my.toml", text)` (or `add_sources` for
//! several files). Each error test also checks that a failed load leaves the catalogue unchanged.

use std::panic::{catch_unwind, AssertUnwindSafe};

use damspel_rules::spec::KEY_RANGES;
use damspel_rules::{
    perft, with_rules, Bits, Catalogue, Color, Duplicates, Perft, Piece, Position, Rules, Setup,
    VariantError,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

const TURKISH: &str = include_str!("../../../variants/turkish.toml");
const AMERICAN: &str = include_str!("../../../variants/american.toml");
const INTERNATIONAL: &str = include_str!("../../../variants/international.toml");

/// A complete variant file (no `extends`): a built-in file with a new id and no aliases.
fn full(builtin: &str) -> String {
    let mut out = String::new();
    for line in builtin.lines() {
        if line.starts_with("id = ") {
            out.push_str("id = \"my-variant\"\n");
        } else if line.starts_with("aliases = ") {
            out.push_str("aliases = []\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `text` with the first occurrence of `from` replaced (which must be there).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the file");
    text.replacen(from, to, 1)
}

/// `text` without the lines that start with `prefix`.
fn without_line(text: &str, prefix: &str) -> String {
    assert!(
        text.lines().any(|l| l.starts_with(prefix)),
        "no line starts with `{prefix}`"
    );
    text.lines()
        .filter(|l| !l.starts_with(prefix))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A file extending `parent` with the keys a file must always give, then `body`.
fn child(id: &str, parent: &str, body: &str) -> String {
    format!(
        "id = \"{id}\"\nextends = \"{parent}\"\nname = \"Test {id}\"\naliases = []\nblock = \"x\"\n\
         description = \"A test variant.\"\n{body}\n"
    )
}

/// Loads files into the built-in catalogue and expects an error; checks the catalogue is unchanged.
fn load_err(files: &[(&str, &str)]) -> VariantError {
    let mut catalogue = Catalogue::builtin();
    let before = catalogue.ids();
    let e = catalogue
        .add_sources(files)
        .expect_err("the file(s) should not load");
    assert_eq!(
        catalogue.ids(),
        before,
        "a failed load changed the catalogue"
    );
    e
}

/// Loads `text` as my.toml, expects an error naming my.toml and `key` (in the key or, for unknown
/// and missing fields, the reason) with a reason containing `reason`; returns the message.
#[track_caller]
fn rejects(text: &str, key: &str, reason: &str) -> String {
    let e = load_err(&[("my.toml", text)]);
    check_error(&e, "my.toml", key, reason)
}

#[track_caller]
fn check_error(e: &VariantError, file: &str, key: &str, reason: &str) -> String {
    let msg = e.to_string();
    assert_eq!(e.file, file, "{msg}");
    assert!(
        msg.starts_with(file),
        "the message does not start with the file: {msg}"
    );
    assert!(
        msg.contains(key),
        "the message does not name `{key}`: {msg}"
    );
    assert!(
        msg.contains(reason),
        "the message does not give the reason `{reason}`: {msg}"
    );
    assert!(!e.reason.trim().is_empty(), "empty reason: {msg}");
    msg
}

/// Loads `text` as my.toml, expecting success.
fn loads(text: &str) -> Catalogue {
    let mut catalogue = Catalogue::builtin();
    if let Err(e) = catalogue.add_source("my.toml", text) {
        panic!("should load: {e}");
    }
    catalogue
}

#[test]
fn the_templates_load() {
    for builtin in [TURKISH, AMERICAN, INTERNATIONAL] {
        let catalogue = loads(&full(builtin));
        assert!(catalogue.get("my-variant").is_ok());
    }
    loads(&child("my-variant", "killer", ""));
    // Every built-in variant checks and compiles, and names its rule book block.
    let catalogue = Catalogue::builtin();
    assert_eq!(catalogue.variants().unwrap().len(), catalogue.ids().len());
    for v in catalogue.variants().unwrap() {
        assert!(!v.block.is_empty() && !v.description.is_empty(), "{}", v.id);
    }
}

#[test]
fn the_start_position_must_have_a_move() {
    // International's setup rows on an 8x8 board fill every dark square: nobody can move.
    rejects(
        &child(
            "my-variant",
            "international",
            "[board]\nwidth = 8\nheight = 8",
        ),
        "setup",
        "no legal move in the start position",
    );
}

#[test]
fn a_users_file_states_only_what_differs() {
    // id and name are the file's own; aliases, block and description may be left out.
    let text =
        "id = \"mine\"\nname = \"Mine\"\nextends = \"turkish\"\n[draw]\none_piece_each = false\n";
    let catalogue = loads(text);
    let v = catalogue.get("mine").unwrap();
    assert!(v.aliases.is_empty() && v.block.is_empty());
    assert!(!v.draw.one_piece_each);
    let sources = v.rules_page().sections.last().unwrap().lines[0].clone();
    assert!(
        sources.contains("of your own") && sources.contains("`turkish`"),
        "{sources}"
    );
}

// ---------------------------------------------------------------------------------------------
// Unknown, missing and mistyped keys.

#[test]
fn unknown_keys() {
    let msg = rejects(
        &child("my-variant", "turkish", "[kings]\nflying = true"),
        "flying",
        "unknown field",
    );
    assert!(msg.contains("kings"), "{msg}");
    rejects(
        &child("my-variant", "turkish", "colour = \"red\""),
        "colour",
        "unknown field",
    );
    rejects(
        &child("my-variant", "turkish", "[boards]\nwidth = 10"),
        "boards",
        "unknown field",
    );
    rejects(
        &edit(&full(TURKISH), "bahrain = false", "bahrein = false"),
        "bahrein",
        "unknown field",
    );
}

#[test]
fn missing_keys() {
    let turkish = full(TURKISH);
    rejects(
        &without_line(&turkish, "bahrain"),
        "bahrain",
        "missing field",
    );
    rejects(
        &without_line(&turkish, "first_player"),
        "first_player",
        "missing field",
    );
    let no_draw: String = turkish
        .split("[draw]")
        .next()
        .expect("the file has a [draw] table")
        .to_string();
    rejects(&no_draw, "draw", "missing field");
    // `name` is one file's own: it is not inherited through `extends`.
    let nameless = without_line(&child("my-variant", "turkish", ""), "name =");
    rejects(&nameless, "name", "missing field");
    // No id at all.
    rejects(&without_line(&turkish, "id ="), "id", "missing");
}

#[test]
fn wrongly_typed_keys() {
    // Keys with several accepted forms say what they expect.
    rejects(
        &child("my-variant", "turkish", "[promotion]\nsquares = 5"),
        "promotion.squares",
        "expected \"far-rank\" or a list",
    );
    rejects(
        &child("my-variant", "turkish", "[men]\nstep = 3"),
        "men.step",
        "expected a direction set",
    );
    let turkish = full(TURKISH);
    rejects(
        &edit(&turkish, "width = 8", "width = \"eight\""),
        "board.width",
        "expected a whole number from 4 to 16",
    );
    rejects(
        &edit(&turkish, "width = 8", "width = 300"),
        "board.width",
        "300",
    );
    rejects(
        &edit(&turkish, "width = 8", "width = 8.0"),
        "board.width",
        "not the number `8.0`",
    );
    rejects(
        &edit(&turkish, "man_value = 1", "man_value = -1"),
        "capture.man_value",
        "-1",
    );
    rejects(
        &edit(&turkish, "bahrain = false", "bahrain = \"no\""),
        "special.bahrain",
        "expected true or false, not the text \"no\"",
    );
    rejects(
        &edit(&turkish, "aliases = []", "aliases = \"dama2\""),
        "aliases",
        "expected a list",
    );
    rejects(
        &edit(&turkish, "squares = \"all\"", "squares = \"light\""),
        "board.squares",
        "light",
    );
    rejects(
        &edit(&turkish, "landing = \"any\"", "landing = \"somewhere\""),
        "kings.landing",
        "somewhere",
    );
    rejects(
        &edit(&turkish, "white = { ranks = [2, 3] }", "white = 3"),
        "setup.white",
        "a value of another type than this key takes",
    );
    rejects(
        &edit(
            &turkish,
            "white = { ranks = [2, 3] }",
            "white = { files = [2, 3] }",
        ),
        "setup.white",
        "files",
    );
    rejects(
        &edit(&turkish, "id = \"my-variant\"", "id = 5"),
        "id",
        "must be a string",
    );
    rejects(
        &child("my-variant", "turkish", "").replace("extends = \"turkish\"", "extends = 5"),
        "extends",
        "must be",
    );
    rejects(
        &edit(&turkish, "repetition = 3", "repetition = [3]"),
        "draw.repetition",
        "expected a whole number from 0 to 100",
    );
}

#[test]
fn toml_syntax_errors_name_the_file() {
    let e = load_err(&[("my.toml", "id = \"x\"\n[board\nwidth = 8\n")]);
    let msg = e.to_string();
    assert_eq!(e.file, "my.toml");
    assert!(msg.starts_with("my.toml: "), "{msg}");
    assert!(msg.len() > "my.toml: ".len(), "{msg}");
    let e = load_err(&[("my.toml", "")]);
    check_error(&e, "my.toml", "id", "missing");
    // One line, with the place: toml's own text spans lines (shown as `?` on a terminal) and
    // quotes the source line, kilobytes long for a deeply nested array.
    let e = load_err(&[("my.toml", "id = \"x\"\nname = \"y\"\nid = \"z\"\n")]);
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    assert!(msg.contains("line 3, column 1"), "{msg}");
    assert!(msg.contains("duplicate key"), "{msg}");
    let deep = format!("id = \"x\"\nx = {}", "[".repeat(5000));
    let msg = load_err(&[("my.toml", &deep)]).to_string();
    assert!(!msg.contains('\n') && msg.len() < 300, "{msg}");
}

/// A file without `extends` sets every rule key, but the keys about where a variant comes
/// from (`family`, `seed`, `sources`, like `block` and `description`) are optional: a file
/// of one's own has none (each was refused as missing, one run at a time).
#[test]
fn a_file_of_ones_own_needs_no_origin_keys() {
    let mut text = full(TURKISH);
    for key in ["family = ", "block = ", "seed = ", "description = "] {
        text = without_line(&text, key);
    }
    let start = text.find("sources = [").unwrap();
    let end = start + text[start..].find(']').unwrap() + 1;
    text.replace_range(start..end, "");
    let catalogue = loads(&text);
    let v = catalogue.get("my-variant").unwrap();
    assert_eq!(v.family, "custom");
    assert!(v.sources.is_empty() && v.seed.is_empty());
}

/// Every text a command prints is checked for control and bidirectional characters, `block`,
/// `seed` and `sources` too (`rules` printed an escape sequence that cleared the screen).
#[test]
fn texts_that_reach_the_terminal_hold_no_control_character() {
    let base = |body: &str| child("my-variant", "turkish", body);
    rejects(
        &base("seed = \"\\u001b[32mSEED\""),
        "seed",
        "control character",
    );
    rejects(
        &base("sources = [\"\\u001b[2J\\u001b[HSRC\"]"),
        "sources",
        "control character",
    );
    rejects(
        &child("my-variant", "turkish", "").replace("block = \"x\"", "block = \"\\u001b[31m\""),
        "block",
        "control character",
    );
    rejects(
        &child("my-variant", "turkish", "")
            .replace("name = \"Test my-variant\"", "name = \"a\\u202eb\""),
        "name",
        "bidirectional character",
    );
}

/// A rank listed twice is refused, as a square listed twice is (it was taken silently).
#[test]
fn a_rank_listed_twice_is_refused() {
    rejects(
        &child(
            "my-variant",
            "turkish",
            "[setup]\nwhite = { ranks = [2, 2, 3] }",
        ),
        "setup.white",
        "rank 2 is listed twice",
    );
}

/// `extends` takes an alias as the command line does (`dama` is Turkish), and a file given
/// twice is loaded once (it was refused as defining its own id again).
#[test]
fn extends_takes_an_alias_and_a_file_given_twice_loads_once() {
    let catalogue = loads(&child("my-variant", "dama", "[draw]\nrepetition = 0"));
    let v = catalogue.get("my-variant").unwrap();
    let turkish = catalogue.get("turkish").unwrap();
    assert_eq!(v.men, turkish.men);
    assert_eq!(v.kings, turkish.kings);
    let one = child("twin", "turkish", "");
    let mut catalogue = Catalogue::builtin();
    catalogue
        .add_sources(&[("a.toml", &one), ("a.toml", &one)])
        .unwrap();
    assert!(catalogue.get("twin").is_ok());
}

#[test]
fn bad_direction_names() {
    let base = |body: &str| child("my-variant", "turkish", body);
    let msg = rejects(
        &base("[men]\nstep = \"forward\""),
        "men.step",
        "unknown direction `forward`",
    );
    // The message lists what is accepted.
    assert!(msg.contains("turk-man") && msg.contains("FL"), "{msg}");
    rejects(
        &base("[men]\ncapture = [\"F\", \"X\"]"),
        "men.capture",
        "unknown direction `X`",
    );
    rejects(
        &base("[kings]\nmove = \"fl\""),
        "kings.move",
        "unknown direction `fl`",
    );
    rejects(
        &base("[kings]\ncapture = [\"orth\", \"\"]"),
        "kings.capture",
        "unknown direction ``",
    );
    rejects(
        &base("[men]\nfirst_jump_forbidden = 3"),
        "men.first_jump_forbidden",
        "",
    );
}

// ---------------------------------------------------------------------------------------------
// extends, ids and aliases.

#[test]
fn unknown_extends_id() {
    rejects(
        &child("my-variant", "no-such-variant", ""),
        "extends",
        "no variant has the id `no-such-variant`",
    );
}

/// `n` variant files: `{prefix}1` (in `{prefix}1.toml`) extends `root`, and each next one the
/// one before.
fn chain(prefix: &str, root: &str, n: usize) -> Vec<(String, String)> {
    (1..=n)
        .map(|i| {
            let parent = if i == 1 {
                root.to_string()
            } else {
                format!("{prefix}{}", i - 1)
            };
            let id = format!("{prefix}{i}");
            (format!("{id}.toml"), child(&id, &parent, ""))
        })
        .collect()
}

/// Files as `load_err` and `add_sources` take them.
fn as_refs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect()
}

#[test]
fn a_chain_too_long_is_blamed_on_the_users_file() {
    // c1 extends russian (which extends brazilian), c2 extends c1, ... c20 extends c19: the chain
    // grows past 16 files at a built-in one, and the error named variants/brazilian.toml.
    let files = chain("c", "russian", 20);
    let e = load_err(&as_refs(&files));
    let msg = e.to_string();
    assert!(msg.contains("longer than 16 files"), "{msg}");
    // The file whose chain is too long is the first file of the chain the message gives.
    let first = msg
        .split("the chain ")
        .nth(1)
        .and_then(|c| c.split(" -> ").next());
    assert_eq!(
        first.map(|id| format!("{id}.toml")),
        Some(e.file.clone()),
        "{msg}"
    );
    assert!(files.iter().any(|(f, _)| *f == e.file), "{msg}");
}

#[test]
fn extends_cycles() {
    let a = child("cycle-a", "cycle-b", "");
    let b = child("cycle-b", "cycle-a", "");
    let e = load_err(&[("a.toml", &a), ("b.toml", &b)]);
    let msg = e.to_string();
    assert!(
        msg.contains("extends") && msg.contains("leads back"),
        "{msg}"
    );
    assert!(e.file == "a.toml" || e.file == "b.toml", "{msg}");
    assert!(msg.contains("cycle-a") && msg.contains("cycle-b"), "{msg}");

    // The other order, and a cycle of three.
    let e = load_err(&[("b.toml", &b), ("a.toml", &a)]);
    assert!(e.to_string().contains("leads back"), "{e}");
    let c = child("cycle-c", "cycle-a", "");
    let a3 = child("cycle-a", "cycle-b", "");
    let b3 = child("cycle-b", "cycle-c", "");
    let e = load_err(&[("a.toml", &a3), ("b.toml", &b3), ("c.toml", &c)]);
    assert!(e.to_string().contains("leads back"), "{e}");

    // A file extending itself.
    rejects(
        &child("my-variant", "my-variant", ""),
        "extends",
        "leads back",
    );

    // A chain without a cycle loads, in any order.
    let top = child("chain-top", "chain-mid", "[capture]\nhalt = \"killer\"");
    let mid = child(
        "chain-mid",
        "international",
        "[board]\nwidth = 8\nheight = 8\n[setup]\nwhite = { ranks = [1, 2, 3] }",
    );
    let mut catalogue = Catalogue::builtin();
    let ids = catalogue
        .add_sources(&[("top.toml", &top), ("mid.toml", &mid)])
        .unwrap();
    assert_eq!(ids, ["chain-top", "chain-mid"]);
    let v = catalogue.get("chain-top").unwrap();
    assert_eq!(v.geometry.width(), 8);
    assert_eq!(v.file, "top.toml");
}

#[test]
fn id_and_alias_clashes() {
    let msg = rejects(
        &edit(&full(TURKISH), "id = \"my-variant\"", "id = \"turkish\""),
        "id",
        "already defined by variants/turkish.toml",
    );
    assert!(msg.contains("`turkish`"), "{msg}");
    // Two new files with one id.
    let one = child("twin", "turkish", "");
    let e = load_err(&[("first.toml", &one), ("second.toml", &one)]);
    check_error(&e, "second.toml", "id", "already defined by first.toml");
    // An alias that is another variant's alias or id, or the file's own id.
    rejects(
        &child("my-variant", "turkish", "").replace("aliases = []", "aliases = [\"dama\"]"),
        "aliases",
        "`dama` is already a name of `turkish`",
    );
    rejects(
        &child("my-variant", "turkish", "").replace("aliases = []", "aliases = [\"russian\"]"),
        "aliases",
        "russian",
    );
    rejects(
        &child("my-variant", "turkish", "").replace("aliases = []", "aliases = [\"my-variant\"]"),
        "aliases",
        "my-variant",
    );
    // An id that is another variant's alias is blamed on `id` (it named `aliases`, which the
    // file did not have).
    rejects(
        &edit(&full(TURKISH), "id = \"my-variant\"", "id = \"dama\""),
        "id",
        "`dama` is already a name of `turkish`",
    );
    // Invalid ids and aliases.
    rejects(
        &edit(&full(TURKISH), "id = \"my-variant\"", "id = \"My Variant\""),
        "id",
        "not a valid id",
    );
    rejects(
        &edit(&full(TURKISH), "id = \"my-variant\"", "id = \"\""),
        "id",
        "not a valid id",
    );
    rejects(
        &child("my-variant", "turkish", "").replace("aliases = []", "aliases = [\"Dama 2\"]"),
        "aliases",
        "not a valid id",
    );
    rejects(
        &child("my-variant", "turkish", "").replace("name = \"Test my-variant\"", "name = \"  \""),
        "name",
        "must not be empty",
    );
}

// ---------------------------------------------------------------------------------------------
// Nonsense combinations.

#[test]
fn adjacent_landing_needs_flying_kings() {
    rejects(
        &child("my-variant", "american", "[kings]\nlanding = \"adjacent\""),
        "kings.landing",
        "flying",
    );
    // With flying kings it is fine.
    loads(&child(
        "my-variant",
        "international",
        "[kings]\nlanding = \"adjacent\"",
    ));
}

#[test]
fn halt_rules_need_flying_kings() {
    for halt in [
        "killer",
        "sequential-killer",
        "sequential-halt",
        "sequential-halt-2",
    ] {
        rejects(
            &child(
                "my-variant",
                "american",
                &format!("[capture]\nhalt = \"{halt}\""),
            ),
            "capture.halt",
            "flying",
        );
        loads(&child(
            "my-variant",
            "international",
            &format!("[capture]\nhalt = \"{halt}\""),
        ));
    }
}

#[test]
fn first_jump_forbidden_must_be_a_subset_of_capture() {
    let msg = rejects(
        &child(
            "my-variant",
            "american",
            "[men]\nfirst_jump_forbidden = [\"BL\"]",
        ),
        "men.first_jump_forbidden",
        "not part of the men's capture directions",
    );
    assert!(msg.contains("BL"), "{msg}");
    rejects(
        &child(
            "my-variant",
            "international",
            "[men]\nfirst_jump_forbidden = \"diag\"",
        ),
        "men.first_jump_forbidden",
        "could never capture",
    );
    loads(&child(
        "my-variant",
        "international",
        "[men]\nfirst_jump_forbidden = [\"BL\", \"BR\"]",
    ));
}

#[test]
fn setup_squares_must_be_playable() {
    let american = full(AMERICAN);
    let ranks = "white = { ranks = [1, 2, 3] }";
    rejects(
        &edit(&american, ranks, "white = { squares = [\"a2\"] }"),
        "setup.white",
        "light square",
    );
    rejects(
        &edit(&american, ranks, "white = { squares = [33] }"),
        "setup.white",
        "33",
    );
    rejects(
        &edit(&american, ranks, "white = { squares = [0] }"),
        "setup.white",
        "no square",
    );
    rejects(
        &edit(&american, ranks, "white = { squares = [29, 29] }"),
        "setup.white",
        "listed twice",
    );
    rejects(
        &edit(&american, ranks, "white = { squares = [\"z9\"] }"),
        "setup.white",
        "z9",
    );
    rejects(
        &edit(
            &full(TURKISH),
            "white = { ranks = [2, 3] }",
            "white = { squares = [12] }",
        ),
        "setup.white",
        "number",
    );
    rejects(
        &edit(&american, ranks, "white = { ranks = [] }"),
        "setup.white",
        "no ranks",
    );
    rejects(
        &edit(&american, ranks, "white = { ranks = [0] }"),
        "setup.white",
        "rank 0",
    );
    rejects(
        &edit(&american, ranks, "white = { ranks = [9] }"),
        "setup.white",
        "rank 9",
    );
    rejects(
        &edit(&american, ranks, "white = { ranks = [4, 5] }"),
        "setup.white",
        "overlap",
    );
    // Explicit squares that make sense load (numbers and algebraic names of dark squares).
    loads(&edit(
        &american,
        ranks,
        "white = { squares = [29, 30, \"e1\", \"b2\"] }",
    ));
}

#[test]
fn men_must_not_start_on_promotion_squares() {
    rejects(
        &child("my-variant", "american", "[setup]\nwhite = { ranks = [8] }"),
        "setup.white",
        "promotion square",
    );
    rejects(
        &edit(
            &full(TURKISH),
            "squares = \"far-rank\"",
            "squares = [\"a3\", \"a8\"]",
        ),
        "setup.white",
        "promotion square",
    );
}

#[test]
fn promotion_squares_are_checked() {
    let turkish = full(TURKISH);
    let far = "squares = \"far-rank\"";
    rejects(
        &edit(&turkish, far, "squares = \"near-rank\""),
        "promotion.squares",
        "near-rank",
    );
    rejects(
        &edit(&turkish, far, "squares = []"),
        "promotion.squares",
        "no promotion square",
    );
    rejects(
        &edit(&turkish, far, "squares = [\"a8\", \"a8\"]"),
        "promotion.squares",
        "listed twice",
    );
    rejects(
        &edit(&turkish, far, "squares = [\"a9\"]"),
        "promotion.squares",
        "a9",
    );
    loads(&edit(&turkish, far, "squares = [\"a8\", \"h8\"]"));
}

#[test]
fn pieces_must_be_able_to_move_and_capture() {
    rejects(
        &child("my-variant", "turkish", "[kings]\nmove = \"none\""),
        "kings.move",
        "no move direction",
    );
    rejects(
        &child("my-variant", "turkish", "[men]\nstep = \"none\""),
        "men.step",
        "could move only by capturing",
    );
    // A line-leap is a way to move.
    loads(&child(
        "my-variant",
        "turkish",
        "[men]\nstep = \"none\"\nline_leap = \"anywhere\"",
    ));
    rejects(
        &child(
            "my-variant",
            "turkish",
            "[men]\ncapture = \"none\"\n[kings]\ncapture = \"none\"",
        ),
        "kings.capture",
        "neither men nor kings can capture",
    );
}

#[test]
fn capture_targets_are_checked() {
    rejects(
        &child(
            "my-variant",
            "international",
            "[kings]\northo_targets = \"kings\"",
        ),
        "ortho_targets",
        "unknown field",
    );
    rejects(
        &child(
            "my-variant",
            "international",
            "[kings]\north_targets = \"kings\"",
        ),
        "kings.orth_targets",
        "do not capture orthogonally",
    );
    rejects(
        &child("my-variant", "turkish", "[kings]\ndiag_targets = \"kings\""),
        "kings.diag_targets",
        "do not capture diagonally",
    );
    rejects(
        &child(
            "my-variant",
            "turkish",
            "[kings]\ntargets_first_jump_only = true",
        ),
        "kings.targets_first_jump_only",
        "no capture target is restricted",
    );
    loads(&child(
        "my-variant",
        "turkish",
        "[kings]\ncapture = \"all8\"\ndiag_targets = \"kings\"\ntargets_first_jump_only = true",
    ));
}

#[test]
fn values_and_draw_rules_are_checked() {
    rejects(
        &child("my-variant", "turkish", "[capture]\nman_value = 0"),
        "capture.man_value",
        "between 1 and 1000",
    );
    rejects(
        &child("my-variant", "turkish", "[draw]\nrepetition = 1"),
        "draw.repetition",
        "every position a draw",
    );
    loads(&child("my-variant", "turkish", "[draw]\nrepetition = 0"));
}

/// Issue 10, finding 5: piece values of 2^31 and more were accepted and overflowed the majority
/// rule's u32 sum (`man_value = king_value = 4294967295` extending Turkish played d2xb2, one
/// piece, instead of d2xd6, two). Every value outside 1..=1000 is refused, naming the key, the
/// range and the value.
#[test]
fn piece_values_outside_their_range_are_refused() {
    let audit = child(
        "my-variant",
        "turkish",
        "[capture]\nman_value = 4294967295\nking_value = 4294967295",
    );
    let msg = rejects(&audit, "capture.", "between 1 and 1000");
    assert!(msg.contains("4294967295"), "{msg}");
    for key in ["man_value", "king_value"] {
        for value in [
            "0",
            "-1",
            "1001",
            "2147483648",
            "4294967295",
            "4294967296",
            "9223372036854775807",
            "-9223372036854775808",
        ] {
            let msg = rejects(
                &child(
                    "my-variant",
                    "turkish",
                    &format!("[capture]\n{key} = {value}"),
                ),
                &format!("capture.{key}"),
                "between 1 and 1000",
            );
            assert!(msg.contains(value), "{msg}");
        }
    }
}

/// The largest allowed values keep the majority rule exact (rule book D18: only the sequences
/// capturing the most by value are legal). White's man on d2 may take c2 alone (landing on b2)
/// or d3 and d5 (landing on d6): only the double capture is legal, whatever the values.
#[test]
fn the_largest_piece_values_keep_the_majority_rule() {
    for (man_value, king_value) in [(1000, 1000), (1, 1000), (1000, 1), (999, 1000)] {
        let catalogue = loads(&child(
            "my-variant",
            "turkish",
            &format!("[capture]\nman_value = {man_value}\nking_value = {king_value}"),
        ));
        let v = catalogue.get("my-variant").unwrap();
        with_rules!(v, |rules| {
            let g = &rules.variant().geometry;
            let sq = |name: &str| g.parse_square(name).unwrap();
            let man = |c: Color| Piece {
                color: c,
                king: false,
            };
            let setup = Setup {
                side_to_move: Some(Color::White),
                pieces: vec![
                    (sq("d2"), man(Color::White)),
                    (sq("c2"), man(Color::Black)),
                    (sq("d3"), man(Color::Black)),
                    (sq("d5"), man(Color::Black)),
                    (
                        sq("h8"),
                        Piece {
                            color: Color::Black,
                            king: true,
                        },
                    ),
                ],
            };
            let pos = Position::from_setup(&rules, &setup).unwrap();
            let moves = rules.moves(&pos);
            let ends: Vec<(String, String, u32)> = moves
                .iter()
                .map(|m| (g.name(m.from()), g.name(m.to()), m.captured().count()))
                .collect();
            assert_eq!(
                ends,
                [("d2".to_string(), "d6".to_string(), 2)],
                "man_value {man_value} king_value {king_value}"
            );
        });
    }
}

/// Draw-rule counts have ranges too: a no-progress count of 2^31 overflowed `2 * moves` (the
/// plies) in the game and the search.
#[test]
fn draw_counts_outside_their_range_are_refused() {
    for (key, value, reason) in [
        ("no_progress_moves", "1001", "between 0 and 1000"),
        ("no_progress_moves", "2147483648", "between 0 and 1000"),
        ("no_progress_moves", "-1", "between 0 and 1000"),
        ("repetition", "101", "between 0 and 100"),
        ("repetition", "4294967295", "between 0 and 100"),
        ("repetition", "-3", "between 0 and 100"),
    ] {
        let msg = rejects(
            &child("my-variant", "turkish", &format!("[draw]\n{key} = {value}")),
            &format!("draw.{key}"),
            reason,
        );
        assert!(msg.contains(value), "{msg}");
    }
    for (key, value) in [
        ("no_progress_moves", "1000"),
        ("no_progress_moves", "0"),
        ("repetition", "100"),
        ("repetition", "2"),
    ] {
        loads(&child(
            "my-variant",
            "turkish",
            &format!("[draw]\n{key} = {value}"),
        ));
    }
}

/// Every numeric key's range is in docs/variant-files.md, as the code has it.
#[test]
fn key_ranges_are_documented() {
    let doc = include_str!("../../../docs/variant-files.md");
    for (key, range) in KEY_RANGES {
        let row = doc
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&format!("`{key}`")))
            .unwrap_or_else(|| panic!("docs/variant-files.md has no row for `{key}`"));
        assert!(
            row.contains(&format!("{} to {}", range.min, range.max)),
            "the row of `{key}` does not say {} to {}: {row}",
            range.min,
            range.max
        );
    }
}

/// Size limits: a huge file is refused before it is parsed, an `extends` chain is bounded,
/// ids are short.
#[test]
fn variant_files_are_bounded() {
    let padded = format!(
        "{}\n# {}\n",
        child("my-variant", "turkish", ""),
        "x".repeat(damspel_rules::catalogue::MAX_FILE_LEN)
    );
    rejects(&padded, "my.toml", "at most 65536");
    // A chain of 20 files, each extending the one before.
    let files = chain("chain-", "turkish", 20);
    let refs = as_refs(&files);
    let e = load_err(&refs);
    assert!(e.to_string().contains("longer than 16 files"), "{e}");
    // 16 links load.
    let mut catalogue = Catalogue::builtin();
    catalogue.add_sources(&refs[..16]).unwrap();
    let long_id = "a".repeat(65);
    rejects(
        &child(&long_id, "turkish", ""),
        "id",
        "at most 64 characters",
    );
    loads(&child(&"a".repeat(64), "turkish", ""));
}

#[test]
fn zero_king_value_names_its_key() {
    rejects(
        &child("my-variant", "turkish", "[capture]\nking_value = 0"),
        "capture.king_value",
        "between 1 and 1000",
    );
}

#[test]
fn board_shapes_are_checked() {
    let turkish = full(TURKISH);
    for (width, height, squares, reason) in [
        (3, 8, "all", "between 4 and 16"),
        (8, 17, "all", "between 4 and 16"),
        (0, 0, "all", "between 4 and 16"),
        (9, 9, "dark", "even width"),
        (12, 12, "all", "128"),
        (16, 16, "dark", "128"),
    ] {
        let text = edit(
            &edit(
                &edit(&turkish, "width = 8", &format!("width = {width}")),
                "height = 8",
                &format!("height = {height}"),
            ),
            "squares = \"all\"",
            &format!("squares = \"{squares}\""),
        );
        rejects(&text, "board", reason);
    }
}

#[test]
fn an_empty_setup_is_rejected() {
    rejects(
        &edit(
            &full(AMERICAN),
            "white = { ranks = [1, 2, 3] }",
            "white = { squares = [] }",
        ),
        "setup.white",
        "",
    );
}

/// An inline table such as `setup.white` is replaced whole by a child, not merged key by key.
#[test]
fn a_child_can_replace_the_setup_form() {
    let catalogue = loads(&child(
        "my-variant",
        "american",
        "[setup]\nwhite = { squares = [29, 30, 31, 32] }",
    ));
    let v = catalogue.get("my-variant").unwrap();
    assert_eq!(v.setup[0].count_ones(), 4);
    assert_eq!(v.setup[1].count_ones(), 4);
    // And back from squares to ranks.
    let mut catalogue = Catalogue::builtin();
    let parent = child(
        "by-squares",
        "american",
        "[setup]\nwhite = { squares = [29, 30, 31, 32] }",
    );
    let grandchild = child(
        "by-ranks",
        "by-squares",
        "[setup]\nwhite = { ranks = [1, 2] }",
    );
    catalogue
        .add_sources(&[("p.toml", &parent), ("c.toml", &grandchild)])
        .unwrap();
    assert_eq!(catalogue.get("by-ranks").unwrap().setup[0].count_ones(), 8);
}

/// Loading must never panic: the outcome is Ok or an error naming the file.
fn load_without_panic(text: &str) -> Result<Result<String, VariantError>, String> {
    load_into_without_panic(Catalogue::builtin(), text)
}

fn load_into_without_panic(
    mut catalogue: Catalogue,
    text: &str,
) -> Result<Result<String, VariantError>, String> {
    catch_unwind(AssertUnwindSafe(|| catalogue.add_source("my.toml", text))).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[test]
fn non_ascii_square_names_do_not_panic() {
    for name in ["é4", "ä", "€1"] {
        let text = edit(
            &full(AMERICAN),
            "white = { ranks = [1, 2, 3] }",
            &format!("white = {{ squares = [\"{name}\"] }}"),
        );
        match load_without_panic(&text) {
            Ok(Err(e)) => {
                check_error(&e, "my.toml", "setup.white", "");
            }
            Ok(Ok(_)) => panic!("`{name}` accepted as a square"),
            Err(panic) => panic!("loading a setup square `{name}` panicked: {panic}"),
        }
    }
}

#[test]
fn odd_height_dark_boards_do_not_panic() {
    let text = child(
        "my-variant",
        "american",
        "[board]\nwidth = 6\nheight = 9\n[setup]\nwhite = { ranks = [1, 2] }",
    );
    match load_without_panic(&text) {
        Ok(Err(e)) => {
            check_error(&e, "my.toml", "board", "");
        }
        Ok(Ok(_)) => {
            let v = loads(&text).get("my-variant").unwrap();
            with_rules!(v, |rules| {
                let start = Position::start(&rules);
                assert!(rules.has_legal_move(&start));
            });
        }
        Err(panic) => panic!("loading a 6x9 dark board panicked: {panic}"),
    }
}

// ---------------------------------------------------------------------------------------------
// A user variant that makes sense must work: Turkish rules on 10x10 (100 squares, Rules<u128>).

fn perft_by_counting<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    depth: u32,
    dups: Duplicates,
) -> u64 {
    if depth <= 1 {
        return if depth == 0 {
            1
        } else {
            rules.count_moves(pos, dups)
        };
    }
    let mut list = Vec::new();
    rules.legal_moves(pos, &mut list, dups);
    list.iter()
        .map(|m| perft_by_counting(rules, &pos.play(m), depth - 1, dups))
        .sum()
}

#[test]
fn a_10x10_all_squares_user_variant_works() {
    let text = child("turkish-10", "turkish", "[board]\nwidth = 10\nheight = 10");
    let catalogue = loads(&text);
    let v = catalogue.get("turkish-10").unwrap();
    assert_eq!(v.geometry.len(), 100);
    assert!(!v.fits_u64());
    assert_eq!(v.board_label(), "10x10 all");
    assert!(
        Rules::<u64>::new(v.clone()).is_err(),
        "100 squares do not fit u64"
    );
    let rules = Rules::<u128>::new(v.clone()).unwrap();
    let start = Position::start(&rules);
    assert_eq!(start.pieces(damspel_rules::Color::White).count(), 20);
    assert_eq!(start.pieces(damspel_rules::Color::Black).count(), 20);
    // Each man on rank 3 steps forward; the sideways steps are blocked.
    assert_eq!(rules.count_moves(&start, Duplicates::Keep), 10);
    assert_eq!(rules.moves(&start).len(), 10);
    for dups in [Duplicates::Merge, Duplicates::Keep] {
        for depth in 1..=4 {
            let p = perft(&rules, &start, depth, dups);
            assert_eq!(
                p,
                perft_by_counting(&rules, &start, depth, dups),
                "depth {depth}"
            );
            let divide: u64 = Perft::new(&rules, dups)
                .divide(&start, depth)
                .iter()
                .map(|row| row.nodes)
                .sum();
            assert_eq!(p, divide, "depth {depth}");
            assert!(p > 0);
        }
    }
    // The macro picks u128 for it.
    let count = with_rules!(v, |rules| {
        let start = Position::start(&rules);
        perft(&rules, &start, 3, Duplicates::Merge)
    });
    assert_eq!(count, perft(&rules, &start, 3, Duplicates::Merge));
    // A game along the first legal moves reaches captures and stays consistent.
    let mut pos = start;
    let mut captures = 0;
    for _ in 0..200 {
        let moves = rules.moves(&pos);
        if moves.is_empty() {
            break;
        }
        assert_eq!(
            rules.count_moves(&pos, Duplicates::Merge),
            moves.len() as u64
        );
        captures += usize::from(moves[0].is_capture());
        pos = pos.play(&moves[moves.len() / 2]);
        assert_eq!(pos.hash(), pos.compute_hash());
    }
    assert!(captures > 0, "no capture in a 200-ply game");
}

/// The smallest board (4x4) and the largest all-squares board that fits 128 bits (16x8).
#[test]
fn extreme_board_sizes_work() {
    for (body, squares) in [
        (
            child(
                "my-variant",
                "american",
                "[board]\nwidth = 4\nheight = 4\n[setup]\nwhite = { ranks = [1] }",
            ),
            8,
        ),
        (
            child("my-variant", "turkish", "[board]\nwidth = 16\nheight = 8"),
            128,
        ),
        (
            child(
                "my-variant",
                "international",
                "[board]\nwidth = 14\nheight = 16\n[setup]\nwhite = { ranks = [1, 2, 3, 4, 5] }",
            ),
            112,
        ),
    ] {
        let v = loads(&body).get("my-variant").unwrap();
        assert_eq!(v.geometry.len(), squares);
        with_rules!(v, |rules| {
            let start = Position::start(&rules);
            for dups in [Duplicates::Merge, Duplicates::Keep] {
                for depth in 1..=4 {
                    let p = perft(&rules, &start, depth, dups);
                    assert_eq!(p, perft_by_counting(&rules, &start, depth, dups));
                }
            }
            // A long game along varied moves keeps the hash and the counts consistent.
            let mut pos = start;
            for ply in 0..300 {
                let moves = rules.moves(&pos);
                if moves.is_empty() {
                    break;
                }
                assert_eq!(
                    rules.count_moves(&pos, Duplicates::Merge),
                    moves.len() as u64
                );
                pos = pos.play(&moves[(ply * 7) % moves.len()]);
                assert_eq!(pos.hash(), pos.compute_hash());
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Random variant files: loading never panics, every error names the file and a key, and every
// variant that loads compiles and generates consistently.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

const DIRS: [&str; 8] = ["F", "FR", "R", "BR", "B", "BL", "L", "FL"];
const SETS: [&str; 8] = [
    "none",
    "orth",
    "diag",
    "all8",
    "fwd3",
    "five",
    "turk-man",
    "diag-forward",
];

fn dir_set(rng: &mut Rng) -> String {
    if rng.percent(60) {
        format!("\"{}\"", rng.pick(&SETS))
    } else {
        let n = rng.below(4);
        let names: Vec<String> = (0..n).map(|_| format!("\"{}\"", rng.pick(&DIRS))).collect();
        format!("[{}]", names.join(", "))
    }
}

/// A random, mostly well-formed variant file; `bad`% of the keys get a doubtful value.
fn random_variant_file(rng: &mut Rng, bad: usize) -> String {
    let rare = |rng: &mut Rng, good: String, odd: &[&str]| {
        if rng.percent(bad) {
            rng.pick(odd).to_string()
        } else {
            good
        }
    };
    let dark = rng.percent(50);
    let width = if dark {
        2 * (2 + rng.below(6))
    } else {
        4 + rng.below(8)
    };
    // Dark boards of odd height are left out: they panic (see odd_height_dark_boards_do_not_panic).
    let height = 4 + rng.below(8);
    let height = if dark && height % 2 == 1 {
        height + 1
    } else {
        height
    };
    let width = rare(rng, width.to_string(), &["3", "17", "9", "\"8\""]);
    let height = rare(rng, height.to_string(), &["2", "20", "-1"]);
    let squares = rare(
        rng,
        format!("\"{}\"", if dark { "dark" } else { "all" }),
        &["\"light\"", "1"],
    );
    let ranks = {
        let n = 1 + rng.below(3);
        let mut rs: Vec<usize> = (1..=n).collect();
        if rng.percent(20) {
            rs = vec![1 + rng.below(4)];
        }
        let list: Vec<String> = rs.iter().map(|r| r.to_string()).collect();
        format!("{{ ranks = [{}] }}", list.join(", "))
    };
    let setup = rare(
        rng,
        ranks,
        &[
            "{ ranks = [] }",
            "{ squares = [] }",
            "{ squares = [1, 2, 3] }",
            "{ squares = [\"a1\", \"b2\", \"c1\"] }",
            "{ ranks = [40] }",
        ],
    );
    let first = rng.pick(&["\"white\"", "\"black\""]).to_string();
    let step = dir_set(rng);
    let step = rare(rng, step, &["\"none\"", "\"Q\""]);
    let capture = dir_set(rng);
    let forbidden = if rng.percent(80) {
        "\"none\"".to_string()
    } else {
        dir_set(rng)
    };
    let line_leap = if rng.percent(75) {
        "\"none\"".to_string()
    } else {
        rng.pick(&["\"first-rank\"", "\"anywhere\""]).to_string()
    };
    let leap_over = rng.pick(&["\"pieces\"", "\"men\""]).to_string();
    let move_range = rng.pick(&["\"short\"", "\"flying\""]).to_string();
    let kmove = dir_set(rng);
    let kmove = rare(rng, kmove, &["\"none\""]);
    let capture_range = rng.pick(&["\"short\"", "\"flying\""]).to_string();
    let kcapture = dir_set(rng);
    let landing = if rng.percent(75) {
        "\"any\""
    } else {
        "\"adjacent\""
    }
    .to_string();
    let orth_t = if rng.percent(85) {
        "\"any\""
    } else {
        "\"kings\""
    }
    .to_string();
    let diag_t = if rng.percent(85) {
        "\"any\""
    } else {
        "\"kings\""
    }
    .to_string();
    let first_only = rng.percent(10).to_string();
    let removal = rng.pick(&["\"immediate\"", "\"deferred\""]).to_string();
    let reversal = rng.pick(&["\"allowed\"", "\"forbidden\""]).to_string();
    let precedence = rng.pick(&["\"majority\"", "\"free\""]).to_string();
    let man_value = (1 + rng.below(2)).to_string();
    let man_value = rare(rng, man_value, &["0"]);
    let king_value = (1 + rng.below(3)).to_string();
    let king_value = rare(rng, king_value, &["0"]);
    let promo = rng
        .pick(&[
            "\"stop\"",
            "\"continue-as-man\"",
            "\"promote-and-continue\"",
        ])
        .to_string();
    let halt = if rng.percent(70) {
        "\"none\"".to_string()
    } else {
        rng.pick(&[
            "\"killer\"",
            "\"sequential-killer\"",
            "\"sequential-halt\"",
            "\"sequential-halt-2\"",
        ])
        .to_string()
    };
    let promotion = rare(
        rng,
        "\"far-rank\"".to_string(),
        &["[\"a8\"]", "[]", "[1, 2]", "\"near\""],
    );
    let bahrain = rng.percent(20).to_string();
    let repetition = rng.pick(&["0", "2", "3"]).to_string();
    let repetition = rare(rng, repetition, &["1"]);
    format!(
        r#"id = "random-variant"
name = "Random"
aliases = []
family = "test"
block = "x"
seed = "none"
description = "A random variant."
sources = []

[board]
width = {width}
height = {height}
squares = {squares}

[setup]
white = {setup}
first_player = {first}

[men]
step = {step}
capture = {capture}
first_jump_forbidden = {forbidden}
line_leap = {line_leap}
line_leap_over = {leap_over}

[kings]
move_range = {move_range}
move = {kmove}
capture_range = {capture_range}
capture = {kcapture}
landing = {landing}
orth_targets = {orth_t}
diag_targets = {diag_t}
targets_first_jump_only = {first_only}

[capture]
removal = {removal}
reversal = {reversal}
precedence = {precedence}
man_value = {man_value}
king_value = {king_value}
promotion = {promo}
halt = {halt}

[promotion]
squares = {promotion}

[special]
bahrain = {bahrain}

[draw]
one_piece_each = false
repetition = {repetition}
no_progress_moves = 0
fmjd_endgame = false
"#
    )
}

/// A variant that loaded: random play stays consistent, perft agrees with divide.
fn exercise<B: Bits>(rules: &Rules<B>, rng: &mut Rng) -> Result<(), TestCaseError> {
    let mut pos = Position::start(rules);
    for _ in 0..30 {
        prop_assert_eq!(pos.hash(), pos.compute_hash());
        let mut keep = Vec::new();
        rules.legal_moves(&pos, &mut keep, Duplicates::Keep);
        let merge = rules.moves(&pos);
        prop_assert_eq!(rules.count_moves(&pos, Duplicates::Keep), keep.len() as u64);
        prop_assert_eq!(
            rules.count_moves(&pos, Duplicates::Merge),
            merge.len() as u64
        );
        prop_assert_eq!(rules.has_legal_move(&pos), !merge.is_empty());
        prop_assert_eq!(
            rules.has_capture(&pos),
            merge.first().is_some_and(|m| m.is_capture())
        );
        let detailed: Vec<_> = rules
            .legal_moves_detailed(&pos, Duplicates::Keep)
            .into_iter()
            .map(|d| d.mv)
            .collect();
        prop_assert_eq!(&detailed, &keep);
        if merge.is_empty() {
            break;
        }
        pos = pos.play(&merge[rng.below(merge.len())]);
    }
    for dups in [Duplicates::Merge, Duplicates::Keep] {
        let total = perft(rules, &pos, 2, dups);
        let sum: u64 = Perft::new(rules, dups)
            .divide(&pos, 2)
            .iter()
            .map(|row| row.nodes)
            .sum();
        prop_assert_eq!(total, sum);
    }
    Ok(())
}

/// One random variant file: Ok(true) if it loaded (and worked), Ok(false) if it was rejected with
/// a proper message.
fn random_variant(seed: u64, bad: usize) -> Result<bool, TestCaseError> {
    let mut rng = Rng(seed);
    let text = random_variant_file(&mut rng, bad);
    // Random files extend nothing: an empty catalogue is enough (and much faster).
    let loaded = match load_into_without_panic(Catalogue::default(), &text) {
        Err(panic) => return Err(TestCaseError::fail(format!("panic: {panic}\n{text}"))),
        Ok(loaded) => loaded,
    };
    match loaded {
        Err(e) => {
            prop_assert_eq!(&e.file, "my.toml");
            prop_assert!(!e.reason.trim().is_empty(), "{}", e);
            let msg = e.to_string();
            // A key, in the key field or (unknown/missing fields) in the reason.
            prop_assert!(
                e.key.is_some() || msg.contains('`'),
                "no key in: {}\n{}",
                msg,
                text
            );
            Ok(false)
        }
        Ok(id) => {
            let mut catalogue = Catalogue::default();
            catalogue.add_source("my.toml", &text).unwrap();
            let variant = catalogue.get(&id).unwrap();
            with_rules!(variant, |rules| exercise(&rules, &mut rng))?;
            Ok(true)
        }
    }
}

proptest! {
    // 300 cases in CI; PROPTEST_CASES=100000 for a long run.
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300),
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn random_variant_files_load_or_explain(seed: u64, bad in 0usize..12) {
        random_variant(seed, bad)?;
    }
}

/// The same over fixed seeds, with figures.
#[test]
fn random_variant_sweep() {
    let (mut loaded, mut rejected) = (0, 0);
    for seed in 0..600u64 {
        match random_variant(
            seed.wrapping_mul(0x2545_F491_4F6C_DD1D),
            (seed % 8) as usize,
        ) {
            Ok(true) => loaded += 1,
            Ok(false) => rejected += 1,
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    eprintln!("random_variant_sweep: {loaded} variants loaded and exercised, {rejected} rejected");
    assert!(loaded >= 100, "only {loaded} random variants loaded");
}

// ---------------------------------------------------------------------------------------------
// Mutated built-in files and random overrides: near-valid files that reach every check.

fn builtin_texts() -> &'static [(String, String)] {
    static TEXTS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../variants");
        let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
            .expect("the variants directory")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                (p.file_name().unwrap().to_string_lossy().into_owned(), text)
            })
            .collect();
        files.sort();
        files
    })
}

fn builtin_catalogue() -> Catalogue {
    static CATALOGUE: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
    CATALOGUE.get_or_init(Catalogue::builtin).clone()
}

/// Values a key might be given by mistake or malice.
const ODD_VALUES: [&str; 24] = [
    "0",
    "1",
    "-1",
    "1001",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "1e400",
    "nan",
    "inf",
    "8.0",
    "true",
    "\"\"",
    "\"all\"",
    "\"far-rank\"",
    "[]",
    "[1, 2, 3]",
    "[\"a1\", \"a1\"]",
    "{ ranks = [1] }",
    "{ squares = [999999] }",
    "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]",
    "\"F\"",
];

/// A built-in file (renamed, so that it is a new variant) mutated line by line or character by
/// character.
fn mutated_builtin(rng: &mut Rng) -> String {
    let texts = builtin_texts();
    let (_, text) = &texts[rng.below(texts.len())];
    let mut lines: Vec<String> = full(text).lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(7) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let line = lines[i].clone();
                lines.insert(i, line);
            }
            2 | 3 => {
                // A key gets an odd value.
                if let Some((key, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{key}= {}", rng.pick(&ODD_VALUES));
                }
            }
            4 => {
                // A key gets another key's value.
                let j = rng.below(lines.len());
                if let (Some((key, _)), Some((_, value))) =
                    (lines[i].split_once('='), lines[j].split_once('='))
                {
                    lines[i] = format!("{key}={value}");
                }
            }
            5 => {
                let line = &mut lines[i];
                let bounds: Vec<usize> = line
                    .char_indices()
                    .map(|(k, _)| k)
                    .chain([line.len()])
                    .collect();
                let at = bounds[rng.below(bounds.len())];
                line.insert_str(
                    at,
                    rng.pick(&["[", "]", "\"", "=", "#", "{", ",", "é", "\\"]),
                );
            }
            _ => {
                lines.truncate(i);
            }
        }
    }
    lines.join("\n")
}

/// A file extending a built-in variant with a few keys of odd or plausible values.
fn random_override(rng: &mut Rng) -> String {
    const KEYS: [(&str, &str, &[&str]); 16] = [
        ("board", "width", &["4", "8", "10", "12", "16", "17"]),
        ("board", "height", &["4", "8", "10", "16", "3"]),
        ("board", "squares", &["\"all\"", "\"dark\""]),
        (
            "setup",
            "white",
            &[
                "{ ranks = [1, 2] }",
                "{ ranks = [1, 2, 3, 4] }",
                "{ squares = [1, 2] }",
            ],
        ),
        ("setup", "first_player", &["\"white\"", "\"black\""]),
        (
            "men",
            "step",
            &["\"diag-forward\"", "\"turk-man\"", "\"none\"", "[\"F\"]"],
        ),
        ("men", "capture", &["\"diag\"", "\"all8\"", "\"none\""]),
        ("kings", "move_range", &["\"short\"", "\"flying\""]),
        ("kings", "capture", &["\"diag\"", "\"orth\"", "\"all8\""]),
        ("capture", "removal", &["\"immediate\"", "\"deferred\""]),
        ("capture", "precedence", &["\"majority\"", "\"free\""]),
        ("capture", "man_value", &["1", "2", "1000"]),
        ("capture", "king_value", &["1", "3", "1000"]),
        ("capture", "halt", &["\"none\"", "\"killer\""]),
        ("draw", "repetition", &["0", "2", "3", "100"]),
        ("draw", "no_progress_moves", &["0", "25", "1000"]),
    ];
    let parents = [
        "international",
        "turkish",
        "american",
        "russian",
        "frisian",
        "killer",
        "dameo",
    ];
    let parent = rng.pick(&parents);
    let mut body = String::new();
    for _ in 0..1 + rng.below(4) {
        let (section, key, values) = KEYS[rng.below(KEYS.len())];
        let value = if rng.percent(25) {
            rng.pick(&ODD_VALUES)
        } else {
            rng.pick(values)
        };
        body.push_str(&format!("[{section}]\n{key} = {value}\n"));
    }
    child("my-variant", parent, &body)
}

/// Loads `text` into the built-in catalogue: never panics; a refusal names the file and a key;
/// a variant that loads compiles and plays consistently.
fn near_valid(text: &str, rng: &mut Rng) -> Result<bool, TestCaseError> {
    let loaded = match load_into_without_panic(builtin_catalogue(), text) {
        Err(panic) => return Err(TestCaseError::fail(format!("panic: {panic}\n{text}"))),
        Ok(loaded) => loaded,
    };
    match loaded {
        Err(e) => {
            prop_assert_eq!(&e.file, "my.toml");
            prop_assert!(!e.reason.trim().is_empty(), "{}", e);
            let msg = e.to_string();
            prop_assert!(
                e.key.is_some() || msg.contains('`') || msg.contains("TOML"),
                "no key in: {}\n{}",
                msg,
                text
            );
            Ok(false)
        }
        Ok(id) => {
            let mut catalogue = builtin_catalogue();
            catalogue.add_source("my.toml", text).unwrap();
            let variant = catalogue.get(&id).unwrap();
            let c = variant.capture;
            prop_assert!((1..=1000).contains(&c.man_value) && (1..=1000).contains(&c.king_value));
            prop_assert!(variant.draw.repetition <= 100 && variant.draw.no_progress_moves <= 1000);
            with_rules!(variant, |rules| exercise(&rules, rng))?;
            Ok(true)
        }
    }
}

proptest! {
    // 200 cases in CI; PROPTEST_CASES=100000 for a long run.
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(200),
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn mutated_builtin_files_load_or_explain(seed: u64) {
        let mut rng = Rng(seed);
        let text = mutated_builtin(&mut rng);
        near_valid(&text, &mut rng)?;
    }

    #[test]
    fn random_overrides_load_or_explain(seed: u64) {
        let mut rng = Rng(seed);
        let text = random_override(&mut rng);
        near_valid(&text, &mut rng)?;
    }
}

/// The same over fixed seeds, with figures.
#[test]
fn near_valid_sweep() {
    let (mut loaded, mut rejected) = (0, 0);
    for seed in 0..300u64 {
        let mut rng = Rng(seed);
        let text = if seed % 2 == 0 {
            mutated_builtin(&mut rng)
        } else {
            random_override(&mut rng)
        };
        match near_valid(&text, &mut rng) {
            Ok(true) => loaded += 1,
            Ok(false) => rejected += 1,
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    eprintln!("near_valid_sweep: {loaded} loaded and exercised, {rejected} rejected");
    assert!(
        loaded >= 50 && rejected >= 50,
        "{loaded} loaded, {rejected} rejected"
    );
}

/// A name, family or description is printed in tables and on terminals: one holding a control
/// character (an escape sequence, a line break in a name) is refused with the key; a
/// description may break lines. (They were printed raw: a file could rewrite the terminal.)
#[test]
fn names_and_descriptions_hold_no_control_characters() {
    let base = child("my-variant", "turkish", "");
    for (from, to, key) in [
        (
            "name = \"Test my-variant\"",
            "name = \"Test\\u001b[2J\"",
            "name",
        ),
        (
            "name = \"Test my-variant\"",
            "name = \"Two\\nlines\"",
            "name",
        ),
        (
            "description = \"A test variant.\"",
            "description = \"A \\u0007 bell.\"",
            "description",
        ),
    ] {
        rejects(&edit(&base, from, to), key, "control character");
    }
    loads(&edit(
        &base,
        "description = \"A test variant.\"",
        "description = \"Two\\nlines.\"",
    ));
}

/// A value of the wrong type is refused in the words of a TOML file, a numeric key with its
/// range; before, serde's Rust types showed ("expected i64", "expected struct BoardSpec").
#[test]
fn a_value_of_the_wrong_type_is_said_in_tomls_words() {
    for (body, key, said) in [
        (
            "[capture]\nman_value = \"x\"",
            "capture.man_value",
            "expected a whole number from 1 to 1000",
        ),
        (
            "[draw]\nrepetition = 1.5",
            "draw.repetition",
            "expected a whole number from 0 to 100",
        ),
        ("board = 8", "board", "expected a table, not the number `8`"),
        (
            "aliases = \"x\"",
            "aliases",
            "expected a list, not the text \"x\"",
        ),
        (
            "[capture]\nhalt = 1",
            "capture.halt",
            "a value of another type than this key takes",
        ),
    ] {
        let text = format!("id = \"typed\"\nname = \"Typed\"\nextends = \"turkish\"\n{body}\n");
        let message = load_err(&[("typed.toml", text.as_str())]).to_string();
        assert!(message.contains(&format!("`{key}`")), "{body}: {message}");
        assert!(message.contains(said), "{body}: {message}");
        for rust in ["i64", "u32", "struct", "sequence", "unit variant"] {
            assert!(!message.contains(rust), "{body}: {message}");
        }
    }
}
