//! `damspel pdn`: a multi-game file in CP1251 with a bad game listed, checked and converted.

use std::path::PathBuf;
use std::process::{Command, Output};

fn damspel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
        .output()
        .expect("damspel runs")
}

fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damspel-pdn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Three games in CP1251 (issue 11: the command line stopped at "stream did not contain valid
/// UTF-8"): the second does not replay, the third is Frisian.
fn three_games() -> Vec<u8> {
    let mut bytes = b"[White \"".to_vec();
    bytes.extend([0xC8, 0xE2, 0xE0, 0xED, 0xEE, 0xE2]); // Иванов
    bytes.extend(
        b"\"]\n[Black \"B\"]\n[Event \"E\"]\n1. 32-28 19-23 2. 28x19 14x23 2-0\n\n\
          [White \"C\"]\n[Black \"D\"]\n1. 32-28 19-23 2. 28-22 0-2\n\n\
          [White \"F\"]\n[GameType \"40\"]\n1. 32-28 *\n",
    );
    bytes
}

#[test]
fn list_check_and_convert() {
    let path = file("three.pdn", &three_games());
    let p = path.to_str().unwrap();
    let out = damspel(&["pdn", "list", p]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("3 games (0 unreadable), CP1251"), "{text}");
    assert!(
        text.contains("1\tИванов\tB\tE\t\t2-0\t4\tinternational (inferred"),
        "{text}"
    );
    assert!(
        text.contains("GameType 40 (Frisian draughts) is not supported"),
        "{text}"
    );

    // Game 2 has no tag and does not replay under International (some Babylonian variants take
    // it): the caller says which variant untagged games are.
    let out = damspel(&["pdn", "check", p, "--variant", "international"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("game 1 (Иванов - B (E)): ok, 4 plies, international (chosen)"),
        "{text}"
    );
    assert!(
        text.contains("game 2 (C - D): FAILED: ply 3 `28-22`"),
        "{text}"
    );
    assert!(
        text.contains("game 3 (F - ?): FAILED: GameType 40 (Frisian draughts)"),
        "{text}"
    );
    assert!(
        text.contains("3 games: 1 replayed to their end, 2 failed, 0 unreadable"),
        "{text}"
    );

    let out = damspel(&["pdn", "convert", p, "--to", "fen"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!out.status.success());
    assert!(
        text.contains("# game 1 Иванов - B (E)\nW:W31-50:B1-20\nB:W28,31,33-50:B1-20\n"),
        "{text}"
    );

    let out = damspel(&[
        "pdn",
        "convert",
        p,
        "--to",
        "json",
        "--variant",
        "international",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["encoding"], "windows1251");
    assert_eq!(json["games"][0]["tags"][0][1], "Иванов");
    assert_eq!(json["games"][1]["replay"]["plies"], 2);
}
