//! The inputs issue 11's interop test found refused though valid, each quoted from the issue and
//! read as lidraughts, pydraughts and CheckerBoard read them. Expected moves come from the text
//! itself (what a player reads), not from the reader.

use damspel_notation::pdn::read_game;

fn moves(text: &str) -> Vec<String> {
    read_game(text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .moves
}

/// Turbo Dambase pads columns: blanks after the separator (`1- 7`) and around `x`.
#[test]
fn turbo_dambase_column_padding() {
    assert_eq!(
        moves("1. 32-28 19-23 2. 37-32 14-19 3. 41-37  1- 7 *"),
        ["32-28", "19-23", "37-32", "14-19", "41-37", "1-7"]
    );
    assert_eq!(
        moves("1. 32-28 19-23 2.28 x19 14 x23 *"),
        ["32-28", "19-23", "28x19", "14x23"]
    );
    assert_eq!(moves("2.28 x17 11 x22 *"), ["28x17", "11x22"]);
    assert_eq!(moves("1. 32 - 28 19 -23 *"), ["32-28", "19-23"]);
}

/// `]` (and `[`) inside a quoted tag value.
#[test]
fn bracket_inside_a_tag_value() {
    let game = read_game("[Event \"Weekly Arena [4/4]\"]\n[White \"a\"]\n1. 32-28 *").unwrap();
    assert_eq!(game.tag("Event"), Some("Weekly Arena [4/4]"));
    assert_eq!(game.tag("White"), Some("a"));
    assert_eq!(game.moves, ["32-28"]);
}

/// Every result the PDN tag pages allow ends the game: the standard ones, the International
/// ones, and any other value the Result tag gives (ResultFormat `Goes`, `Delfts`, `Plus draw`, a
/// match score like `4-6`).
#[test]
fn any_result_the_tag_pages_allow() {
    for result in [
        "1-0", "0-1", "1/2-1/2", "2-0", "1-1", "0-2", "0-0", "*", "½-½",
    ] {
        let game = read_game(&format!("1. 32-28 19-23 {result}")).unwrap();
        assert_eq!(game.result.as_deref(), Some(result));
        assert_eq!(game.moves, ["32-28", "19-23"]);
    }
    for result in ["4-6", "1.01-0.99", "-0.98-1.02", "1 1/2 - 1/2", "1+ - 1-"] {
        let text = format!("[Result \"{result}\"]\n1. 32-28 19-23 {result}\n");
        let game = read_game(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(game.result.as_deref(), Some(result), "{text}");
        assert_eq!(game.moves, ["32-28", "19-23"], "{text}");
    }
    // A decimal score is a result even without the tag: it cannot be a move.
    let game = read_game("1. 32-28 1.01-0.99").unwrap();
    assert_eq!(game.result.as_deref(), Some("1.01-0.99"));
}

/// A result glued to the next game's tags.
#[test]
fn result_glued_to_the_next_tag() {
    let game = read_game("[Event \"a\"]\n1. 32-28 19-23 0-1[Event \"b\"]\n1. 33-29 *").unwrap();
    assert_eq!(game.result.as_deref(), Some("0-1"));
    assert_eq!(game.moves, ["32-28", "19-23"]);
}

/// Algebraic moves without a separator.
#[test]
fn moves_without_a_separator() {
    assert_eq!(
        moves("1. c3d4 f6e5 2. d4xf6 *"),
        ["c3-d4", "f6-e5", "d4xf6"]
    );
    assert_eq!(moves("1. c3d4 f6e5 2. d4f6 *"), ["c3-d4", "f6-e5", "d4-f6"]);
    assert_eq!(moves("1. c3e5g7 *"), ["c3xe5xg7"]);
}

/// The PDN 3.0 setup command `/FEN "..."/` inside move text.
#[test]
fn setup_command_in_move_text() {
    let game = read_game(
        "1.31-26 17-21 /FEN \"B:B1-16,18-21:W26,28,33-50\"/\n\
         { White forgot to make a capture } 2. 21x32 *",
    )
    .unwrap();
    assert_eq!(game.moves, ["31-26", "17-21", "21x32"]);
    assert_eq!(game.result.as_deref(), Some("*"));
}

/// Russian short notation (the 1998 world championship's file: `1. ed4 dc5 ...`): the file a
/// move starts on and its end, captures alike. The same opening in full notation, worked out
/// from the start position: White's e3, Black's d6, ...; 4. d4xb6 takes c5, a5xc7 takes b6.
#[test]
fn russian_short_notation_replays_as_the_full_moves() {
    use damspel_notation::pdn::replay;
    use damspel_rules::{Catalogue, Rules};
    let rules = std::sync::Arc::new(
        Rules::<u64>::new(std::sync::Arc::new(
            Catalogue::builtin().get("russian").unwrap(),
        ))
        .unwrap(),
    );
    let played = |text: &str| {
        let r = replay(&read_game(text).unwrap(), &rules);
        assert!(r.complete(), "{text}: {:?}", r.error);
        r.plies.iter().map(|p| p.mv).collect::<Vec<_>>()
    };
    let short = played("[GameType \"25\"]\n1. ed4 dc5 2. fe3 cd6 3. cb4 ba5 4. db6 ac7 *");
    let full =
        played("[GameType \"25\"]\n1. e3-d4 d6-c5 2. f2-e3 c7-d6 3. c3-b4 b6-a5 4. d4xb6 a5xc7 *");
    assert_eq!(short, full);
    // A file and a square no move joins is an error that says how it was read.
    let r = replay(&read_game("[GameType \"25\"]\n1. ad4 *").unwrap(), &rules);
    let e = r.error.expect("no move from the a-file to d4");
    assert!(e.reason.contains("short notation"), "{e}");
}
