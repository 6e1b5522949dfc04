//! The command line as a user runs it: output shapes, JSON, user variant files and errors.

mod common;

use common::{scratch, ScratchPath};

use std::process::{Command, Output};

fn damspel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn variants_lists_the_catalogue() {
    let out = damspel(&["variants", "--json"]);
    assert!(out.status.success());
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let ids: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for id in [
        "turkish",
        "international",
        "killer",
        "american",
        "russian",
        "brazilian",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let text = stdout(&damspel(&["variants"]));
    assert!(text.contains("turkish") && text.contains("8x8 all"));
}

#[test]
fn perft_json_matches_the_published_count() {
    // shared/reference/perft.tsv: International start, depth 4, 4265 (dctl).
    let out = damspel(&["perft", "international", "4", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["nodes"], 4265);
    assert_eq!(v["depth"], 4);
    assert!(v["seconds"].is_number());
}

#[test]
fn perft_paths_and_divide() {
    // Turkish start, depth 3: 708 sequences (kish, paths convention).
    let out = damspel(&["perft", "turkish", "3", "--paths", "--divide"]);
    let text = stdout(&out);
    assert!(text.contains("perft(3) = 708"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("a3-a4 ")).count(), 1);
}

#[test]
fn moves_can_be_given_a_time_limit() {
    // Within the limit, the list: International's start has 9 moves (reference/perft.tsv,
    // international depth 1).
    let out = damspel(&["moves", "international", "--time", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 9, "{}", stdout(&out));
    // Past it, a clear error. Turkish rules on a 16x8 board, a white king against 42 black
    // kings on every other square of ranks 1 to 6: listing its captures takes minutes
    // (docs/capture-trials.md, forty-fourth session), far more than the 0.2 s allowed.
    let file = ScratchPath::written(
        "moves-time",
        "turkish-16x8.toml",
        "id = \"turkish-16x8\"\nextends = \"turkish\"\nname = \"Turkish 16x8\"\n\
         [board]\nwidth = 16\nheight = 8\n",
    );
    let files = "abcdefghijklmnop".as_bytes();
    let mut kings = Vec::new();
    for rank in 1..=6 {
        // Files b to o on even ranks, c to o on odd ones: every other square, a1 left free.
        let first = if rank % 2 == 0 { 1 } else { 2 };
        for file in (first..15).step_by(2) {
            kings.push(format!("K{}{rank}", files[file] as char));
        }
    }
    assert_eq!(kings.len(), 42);
    let fen = format!("W:WKa1:B{}", kings.join(","));
    let start = std::time::Instant::now();
    let out = damspel(&[
        "--variant-file",
        file.to_str().unwrap(),
        "moves",
        "turkish-16x8",
        "--fen",
        &fen,
        "--time",
        "0.2",
    ]);
    assert!(!out.status.success(), "listed: {}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("not all listed within 0.2 s"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
    for bad in ["0", "-1", "x", "NaN", "1e9"] {
        let out = damspel(&["moves", "international", &format!("--time={bad}")]);
        assert!(!out.status.success(), "--time {bad}");
        assert!(
            stderr(&out).contains("not a number of seconds"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn moves_json_fields() {
    // legal-moves.tsv, FMJD art. 4.13 (dctl): the only move is 48x19 capturing four pieces.
    let out = damspel(&[
        "moves",
        "international",
        "--fen",
        "W:W48:B24,K31,34,K42,43",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let moves = v.as_array().unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["notation"], "48x19");
    assert_eq!(moves[0]["from"], "48");
    assert_eq!(moves[0]["to"], "19");
    assert_eq!(moves[0]["captures"].as_array().unwrap().len(), 3);
    assert_eq!(moves[0]["promotes"], false);
}

#[test]
fn moves_on_an_all_squares_board_use_algebraic_names() {
    // legal-moves.tsv, kish king_can_land_anywhere_beyond_captured: 4 landings.
    let out = damspel(&["moves", "turkish", "--fen", "W:WKa4:Bd4"]);
    let text = stdout(&out);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(lines, ["a4xe4", "a4xf4", "a4xg4", "a4xh4"]);
}

#[test]
fn errors_are_one_line_with_a_failing_exit() {
    for (args, needle) in [
        (vec!["perft", "nosuch", "3"], "unknown variant `nosuch`"),
        (vec!["moves", "turkish", "--fen", "W:Wz9"], "bad FEN"),
        (
            vec!["moves", "international", "--fen", "W:W3"],
            "promotion squares",
        ),
        (vec!["perft", "turkish", "999"], "not in 0..=64"),
        (vec!["rules", "nosuch"], "unknown variant"),
        (vec!["perft", "turkish", "x"], "invalid value 'x'"),
        (vec!["perft", "turkish", "-1"], "'-1'"),
        (vec!["perft", "turkish"], "<DEPTH>"),
    ] {
        let out = damspel(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = damspel(&["perft", "turkish", "-1"]);
    assert!(!out.status.success());
    // A long name is quoted by its start (it was written back whole).
    let long = "q".repeat(100_000);
    let err = stderr(&damspel(&["rules", &long]));
    assert!(
        err.len() < 500 && err.contains("qqqq…"),
        "{} bytes",
        err.len()
    );
    // So is a variant file's unknown direction.
    let scratch = scratch("cli-quoted");
    let dir = scratch.path();
    let file = dir.join("long-direction.toml");
    std::fs::write(
        &file,
        format!(
            "id = \"x1\"\nname = \"X\"\nextends = \"turkish\"\n[men]\nstep = [\"{}\"]\n",
            &long[..60_000]
        ),
    )
    .unwrap();
    let err = stderr(&damspel(&[
        "--variant-file",
        file.to_str().unwrap(),
        "rules",
        "x1",
    ]));
    assert!(
        err.len() < 1000 && err.contains("unknown direction `qqqq") && err.contains("qqqq…`"),
        "{} bytes: {err}",
        err.len()
    );
}

#[test]
fn user_variant_files() {
    let scratch = scratch("cli");
    let dir = scratch.path();
    let good = dir.join("big-turkish.toml");
    std::fs::write(
        &good,
        r#"
id = "big-turkish"
name = "Turkish draughts on 10x10"
aliases = []
block = "user"
description = "Turkish rules on a 10x10 board with all squares used"
extends = "turkish"
[board]
width = 10
height = 10
"#,
    )
    .unwrap();
    let out = damspel(&[
        "--variant-file",
        good.to_str().unwrap(),
        "perft",
        "big-turkish",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    // Men on full ranks 2-3 of a 10-wide board (1.01: steps F, L, R): only the ten men of rank 3
    // can step, forward.
    assert_eq!(v["nodes"], 10);

    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "id = \"bad\"\nname = \"x\"\naliases = []\nblock = \"user\"\ndescription = \"x\"\nextends = \"turkish\"\n[kings]\nlanding = \"sideways\"\n",
    )
    .unwrap();
    let out = damspel(&["--variant-file", bad.to_str().unwrap(), "variants"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("bad.toml") && err.contains("kings.landing"),
        "{err}"
    );
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_work() {
    // A review of a day a position, a match of 1,000 games of 10 s a move, a tuning of a million
    // self-play games, the claims' tables built: each ran to its end and only then refused its
    // --out or --pdn, the work lost.
    let scratch = scratch("outputs");
    let dir = scratch.path();
    let game = dir.join("game.pdn");
    std::fs::write(
        &game,
        "[GameType \"20\"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n",
    )
    .unwrap();
    let missing = dir.join("no-such-folder").join("out.pdn");
    let tables = dir.join("tables");
    let (game, missing) = (game.to_str().unwrap(), missing.to_str().unwrap());
    for args in [
        // Self-play of a million games; every table of the claims built.
        vec!["tune", "turkish", "--games", "1000000", "--out", missing],
        vec![
            "claims",
            "--build",
            "--tb-dir",
            tables.to_str().unwrap(),
            "--out",
            missing,
        ],
        vec!["review", game, "--time", "86400", "--out", missing],
        vec!["review", game, "--time", "86400", "--out", "/"],
        vec![
            "match",
            "international",
            "--engine",
            "damspel:time=10",
            "--engine",
            "damspel:time=10",
            "--games",
            "1000",
            "--pdn",
            missing,
        ],
    ] {
        let out = damspel_within(&args, std::time::Duration::from_secs(60))
            .unwrap_or_else(|| panic!("{args:?}: still working after 60 s"));
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains("cannot write"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

/// An output opened before the work (`files::Output`) and never written because the command
/// failed: a file it created is removed, one that was there stays. Before, `claims --out
/// NEW.md` without tables left an empty NEW.md.
#[test]
fn a_failed_command_leaves_no_empty_output_it_created() {
    let scratch = scratch("unwritten");
    let dir = scratch.path();
    let no_tables = dir.join("no-tables");
    let new = dir.join("new.md");
    let args = [
        "claims",
        "--tb-dir",
        no_tables.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
    ];
    let out = damspel(&args);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no table"), "{}", stderr(&out));
    assert!(!new.exists(), "an empty {} was left", new.display());
    // A file that was there is not the command's to remove.
    std::fs::write(&new, "mine").unwrap();
    assert!(!damspel(&args).status.success());
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "mine");
}

#[test]
fn a_match_writes_each_game_as_it_ends() {
    // A match stopped half way (Ctrl-C, a machine going down) keeps the games it played: they
    // were written only once every game had ended.
    let scratch = scratch("match-pdn");
    let dir = scratch.path();
    let pdn = dir.join("games.pdn");
    let _ = std::fs::remove_file(&pdn);
    let mut child = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(["match", "international", "--engine", "damspel:depth=2"])
        .args(["--engine", "random", "--games", "100000", "--pdn"])
        .arg(&pdn)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut games = 0;
    while games < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        games = std::fs::read_to_string(&pdn).map_or(0, |text| text.matches("[Event ").count());
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(games >= 3, "{games} games in the file after 120 s");
    // Every game but perhaps the last (cut by the kill) replays to its end.
    let out = damspel(&["pdn", "check", pdn.to_str().unwrap()]);
    let report = stdout(&out);
    let replayed: usize = report
        .rsplit(": ")
        .next()
        .and_then(|tail| tail.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(replayed >= 2, "{report}");
}

#[test]
fn a_match_plays_the_openings_of_a_file() {
    let scratch = scratch("openings");
    let dir = scratch.path();
    let openings = dir.join("openings.txt");
    let pdn = dir.join("games.pdn");
    // Four games of the openings written to the file: each opening twice, colours swapped.
    let play = |file: &[u8]| {
        std::fs::write(&openings, file).unwrap();
        let out = damspel(&[
            "match",
            "international",
            "--engine",
            "damspel:depth=1",
            "--engine",
            "random",
            "--games",
            "4",
            "--openings",
            openings.to_str().unwrap(),
            "--pdn",
            pdn.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let games = std::fs::read_to_string(&pdn).unwrap();
        assert_eq!(
            games.matches("1. 32-28 19-23 2. 28x19 14x23").count(),
            2,
            "{games}"
        );
        assert_eq!(games.matches("1. 33-29 18-22").count(), 2, "{games}");
        games
    };
    // Two International openings (4.01: men step forward, capture is compulsory).
    let games = play(b"# test\n32-28 19-23 28x19 14x23\n1. 33-29 18-22\n");
    assert_eq!(games.matches("openings.txt #2\"]").count(), 2, "{games}");
    // The same as PDN games in CP1252 (names with accents), as `damspel pdn` reads them.
    play(
        b"[Event \"Tournoi de Paris\"]\n[White \"Ren\xe9\"]\n[Black \"J\xfcrgen\"]\n\
          [GameType \"20\"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n\n\
          [White \"Fran\xe7ois\"]\n\n1. 33-29 18-22 *\n",
    );

    std::fs::write(&openings, "32-28 19-23\n32-23\n").unwrap();
    let out = damspel(&[
        "match",
        "international",
        "--engine",
        "random",
        "--engine",
        "random",
        "--openings",
        openings.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("line 2: move 1 `32-23`"), "{err}");
}

#[test]
fn commands_that_print_data_take_json() {
    // match: the summary as one object (4 games, colours swapped, depth 2 against random).
    let out = damspel(&[
        "match",
        "international",
        "--engine",
        "damspel:depth=2",
        "--engine",
        "random",
        "--games",
        "4",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let played =
        m["wins"].as_u64().unwrap() + m["draws"].as_u64().unwrap() + m["losses"].as_u64().unwrap();
    assert_eq!(played, 4, "{m}");
    assert_eq!(m["games"], 4);
    assert_eq!(m["variant"], "international");
    // weights: the features and their values, opening and endgame.
    let out = damspel(&["weights", "turkish", "--derived", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let w: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(w["opening"]["man"], 100, "{w}");
    // perft-table: one row per variant; perft(1) of Turkish is 8 (shared/reference/perft.tsv
    // row 2; no capture at depth 1, so both conventions agree).
    let out = damspel(&["perft-table", "--depth", "1", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 50);
    let turkish = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "turkish")
        .unwrap();
    assert_eq!(turkish["dedup"][0], 8);
}

#[test]
fn analyze_json_answers_a_finished_position() {
    // Turkish, one piece each: a draw at once (rule book 1.01).
    let out = damspel(&["analyze", "turkish", "--fen", "W:WKa1:Bh8", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(v["bestmove"].is_null(), "{v}");
    assert!(
        v["outcome"].as_str().unwrap().contains("one piece each"),
        "{v}"
    );
    // Without --json it stays a one-line error.
    let out = damspel(&["analyze", "turkish", "--fen", "W:WKa1:Bh8"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("the game is over"));
}

/// Runs the binary, killing it after `limit` (None: it did not end in time).
fn damspel_within(args: &[&str], limit: std::time::Duration) -> Option<Output> {
    use std::process::Stdio;
    use std::time::Instant;
    let mut child = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn numeric_options_outside_their_range_are_one_line_errors() {
    // Issue 10: `--hash 18446744073709551615` panicked, `--hash 1048576` aborted, `--threads
    // 2000` ignored `--time`. Every numeric option has a range, given in --help.
    let cases: &[&[&str]] = &[
        &["analyze", "international", "--hash", "18446744073709551615"],
        &["analyze", "international", "--hash", "1048576"],
        &[
            "analyze",
            "international",
            "--hash",
            "65536",
            "--depth",
            "1",
        ],
        &["analyze", "international", "--hash", "0"],
        &["analyze", "international", "--threads", "2000"],
        &["analyze", "international", "--threads", "0"],
        &["analyze", "international", "--time", "nan"],
        &["analyze", "international", "--time", "inf"],
        &["analyze", "international", "--time=-1"],
        &["analyze", "international", "--time", "0"],
        &["analyze", "international", "--time", "1e300"],
        &["analyze", "international", "--depth", "0"],
        &["analyze", "international", "--depth", "65"],
        &["play", "international", "--time", "NaN"],
        &["play", "international", "--depth", "4294967296"],
        &["perft", "international", "65"],
        &["perft-table", "--threads", "0"],
        &["bench", "--depth", "100"],
        &["dxp", "--listen", "127.0.0.1:0", "--time", "-0"],
        &["tune", "international", "--games", "1"],
        &["tune", "international", "--concurrency", "100000"],
        &["tune", "international", "--ridge", "nan"],
        &[
            "tune",
            "international",
            "--openings",
            "18446744073709551615",
        ],
        &[
            "match",
            "international",
            "--engine",
            "random",
            "--engine",
            "random",
            "--concurrency",
            "0",
        ],
        &[
            "match",
            "international",
            "--engine",
            "random",
            "--engine",
            "random",
            "--games",
            "0",
        ],
        &[
            "match",
            "international",
            "--engine",
            "random",
            "--engine",
            "random",
            "--max-plies",
            "0",
        ],
        &[
            "match",
            "international",
            "--engine",
            "random",
            "--engine",
            "random",
            "--openings",
            "1000000",
        ],
        &[
            "match",
            "international",
            "--engine",
            "damspel:depth=99",
            "--engine",
            "random",
        ],
        &[
            "match",
            "international",
            "--engine",
            "damspel:time=inf",
            "--engine",
            "random",
        ],
    ];
    for args in cases {
        let out = damspel_within(args, std::time::Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{args:?} did not end"));
        let err = stderr(&out);
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "{args:?}: {:?} {err}",
            out.status
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("damspel: "), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // The ranges are in the help.
    let help = stdout(&damspel(&["analyze", "--help"]));
    for range in ["1 to 64", "1 to 256", "1 to 65536", "0.001 to 86400"] {
        assert!(help.contains(range), "{range} not in {help}");
    }
}

/// The most threads `analyze` and the Hub take here: four per core, at most 256.
fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).min(256)
}

#[test]
fn the_most_threads_still_keep_the_time() {
    let too_many = (max_threads() + 1).to_string();
    let out = damspel(&["analyze", "international", "--threads", &too_many]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("four per core"), "{}", stderr(&out));
    let most = max_threads().to_string();
    let args = [
        "analyze",
        "international",
        "--threads",
        &most,
        "--time",
        "0.3",
    ];
    let out = damspel_within(&args, std::time::Duration::from_secs(10))
        .expect("the most threads end within their time and a few seconds of slack");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("bestmove "));
}

#[test]
fn a_match_takes_engine_levels() {
    // Issue 12, item 4: `damspel:level=N` in a match (level 1 against a depth-3 search).
    let out = damspel(&[
        "match",
        "turkish",
        "--engine",
        "damspel:level=1",
        "--engine",
        "damspel:depth=3",
        "--games",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["games"], 2);
    assert_eq!(v["engines"][0], "damspel:level=1");
    for bad in ["damspel:level=0", "damspel:level=9", "damspel:level=x"] {
        let out = damspel(&["match", "turkish", "--engine", bad, "--engine", "random"]);
        assert!(!out.status.success(), "{bad}");
        assert!(
            stderr(&out).contains("from 1 to 8"),
            "{bad}: {}",
            stderr(&out)
        );
    }
    // A depth beside a level below 8 was ignored without a word (the level's own depth).
    let out = damspel(&[
        "match",
        "turkish",
        "--engine",
        "damspel:level=3,depth=5",
        "--engine",
        "random",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("depth= is for level 8"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn atlas_bad_input_is_one_line_with_a_failing_exit() {
    let dir = std::env::temp_dir().join(format!("damspel-atlas-cli-{}", std::process::id()));
    let db = dir.join("never.db");
    let db = db.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["atlas", "run", "nosuch", "--games", "2", "--db", db],
            "unknown variant `nosuch`",
        ),
        (
            vec![
                "atlas", "run", "turkish", "--games", "2", "--shard", "9/8", "--db", db,
            ],
            "bad shard `9/8`",
        ),
        (
            vec![
                "atlas", "run", "turkish", "--games", "2", "--shard", "x", "--db", db,
            ],
            "bad shard `x`",
        ),
        (
            vec![
                "atlas", "run", "turkish", "--games", "2", "--level", "7", "--db", db,
            ],
            "'7'",
        ),
        (
            vec!["atlas", "merge", db, "/nonexistent/shard.db"],
            "no such file",
        ),
    ] {
        let out = damspel(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // Nothing was created for a run that was refused.
    assert!(!dir.join("never.db").exists());
}

/// Runs a batch test script of scripts/ against this build's binary on a one-node Slurm
/// cluster the script starts, and checks its verdict line. Needs root and Debian's slurm-wlm
/// and munge (installed by .ci/run), so these run only with DAMSPEL_SLURM=1:
/// `DAMSPEL_SLURM=1 cargo test --release -p damspel --test cli slurm`.
fn slurm_script(script: &str, verdict: &str) {
    if std::env::var_os("DAMSPEL_SLURM").is_none() {
        eprintln!("skipped: set DAMSPEL_SLURM=1 (root, slurm-wlm and munge) to run it");
        return;
    }
    let path = format!("{}/../../scripts/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(path)
        .arg(env!("CARGO_BIN_EXE_damspel"))
        .output()
        .expect("bash runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{text}");
    assert!(text.contains(verdict), "{text}");
}

/// Issue 14: the atlas split into 8 shards, run as a Slurm job array, then merged, equals the
/// one-process run game for game.
#[test]
fn the_atlas_sharded_over_slurm_equals_the_one_process_run() {
    slurm_script(
        "slurm-atlas-test.sh",
        "PASS: the 8-shard Slurm run merged equals the one-process run",
    );
}

/// Issue 13: the Russian 3-piece set built by deploy/slurm/tablebase.sbatch, wave by wave as
/// Slurm job arrays chained by afterok, is byte-identical to the one-process build. Each Slurm
/// test starts its own cluster (own ports, directory and munge socket), so the two may run at
/// the same time (checked).
#[test]
fn the_tablebase_built_over_slurm_equals_the_one_process_build() {
    slurm_script(
        "slurm-tablebase-test.sh",
        "byte-identical to the one-process build",
    );
}

/// deploy/slurm/tablebase.sbatch's driver, with an `sbatch` that only records what it is asked
/// (no cluster needed): a plan that fails (an unknown variant) fails the driver with damspel's
/// error and submits nothing; a binary whose path has a space submits every wave (Russian 3
/// pieces: 5 waves, docs/tablebases.md). Before, both exited 0 having submitted nothing.
#[cfg(unix)]
#[test]
fn the_tablebase_driver_fails_when_its_plan_fails() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = scratch("tb-driver");
    let dir = scratch.path();
    let bin = dir.join("fake bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("sbatch.log");
    let sbatch = bin.join("sbatch");
    std::fs::write(
        &sbatch,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\necho 7\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let damspel = bin.join("damspel");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_damspel"), &damspel).unwrap();
    let script = format!(
        "{}/../../deploy/slurm/tablebase.sbatch",
        env!("CARGO_MANIFEST_DIR")
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let driver = |variant: &str| {
        let _ = std::fs::remove_file(&log);
        let out = Command::new("bash")
            .arg(&script)
            .env("PATH", &path)
            .env("DAMSPEL", &damspel)
            .env("VARIANT", variant)
            .env("PIECES", "3")
            .env("TB_DIR", dir.join("tables"))
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("SLURM_JOB_ID")
            .output()
            .unwrap();
        let submitted = std::fs::read_to_string(&log).unwrap_or_default();
        (out, submitted.lines().count())
    };
    let (out, submitted) = driver("nosuch");
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(stderr(&out).contains("unknown variant"), "{}", stderr(&out));
    assert_eq!(submitted, 0);
    let (out, submitted) = driver("russian");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(submitted, 5, "{}", stdout(&out));
}

/// A tablebase set beyond what the builder indexes or what the machine's memory holds is
/// refused at once, with the figure, and nothing is written. Before, the build went through
/// every smaller table first (hours for these) and then failed on the table past 2^32 slots, or
/// was killed by the system when the largest table outgrew memory.
#[test]
fn a_tablebase_set_beyond_the_builder_or_the_memory_is_refused_before_it_starts() {
    let scratch = scratch("tb-beyond");
    let dir = scratch.path();
    let d = dir.to_str().unwrap();
    // International 6 pieces: KKMvKKM has 4.7e9 slots (docs/tablebases.md).
    // Russian 7 pieces: no table past 2^32, but some 300 GB of memory at its largest (3e9 slots
    // at 60-120 bytes each): more than any machine this test runs on.
    for (variant, pieces, needle) in [
        ("international", "6", "more than this builder indexes"),
        ("russian", "7", "of memory"),
    ] {
        let out = damspel_within(
            &[
                "tablebase",
                "build",
                variant,
                "--pieces",
                pieces,
                "--tb-dir",
                d,
            ],
            std::time::Duration::from_secs(60),
        )
        .unwrap_or_else(|| panic!("{variant} {pieces} pieces still building after 60 s"));
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains(needle), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "{variant}");
    }
}

/// A table whose write fails (a full disk; here a file size limit, EFBIG, the same path in the
/// code) leaves no temporary file behind. Before, each failed build left its partial
/// `.dtb.tmpPID` (on a 1 MiB tmpfs: 159 kB of the missing space, then one more per retry).
#[cfg(unix)]
#[test]
fn a_table_write_that_fails_leaves_no_temporary_file() {
    let scratch = scratch("tb-efbig");
    let dir = scratch.path();
    // `trap '' XFSZ`: the write past the limit fails instead of the signal ending the program.
    let script =
        "trap '' XFSZ; ulimit -f 64; exec \"$0\" tablebase build russian --pieces 4 --tb-dir \"$1\"";
    let out = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_damspel")])
        .arg(dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("File too large"), "{}", stderr(&out));
    let names: Vec<String> = std::fs::read_dir(dir.join("russian"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with(".dtb")), "{names:?}");
    assert!(names.iter().all(|n| n.ends_with(".dtb")), "{names:?}");
}

/// A build killed while writing a table leaves its temporary file; the next build in the
/// folder removes those untouched for an hour (docs/tablebases.md) and says so, and keeps a
/// younger one, which may be a live builder's on another machine sharing the folder. Before,
/// they stayed until someone deleted them by hand.
#[test]
fn a_build_removes_the_temporary_files_a_killed_build_left() {
    let scratch = scratch("tb-stale");
    let dir = scratch.path();
    let folder = dir.join("russian");
    std::fs::create_dir_all(&folder).unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    let stale = folder.join("KMvK.dtb.tmp4711-23-0");
    let live = folder.join("KKvK.dtb.tmpAb12Cd");
    let other = folder.join("notes.txt");
    for path in [&stale, &live, &other] {
        std::fs::write(path, b"partial").unwrap();
    }
    for path in [&stale, &other] {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(two_hours_ago).unwrap();
    }
    let d = dir.to_str().unwrap();
    let out = damspel(&[
        "tablebase",
        "build",
        "russian",
        "--pieces",
        "2",
        "--tb-dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("removed 1 temporary file left by a build that was stopped while writing: KMvK.dtb.tmp4711-23-0"),
        "{}",
        stderr(&out)
    );
    assert!(!stale.exists());
    assert!(
        live.exists(),
        "a temporary file younger than an hour is kept"
    );
    assert!(other.exists(), "only temporary tables are removed");
    // The tables it wrote went through temporary files of their own, none left.
    let names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp") && n != "KKvK.dtb.tmpAb12Cd")
        .collect();
    assert!(names.is_empty(), "{names:?}");
    // Tables are as readable as any file the user makes there (tempfile's default is 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode(&folder.join("MvM.dtb")),
            mode(&other),
            "a table's permissions"
        );
    }
}

/// `atlas report --db DIR/index.html --out DIR`: a database named as a page of its report is
/// refused before the report is written, and stays a database. Before, the report's
/// `index.html` replaced it, exit 0: the games were lost.
#[test]
fn an_atlas_report_does_not_replace_its_database() {
    let scratch = scratch("report-db");
    let dir = scratch.path();
    let db = dir.join("index.html");
    let (d, o) = (db.to_str().unwrap(), dir.to_str().unwrap());
    // The hidden --fixture writes a small atlas database to --db first (docs/atlas.md).
    let out = damspel(&["atlas", "report", "--fixture", "--db", d, "--out", o]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("which would be replaced"),
        "{}",
        stderr(&out)
    );
    let bytes = std::fs::read(&db).unwrap();
    assert!(
        bytes.starts_with(b"SQLite format 3\0"),
        "the database was replaced"
    );
}

/// scripts/tablebase-figures.sh: with PIECES alone (its usage: `[PIECES] [THREADS]
/// [VARIANT...]`) it makes a row for every variant; a variant whose build fails gets a row
/// saying so, its error on stderr, the others their rows, and a failing exit. Before, PIECES
/// alone was taken as a variant, and a failed build ended the script at once with no word
/// (its stderr was thrown away): both printed the table's head only.
#[test]
fn the_tablebase_figures_script_says_what_failed_and_goes_on() {
    if !std::path::Path::new("/usr/bin/time").exists()
        || Command::new("bc").arg("--version").output().is_err()
    {
        eprintln!("skipped: the script needs /usr/bin/time and bc");
        return;
    }
    let scratch = scratch("tb-figures");
    let dir = scratch.path();
    let script = format!(
        "{}/../../scripts/tablebase-figures.sh",
        env!("CARGO_MANIFEST_DIR")
    );
    let figures = |args: &[&str]| {
        Command::new("bash")
            .arg(&script)
            .args(args)
            .env("DAMSPEL", env!("CARGO_BIN_EXE_damspel"))
            .env("TB_DIR", dir)
            .env("VERIFY", "0")
            .output()
            .unwrap()
    };
    let out = figures(&["2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = stdout(&out);
    // The table's head (2 lines) and one row per variant of the catalogue.
    let variants = stdout(&damspel(&["variants"])).lines().count() - 1;
    assert_eq!(rows.lines().count(), 2 + variants, "{rows}");
    assert!(rows.contains("| russian | 2 | 7024 |"), "{rows}");
    let out = figures(&["2", "1", "russian", "nosuch", "american"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown variant"), "{}", stderr(&out));
    let rows = stdout(&out);
    assert!(
        rows.contains("| nosuch | 2 |") && rows.contains("build failed"),
        "{rows}"
    );
    assert!(rows.contains("| american | 2 |"), "{rows}");
}

/// The shell scripts of a Kubernetes manifest: each `- |` literal block, in order.
fn literal_blocks(yaml: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = yaml.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() != "- |" {
            continue;
        }
        let mut block = String::new();
        let indent = lines.peek().map_or(0, |l| l.len() - l.trim_start().len());
        while let Some(l) = lines.peek() {
            if !l.trim().is_empty() && l.len() - l.trim_start().len() < indent {
                break;
            }
            block.push_str(l.get(indent..).unwrap_or(""));
            block.push('\n');
            lines.next();
        }
        blocks.push(block);
    }
    blocks
}

/// deploy/k8s/atlas-job.yaml's scripts, run here with a `damspel` that only succeeds: the merge
/// waits for the shards of the settings it is given, not for the `.done` files an earlier run
/// left on the volume (the same shards before ATLAS_GAMES was raised, as docs/atlas.md
/// suggests). Before, those files let the merge start at once and merge the shards as they
/// were, while the new run had not begun.
#[cfg(unix)]
#[test]
fn the_kubernetes_atlas_merge_waits_for_this_runs_shards() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = scratch("k8s-atlas");
    let dir = scratch.path();
    let (bin, data) = (dir.join("bin"), dir.join("data"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let fake = bin.join("damspel");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let yaml = std::fs::read_to_string(format!(
        "{}/../../deploy/k8s/atlas-job.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let blocks: Vec<String> = literal_blocks(&yaml)
        .iter()
        .map(|b| b.replace("/data", data.to_str().unwrap()))
        .collect();
    assert_eq!(blocks.len(), 3, "shard, wait, merge: {blocks:#?}");
    let (shard, wait) = (&blocks[0], &blocks[1]);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let sh = |script: &str, games: &str, index: Option<&str>| {
        let mut c = Command::new("sh");
        c.args(["-c", script])
            .env("PATH", &path)
            .env("ATLAS_SHARDS", "2")
            .env("ATLAS_VARIANTS", "turkish international")
            .env("ATLAS_GAMES", games)
            .env("ATLAS_BUDGET", "--nodes 20000")
            .env("ATLAS_SEED", "1")
            .env("ATLAS_OPENINGS", "6")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if let Some(i) = index {
            c.env("JOB_COMPLETION_INDEX", i);
        }
        c.spawn().unwrap()
    };
    // An earlier run of 100 games a variant, both shards complete.
    for i in ["0", "1"] {
        assert!(sh(shard, "100", Some(i)).wait().unwrap().success());
    }
    // The same shards raised to 200 games: the merge must wait (its first look is at once, the
    // next a minute later).
    let mut waiter = sh(wait, "200", None);
    std::thread::sleep(std::time::Duration::from_secs(2));
    let early = waiter.try_wait().unwrap();
    let _ = waiter.kill();
    let _ = waiter.wait();
    assert!(
        early.is_none(),
        "the merge started on the earlier run's shards"
    );
    // Once this run's shards are done, it goes on at once.
    for i in ["0", "1"] {
        assert!(sh(shard, "200", Some(i)).wait().unwrap().success());
    }
    assert!(sh(wait, "200", None).wait().unwrap().success());
}

/// `atlas merge` that cannot write (a full disk; here a file size limit, the same failure to
/// SQLite) names the file it could not write, beside OUT, and leaves no file behind. Before, the
/// error named "database the merge".
#[cfg(unix)]
#[test]
fn a_merge_that_cannot_write_names_the_file() {
    let scratch = scratch("merge-full");
    let dir = scratch.path();
    let input = dir.join("in.db");
    let out = damspel(&[
        "atlas",
        "report",
        "--fixture",
        "--db",
        input.to_str().unwrap(),
        "--out",
        dir.join("report").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The fixture is some 240 kB; 200 blocks (100 kB for dash's 512-byte blocks, 200 kB for
    // bash's 1024) hold the new output's schema but not the union, which fails as it is
    // committed.
    let script = "trap '' XFSZ; ulimit -f 200; exec \"$0\" atlas merge \"$1\" \"$2\"";
    let out = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_damspel")])
        .arg(dir.join("out.db"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(!err.contains("the merge:"), "{err}");
    assert!(err.contains(dir.to_str().unwrap()), "{err}");
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["in.db", "report"]);
}

/// `tablebase build` into a log (stderr not a terminal, as in a Slurm job) says how far each
/// table is. Before, the bar was hidden and nothing was written until the whole set was built
/// (hours for a large table).
#[test]
fn a_tablebase_build_into_a_log_says_how_far_it_is() {
    let scratch = scratch("tb-log");
    let dir = scratch.path();
    let out = damspel(&[
        "tablebase",
        "build",
        "russian",
        "--pieces",
        "2",
        "--tb-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A king each on 32 squares: 32 * 31 placements, either side to move (as in `plan`).
    assert!(
        stderr(&out).contains("KvK: 100% of 1984 positions"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tablebase_commands() {
    let scratch = scratch("tb-cli");
    let dir = scratch.path();
    let d = dir.to_str().unwrap();
    let out = damspel(&["tablebase", "plan", "russian", "--pieces", "3"]);
    assert!(out.status.success());
    let plan = stdout(&out);
    assert!(plan.lines().all(|l| l.split(' ').count() == 3), "{plan}");
    // A king each on 32 squares: 32 * 31 placements, either side to move.
    assert!(plan.lines().any(|l| l == "0 KvK 1984"), "{plan}");
    let out = damspel(&[
        "tablebase",
        "build",
        "russian",
        "--pieces",
        "2",
        "--tb-dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A king each, White's on 1 (FMJD numbering) and Black's next to it on 5... either way,
    // the probe names the side to move and lists every legal move.
    let out = damspel(&[
        "tablebase",
        "probe",
        "russian",
        "--fen",
        "W:WK1:BK32",
        "--tb-dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("white to move: "),
        "{}",
        stdout(&out)
    );
    let out = damspel(&[
        "tablebase",
        "probe",
        "russian",
        "--fen",
        "W:WK1:BK32",
        "--tb-dir",
        d,
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["moves"].as_array().is_some_and(|m| !m.is_empty()));
    let out = damspel(&[
        "tablebase",
        "verify",
        "russian",
        "--pieces",
        "2",
        "--tb-dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = damspel(&["tablebase", "stats", "russian", "--tb-dir", d]);
    assert!(out.status.success(), "{}", stderr(&out));
    for (args, needle) in [
        (
            vec![
                "tablebase",
                "build",
                "russian",
                "--pieces",
                "3",
                "--slice",
                "KKX",
                "--tb-dir",
                d,
            ],
            "not a material signature",
        ),
        (
            vec![
                "tablebase",
                "probe",
                "russian",
                "--fen",
                "W:WK1,K2:BK32",
                "--tb-dir",
                d,
            ],
            "no table for KKvK",
        ),
        (vec!["tablebase", "build", "russian", "--pieces", "9"], "9"),
        (
            vec![
                "match",
                "russian",
                "--engine",
                "damspel:tb=",
                "--engine",
                "random",
            ],
            "tb= needs a folder",
        ),
        (
            vec![
                "match",
                "russian",
                "--engine",
                "damspel:depth=1,tb=/no/such/folder",
                "--engine",
                "random",
            ],
            "/no/such/folder: no such folder",
        ),
    ] {
        let out = damspel(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // A match of an engine with the tables against one without (issue 13, docs/strength.md).
    let with = format!("damspel:depth=1,tb={d}");
    let out = damspel(&[
        "match",
        "russian",
        "--engine",
        &with,
        "--engine",
        "damspel:depth=1,tb=none",
        "--games",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"games\":2"), "{}", stdout(&out));
    // A user's variant on 100 squares (Rules<u128>), one piece each: drawn, no move listed.
    let file = dir.join("big-turkish.toml");
    std::fs::write(
        &file,
        "id = \"big-turkish\"\nname = \"x\"\naliases = []\nblock = \"user\"\n\
         description = \"x\"\nextends = \"turkish\"\n[board]\nwidth = 10\nheight = 10\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let out = damspel(&[
        "--variant-file",
        f,
        "tablebase",
        "build",
        "big-turkish",
        "--pieces",
        "2",
        "--tb-dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = damspel(&[
        "--variant-file",
        f,
        "tablebase",
        "probe",
        "big-turkish",
        "--fen",
        "W:WKa1:BKa3",
        "--tb-dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "white to move: draw (one piece each)");
}

/// A device given as a file is read up to the file's bound, then refused: `/dev/zero` as a
/// variant file grew the process by a gigabyte a second (the size check read the whole stream
/// first), as a PDN file too.
#[cfg(unix)]
#[test]
fn endless_files_are_refused_at_their_bound() {
    let limit = std::time::Duration::from_secs(20);
    for args in [
        &["--variant-file", "/dev/zero", "variants"][..],
        &["pdn", "list", "/dev/zero"][..],
        &[
            "match",
            "international",
            "--engine",
            "random",
            "--engine",
            "random",
            "--openings",
            "/dev/zero",
        ][..],
    ] {
        let out = damspel_within(args, limit).unwrap_or_else(|| panic!("{args:?} ran on"));
        assert!(!out.status.success(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("more than") && err.contains("bytes"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn an_output_that_is_an_input_is_refused_before_the_work() {
    // `review two.pdn --out two.pdn` left one game of two; `match --openings op.pdn --pdn op.pdn`
    // emptied the openings; `tune --weights w.toml --out w.toml` replaced the weights it named as
    // its start. The same file however named: `./x`, a symbolic link, a hard link.
    let scratch = scratch("same-file");
    let dir = scratch.path();
    let games = dir.join("two.pdn");
    let two = "[GameType \"20\"]\n[White \"A\"]\n\n1. 32-28 19-23 *\n\n\
               [GameType \"20\"]\n[White \"B\"]\n\n1. 33-29 18-22 *\n";
    std::fs::write(&games, two).unwrap();
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "32-28 19-23 28x19 14x23\n").unwrap();
    let weights = dir.join("russian.toml");
    let out = damspel(&["weights", "russian"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(&weights, &out.stdout).unwrap();
    std::os::unix::fs::symlink(&games, dir.join("link.pdn")).unwrap();
    std::fs::hard_link(&weights, dir.join("hard.toml")).unwrap();
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let dotted = format!("{}/./two.pdn", dir.display());
    let weights_engine = format!("damspel:depth=1,weights={}", path(&weights));
    let cases: Vec<Vec<String>> = vec![
        vec!["review", &path(&games), "--nodes", "100", "--out", &dotted],
        vec![
            "review",
            &dotted,
            "--nodes",
            "100",
            "--out",
            &path(&dir.join("link.pdn")),
        ],
        vec![
            "match",
            "international",
            "--engine",
            "damspel:depth=1",
            "--engine",
            "random",
            "--games",
            "2",
            "--openings",
            &path(&openings),
            "--pdn",
            &path(&openings),
        ],
        vec![
            "match",
            "russian",
            "--engine",
            &weights_engine,
            "--engine",
            "random",
            "--games",
            "2",
            "--pdn",
            &path(&dir.join("hard.toml")),
        ],
        vec![
            "tune",
            "russian",
            "--games",
            "1000000",
            "--depth",
            "1",
            "--weights",
            &path(&weights),
            "--out",
            &path(&dir.join("hard.toml")),
        ],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(String::from).collect())
    .collect();
    let before: Vec<Vec<u8>> = [&games, &openings, &weights]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = damspel_within(&args, std::time::Duration::from_secs(60))
            .unwrap_or_else(|| panic!("{args:?}: still working after 60 s"));
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains("is the input"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let after: Vec<Vec<u8>> = [&games, &openings, &weights]
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        assert!(after == before, "{args:?} changed an input");
    }
    // Another file is written as before.
    let other = path(&dir.join("reviewed.pdn"));
    let out = damspel(&["review", &path(&games), "--nodes", "100", "--out", &other]);
    assert!(out.status.success(), "{}", stderr(&out));
}
