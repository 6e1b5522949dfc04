//! `damspel pdn`: a multi-game file in CP1251 with a bad game listed, checked and converted.

mod common;

use common::ScratchPath;

use std::process::{Command, Output};

fn damspel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
        .output()
        .expect("damspel runs")
}

fn file(name: &str, bytes: &[u8]) -> ScratchPath {
    ScratchPath::written("pdn", name, bytes)
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

/// `--notation`: a Russian game (algebraic, as its players write it) converted to FMJD numbers,
/// which the rule book defines for 8x8 (§0: 1 = b8 … 4 = h8, 5 = a7 …, 29 = a1 … 32 = g1): c3 is
/// 22, d4 18, f6 11, g5 16, g3 24, h4 20. An International game goes the other way. A board of
/// all squares has no numbers: a clear error.
#[test]
fn convert_writes_another_notation() {
    let russian = file(
        "russian.pdn",
        b"[GameType \"25\"]\n1. c3-d4 f6-g5 2. g3-h4 *\n",
    );
    let out = damspel(&[
        "pdn",
        "convert",
        russian.to_str().unwrap(),
        "--to",
        "pdn",
        "--notation",
        "numbers",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1. 22-18 11-16 2. 24-20 *"), "{text}");
    assert!(text.contains("[GameType \"25,W,8,8,N2,0\"]"), "{text}");

    // International (§0, 10x10: 1 = b10 … 5 = j10, then a row starting on a9): 32 is d4, 28
    // e5, 19 g7, 23 f6, 14 h8. Read back, the algebraic text is the same game in numbers.
    let international = file(
        "international.pdn",
        b"[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 *\n",
    );
    let out = damspel(&[
        "pdn",
        "convert",
        international.to_str().unwrap(),
        "--to",
        "pdn",
        "--notation",
        "algebraic",
    ]);
    let algebraic = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{algebraic}");
    assert!(algebraic.contains("[GameType \"20,W,10,10,A0,0\"]"));
    assert!(
        algebraic.contains("1. d4-e5 g7-f6 2. e5xg7 h8xf6 *"),
        "{algebraic}"
    );
    let back = file("back.pdn", algebraic.as_bytes());
    let out = damspel(&["pdn", "convert", back.to_str().unwrap(), "--to", "pdn"]);
    let numbers = String::from_utf8(out.stdout).unwrap();
    assert!(
        numbers.contains("1. 32-28 19-23 2. 28x19 14x23 *"),
        "{numbers}"
    );

    let turkish = file("turkish.pdn", b"[GameType \"30\"]\n1. d3-d4 *\n");
    let out = damspel(&[
        "pdn",
        "convert",
        turkish.to_str().unwrap(),
        "--to",
        "pdn",
        "--notation",
        "numbers",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot be written in that notation"), "{err}");
}

/// A game whose position is set up after its first move is converted with the setup where it
/// was, the moves after it from that position (numbered for the side to move there). The
/// writer wrote a start and moves: the setup was dropped and the game written was another one
/// (its next move illegal), with a success exit; then such games were refused.
#[test]
fn convert_keeps_a_position_set_up_after_its_first_move() {
    let set_up = file(
        "set-up.pdn",
        b"[GameType \"20\"]\n1. 32-28 18-23 2. 37-32 /FEN \"W:W31-50:B1-20\"/ 32-28 *\n\n\
          [GameType \"20\"]\n1. 32-28 19-23 *\n",
    );
    let out = damspel(&["pdn", "convert", set_up.to_str().unwrap(), "--to", "pdn"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("1. 32-28 18-23 2. 37-32 /FEN \"W:W31-50:B1-20\"/ 3. 32-28 *"),
        "{text}"
    );
    assert!(text.contains("1. 32-28 19-23 *"), "{text}");
    let written = file("set-up-written.pdn", text.as_bytes());
    let check = damspel(&["pdn", "check", written.to_str().unwrap()]);
    assert!(check.status.success());
    assert!(String::from_utf8(check.stdout)
        .unwrap()
        .contains("ok, 4 plies"));
}

/// `pdn convert --to pdn` keeps what the file says besides the moves: comments (a clock's
/// among them), NAGs, strength marks and variations, each where it was, and a position set up
/// before the first move (written as the FEN tag). All were dropped, and the setup's game was
/// written from the standard start (its second move illegal there), with a success exit.
#[test]
fn convert_keeps_comments_variations_nags_and_the_setup() {
    let annotated = file(
        "annotated.pdn",
        b"[GameType \"20\"]\n\n{Opening comment} 1. 32-28 $1 {[%clock w0:04:58 B0:05:00]} \
          18-23! (1... 19-23 2. 28x19 14x23) 2. 33-29?! {a comment} 23x32 3. 37x28 *\n\n\
          [GameType \"20\"]\n\n/FEN \"W:W32:B1\"/ 1. 32-28 1-7 *\n",
    );
    let out = damspel(&["pdn", "convert", annotated.to_str().unwrap(), "--to", "pdn"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for kept in [
        "{Opening comment} 1. 32-28 $1 {[%clock w0:04:58 B0:05:00]} 1... 18-23!",
        "(1... 19-23 2. 28x19 14x23)",
        "2. 33-29?! {a comment} 2... 23x32 3. 37x28 *",
        "[FEN \"W:W32:B1\"] 1. 32-28 1-7 *",
    ] {
        assert!(one_line.contains(kept), "`{kept}` in {text}");
    }
    // What it writes reads back as the same games, and is written again unchanged.
    let written = file("annotated-written.pdn", text.as_bytes());
    let again = damspel(&["pdn", "convert", written.to_str().unwrap(), "--to", "pdn"]);
    assert!(again.status.success());
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
}

/// `pdn check` says what a game's GameType declares that Damspel does not follow when the game
/// fails (its numbering: N0 has square 1 at a1, shared/reference §6), and says "played on" only
/// of a draw claim that moves followed (the threefold repetition here is reached by the last
/// move: kings 46 and 1 go back and forth twice).
#[test]
fn check_names_the_numbering_declared_and_claims_at_the_end() {
    let games = file(
        "declared.pdn",
        b"[GameType \"25,W,8,8,N0,0\"]\n\n1. 9-13 24-20 *\n\n\
          [GameType \"20\"]\n[FEN \"W:WK46:BK1\"]\n\n\
          1. 46-41 1-6 2. 41-46 6-1 3. 46-41 1-6 4. 41-46 6-1 1-1\n\n\
          [GameType \"20\"]\n[FEN \"W:WK46:BK1\"]\n\n\
          1. 46-41 1-6 2. 41-46 6-1 3. 46-41 1-6 4. 41-46 6-1 5. 46-41 *\n",
    );
    let out = damspel(&["pdn", "check", games.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("FAILED") && lines[0].contains("not as N0 says"),
        "{text}"
    );
    assert!(
        lines[1].contains("after ply 8") && !lines[1].contains("played on"),
        "{text}"
    );
    assert!(lines[2].contains("after ply 8 (played on)"), "{text}");
}

/// A Result tag that contradicts the result ending the move text is said by `check`, and by
/// `convert --to pdn`, which writes the move text's (it wrote it in place of the tag's without
/// a word).
#[test]
fn a_result_tag_that_contradicts_the_move_text_is_said() {
    let game = file(
        "results.pdn",
        b"[Result \"1-1\"]\n[GameType \"20\"]\n\n1. 32-28 18-23 2-0\n",
    );
    let out = damspel(&["pdn", "check", game.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("its Result tag says `1-1`, its move text ends `2-0`"),
        "{text}"
    );
    let out = damspel(&["pdn", "convert", game.to_str().unwrap(), "--to", "pdn"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("its Result tag says `1-1`"), "{err}");
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("[Result \"2-0\"]"));
}

/// `convert --to pdn` keeps a result it cannot read as the file wrote it (docs/pdn.md lists
/// `0-0`, both players losing, among the result tokens read), in the Result tag and at the end
/// of the move text; before, `0-0` and `4-6` were written `*`, without a word. One it reads is
/// written in the variant's convention (`1-0` is `2-0` in International).
#[test]
fn convert_keeps_a_result_it_cannot_read() {
    let games = file(
        "results.pdn",
        b"[GameType \"20\"]\n[Result \"0-0\"]\n\n1. 32-28 19-23 0-0\n\n\
          [GameType \"20\"]\n[Result \"4-6\"]\n\n1. 32-28 19-23 4-6\n\n\
          [GameType \"20\"]\n[Result \"1-0\"]\n\n1. 32-28 19-23 1-0\n",
    );
    let out = damspel(&["pdn", "convert", games.to_str().unwrap(), "--to", "pdn"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let written: Vec<&str> = text.split("[Event").skip(1).collect();
    assert_eq!(written.len(), 3, "{text}");
    assert!(written[0].contains("[Result \"0-0\"]"), "{}", written[0]);
    assert!(written[0].contains("19-23 0-0"), "{}", written[0]);
    assert!(written[1].contains("[Result \"4-6\"]"), "{}", written[1]);
    assert!(written[1].contains("19-23 4-6"), "{}", written[1]);
    assert!(written[2].contains("[Result \"2-0\"]"), "{}", written[2]);
    assert!(written[2].contains("19-23 2-0"), "{}", written[2]);
}

#[test]
fn a_files_control_characters_are_not_sent_to_the_terminal() {
    // A downloaded PDN's tags could retitle the terminal (ESC ] 0 ; … BEL), clear it (ESC [ 2 J),
    // write over a line (CR) or shift `list`'s columns (TAB): what is printed shows them as `?`;
    // the PDN written keeps them (it is data).
    let pdn = file(
        "escapes.pdn",
        b"[GameType \"20\"]\n[White \"\x1b]0;pwned\x07\x1b[2J\x1b[31mRED\"]\n\
          [Black \"tab\there\"]\n[Event \"x\rOVERWRITE\"]\n\n1. 32-28 19-23 *\n",
    );
    let path = pdn.to_str().unwrap();
    // Control bytes but the line ends (and the tabs between `list`'s columns, counted apart).
    let controls = |bytes: &[u8]| {
        bytes
            .iter()
            .filter(|&&b| (b < 0x20 || b == 0x7f) && b != b'\n' && b != b'\t')
            .count()
    };
    let list = damspel(&["pdn", "list", path]);
    assert!(list.status.success());
    let text = String::from_utf8(list.stdout.clone()).unwrap();
    let row = text.lines().nth(2).unwrap();
    // `#`, White, Black, Event, Date, Result, Moves, Variant: seven tabs, only between columns.
    assert_eq!(row.matches('\t').count(), 7, "{row:?}");
    assert!(
        row.contains("?]0;pwned??[2J?[31mRED\ttab?here\tx?OVERWRITE"),
        "{row:?}"
    );
    let check = damspel(&["pdn", "check", path]);
    assert!(check.status.success());
    for (what, out) in [("list", &list), ("check", &check)] {
        assert_eq!(controls(&out.stdout) + controls(&out.stderr), 0, "{what}");
    }
    assert!(!check.stdout.contains(&b'\t'));
    let check = String::from_utf8(check.stdout).unwrap();
    assert!(check.contains("?[2J?[31mRED"), "{check}");
    // An error quoting the file (a Variant tag no variant has) is cleaned too.
    let bad = file(
        "escapes-variant.pdn",
        b"[Variant \"\x1b[2Jmine\"]\n\n1. 32-28 *\n",
    );
    let out = damspel(&["pdn", "check", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    assert_eq!(controls(&out.stdout) + controls(&out.stderr), 0);
    // Converted to PDN: the text as read.
    let out = damspel(&["pdn", "convert", path, "--to", "pdn"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = String::from_utf8(out.stdout).unwrap();
    assert!(written.contains("\x1b]0;pwned\x07\x1b[2J"), "{written:?}");
}

#[test]
fn json_output_escapes_every_control_character() {
    // JSON escapes C0 controls; DEL and the C1 ones (U+009B is CSI, an escape sequence's start
    // to terminals that take 8-bit controls) are legal in a JSON string as they stand, and went
    // to the terminal raw. Written as `\u` escapes, they read back as the same text.
    let pdn = file(
        "c1.pdn",
        "[GameType \"20\"]\n[White \"a\u{9b}2Jb\u{7f}c\u{85}d\"]\n\n1. 32-28 *\n".as_bytes(),
    );
    for args in [
        vec!["pdn", "list", "--json"],
        vec!["pdn", "check", "--json"],
        vec!["pdn", "convert", "--to", "json"],
    ] {
        let out = damspel(&[args.as_slice(), &[pdn.to_str().unwrap()]].concat());
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let raw: Vec<char> = text
            .chars()
            .filter(|c| c.is_control() && *c != '\n')
            .collect();
        assert!(raw.is_empty(), "{args:?}: {raw:?}");
        assert!(
            text.contains("a\\u009b2Jb\\u007fc\\u0085d"),
            "{args:?}: {text}"
        );
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            value.to_string().contains("a\u{9b}2Jb\u{7f}c\u{85}d"),
            "{args:?}"
        );
    }
}
