//! Property tests of the notation crate, for every built-in variant (and a 10x10 all-squares user
//! variant, `Rules<u128>`):
//!
//! * FEN round trip: `write_fen(parse(write_fen(pos))) == write_fen(pos)` and the parsed setup
//!   checks into the same position;
//! * every other valid spelling of the position (lists in either order or one left out when
//!   empty, pieces in any order, ranges collapsed or expanded, `K` prefixes on ranges, a trailing
//!   dot, quotes, `:H0:F1` counters, lower-case letters, algebraic names on numbered boards) reads
//!   as the same position;
//! * move text round trip: for every legal move, `parse_move(format_move(mv)) == mv` and
//!   `parse_move(full_path(detail)) == mv`, also with `:`/`X` separators and other spellings.
//!
//! Positions come from random games from the start position (proptest-chosen seeds) and random
//! placements checked by `Position::from_setup`.

use crate::common::Rng;
use std::sync::OnceLock;

use damspel_notation::{
    format_among, format_detail, format_move, full_path, parse_fen, parse_move, write_fen,
    MoveTextError,
};
use damspel_rules::{
    on_rules, with_rules, AnyRules, Bits, Catalogue, Color, Duplicates, Geometry, Piece, Position,
    Rules, Setup,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

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

fn all_rules() -> &'static [AnyRules] {
    static RULES: OnceLock<Vec<AnyRules>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut catalogue = Catalogue::builtin();
        catalogue
            .add_source("test-turkish-10x10.toml", TURKISH_10X10)
            .expect("the 10x10 Turkish user variant checks");
        catalogue
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

fn geometry<B: Bits>(rules: &Rules<B>) -> &Geometry {
    &rules.variant().geometry
}

/// Positions along a random game from the start position.
fn random_game<B: Bits>(rules: &Rules<B>, rng: &mut Rng, plies: usize) -> Vec<Position<B>> {
    let mut pos = Position::start(rules);
    let mut out = vec![pos];
    for _ in 0..plies {
        let moves = rules.moves(&pos);
        if moves.is_empty() {
            break;
        }
        pos = pos.play(&moves[rng.below(moves.len())]);
        out.push(pos);
    }
    out
}

/// A random placement (no man on its own promotion square), checked by `from_setup`.
fn random_placement<B: Bits>(
    rules: &Rules<B>,
    rng: &mut Rng,
    density: usize,
    kings: usize,
) -> Position<B> {
    let mut pieces = Vec::new();
    for &sq in geometry(rules).all_squares() {
        if rng.percent(density) {
            let color = if rng.percent(50) {
                Color::White
            } else {
                Color::Black
            };
            let king = rng.percent(kings) || rules.promotion_squares(color).has(sq.0);
            pieces.push((sq, Piece { color, king }));
        }
    }
    let side = if rng.percent(50) {
        Color::White
    } else {
        Color::Black
    };
    let setup = Setup {
        side_to_move: Some(side),
        pieces,
    };
    Position::from_setup(rules, &setup).expect("a sound random placement")
}

// ---------------------------------------------------------------------------------------------
// FEN.

fn read_fen<B: Bits>(rules: &Rules<B>, text: &str) -> Result<Position<B>, TestCaseError> {
    let setup = parse_fen(geometry(rules), text)
        .map_err(|e| TestCaseError::fail(format!("{}: `{text}`: {e}", rules.variant().id)))?;
    Position::from_setup(rules, &setup)
        .map_err(|e| TestCaseError::fail(format!("{}: `{text}`: {e}", rules.variant().id)))
}

/// Another valid spelling of the position's FEN.
fn alternative_fen<B: Bits>(rules: &Rules<B>, pos: &Position<B>, rng: &mut Rng) -> String {
    let g = geometry(rules);
    let numeric = g.numeric_names();
    let mut lists = Vec::new();
    for color in Color::BOTH {
        // (number, king) in numbering order.
        let squares: Vec<(usize, bool)> = g
            .all_squares()
            .iter()
            .filter_map(|&sq| {
                pos.piece_at(sq)
                    .filter(|p| p.color == color)
                    .map(|p| (g.number(sq), p.king))
            })
            .collect();
        let name = |n: usize| g.name(g.numbered(n).unwrap());
        let mut items: Vec<String> = Vec::new();
        let mut i = 0;
        while i < squares.len() {
            let (n, king) = squares[i];
            let k = if !king {
                ""
            } else if rng.percent(20) {
                "k"
            } else {
                "K"
            };
            // A run of consecutive numbers of the same kind, cut at a random length.
            let mut j = i;
            if numeric {
                while j + 1 < squares.len() && squares[j + 1] == (squares[j].0 + 1, king) {
                    j += 1;
                }
                j = i + rng.below(j - i + 1);
            }
            if j > i || (numeric && rng.percent(5)) {
                items.push(format!("{k}{}-{}", name(n), name(squares[j].0)));
            } else {
                let sq = g.numbered(n).unwrap();
                let text = if numeric && rng.percent(15) {
                    // Algebraic names of dark squares are accepted on numbered boards.
                    g.algebraic(sq)
                } else {
                    g.name(sq)
                };
                let text = if !numeric && rng.percent(15) {
                    text.to_ascii_uppercase()
                } else {
                    text
                };
                items.push(format!("{k}{text}"));
            }
            i = j + 1;
        }
        rng.shuffle(&mut items);
        let sep = if rng.percent(10) { ", " } else { "," };
        let letter = match (color, rng.percent(20)) {
            (Color::White, false) => 'W',
            (Color::White, true) => 'w',
            (Color::Black, false) => 'B',
            (Color::Black, true) => 'b',
        };
        lists.push((squares.is_empty(), format!("{letter}{}", items.join(sep))));
    }
    if rng.percent(50) {
        lists.reverse();
    }
    // An empty list may be left out, as long as one list remains.
    if lists.iter().all(|(empty, _)| *empty) {
        lists.truncate(1);
    } else if rng.percent(50) {
        lists.retain(|(empty, _)| !*empty);
    }
    let side = match (pos.side_to_move(), rng.percent(20)) {
        (Color::White, false) => "W",
        (Color::White, true) => "w",
        (Color::Black, false) => "B",
        (Color::Black, true) => "b",
    };
    let mut fen = side.to_string();
    for (_, list) in &lists {
        fen.push(':');
        fen.push_str(list);
    }
    if rng.percent(25) {
        fen.push_str(&format!(":H{}:F{}", rng.below(100), 1 + rng.below(200)));
    }
    if rng.percent(30) {
        fen.push('.');
    }
    if rng.percent(20) {
        fen = format!("\"{fen}\"");
    }
    if rng.percent(15) {
        fen = format!("  {fen}\n");
    }
    fen
}

fn check_fen<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    rng: &mut Rng,
) -> Result<(), TestCaseError> {
    let g = geometry(rules);
    let fen = write_fen(g, pos);
    let again = read_fen(rules, &fen)?;
    prop_assert_eq!(
        &again,
        pos,
        "{}: `{}` reads as another position",
        rules.variant().id,
        fen
    );
    prop_assert_eq!(write_fen(g, &again), fen.clone());
    prop_assert_eq!(again.hash(), pos.hash());
    for _ in 0..3 {
        let alt = alternative_fen(rules, pos, rng);
        let read = read_fen(rules, &alt)?;
        prop_assert_eq!(
            &read,
            pos,
            "{}: `{}` and `{}` differ",
            rules.variant().id,
            alt,
            fen
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Move text.

/// Other spellings of a move text: `:` or `X` for `x`, `-` for a two-square capture, spaces
/// around, upper-case files.
fn respell(text: &str, rng: &mut Rng) -> String {
    let squares = text.split(['x', '-']).count();
    let mut out = match rng.below(4) {
        0 => text.replace('x', ":"),
        1 => text.replace('x', "X"),
        2 if squares == 2 => text.replace('x', "-"),
        _ => text.to_string(),
    };
    if rng.percent(30) {
        out = out.to_ascii_uppercase().replace('X', "x");
    }
    if rng.percent(20) {
        out = format!(" {out}\t");
    }
    out
}

/// Reads every legal move back from its text: its notation, its full path, and both respelled.
fn check_moves<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    rng: &mut Rng,
) -> Result<usize, TestCaseError> {
    let g = geometry(rules);
    let id = &rules.variant().id;
    let legal = rules.legal_moves_detailed(pos, Duplicates::Merge);
    let parse = |text: &str| parse_move(rules, pos, text);
    for detail in &legal {
        let mv = detail.mv;
        let short = format_move(rules, pos, &mv);
        prop_assert_eq!(&short, &format_detail(g, detail, &legal));
        let full = full_path(g, detail);
        let fen = write_fen(g, pos);
        let texts = [
            short.clone(),
            full.clone(),
            respell(&short, rng),
            respell(&full, rng),
        ];
        for text in &texts {
            let read = parse(text);
            prop_assert_eq!(
                read,
                Ok(mv),
                "{}: `{}` in {} (full path {})",
                id,
                text,
                fen,
                full
            );
        }
    }
    Ok(legal.len())
}

/// Every route of a move (Keep lists every capture sequence) names that move.
fn check_every_route<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> Result<(), TestCaseError> {
    let g = geometry(rules);
    for detail in rules.legal_moves_detailed(pos, Duplicates::Keep) {
        let full = full_path(g, &detail);
        prop_assert_eq!(
            parse_move(rules, pos, &full),
            Ok(detail.mv),
            "{}: route `{}` in {}",
            rules.variant().id,
            full,
            write_fen(g, pos)
        );
    }
    Ok(())
}

fn game_case<B: Bits>(rules: &Rules<B>, seed: u64, plies: usize) -> Result<usize, TestCaseError> {
    let mut rng = Rng(seed);
    let mut moves = 0;
    for pos in random_game(rules, &mut rng, plies) {
        check_fen(rules, &pos, &mut rng)?;
        moves += check_moves(rules, &pos, &mut rng)?;
    }
    Ok(moves)
}

fn placement_case<B: Bits>(
    rules: &Rules<B>,
    seed: u64,
    density: usize,
    kings: usize,
) -> Result<usize, TestCaseError> {
    let mut rng = Rng(seed);
    let pos = random_placement(rules, &mut rng, density, kings);
    check_fen(rules, &pos, &mut rng)?;
    check_fen(rules, &pos.with_side_to_move(!pos.side_to_move()), &mut rng)?;
    let mut moves = check_moves(rules, &pos, &mut rng)?;
    // A few plies on from the placement.
    let mut pos = pos;
    for _ in 0..6 {
        let legal = rules.moves(&pos);
        if legal.is_empty() {
            break;
        }
        pos = pos.play(&legal[rng.below(legal.len())]);
        check_fen(rules, &pos, &mut rng)?;
        moves += check_moves(rules, &pos, &mut rng)?;
    }
    Ok(moves)
}

proptest! {
    #![proptest_config(config(160))]

    #[test]
    fn fen_and_move_text_round_trip_along_random_games(
        which: prop::sample::Index,
        seed: u64,
        plies in 0usize..120,
    ) {
        on_rules!(which.get(all_rules()), |rules| game_case(rules, seed, plies))?;
    }

    #[test]
    fn fen_and_move_text_round_trip_on_random_placements(
        which: prop::sample::Index,
        seed: u64,
        density in 3usize..60,
        kings in prop_oneof![Just(0usize), 0usize..30, 30usize..101],
    ) {
        on_rules!(which.get(all_rules()), |rules| placement_case(rules, seed, density, kings))?;
    }
}

/// Deterministic sweep over every variant, with figures.
#[test]
fn sweep_of_round_trips() {
    let mut moves = 0;
    for rules in all_rules() {
        for seed in 0..3u64 {
            moves += on_rules!(rules, |rules| game_case(rules, seed * 104_729 + 3, 150))
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            moves += on_rules!(rules, |rules| placement_case(rules, seed, 30, 40))
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
    eprintln!(
        "sweep_of_round_trips: {} variants, {moves} legal moves formatted and read back",
        all_rules().len()
    );
    assert!(moves > 500 * all_rules().len());
}

/// `format_among` (a move named from the moves its caller has, listing none) says what
/// `format_move` says, or leaves it to `format_move` when only a full path names the move.
#[test]
fn moves_named_among_the_listed_ones_read_as_format_move_writes_them() {
    // Turkish, the black king on d1: d1xd3xb3xb1 and d1xd4xb4xb1 share their ends, so neither
    // is named by them (the case of `full_paths_are_never_ambiguous`).
    let catalogue = Catalogue::builtin();
    with_rules!(catalogue.get("turkish").unwrap(), |rules| {
        let pos = read_fen(&rules, "B:Wb2,c3,c4,d2:BKd1").unwrap();
        let moves = rules.moves(&pos);
        assert!(moves.len() >= 2);
        for mv in &moves {
            let ends_shared = moves
                .iter()
                .any(|m| m != mv && m.from() == mv.from() && m.to() == mv.to());
            assert_eq!(
                format_among(geometry(&rules), mv, &moves).is_none(),
                ends_shared
            );
        }
    });
    let mut named = 0;
    for rules in all_rules() {
        on_rules!(rules, |rules| {
            let g = geometry(rules);
            let mut rng = Rng(7);
            for pos in random_game(rules, &mut rng, 120) {
                let moves = rules.moves(&pos);
                for mv in &moves {
                    let written = format_move(rules, &pos, mv);
                    match format_among(g, mv, &moves) {
                        Some(text) => {
                            assert_eq!(text, written, "{}", write_fen(g, &pos));
                            named += 1;
                        }
                        None => assert!(
                            moves
                                .iter()
                                .any(|m| m != mv && m.from() == mv.from() && m.to() == mv.to()),
                            "{written} in {}",
                            write_fen(g, &pos)
                        ),
                    }
                }
            }
        });
    }
    assert!(named > 1000, "{named}");
}

/// The strict round trip: a move's full path (and so `format_move` when two moves share their
/// ends) is never ambiguous.
#[test]
fn full_paths_are_never_ambiguous() {
    // Minimal case (Turkish): the black king on d1 captures d2, c3, b2 (d1xd3xb3xb1) or d2, c4,
    // b2 (d1xd4xb4xb1); the second passes over d3 and b3, so `d1xd3xb3xb1` is reported ambiguous.
    let catalogue = Catalogue::builtin();
    let v = catalogue.get("turkish").unwrap();
    with_rules!(v, |rules| {
        let pos = read_fen(&rules, "B:Wb2,c3,c4,d2:BKd1").unwrap();
        let g = geometry(&rules);
        let legal = rules.legal_moves_detailed(&pos, Duplicates::Merge);
        let full: Vec<String> = legal.iter().map(|d| full_path(g, d)).collect();
        assert!(full.contains(&"d1xd3xb3xb1".to_string()), "{full:?}");
        for d in &legal {
            let text = format_move(&rules, &pos, &d.mv);
            assert_eq!(parse_move(&rules, &pos, &text), Ok(d.mv), "`{text}`");
        }
    });
    // A one-leg capture shares its ends with longer ones (Greek V, flying king on f5): its full
    // path is just `f5xa5`, and must still name it.
    let v = catalogue.get("greek-5").unwrap();
    with_rules!(v, |rules| {
        let fen = "W:Wc1,a4,Kf5,Kf6,g6,b7:BKb1,Ke1,Kg1,Ka2,Kc2,Ke2,h2,e3,Kc4,e4,Kf4,h4,Kb5,h5,\
                   c6,d6,c7,d7,c8,e8,g8";
        let pos = read_fen(&rules, fen).unwrap();
        let g = geometry(&rules);
        let legal = rules.legal_moves_detailed(&pos, Duplicates::Merge);
        let one_leg: Vec<_> = legal
            .iter()
            .filter(|d| full_path(g, d) == "f5xa5")
            .collect();
        assert_eq!(
            one_leg.len(),
            1,
            "{:?}",
            legal.iter().map(|d| full_path(g, d)).collect::<Vec<_>>()
        );
        assert!(
            legal
                .iter()
                .filter(|d| d.mv.from() == one_leg[0].mv.from() && d.mv.to() == one_leg[0].mv.to())
                .count()
                > 1
        );
        assert_eq!(parse_move(&rules, &pos, "f5xa5"), Ok(one_leg[0].mv));
    });
    // And the strict property over random games of every variant.
    for rules in all_rules() {
        for seed in 0..4u64 {
            on_rules!(rules, |rules| {
                let mut rng = Rng(seed);
                for pos in random_game(rules, &mut rng, 200) {
                    check_moves(rules, &pos, &mut rng).unwrap();
                }
            });
        }
    }
}

/// Writing a full route of a duplicate capture sequence (one of several routes of one move, as
/// listed by `Duplicates::Keep`) names that move.
#[test]
fn every_route_of_a_move_reads_as_that_move() {
    // Minimal case (international): the king on 14 captures 20, 32, 42, 39 round a loop back to
    // 14; `14x25x48x37x14` and the reverse loop `14x37x48x25x14` are one move, but the reverse
    // is rejected ("no legal capture passes through the squares given").
    let catalogue = Catalogue::builtin();
    let v = catalogue.get("international").unwrap();
    with_rules!(v, |rules| {
        let pos = read_fen(&rules, "W:WK14:B20,32,39,42").unwrap();
        let routes: Vec<String> = rules
            .legal_moves_detailed(&pos, Duplicates::Keep)
            .iter()
            .map(|d| full_path(geometry(&rules), d))
            .collect();
        assert!(routes.contains(&"14x37x48x25x14".to_string()), "{routes:?}");
        check_every_route(&rules, &pos).unwrap();
    });
    let mut failures = Vec::new();
    for rules in all_rules() {
        for seed in 0..4u64 {
            let result = on_rules!(rules, |rules| {
                let mut rng = Rng(seed);
                let positions = random_game(rules, &mut rng, 200);
                positions
                    .iter()
                    .try_for_each(|pos| check_every_route(rules, pos))
                    .and_then(|_| {
                        let pos = random_placement(rules, &mut rng, 30, 60);
                        check_every_route(rules, &pos)
                    })
            });
            if let Err(e) = result {
                failures.push(e.to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures, e.g. {}",
        failures.len(),
        failures[0]
    );
}

/// The start positions' FENs are the published ones.
#[test]
fn start_position_fens() {
    let catalogue = Catalogue::builtin();
    for (id, fen) in [
        ("international", "W:W31-50:B1-20"),
        ("american", "B:W21-32:B1-12"),
        // Algebraic (PDN A0), in FMJD order: White's men on the dark squares of ranks 1 to 3.
        (
            "russian",
            "W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6",
        ),
        (
            "brazilian",
            "W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6",
        ),
        (
            "turkish",
            "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7",
        ),
    ] {
        let v = catalogue.get(id).unwrap();
        with_rules!(v, |rules| {
            let start = Position::start(&rules);
            assert_eq!(write_fen(geometry(&rules), &start), fen, "{id}");
            assert_eq!(read_fen(&rules, fen).unwrap(), start, "{id}");
        });
    }
    // Damspel's older exports numbered Russian and Brazilian; their FEN tags still read.
    for id in ["russian", "brazilian"] {
        with_rules!(catalogue.get(id).unwrap(), |rules| {
            let start = Position::start(&rules);
            assert_eq!(read_fen(&rules, "W:W21-32:B1-12").unwrap(), start, "{id}");
        });
    }
}

/// Hand-picked alternative spellings.
#[test]
fn alternative_fen_spellings() {
    let catalogue = Catalogue::builtin();
    let v = catalogue.get("international").unwrap();
    with_rules!(v, |rules| {
        let canonical = read_fen(&rules, "B:W31,32,K33,K34,K35:BK1-3,10").unwrap();
        for alt in [
            "B:BK1-3,10:W31,32,K33-35",
            "B:B10,K1,K2,K3:W31-32,K33-35",
            "B:BK1,K2-3,10:W31-32,K33,k34,K35.",
            "b:wK33-35,31-32:bK1-3,10:H0:F1",
            "\"B:W31,32,K33-35:BK1-3,10\"",
            "B:W31,32,K33-35:BK1-3,10:H12:F40.",
            "B:W31,32,K33-35:BK1-3,10-10",
            "B:Wb4,32,K33-35:BK1-3,10",
            "  B : W31 , 32 , K33-35 : BK1-3 , 10  ",
        ] {
            assert_eq!(read_fen(&rules, alt).unwrap(), canonical, "`{alt}`");
        }
        assert_eq!(
            write_fen(geometry(&rules), &canonical),
            "B:W31,32,K33-35:BK1-3,10"
        );
    });
}

/// Square names on an all-squares board 11 wide: file `k` must not be read as a king prefix.
#[test]
fn k_file_squares_round_trip() {
    let text = r#"
id = "turkish-11x11"
extends = "turkish"
name = "Turkish draughts on 11x11"
aliases = []
block = "x"
description = "Turkish rules on an 11x11 board of all squares."

[board]
width = 11
height = 11
"#;
    let mut catalogue = Catalogue::builtin();
    catalogue.add_source("turkish-11x11.toml", text).unwrap();
    let v = catalogue.get("turkish-11x11").unwrap();
    with_rules!(v, |rules| {
        let start = Position::start(&rules);
        let fen = write_fen(geometry(&rules), &start);
        assert!(fen.contains("k2"), "{fen}");
        match parse_fen(geometry(&rules), &fen) {
            Ok(setup) => assert_eq!(Position::from_setup(&rules, &setup).unwrap(), start),
            Err(e) => panic!("`{fen}`: {e}"),
        }
    });
}

/// parse_move says why a text is not a legal move.
#[test]
fn illegal_and_ambiguous_move_texts_are_explained() {
    let catalogue = Catalogue::builtin();
    let v = catalogue.get("international").unwrap();
    with_rules!(v, |rules| {
        let start = Position::start(&rules);
        match parse_move(&rules, &start, "31-22") {
            Err(MoveTextError::Illegal { hint, .. }) => {
                assert!(hint.contains("31-26") && hint.contains("31-27"), "{hint}")
            }
            other => panic!("{other:?}"),
        }
        match parse_move(&rules, &start, "1-6") {
            Err(e @ MoveTextError::Illegal { .. }) => {
                assert!(e.to_string().contains("no legal move starts on 1"), "{e}")
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_move(&rules, &start, "32-28").is_ok());
        // A quiet move written as a capture is not read as that move (the Hub refuses it too).
        for text in ["32x28", "32:28"] {
            match parse_move(&rules, &start, text) {
                Err(e @ MoveTextError::Illegal { .. }) => {
                    assert!(e.to_string().contains("write it 32-28"), "{e}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    });
}
