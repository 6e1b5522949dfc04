//! Malformed input never panics and is answered with an error that says what is wrong.
//!
//! * `parse_fen` on the four board geometries (8x8 all squares, 8x8 dark, 10x10 dark, 10x10
//!   all squares) with arbitrary strings, strings over the FEN alphabet, mutations of valid FENs
//!   (truncation, inserted bytes, unicode, huge numbers, empty list items, `:` runs, ...) and a
//!   hand-written list of nasty inputs;
//! * `parse_move_text` and `parse_move` likewise;
//! * `Position::from_setup` with pieces off the board or on light squares, two pieces on a square,
//!   men on their promotion squares and an unknown side to move: an error listing every issue.

use crate::common::Rng;
use std::sync::OnceLock;

use damspel_notation::{
    parse_fen, parse_move, parse_move_text, write_fen, FenError, FenErrorKind, MoveTextError,
    MAX_FEN_LEN,
};
use damspel_rules::{
    on_rules, with_rules, AnyRules, Bits, Catalogue, Color, Geometry, Piece, Position,
    PositionError, Rules, Setup, SetupIssue, Square,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

/// One variant per board geometry.
const TURKISH_10X10: &str = r#"
id = "test-turkish-10x10"
extends = "turkish"
name = "Turkish draughts on 10x10"
aliases = []
block = "x"
description = "Turkish rules on a 10x10 board of all squares."

[board]
width = 10
height = 10
"#;

/// Turkish (8x8 all), American (8x8 dark), International (10x10 dark), Turkish 10x10 (all).
fn boards() -> &'static [AnyRules] {
    static RULES: OnceLock<Vec<AnyRules>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut catalogue = Catalogue::builtin();
        catalogue
            .add_source("test-turkish-10x10.toml", TURKISH_10X10)
            .unwrap();
        ["turkish", "american", "international", "test-turkish-10x10"]
            .iter()
            .map(|id| with_rules!(catalogue.get(id).unwrap(), |rules| AnyRules::from(rules)))
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

fn geometry<B: Bits>(rules: &Rules<B>) -> &Geometry {
    &rules.variant().geometry
}

/// A random position along a random game.
fn some_position<B: Bits>(rules: &Rules<B>, rng: &mut Rng, plies: usize) -> Position<B> {
    let mut pos = Position::start(rules);
    for _ in 0..plies {
        let moves = rules.moves(&pos);
        if moves.is_empty() {
            break;
        }
        pos = pos.play(&moves[rng.below(moves.len())]);
    }
    pos
}

// ---------------------------------------------------------------------------------------------
// FEN.

fn check_fen_error(text: &str, e: &FenError) -> Result<(), TestCaseError> {
    prop_assert!(!e.reason.trim().is_empty(), "`{text}`: empty reason");
    prop_assert!(
        e.offset <= text.len(),
        "`{text:?}`: offset {} beyond the text",
        e.offset
    );
    let msg = e.to_string();
    prop_assert!(msg.starts_with("bad FEN at character"), "{msg}");
    // The cap is checked first: every text above it is refused for its length, none below.
    prop_assert_eq!(
        e.kind == FenErrorKind::TooLong,
        text.len() > MAX_FEN_LEN,
        "{:?}",
        e
    );
    Ok(())
}

/// Parses `text` on the variant's board: never panics; an error is explained; an accepted
/// setup either checks (and its canonical FEN reads back as the same position) or its every
/// issue is listed.
fn fen_outcome<B: Bits>(rules: &Rules<B>, text: &str) -> Result<Outcome, TestCaseError> {
    let g = geometry(rules);
    let setup = match parse_fen(g, text) {
        Err(e) => {
            check_fen_error(text, &e)?;
            return Ok(Outcome::Rejected);
        }
        Ok(setup) => setup,
    };
    // Repeated ranges never grow a setup beyond the board.
    prop_assert!(
        setup.pieces.len() <= g.len(),
        "`{text:?}`: {} pieces on {} squares",
        setup.pieces.len(),
        g.len()
    );
    match Position::from_setup(rules, &setup) {
        Ok(pos) => {
            let canonical = write_fen(g, &pos);
            let again = parse_fen(g, &canonical)
                .map_err(|e| TestCaseError::fail(format!("`{canonical}`: {e}")))?;
            prop_assert_eq!(Position::from_setup(rules, &again).ok(), Some(pos));
            Ok(Outcome::Position)
        }
        Err(e) => {
            check_position_error(rules, &setup, &e)?;
            Ok(Outcome::IllegalPosition)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Rejected,
    IllegalPosition,
    Position,
}

/// Text-level mutations of a valid FEN or move text.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const INSERTS: [&str; 28] = [
        ":",
        ",",
        "-",
        "K",
        "k",
        "W",
        "B",
        "?",
        ".",
        "\"",
        " ",
        "0",
        "9",
        "x",
        "é",
        "😀",
        "\u{0}",
        "\u{200b}",
        "\t",
        "99999999999999999999",
        "18446744073709551616",
        "340282366920938463463374607431768211456",
        "H0",
        ":H0:F1",
        ",,",
        ":::",
        "-,-",
        "a99999999999999999999",
    ];
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[rng.below(bounds.len())];
        match rng.below(8) {
            0 => s.truncate(at),
            1 | 2 => s.insert_str(at, INSERTS[rng.below(INSERTS.len())]),
            3 => {
                if at < s.len() {
                    s.remove(at);
                }
            }
            4 => {
                // Duplicate a slice.
                let other = bounds[rng.below(bounds.len())];
                let (a, b) = (at.min(other), at.max(other));
                let slice = s[a..b].to_string();
                s.insert_str(b, &slice);
            }
            5 => {
                // A digit run becomes a huge number.
                if let Some(start) = s.find(|c: char| c.is_ascii_digit()) {
                    let end = s[start..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(s.len(), |e| start + e);
                    s.replace_range(start..end, "99999999999999999999");
                }
            }
            6 => {
                // Change the case of a character.
                if let Some(c) = s[at..].chars().next() {
                    let swapped: String = if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase().to_string()
                    } else {
                        c.to_ascii_uppercase().to_string()
                    };
                    s.replace_range(at..at + c.len_utf8(), &swapped);
                }
            }
            _ => {
                // A run of one separator.
                let sep = [":", ",", "-", "x"][rng.below(4)];
                s.insert_str(at, &sep.repeat(1 + rng.below(4)));
            }
        }
    }
    s
}

const NASTY_FENS: &[&str] = &[
    "",
    " ",
    "\n",
    ".",
    ":",
    "::",
    ":::::::::",
    "\"",
    "\"\"",
    "\"\".",
    "\"W:W1\"\"",
    "W",
    "W.",
    "W:",
    "W::",
    "W:W",
    "W:B",
    "W:W:B",
    "W:W:W",
    "W:W1:W2",
    "?",
    "?:W1",
    "X:W1",
    "WB:W1",
    "W:X1",
    "W:H",
    "W:H0",
    "W:F1:H0",
    "W:Hx",
    "W:W1:H",
    "W:W1:H-1",
    "W:W1:Hé",
    "W:W,",
    "W:W,1",
    "W:W1,",
    "W:W1,,2",
    "W:W1, ,2",
    "W:W-",
    "W:W1-",
    "W:W-1",
    "W:W1--2",
    "W:W1-2-3",
    "W:W3-1",
    "W:WK",
    "W:WKK1",
    "W:WK-1",
    "W:W0",
    "W:W00",
    "W:W-0",
    "W:W51",
    "W:W1000",
    "W:W99999999999999999999",
    "W:W1-99999999999999999999",
    "W:W99999999999999999999-1",
    "W:W18446744073709551615",
    "W:W18446744073709551616",
    "W:Wa99999999999999999999",
    "W:Wa-1",
    "W:Wa0",
    "W:Wz1",
    "W:Wa",
    "W:W1a",
    "W:Waa1",
    "W:W@1",
    "W:W`1",
    "W:W{1",
    "W:W1é",
    "W:Wé",
    "é",
    "W:W1:B😀",
    "W:W\u{0}",
    "\u{feff}W:W1",
    "\u{3000}W:W1\u{3000}",
    "W:W1\u{200b}",
    "W:W1.:B2",
    "W:W1..",
    "W:W1:B1",
    "W:W1,1",
    "W:W1-5,3",
    "W:WK1-K3",
    "W:Wa1-c1",
    "W:Wa1-3",
    "W:W1-a3",
    "W:W 1 - 3",
    "W:W1 2",
    "W:W1;B2",
    "W:W1:B2:",
    ":W1:B2",
    "W:W1:B2:X3",
];

#[test]
fn nasty_fens_are_explained() {
    let mut outcomes = [0usize; 3];
    for rules in boards() {
        on_rules!(rules, |rules| {
            for text in NASTY_FENS {
                match fen_outcome(rules, text) {
                    Ok(o) => outcomes[o as usize] += 1,
                    Err(e) => panic!("{}: `{text}`: {e}", rules.variant().id),
                }
            }
        });
    }
    eprintln!(
        "nasty_fens: {} texts x {} boards: {outcomes:?} (rejected, illegal position, position)",
        NASTY_FENS.len(),
        boards().len()
    );
    // Most are rejected; the few valid ones are fine.
    assert!(outcomes[0] > outcomes[2]);
}

#[test]
fn huge_numbers_are_not_squares() {
    for rules in boards() {
        on_rules!(rules, |rules| {
            let g = geometry(rules);
            // The offending item is quoted in the reason.
            for number in [
                "99999999999999999999",
                "a99999999999999999999",
                "a18446744073709551617",
                "a4294967297",
                "a4294967296",
            ] {
                let text = format!("W:W{number}");
                let e = parse_fen(g, &text).expect_err(&text);
                assert!(e.reason.contains(number), "{text}: {e}");
                assert_eq!(e.offset, 3, "{text}: {e}");
            }
            for text in ["W:W1-99999999999999999999", "W:W99999999999999999999-1"] {
                parse_fen(g, text).expect_err(text);
            }
        });
    }
}

/// Issue 10, finding 8: a 1 MiB FEN of repeated ranges (`W:W1-50,1-50,...`) was expanded into
/// ten million pieces (1-2 s and 220 MB in the server; 690 MB here). It is refused for its
/// length before any of it is read.
#[test]
fn a_megabyte_fen_is_refused_before_it_is_read() {
    for rules in boards() {
        on_rules!(rules, |rules| {
            let g = geometry(rules);
            let range = if g.numeric_names() { "1-30," } else { "a1," };
            let mut text = String::from("W:W");
            while text.len() < 1 << 20 {
                text.push_str(range);
            }
            text.push_str("1:B");
            let e = parse_fen(g, &text).expect_err("a 1 MiB FEN");
            assert_eq!(e.kind, FenErrorKind::TooLong, "{e}");
            assert!(e.reason.contains("at most 4096"), "{e}");
            assert!(e.reason.contains(&text.len().to_string()), "{e}");
        });
    }
}

/// Below the length cap, ranges that repeat or overlap are refused once the lists name more
/// pieces than the board has squares, before the range that goes over is expanded.
#[test]
fn repeated_ranges_are_refused_before_they_are_expanded() {
    let rules = &boards()[2];
    on_rules!(rules, |rules| {
        let g = geometry(rules);
        assert_eq!(g.len(), 50);
        // 800 copies of 1-50 fit in 4 KiB: forty thousand pieces on a board of fifty squares.
        let text = format!("W:W{}:B", vec!["1-50"; 800].join(","));
        assert!(text.len() <= MAX_FEN_LEN);
        let e = parse_fen(g, &text).expect_err("forty thousand pieces");
        assert_eq!(e.kind, FenErrorKind::TooManyPieces, "{e}");
        assert!(e.reason.contains("50 squares"), "{e}");
        // The second list goes over: the error points at its first item (offset of `1-50`).
        assert_eq!(e.offset, 8, "{e}");
        let e = parse_fen(g, "W:W1-30:B21-50").expect_err("sixty pieces");
        assert_eq!(e.kind, FenErrorKind::TooManyPieces, "{e}");
        assert_eq!(e.offset, 9, "{e}");
        // Exactly a full board reads (and is then checked by the rules); a small overlap still
        // reaches the rules, which name the square given twice.
        assert_eq!(parse_fen(g, "W:W1-25:B26-50").unwrap().pieces.len(), 50);
        let setup = parse_fen(g, "W:W31-50,50:B1-20").unwrap();
        let e = Position::from_setup(rules, &setup).unwrap_err();
        assert!(e.to_string().contains("square 50 is given twice"), "{e}");
    });
}

/// The longest canonical FEN of a full board (every square taken, colours and kinds alternating,
/// so no ranges) fits the cap on every board shape, up to 128 squares.
#[test]
fn the_longest_fen_fits_the_cap() {
    let mut catalogue = Catalogue::builtin();
    let shapes = [
        ("turkish", 16, 8),
        ("turkish", 11, 11),
        ("turkish", 10, 10),
        ("international", 14, 16),
        ("international", 10, 10),
    ];
    let mut longest = 0;
    for (i, (parent, w, h)) in shapes.iter().enumerate() {
        let id = format!("shape-{i}");
        let text = format!(
            "id = \"{id}\"\nname = \"x\"\nextends = \"{parent}\"\n[board]\nwidth = {w}\nheight = {h}\n\
             [setup]\nwhite = {{ ranks = [1] }}\n"
        );
        catalogue.add_source("shape.toml", &text).unwrap();
        let v = catalogue.get(&id).unwrap();
        with_rules!(v, |rules| {
            let g = geometry(&rules);
            let pieces = g
                .all_squares()
                .iter()
                .enumerate()
                .map(|(n, &sq)| {
                    let color = if n % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    (sq, Piece { color, king: true })
                })
                .collect();
            let setup = Setup {
                side_to_move: Some(Color::White),
                pieces,
            };
            let pos = Position::from_setup(&rules, &setup).unwrap();
            let fen = write_fen(g, &pos);
            longest = longest.max(fen.len());
            assert_eq!(parse_fen(g, &fen).unwrap().pieces.len(), g.len());
        });
    }
    eprintln!("the longest full-board FEN: {longest} bytes (cap {MAX_FEN_LEN})");
    assert!(longest < 700, "{longest}");
}

#[test]
fn light_squares_in_a_fen_are_named() {
    let rules = &boards()[1];
    on_rules!(rules, |rules| {
        let e = parse_fen(geometry(rules), "W:Wa2:B1").unwrap_err();
        assert!(
            e.to_string().contains("a2") && e.reason.contains("light square"),
            "{e}"
        );
        assert_eq!(e.offset, 3, "{e}");
    });
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn arbitrary_strings_are_not_fens(text in any::<String>()) {
        for rules in boards() {
            on_rules!(rules, |rules| fen_outcome(rules, &text))?;
        }
    }

    #[test]
    fn fen_alphabet_strings(text in "[WBwbKk?:,.\"0-9a-kHF -]{0,40}") {
        for rules in boards() {
            on_rules!(rules, |rules| fen_outcome(rules, &text))?;
        }
    }

    #[test]
    fn mutated_fens(which: prop::sample::Index, seed: u64, plies in 0usize..60) {
        let rules = which.get(boards());
        on_rules!(rules, |rules| {
            let mut rng = Rng(seed);
            let pos = some_position(rules, &mut rng, plies);
            let fen = write_fen(geometry(rules), &pos);
            for _ in 0..8 {
                let text = mutate(&fen, &mut rng);
                fen_outcome(rules, &text)?;
            }
            Ok::<(), TestCaseError>(())
        })?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A valid FEN with its lists repeated, below and above the length cap: refused for its
    /// length above it, for too many pieces once the lists outgrow the board, and otherwise
    /// read (repeated squares are then named by the rules).
    #[test]
    fn repeated_lists(which: prop::sample::Index, seed: u64, plies in 0usize..60, copies in 1usize..600) {
        let rules = which.get(boards());
        on_rules!(rules, |rules| {
            let g = geometry(rules);
            let pos = some_position(rules, &mut Rng(seed), plies);
            let fen = write_fen(g, &pos);
            let mut fields = fen.split(':');
            let side = fields.next().unwrap();
            let lists: Vec<&str> = fields.collect();
            let text = format!(
                "{side}:{}",
                lists
                    .iter()
                    .map(|l| {
                        let (color, items) = l.split_at(1);
                        let items = if items.is_empty() {
                            String::new()
                        } else {
                            vec![items; copies].join(",")
                        };
                        format!("{color}{items}")
                    })
                    .collect::<Vec<_>>()
                    .join(":")
            );
            let pieces = pos.occupied().count() as usize;
            match parse_fen(g, &text) {
                Ok(setup) => {
                    prop_assert!(pieces * copies <= g.len() || pieces == 0);
                    prop_assert_eq!(setup.pieces.len(), pieces * copies);
                }
                Err(e) if text.len() > MAX_FEN_LEN => prop_assert_eq!(e.kind, FenErrorKind::TooLong),
                Err(e) => {
                    prop_assert_eq!(e.kind, FenErrorKind::TooManyPieces, "{}", e);
                    prop_assert!(pieces * copies > g.len());
                }
            }
            fen_outcome(rules, &text).map(|_| ())
        })?;
    }
}

/// The same mutations over fixed seeds, with figures.
#[test]
fn mutated_fen_sweep() {
    let mut outcomes = [0usize; 3];
    for rules in boards() {
        on_rules!(rules, |rules| {
            for seed in 0..300u64 {
                let mut rng = Rng(seed);
                let pos = some_position(rules, &mut rng, seed as usize % 50);
                let fen = write_fen(geometry(rules), &pos);
                let text = mutate(&fen, &mut rng);
                match fen_outcome(rules, &text) {
                    Ok(o) => outcomes[o as usize] += 1,
                    Err(e) => panic!("{}: `{text}`: {e}", rules.variant().id),
                }
            }
        });
    }
    eprintln!("mutated_fen_sweep: {outcomes:?} (rejected, illegal position, position)");
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}

// ---------------------------------------------------------------------------------------------
// Move text.

fn check_move_text_error(text: &str, e: &MoveTextError) -> Result<(), TestCaseError> {
    let msg = e.to_string();
    prop_assert!(!msg.trim().is_empty());
    match e {
        MoveTextError::Syntax { offset, reason } => {
            prop_assert!(!reason.trim().is_empty(), "`{text}`: empty reason");
            prop_assert!(
                *offset <= text.len(),
                "`{text:?}`: offset {offset} beyond the text"
            );
        }
        MoveTextError::Illegal { hint, .. } => {
            prop_assert!(!hint.trim().is_empty(), "`{text}`: empty hint");
        }
        MoveTextError::Ambiguous { candidates, .. } => {
            prop_assert!(candidates.len() >= 2, "`{text}`: {msg}");
        }
        MoveTextError::Stopped { .. } => {
            prop_assert!(false, "`{text}`: a parse without a stop condition stopped");
        }
    }
    Ok(())
}

/// `parse_move_text` and `parse_move` on `text`: never panic, explain an error, and accept only
/// legal moves.
fn move_outcome<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
) -> Result<bool, TestCaseError> {
    let g = geometry(rules);
    match parse_move_text(g, text) {
        Err(e) => {
            check_move_text_error(text, &e)?;
            prop_assert!(matches!(e, MoveTextError::Syntax { .. }), "{e:?}");
        }
        Ok(parsed) => {
            prop_assert!(parsed.squares.len() >= 2);
            prop_assert!(parsed.squares.iter().all(|&s| g.contains(s)));
        }
    }
    match parse_move(rules, pos, text) {
        Err(e) => {
            check_move_text_error(text, &e)?;
            Ok(false)
        }
        Ok(mv) => {
            prop_assert!(
                rules.moves(pos).contains(&mv),
                "`{text}` read as an illegal move"
            );
            Ok(true)
        }
    }
}

const NASTY_MOVES: &[&str] = &[
    "",
    " ",
    "-",
    "x",
    "X",
    ":",
    "xx",
    "--",
    "1",
    "a1",
    "1-",
    "-1",
    "1x",
    "x1",
    "1--2",
    "1xx2",
    "1-x2",
    "1x-2",
    "1:-2",
    "1-2-3",
    "1x2-3",
    "1-2x3",
    "1 - 2",
    "1 -2",
    "0-1",
    "1-0",
    "1/2-1/2",
    "*",
    "99999999999999999999-1",
    "1-99999999999999999999",
    "a99999999999999999999-a1",
    "a1-a99999999999999999999",
    "18446744073709551616x1",
    "a0-a1",
    "z1-z2",
    "aa1-a2",
    "1a-2a",
    "a-b",
    "a1a2",
    "a1xa",
    "xa1-a2",
    "a1-a2x",
    "é-1",
    "1-é",
    "١-٢",
    "1\u{0}-2",
    "1-2\u{200b}",
    "😀",
    "32-28!",
    "32-28?",
    "32-28.",
    "1.32-28",
    "32–28",
    "d3-d4 d4-d5",
];

#[test]
fn nasty_move_texts_are_explained() {
    let mut accepted = 0;
    for rules in boards() {
        on_rules!(rules, |rules| {
            let mut rng = Rng(7);
            for pos in [Position::start(rules), some_position(rules, &mut rng, 20)] {
                for text in NASTY_MOVES {
                    match move_outcome(rules, &pos, text) {
                        Ok(ok) => accepted += usize::from(ok),
                        Err(e) => panic!("{}: `{text}`: {e}", rules.variant().id),
                    }
                }
            }
        });
    }
    assert_eq!(accepted, 0, "a nasty move text was accepted");
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn arbitrary_strings_are_not_moves(text in any::<String>(), plies in 0usize..30, seed: u64) {
        for rules in boards() {
            on_rules!(rules, |rules| {
                let pos = some_position(rules, &mut Rng(seed), plies);
                move_outcome(rules, &pos, &text)
            })?;
        }
    }

    #[test]
    fn move_alphabet_strings(
        text in "[0-9a-kxX: -]{0,16}",
        plies in 0usize..30,
        seed: u64,
    ) {
        for rules in boards() {
            on_rules!(rules, |rules| {
                let pos = some_position(rules, &mut Rng(seed), plies);
                move_outcome(rules, &pos, &text)
            })?;
        }
    }

    /// Mutations of legal move texts.
    #[test]
    fn mutated_move_texts(which: prop::sample::Index, seed: u64, plies in 0usize..60) {
        let rules = which.get(boards());
        on_rules!(rules, |rules| {
            let mut rng = Rng(seed);
            let pos = some_position(rules, &mut rng, plies);
            let legal = rules.legal_moves_detailed(&pos, damspel_rules::Duplicates::Merge);
            if legal.is_empty() {
                return Ok(());
            }
            let g = geometry(rules);
            let text = damspel_notation::full_path(g, &legal[rng.below(legal.len())]);
            for _ in 0..8 {
                let mutated = mutate(&text, &mut rng);
                move_outcome(rules, &pos, &mutated)?;
            }
            Ok::<(), TestCaseError>(())
        })?;
    }
}

// ---------------------------------------------------------------------------------------------
// Position::from_setup.

/// The issues `from_setup` must report for a setup, computed independently.
fn expected_issues<B: Bits>(rules: &Rules<B>, setup: &Setup) -> Vec<SetupIssue> {
    let g = geometry(rules);
    let mut issues = Vec::new();
    if setup.side_to_move.is_none() {
        issues.push(SetupIssue::UnknownSideToMove);
    }
    let mut taken = Vec::new();
    for &(sq, piece) in &setup.pieces {
        if !g.contains(sq) {
            issues.push(SetupIssue::NotOnBoard(sq));
            continue;
        }
        if taken.contains(&sq) {
            issues.push(SetupIssue::Occupied { square: g.name(sq) });
            continue;
        }
        taken.push(sq);
        if !piece.king && rules.promotion_squares(piece.color).has(sq.0) {
            issues.push(SetupIssue::ManOnPromotionSquare {
                square: g.name(sq),
                color: piece.color,
            });
        }
    }
    issues
}

fn sorted(issues: &[SetupIssue]) -> Vec<String> {
    let mut out: Vec<String> = issues.iter().map(|i| format!("{i:?}")).collect();
    out.sort();
    out
}

fn check_position_error<B: Bits>(
    rules: &Rules<B>,
    setup: &Setup,
    e: &PositionError,
) -> Result<(), TestCaseError> {
    prop_assert!(!e.issues.is_empty(), "an error without issues");
    prop_assert_eq!(sorted(&e.issues), sorted(&expected_issues(rules, setup)));
    let msg = e.to_string();
    prop_assert!(msg.starts_with("illegal position: "), "{msg}");
    for issue in &e.issues {
        prop_assert!(
            msg.contains(&issue.to_string()),
            "{msg} does not list {issue}"
        );
    }
    Ok(())
}

/// `from_setup` accepts exactly the setups without issues and lists every issue otherwise.
fn setup_outcome<B: Bits>(rules: &Rules<B>, setup: &Setup) -> Result<bool, TestCaseError> {
    let expected = expected_issues(rules, setup);
    match Position::from_setup(rules, setup) {
        Ok(pos) => {
            prop_assert!(expected.is_empty(), "accepted despite {expected:?}");
            prop_assert_eq!(pos.occupied().count() as usize, setup.pieces.len());
            prop_assert_eq!(pos.hash(), pos.compute_hash());
            Ok(true)
        }
        Err(e) => {
            check_position_error(rules, setup, &e)?;
            Ok(false)
        }
    }
}

#[test]
fn every_setup_issue_is_listed() {
    // American checkers: 8x8 dark, 36 layout bits of which 32 are squares.
    let rules = &boards()[1];
    on_rules!(rules, |rules| {
        let g = geometry(rules);
        let ghosts: Vec<Square> = (0..g.bits() as u8)
            .map(Square)
            .filter(|&s| !g.contains(s))
            .collect();
        assert!(
            !ghosts.is_empty(),
            "a dark board has light (ghost) layout bits"
        );
        let sq = |n: usize| g.numbered(n).unwrap();
        let man = |color| Piece { color, king: false };
        let setup = Setup {
            side_to_move: None,
            pieces: vec![
                (ghosts[0], man(Color::White)),
                (Square(200), man(Color::Black)),
                (Square(255), Piece::king(Color::White)),
                (sq(10), man(Color::White)),
                (sq(10), Piece::king(Color::Black)),
                // White promotes on 1-4, Black on 29-32.
                (sq(2), man(Color::White)),
                (sq(30), man(Color::Black)),
                // Kings there are fine, and so are men on the other side's promotion squares.
                (sq(3), Piece::king(Color::White)),
                (sq(31), man(Color::White)),
            ],
        };
        let e = Position::from_setup(rules, &setup).unwrap_err();
        let msg = e.to_string();
        assert_eq!(e.issues.len(), 7, "{msg}");
        assert!(e.issues.contains(&SetupIssue::UnknownSideToMove), "{msg}");
        assert!(
            e.issues.contains(&SetupIssue::NotOnBoard(ghosts[0])),
            "{msg}"
        );
        assert!(
            e.issues.contains(&SetupIssue::NotOnBoard(Square(200))),
            "{msg}"
        );
        assert!(
            e.issues.contains(&SetupIssue::NotOnBoard(Square(255))),
            "{msg}"
        );
        assert!(msg.contains("square 10 is given twice"), "{msg}");
        assert!(msg.contains("white man stands on 2"), "{msg}");
        assert!(msg.contains("black man stands on 30"), "{msg}");
        assert!(msg.contains("side to move is unknown"), "{msg}");
        check_position_error(rules, &setup, &e).unwrap();

        // Each issue alone is an error too.
        let alone = |pieces: Vec<(Square, Piece)>| Setup {
            side_to_move: Some(Color::White),
            pieces,
        };
        assert!(Position::from_setup(rules, &alone(vec![(ghosts[0], man(Color::White))])).is_err());
        assert!(Position::from_setup(rules, &alone(vec![(sq(2), man(Color::White))])).is_err());
        assert!(Position::from_setup(
            rules,
            &alone(vec![(sq(9), man(Color::Black)), (sq(9), man(Color::Black))])
        )
        .is_err());
        assert!(Position::from_setup(
            rules,
            &Setup {
                side_to_move: None,
                pieces: vec![]
            }
        )
        .is_err());
        assert!(
            Position::from_setup(rules, &alone(vec![(sq(2), Piece::king(Color::White))])).is_ok()
        );
    });
}

/// Through FEN: `?` and duplicates parse, then `from_setup` lists them.
#[test]
fn fen_setup_issues_are_listed() {
    let rules = &boards()[2];
    on_rules!(rules, |rules| {
        let g = geometry(rules);
        let setup = parse_fen(g, "?:W1,31,31-33:B46,K5").unwrap();
        assert_eq!(setup.side_to_move, None);
        let e = Position::from_setup(rules, &setup).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("side to move is unknown"), "{msg}");
        assert!(msg.contains("white man stands on 1"), "{msg}");
        assert!(msg.contains("square 31 is given twice"), "{msg}");
        assert!(msg.contains("black man stands on 46"), "{msg}");
        assert_eq!(e.issues.len(), 4, "{msg}");
    });
}

fn arbitrary_setup() -> impl Strategy<Value = (Option<bool>, Vec<(u8, bool, bool)>)> {
    (
        prop::option::of(any::<bool>()),
        prop::collection::vec(
            (
                prop_oneof![4 => 0u8..130, 1 => any::<u8>()],
                any::<bool>(),
                any::<bool>(),
            ),
            0..40,
        ),
    )
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn arbitrary_setups_are_checked((side, pieces) in arbitrary_setup()) {
        let setup = Setup {
            side_to_move: side.map(|w| if w { Color::White } else { Color::Black }),
            pieces: pieces
                .iter()
                .map(|&(sq, white, king)| {
                    let color = if white { Color::White } else { Color::Black };
                    (Square(sq), Piece { color, king })
                })
                .collect(),
        };
        for rules in boards() {
            on_rules!(rules, |rules| setup_outcome(rules, &setup))?;
        }
    }
}

/// An error about a move text quotes a long text cut short (a move is a few dozen characters;
/// a megabyte of text must not come back as a megabyte of error).
#[test]
fn move_text_errors_quote_long_texts_cut_short() {
    let catalogue = Catalogue::builtin();
    let v = catalogue.get("international").unwrap();
    with_rules!(v, |rules| {
        let start = Position::start(&rules);
        for text in [
            format!("31{}22", "-".repeat(600_000)),
            format!("31x{}22", "17x".repeat(30_000)),
            format!("32x{}28", "23x".repeat(30_000)),
            "31-22 ".repeat(100_000),
        ] {
            let e = parse_move(&rules, &start, &text).expect_err("not a legal move");
            assert!(e.to_string().len() < 2_000, "{} bytes", e.to_string().len());
        }
    });
}
