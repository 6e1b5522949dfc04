//! The PDN reader against hostile and valid input:
//!
//! * written games read back: every tag (any text in the roster's values, escaped), every move
//!   and the result, for random games of every variant, and the moves replay as the same moves;
//! * arbitrary strings, strings over the PDN alphabet and mutations of written games never make
//!   it panic; an error has a kind, a reason and an offset inside the text; whatever it accepts
//!   is bounded (moves, move length) and can be replayed without a panic;
//! * its cost is bounded: one pass, no recursion, at most `MAX_GAME_LEN` bytes of one game,
//!   `MAX_MOVES` moves and `MAX_MOVE_LEN` bytes per token, each refused with its own kind.
//!
//! A few hundred cases per property in CI; `PROPTEST_CASES=100000` for a long run.

use crate::common::Rng;
use std::sync::OnceLock;

use damspel_notation::pdn::{
    read_file, read_game, read_result, read_text, write_result, GameResult, PdnError, PdnErrorKind,
    PdnGame, PdnRead, ReadLimits, MAX_DEPTH, MAX_GAME_LEN, MAX_MOVES, MAX_MOVE_LEN,
};
use damspel_notation::{format_move, parse_fen, parse_move, write_fen};
use damspel_rules::{
    on_rules, with_rules, AnyRules, Bits, Catalogue, Color, Move, Position, Rules,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

/// Every built-in variant.
fn all_rules() -> &'static [AnyRules] {
    static RULES: OnceLock<Vec<AnyRules>> = OnceLock::new();
    RULES.get_or_init(|| {
        Catalogue::builtin()
            .variants()
            .expect("every variant checks")
            .into_iter()
            .map(|v| with_rules!(v, |rules| AnyRules::from(rules)))
            .collect()
    })
}

/// `cases` per property by default (CI); `PROPTEST_CASES=100000` for a long run.
fn config(cases: u32) -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..Config::default()
    }
}

/// A random game: a start (the variant's, or a position some plies into a game) and moves.
fn random_game<B: Bits>(
    rules: &Rules<B>,
    rng: &mut Rng,
    plies: usize,
) -> (Position<B>, Vec<Move<B>>) {
    let mut start = Position::start(rules);
    for _ in 0..rng.below(2) * rng.below(30) {
        let moves = rules.moves(&start);
        if moves.is_empty() {
            break;
        }
        start = start.play(&moves[rng.below(moves.len())]);
    }
    let mut pos = start;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = rules.moves(&pos);
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.below(legal.len())];
        pos = pos.play(&mv);
        moves.push(mv);
    }
    (start, moves)
}

// ---------------------------------------------------------------------------------------------
// Written games read back.

#[derive(Debug)]
struct Roster {
    values: [String; 6],
    result: GameResult,
    extra: Vec<(String, String)>,
}

fn round_trip<B: Bits>(
    rules: &Rules<B>,
    seed: u64,
    plies: usize,
    roster: &Roster,
) -> Result<String, TestCaseError> {
    let mut rng = Rng(seed);
    let (start, moves) = random_game(rules, &mut rng, plies);
    let [event, site, date, round, white, black] = roster.values.clone();
    let game = PdnGame {
        rules,
        event,
        site,
        date,
        round,
        white,
        black,
        result: roster.result,
        start,
        moves: moves.clone(),
        extra: roster.extra.clone(),
    };
    let text = game.to_pdn();
    let read = read_game(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    // The roster, in order, with its values exactly as given.
    let names = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
    let result = write_result(rules.variant(), roster.result);
    prop_assert_eq!(read_result(rules.variant(), result), Some(roster.result));
    for (i, name) in names.iter().enumerate() {
        let value = roster.values.get(i).map_or(result, String::as_str);
        prop_assert_eq!(
            &read.tags[i],
            &(name.to_string(), value.to_string()),
            "{}",
            text
        );
    }
    // Each name is written once (a reader takes a repeated tag for the next game's): the
    // roster and the writer's own tags stand, and of repeated extra tags the first.
    let own = ["Variant", "GameType", "SetUp", "FEN"];
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    for (i, (name, value)) in roster.extra.iter().enumerate() {
        let earlier = names.iter().chain(&own).any(|n| same(n, name))
            || roster.extra[..i].iter().any(|(n, _)| same(n, name));
        prop_assert!(
            earlier || read.tags.contains(&(name.clone(), value.clone())),
            "tag {} {:?} lost: {:?}",
            name,
            value,
            read.tags
        );
    }
    prop_assert_eq!(read.tag("Variant"), Some(rules.variant().id.as_str()));
    // The FEN tag is the start, and only written for another position than the standard one;
    // the moves are the moves, in the variant's notation.
    let g = &rules.variant().geometry;
    let mut pos = match read.tag("FEN") {
        None => Position::start(rules),
        Some(fen) => {
            prop_assert_eq!(read.tag("SetUp"), Some("1"));
            let written = write_fen(g, &start);
            prop_assert_eq!(fen, written.as_str());
            let setup = parse_fen(g, fen).map_err(|e| TestCaseError::fail(e.to_string()))?;
            Position::from_setup(rules, &setup).map_err(|e| TestCaseError::fail(e.to_string()))?
        }
    };
    prop_assert_eq!(pos, start);
    prop_assert_eq!(read.moves.len(), moves.len());
    for (text, mv) in read.moves.iter().zip(&moves) {
        prop_assert_eq!(text, &format_move(rules, &pos, mv));
        prop_assert_eq!(parse_move(rules, &pos, text), Ok(*mv));
        pos = pos.play(mv);
    }
    prop_assert_eq!(read.result.as_deref(), Some(result));
    Ok(text)
}

fn roster() -> impl Strategy<Value = Roster> {
    (
        prop::array::uniform6(prop_oneof![
            any::<String>(),
            "[\\[\\]{}()%$\"\\\\ \n\tA-Za-z0-9.*-]{0,24}",
        ]),
        prop::sample::select(vec![
            GameResult::Win(Color::White),
            GameResult::Win(Color::Black),
            GameResult::Draw,
            GameResult::Unfinished,
        ]),
        prop::collection::vec(("[A-Z][A-Za-z0-9_]{0,10}", any::<String>()), 0..3),
    )
        .prop_map(|(values, result, extra)| Roster {
            values,
            result,
            extra,
        })
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn written_games_read_back(
        which: prop::sample::Index,
        seed: u64,
        plies in 0usize..120,
        roster in roster(),
    ) {
        on_rules!(which.get(all_rules()), |rules| round_trip(rules, seed, plies, &roster))?;
    }
}

/// Extra tags that repeat the roster's, the writer's own or each other's (in any case) are
/// written once: the game still reads back whole, with its result and moves, under the first
/// value. A repeated tag would otherwise start the next game (as the server once wrote an
/// imported game's Termination beside its own).
#[test]
fn a_repeated_tag_is_written_once() {
    let roster = Roster {
        values: ["Club", "Here", "2026.11.29", "1", "Anna", "Bert"].map(str::to_string),
        result: GameResult::Win(Color::White),
        extra: vec![
            ("Termination".into(), "resigned".into()),
            ("Result".into(), "0-1".into()),
            ("white".into(), "Cees".into()),
            ("VARIANT".into(), "turkish".into()),
            ("termination".into(), "adjourned".into()),
        ],
    };
    for (i, rules) in all_rules().iter().enumerate() {
        let text = on_rules!(rules, |rules| round_trip(rules, i as u64, 20, &roster))
            .unwrap_or_else(|e| panic!("{e}"));
        let read = read_game(&text).unwrap();
        assert_eq!(read.tag("Termination"), Some("resigned"), "{text}");
        assert_eq!(read.tag("White"), Some("Anna"), "{text}");
        // Every tag line written is one of this game's tags.
        assert_eq!(read.tags.len(), text.matches("\n[").count() + 1, "{text}");
    }
}

/// Every variant, with nasty tag values, over fixed seeds.
#[test]
fn written_games_of_every_variant_read_back() {
    let nasty = [
        "Jan \"de\" Vries",
        "back\\slash\\",
        "a]b",
        "}{)(",
        "line\nbreak",
        "",
    ];
    let roster = Roster {
        values: nasty.map(str::to_string),
        result: GameResult::Draw,
        extra: vec![("Termination".into(), "time \"forfeit\" ]".into())],
    };
    for (i, rules) in all_rules().iter().enumerate() {
        on_rules!(rules, |rules| round_trip(rules, i as u64, 150, &roster))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile text.

fn check_error(text: &str, e: &PdnError) -> Result<(), TestCaseError> {
    prop_assert!(!e.reason.trim().is_empty(), "{:?}: empty reason", text);
    prop_assert!(
        e.offset <= text.len(),
        "{:?}: offset {} beyond the text",
        text,
        e.offset
    );
    prop_assert!(e.to_string().starts_with("bad PDN at character"), "{}", e);
    if e.kind == PdnErrorKind::TooLong {
        prop_assert!(text.len() > MAX_GAME_LEN, "{:?}", e);
    }
    Ok(())
}

/// What an accepted text gives is bounded and made of move characters.
fn check_read(text: &str, game: &PdnRead) -> Result<(), TestCaseError> {
    prop_assert!(game.moves.len() <= MAX_MOVES);
    for mv in &game.moves {
        prop_assert!(
            !mv.is_empty() && mv.len() <= MAX_MOVE_LEN,
            "{:?} in {:?}",
            mv,
            text
        );
        prop_assert!(
            mv.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'x' | b'X' | b':')),
            "{:?} in {:?}",
            mv,
            text
        );
    }
    for (name, _) in &game.tags {
        prop_assert!(!name.is_empty() && !name.contains(char::is_whitespace));
    }
    Ok(())
}

/// Reads `text`, and replays what it gives against `rules` as an import would: never panics.
fn import<B: Bits>(rules: &Rules<B>, text: &str) -> Result<bool, TestCaseError> {
    let game = match read_game(text) {
        Err(e) => {
            check_error(text, &e)?;
            return Ok(false);
        }
        Ok(game) => game,
    };
    check_read(text, &game)?;
    // The tree written back reads as the same game.
    let written = game.to_pdn();
    let again = read_game(&written)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text:?}\n{written:?}")))?;
    prop_assert_eq!(&again.tags, &game.tags, "{:?}", written);
    prop_assert_eq!(&again.tree, &game.tree, "{:?}", written);
    prop_assert_eq!(&again.result, &game.result, "{:?}", written);
    let g = &rules.variant().geometry;
    let mut pos = match game.tag("FEN") {
        None => Position::start(rules),
        Some(fen) => match parse_fen(g, fen)
            .ok()
            .and_then(|s| Position::from_setup(rules, &s).ok())
        {
            Some(pos) => pos,
            None => return Ok(true),
        },
    };
    for text in &game.moves {
        match parse_move(rules, &pos, text) {
            Ok(mv) => pos = pos.play(&mv),
            Err(_) => break,
        }
    }
    Ok(true)
}

/// Text-level mutations of a PDN game.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const INSERTS: [&str; 30] = [
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        "((",
        "))",
        "%",
        "$",
        "$1",
        "\"",
        "\\",
        "\\\"",
        ".",
        "...",
        "1-0",
        "*",
        "½-½",
        "\n",
        " ",
        "x",
        "-",
        "é",
        "\u{0}",
        "\u{3000}",
        "99999999999999999999",
        "[Event \"x\"]",
        "{ unclosed",
        "1. 32-28",
    ];
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(4) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[rng.below(bounds.len())];
        match rng.below(6) {
            0 => s.truncate(at),
            1 | 2 => s.insert_str(at, INSERTS[rng.below(INSERTS.len())]),
            3 => {
                if at < s.len() {
                    s.remove(at);
                }
            }
            4 => {
                let other = bounds[rng.below(bounds.len())];
                let (a, b) = (at.min(other), at.max(other));
                let slice = s[a..b].to_string();
                s.insert_str(b, &slice);
            }
            _ => {
                // A bracket run: deep nesting.
                let c = ["(", ")", "{", "}", "[", "]"][rng.below(6)];
                s.insert_str(at, &c.repeat(1 + rng.below(64)));
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        on_rules!(&all_rules()[0], |rules| import(rules, &text))?;
    }

    /// A whole file: bad games are reported and reading goes on past them, from any byte
    /// (a file starting with `é` panicked: the reader went on from inside the character).
    #[test]
    fn arbitrary_files(text in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        for file in [read_text(&text, &ReadLimits::default()), read_file(&bytes).unwrap()] {
            prop_assert!(file.games.len() + file.errors.len() <= text.len().max(bytes.len()) + 1);
        }
    }

    #[test]
    fn pdn_alphabet_strings(text in "[\\[\\]{}()%$\"\\\\ \n0-9a-hxX:*/.!?-]{0,80}") {
        on_rules!(&all_rules()[0], |rules| import(rules, &text))?;
    }

    #[test]
    fn mutated_games(which: prop::sample::Index, seed: u64, plies in 0usize..80) {
        on_rules!(which.get(all_rules()), |rules| {
            let mut rng = Rng(seed);
            let (start, moves) = random_game(rules, &mut rng, plies);
            let text = PdnGame {
                rules,
                event: "e".into(),
                site: "s".into(),
                date: "d".into(),
                round: "r".into(),
                white: "w".into(),
                black: "b".into(),
                result: GameResult::Unfinished,
                start,
                moves,
                extra: vec![],
            }
            .to_pdn();
            for _ in 0..4 {
                import(rules, &mutate(&text, &mut rng))?;
            }
            Ok::<(), TestCaseError>(())
        })?;
    }
}

// ---------------------------------------------------------------------------------------------
// Bounds and the first game.

fn kind_of(text: &str) -> PdnErrorKind {
    read_game(text).expect_err("should be refused").kind
}

/// A game longer than `MAX_GAME_LEN` bytes is refused at the cap (the rest is not scanned),
/// whatever makes it long.
/// A file whose first character is not ASCII is one unreadable game (it panicked).
#[test]
fn a_file_that_starts_inside_no_game_is_one_error() {
    for text in ["é\n", "€ 1. 32-28 *", "\u{feff}ж"] {
        let file = read_text(text, &ReadLimits::default());
        assert!(file.games.is_empty(), "{text}");
        assert_eq!(file.errors.len(), 1, "{text}");
    }
}

#[test]
fn a_game_past_the_length_cap_is_refused() {
    let big = MAX_GAME_LEN + 10;
    for text in [
        format!("1. 32-28 {{{}}} 1-0", "x".repeat(big)),
        format!("1. 32-28 {}1-0", " ".repeat(big)),
        format!("1. 32-28 {}1-0", "{c} ".repeat(big / 4)),
        format!("[Event \"{}\"]\n1. 32-28 1-0", "x".repeat(big)),
        format!("{}\n1. 32-28 1-0", "% comment\n".repeat(big / 10)),
    ] {
        let e = read_game(&text).unwrap_err();
        assert_eq!(e.kind, PdnErrorKind::TooLong, "{e}");
        assert_eq!(e.offset, MAX_GAME_LEN, "{e}");
        assert!(e.reason.contains("1048576"), "{e}");
    }
    // A long text whose first game ends before the cap is read: only that game counts.
    let two = format!("1. 32-28 1-0\n\n{}", "1. 32-28 ".repeat(big / 9));
    assert_eq!(read_game(&two).unwrap().moves, ["32-28"]);
}

/// More than `MAX_MOVES` moves, and tokens longer than `MAX_MOVE_LEN`, are refused.
#[test]
fn moves_and_tokens_are_bounded() {
    let moves = |n: usize| "32-28 28-32 ".repeat(n / 2);
    let e = read_game(&moves(MAX_MOVES + 2)).unwrap_err();
    assert_eq!(e.kind, PdnErrorKind::TooManyMoves, "{e}");
    assert!(e.reason.contains("10000"), "{e}");
    assert_eq!(read_game(&moves(MAX_MOVES)).unwrap().moves.len(), MAX_MOVES);
    let long = "32x".repeat(MAX_MOVE_LEN / 3 + 1) + "28";
    assert_eq!(
        kind_of(&format!("1. {long} 1-0")),
        PdnErrorKind::TokenTooLong
    );
    // Skipped tokens inside a variation are bounded too: nothing is kept of them.
    assert_eq!(
        kind_of(&format!("1. 32-28 ({long}) 1-0")),
        PdnErrorKind::TokenTooLong
    );
    let fits = "32x".repeat(MAX_MOVE_LEN / 3 - 1) + "28";
    assert_eq!(read_game(&format!("1. {fits} 1-0")).unwrap().moves, [fits]);
}

/// `depth` variations, each inside the one before: `(19-23 (19-23 ...))`.
fn nested(depth: usize) -> String {
    "(19-23 ".repeat(depth) + &")".repeat(depth)
}

/// Huge numbers and NAGs are read in one pass; variations nested deeper than `MAX_DEPTH` are an
/// error, not a stack overflow, however deep (100,000 and more).
#[test]
fn deep_nesting_and_huge_numbers() {
    let text = "1. 32-28 (19-23 (18-23) 20-24) 99999999999999999999. 33-29 $99999999999999999999 \
         18446744073709551616...14-19!? 1-0";
    let game = read_game(text).unwrap();
    assert_eq!(game.moves, ["32-28", "33-29", "14-19"]);
    assert_eq!(game.result.as_deref(), Some("1-0"));
    for depth in [MAX_DEPTH + 1, 100_000, 200_000] {
        let text = format!("1. 32-28 {} 1-0", nested(depth));
        let e = read_game(&text).unwrap_err();
        assert_eq!(e.kind, PdnErrorKind::TooDeep, "{e}");
    }
    let fits = format!("1. 32-28 {} 1-0", nested(MAX_DEPTH));
    assert_eq!(read_game(&fits).unwrap().moves, ["32-28"]);
    let e = read_game(&"(".repeat(10)).unwrap_err();
    assert_eq!(e.kind, PdnErrorKind::Syntax);
}

/// Only the first game of a text is read: what follows its result (or the next game's tags)
/// does not matter, even when it is broken.
#[test]
fn only_the_first_game_is_read() {
    let game =
        read_game("[Event \"a\"]\n1. 32-28 1-0\n\n[Event \"b\"]\n1. 33-29 {never closed").unwrap();
    assert_eq!(game.moves, ["32-28"]);
    assert_eq!(game.result.as_deref(), Some("1-0"));
    assert_eq!(game.tags, [("Event".to_string(), "a".to_string())]);
    // A game without a result ends where the next game's tags begin.
    let game = read_game("[Event \"a\"]\n1. 32-28\n\n[Event \"b\"]\n1. 33-29 *").unwrap();
    assert_eq!(game.moves, ["32-28"]);
    assert_eq!(game.result, None);
}

/// Tag values may hold `]`, escaped quotes and backslashes (the writer escapes `"` and `\`).
#[test]
fn tag_values_are_unescaped() {
    let game = read_game(
        "[Event \"a]b\"]\n[White \"Jan \\\"de\\\" Vries\"]\n[Black \"C:\\\\dir\\\\\"]\n[Site \"x\\ny\"]\n*",
    )
    .unwrap();
    assert_eq!(
        game.tags,
        [
            ("Event".to_string(), "a]b".to_string()),
            ("White".to_string(), "Jan \"de\" Vries".to_string()),
            ("Black".to_string(), "C:\\dir\\".to_string()),
            ("Site".to_string(), "x\\ny".to_string()),
        ]
    );
    for bad in [
        "[Event \"x\"",
        "[Event x]",
        "[\"x\"]",
        "[Event]",
        "[Event \"x\" y]",
        "[Event \"x\\\"]",
        "[",
    ] {
        assert_eq!(kind_of(bad), PdnErrorKind::Syntax, "{bad}");
    }
}

/// Found by `pdn_alphabet_strings`: a variation that holds only a strength mark was written
/// `(?)`, which reads back as the mark of the move before it, not as a variation.
#[test]
fn a_variation_of_only_a_mark_reads_back_as_a_variation() {
    let text = "a\n$\n(.?){}$";
    let game = read_game(text).expect("reads");
    let written = game.to_pdn();
    let again = read_game(&written).expect("reads back");
    assert_eq!(again.tree, game.tree, "{written:?}");
}
