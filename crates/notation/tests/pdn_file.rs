//! Whole PDN files: every game read with its tags and tree, one error per bad game naming it
//! (number, players, event) with reading going on at the next game, encodings detected, and the
//! file's limits.

use std::sync::Arc;

use damspel_notation::pdn::{
    read_file, read_file_with, read_text, replay, write_movetext, Item, PdnErrorKind, ReadLimits,
    TextEncoding,
};
use damspel_rules::{Catalogue, Rules};

const SIX: &str = r#"[Event "Club 1"]
[White "A"]
[Black "B"]
[Result "2-0"]
1. 32-28 19-23 2. 28x19 14x23 2-0

[Event "Club 2"]
[White "C"]
[Black "D"]
1. 33-29 19-24 0-2

[Event "Club 3"]
1. 31-27 1-1
[Event "Club 4"]
1. 34-30 *
[Event "Club 5"]
1. 35-30 0-0[Event "Club 6"]
1. 32-27 1/2-1/2
"#;

/// A six-game file is six games, not its first one; every tag is kept in order.
#[test]
fn every_game_of_a_file_is_read() {
    let file = read_file(SIX.as_bytes()).unwrap();
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    assert_eq!(file.games.len(), 6);
    let events: Vec<_> = file.games.iter().map(|g| g.tag("Event").unwrap()).collect();
    assert_eq!(
        events,
        ["Club 1", "Club 2", "Club 3", "Club 4", "Club 5", "Club 6"]
    );
    let results: Vec<_> = file
        .games
        .iter()
        .map(|g| g.result.as_deref().unwrap())
        .collect();
    assert_eq!(results, ["2-0", "0-2", "1-1", "*", "0-0", "1/2-1/2"]);
    assert_eq!(
        file.games[0].tags,
        [
            ("Event", "Club 1"),
            ("White", "A"),
            ("Black", "B"),
            ("Result", "2-0")
        ]
        .map(|(n, v)| (n.to_string(), v.to_string()))
    );
    let numbers: Vec<_> = file.games.iter().map(|g| (g.number, g.line)).collect();
    assert_eq!(
        numbers,
        [(1, 1), (2, 7), (3, 12), (4, 14), (5, 16), (6, 17)]
    );
    assert_eq!(file.encoding, Some(TextEncoding::Utf8));
}

/// One bad game is one error naming it; the games after it are read.
#[test]
fn a_bad_game_is_one_error_and_reading_goes_on() {
    let text = r#"[Event "Open"]
[White "Ann"]
[Black "Bob"]
1. 32-28 19-23 2-0

[Event "Open"]
[White "Cees"]
[Black "Dirk"]
1. 32-28 {a comment never closed 19-23 2. 28x19

[Event "Open"]
[White "Eva"]
[Black "Fred"]
1. 33-29 é 1-1

[Event "Open"]
[White "Gus"]
[Black "Hans"]
1. 34-30 0-2
"#;
    let file = read_text(text, &ReadLimits::default());
    let games: Vec<_> = file
        .games
        .iter()
        .map(|g| (g.number, g.tag("White").unwrap()))
        .collect();
    assert_eq!(games, [(1, "Ann"), (4, "Gus")]);
    assert_eq!(file.errors.len(), 2, "{:?}", file.errors);
    let e = &file.errors[0];
    assert_eq!((e.number, e.line, e.error_line), (2, 6, 9));
    assert_eq!(
        e.to_string(),
        "game 2 (Cees - Dirk (Open)), line 6: a comment is not closed with } (line 9)"
    );
    let e = &file.errors[1];
    assert_eq!((e.number, e.line), (3, 11));
    assert!(
        e.to_string()
            .starts_with("game 3 (Eva - Fred (Open)), line 11: `é` is not a move"),
        "{e}"
    );
}

/// Games without tags, one after the other: an error skips to after the bad game's result.
#[test]
fn games_without_tags() {
    let file = read_text(
        "1. 32-28 2-0 1. 33-29 ) 0-2 1. 34-30 1-1",
        &ReadLimits::default(),
    );
    assert_eq!(file.games.len(), 2);
    assert_eq!(file.games[1].moves, ["34-30"]);
    assert_eq!(file.games[1].number, 3);
    assert_eq!(file.errors[0].number, 2);
}

/// A game of tags only, the next game's tags right after it (no result between: files list
/// games not played yet so): two games, each with its own tags. They were read as one game with
/// both sets of tags, its first GameType deciding the second's moves (py-draughts' International
/// fixture: 17 games read as 14).
#[test]
fn a_game_of_tags_only_and_the_next_are_two_games() {
    let file = read_text(
        "[Event \"A\"]\n[Result \"0-2\"]\n[GameType \"25\"]\n\n\
         [Event \"B\"]\n[GameType \"20\"]\n\n1. 32-28 18-23 2-0\n",
        &ReadLimits::default(),
    );
    assert_eq!(file.games.len(), 2, "{:?}", file.games);
    assert_eq!(file.games[0].tag("GameType"), Some("25"));
    assert!(file.games[0].moves.is_empty());
    assert_eq!(file.games[1].tag("Event"), Some("B"));
    assert_eq!(file.games[1].tag("GameType"), Some("20"));
    assert_eq!(file.games[1].moves, ["32-28", "18-23"]);
}

/// lidraughts writes `[FEN "?"]` when it does not know a game's start: the standard start is
/// taken (it was "bad FEN ... no piece list", and the game not replayed).
#[test]
fn an_unknown_fen_is_the_standard_start() {
    use damspel_notation::pdn::{read_game, replay};
    use damspel_rules::{Catalogue, Position, Rules};
    let game = read_game("[GameType \"20\"]\n[FEN \"?\"]\n\n1. 32-28 18-23 *").unwrap();
    assert_eq!(game.start_fen(), None);
    let variant = Catalogue::builtin().get("international").unwrap();
    let rules = std::sync::Arc::new(Rules::<u64>::new(std::sync::Arc::new(variant)).unwrap());
    let r = replay(&game, &rules);
    assert!(r.complete(), "{:?}", r.error);
    assert_eq!(r.start, Position::start(&rules));
    assert_eq!(r.plies.len(), 2);
}

/// Comments, variations, NAGs, strength marks and setups are kept as a tree.
#[test]
fn the_tree_is_kept() {
    let file = read_text(
        "{before} 1. 32-28 $1 {after} (1. 33-29 {why not} 19-24 (18-23!)) 19-23?! 2. 28x19(!) \
         /FEN \"W:W31-50:B1-20\"/ 1-0",
        &ReadLimits::default(),
    );
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    let game = &file.games[0];
    let items = &game.tree.items;
    assert_eq!(items.len(), 6, "{items:?}");
    assert_eq!(
        items[0],
        Item::Comment {
            text: "before".into()
        }
    );
    let Item::Move(first) = &items[1] else {
        panic!()
    };
    assert_eq!(first.text, "32-28");
    assert_eq!(first.number.as_deref(), Some("1."));
    assert_eq!(first.nags, ["$1"]);
    assert_eq!(
        items[2],
        Item::Comment {
            text: "after".into()
        }
    );
    // The variation follows the comment after 32-28: it replaces 32-28.
    assert_eq!(first.variations.len(), 1);
    let texts: Vec<_> = first.variations[0]
        .moves()
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(texts, ["33-29", "19-24"]);
    let Item::Move(reply) = &items[3] else {
        panic!()
    };
    assert_eq!(reply.strength.as_deref(), Some("?!"));
    let Item::Move(second) = &items[4] else {
        panic!()
    };
    assert_eq!(second.strength.as_deref(), Some("(!)"));
    assert_eq!(
        items[5],
        Item::Setup {
            fen: "W:W31-50:B1-20".into()
        }
    );
    let json = serde_json_of(game);
    assert!(json.contains("why not"), "{json}");
}

fn serde_json_of(game: &damspel_notation::pdn::PdnRead) -> String {
    serde_json::to_string(game).unwrap()
}

/// CP1251 and Latin-1 files (issue 11: "stream did not contain valid UTF-8").
#[test]
fn cp1251_and_latin1_files() {
    // [White "Иванов"] [Black "Петров"] in CP1251.
    let mut bytes = b"[White \"".to_vec();
    bytes.extend([0xC8, 0xE2, 0xE0, 0xED, 0xEE, 0xE2]);
    bytes.extend(b"\"]\n[Black \"");
    bytes.extend([0xCF, 0xE5, 0xF2, 0xF0, 0xEE, 0xE2]);
    bytes.extend(b"\"]\n1. c3-d4 f6-g5 *\n");
    let file = read_file(&bytes).unwrap();
    assert_eq!(file.encoding, Some(TextEncoding::Windows1251));
    assert_eq!(file.games[0].tag("White"), Some("Иванов"));
    assert_eq!(file.games[0].tag("Black"), Some("Петров"));
    // [White "Hervé Müller"] in Latin-1.
    let file = read_file(b"[White \"Herv\xE9 M\xFCller\"]\n1. 32-28 *\n").unwrap();
    assert_eq!(file.encoding, Some(TextEncoding::Windows1252));
    assert_eq!(file.games[0].tag("White"), Some("Hervé Müller"));
    // UTF-8 with a byte order mark.
    let file = read_file("\u{feff}[White \"Hervé\"]\n1. 32-28 *\n".as_bytes()).unwrap();
    assert_eq!(file.encoding, Some(TextEncoding::Utf8Bom));
    assert_eq!(file.games[0].tags[0].0, "White");
}

/// The game and byte limits of a file.
#[test]
fn file_limits() {
    let limits = ReadLimits {
        max_bytes: 1000,
        max_games: 4,
    };
    let file = read_file_with(SIX.as_bytes(), &limits).unwrap();
    assert_eq!(file.games.len(), 4);
    assert!(
        file.stopped.as_deref().unwrap().contains("after 4 games"),
        "{file:?}"
    );
    let e = read_file_with(&[b' '; 1001], &limits).unwrap_err();
    assert_eq!(e.kind, PdnErrorKind::TooLong);
}

/// Whether `parts` occur in `text` in this order, each after the one before.
fn in_order(text: &str, parts: &[&str]) -> bool {
    let mut at = 0;
    parts.iter().all(|p| match text[at..].find(p) {
        Some(i) => {
            at += i + p.len();
            true
        }
        None => false,
    })
}

#[test]
fn comments_and_variations_are_written_in_the_order_read() {
    // `1. 32-28 {c1} (1. 31-27 ...) 1... 19-23` was written `1. 32-28 (1. 31-27 ...) {c1} ...`:
    // the comment about 32-28 moved after the variation.
    let text = "1. 32-28 {c1} (1. 31-27 {c2} 19-23) {c3} 1... 19-23 $1 (1... 18-22) {c4} \
                (1... 17-22) 2. 28x19 14x23 *";
    let order = [
        "32-28",
        "{c1}",
        "(1. 31-27",
        "{c2}",
        "19-23)",
        "{c3}",
        "19-23 $1",
        "18-22)",
        "{c4}",
        "17-22)",
        "28x19",
    ];
    let file = read_text(text, &ReadLimits::default());
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    let game = &file.games[0];
    // As read (Line::write) and in Damspel's writing from a replay (pdn convert --to pdn).
    let mut as_read = String::new();
    game.tree.write(&mut as_read);
    assert!(in_order(&as_read, &order), "{as_read}");
    let variant = Catalogue::builtin().get("international").unwrap();
    let rules = Arc::new(Rules::<u64>::new(Arc::new(variant)).unwrap());
    let r = replay(game, &rules);
    assert!(r.error.is_none(), "{:?}", r.error);
    let moves: Vec<_> = r.plies.iter().map(|p| p.mv).collect();
    let written = write_movetext(&rules, &r.start, &game.tree, &moves);
    assert!(in_order(&written, &order), "{written}");
    // Read again (its moves numbered anew), the same order.
    let again = read_text(&format!("{written} *"), &ReadLimits::default());
    let mut again_text = String::new();
    again.games[0].tree.write(&mut again_text);
    assert!(in_order(&again_text, &order), "{again_text}");
}
