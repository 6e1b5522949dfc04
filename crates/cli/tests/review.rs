//! `damspel review`: the annotated game on stdout or in a file, the summary on stderr, clear
//! errors for bad input. The game is hand-made: White's 37-32 gives a man away (27x38) and
//! 47-42 a second one (38x47, crowning); Black's two captures are its only moves.

mod common;

use common::ScratchPath;

use std::process::{Command, Output};

fn damspel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
        .output()
        .expect("damspel runs")
}

const GAME: &str = r#"[Event "Review test"]
[White "Ann"]
[Black "Bob"]
[Result "*"]
[Variant "international"]
[FEN "W:W36,37,46,47,48:B1,2,3,4,27"]

1. 37-32 27x38 2. 47-42 38x47 *
"#;

fn file(name: &str, text: &str) -> ScratchPath {
    ScratchPath::written("review-cli", name, text)
}

#[test]
fn review_writes_the_annotated_game_and_a_summary() {
    let game = file("game.pdn", GAME);
    let out = damspel(&["review", game.to_str().unwrap(), "--nodes", "20000"]);
    assert!(out.status.success(), "{out:?}");
    let pdn = String::from_utf8(out.stdout).unwrap();
    let summary = String::from_utf8(out.stderr).unwrap();
    // Tags kept, blunders as $4 with the better line as a variation and a comment.
    assert!(pdn.contains("[White \"Ann\"]"), "{pdn}");
    assert!(
        pdn.contains("[FEN \"W:W36,37,46,47,48:B1,2,3,4,27\"]"),
        "{pdn}"
    );
    assert!(pdn.contains("1. 37-32 $4 (1. "), "{pdn}");
    assert!(pdn.contains("2. 47-42 $4 (2. "), "{pdn}");
    assert!(pdn.contains("Blunder"), "{pdn}");
    // Black's forced captures are not marked.
    assert!(!pdn.contains("27x38 $"), "{pdn}");
    assert!(summary.contains("White (Ann)"), "{summary}");
    assert!(summary.contains("37-32??"), "{summary}");
    assert!(summary.lines().count() <= 24, "{summary}");

    // The annotated game reads back and replays with Damspel's own reader.
    let annotated = file("annotated.pdn", &pdn);
    let check = damspel(&["pdn", "check", annotated.to_str().unwrap()]);
    assert!(check.status.success(), "{check:?}");

    // And with pydraughts, where CI has it.
    if let Some(python) = std::env::var_os("DAMSPEL_PYTHON").filter(|p| !p.is_empty()) {
        let read = Command::new(python)
            .args([
                "-c",
                "import sys\nfrom draughts.PDN import PDNReader\n\
                 print(' '.join(PDNReader(filename=sys.argv[1]).games[0].moves))",
                annotated.to_str().unwrap(),
            ])
            .output()
            .expect("DAMSPEL_PYTHON runs");
        assert!(read.status.success(), "{read:?}");
        assert_eq!(
            String::from_utf8_lossy(&read.stdout).trim(),
            "37-32 27x38 47-42 38x47"
        );
    }
}

#[test]
fn review_writes_to_a_file_with_out() {
    let game = file("game2.pdn", GAME);
    let out_path = game.with_file_name("out2.pdn");
    let out = damspel(&[
        "review",
        game.to_str().unwrap(),
        "--nodes",
        "5000",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&out_path).unwrap();
    assert!(written.contains("$4"), "{written}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let game = file("game3.pdn", GAME);
    let bad = file("bad.pdn", "[Event \"x\"]\n\n1. 32-28 {never closed\n");
    let illegal = file(
        "illegal.pdn",
        "[Variant \"international\"]\n\n1. 32-28 19-23 50-45 *\n",
    );
    for (args, expected) in [
        (vec!["review", "/nonexistent/game.pdn"], "cannot read"),
        (
            vec!["review", game.to_str().unwrap(), "--game", "2"],
            "no game 2",
        ),
        (vec!["review", bad.to_str().unwrap()], "cannot be read"),
        (
            vec!["review", illegal.to_str().unwrap(), "--nodes", "1000"],
            "ply 3",
        ),
        (
            vec!["review", game.to_str().unwrap(), "--time", "0"],
            "seconds",
        ),
        (
            vec![
                "review",
                game.to_str().unwrap(),
                "--time",
                "1",
                "--nodes",
                "5",
            ],
            "cannot be used with",
        ),
    ] {
        let out = damspel(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn the_summary_does_not_send_a_files_control_characters() {
    // The summary on stderr names the players from the file's tags: an escape sequence there
    // (clear the screen, colour what follows) reached the terminal as it was.
    let game = file(
        "escapes.pdn",
        &GAME.replace("Ann", "\u{1b}[2J\u{1b}[31mAnn\rEve"),
    );
    let out = damspel(&["review", game.to_str().unwrap(), "--nodes", "1000"]);
    assert!(out.status.success(), "{out:?}");
    let summary = String::from_utf8(out.stderr).unwrap();
    assert!(summary.contains("White (?[2J?[31mAnn?Eve)"), "{summary:?}");
    assert!(
        !summary.chars().any(|c| c.is_control() && c != '\n'),
        "{summary:?}"
    );
    // The annotated game keeps the name as read (it is data).
    let pdn = String::from_utf8(out.stdout).unwrap();
    assert!(pdn.contains("\u{1b}[2J\u{1b}[31mAnn\rEve"), "{pdn:?}");
}
