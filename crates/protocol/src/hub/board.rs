//! Positions and moves in Hub notation, for every variant.
//!
//! **Position.** The side to move (`W` or `B`), then one character per square: `w` white man,
//! `b` black man, `W` white king, `B` black king, `e` empty. **Moves.** Quiet `from-to`;
//! capture `from x to x captured x captured …` with the captured squares in any order and no
//! intermediate landing squares.
//!
//! Which square each character and each move number stands for is the variant's [`Dialect`]:
//! on 10x10 exactly the protocol (squares 1–50), on the 8x8 variants pydraughts plays its
//! conventions, elsewhere the variant's own numbering (see `docs/hub.md`). This side writes
//! captured squares in increasing number order.

use std::fmt;

use damspel_rules::{Bits, Color, Move, Piece, Position, Rules, Setup, Square, Variant};

use super::dialect::Dialect;

/// Why a position or move text was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardTextError(pub String);

impl fmt::Display for BoardTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BoardTextError {}

/// The Hub position string of `pos`, a position of `variant`.
pub fn write_position<B: Bits>(variant: &Variant, pos: &Position<B>) -> String {
    let dialect = Dialect::of(variant);
    let order = dialect.position_order(&variant.geometry);
    let mut out = String::with_capacity(order.len() + 1);
    out.push(match dialect.colour_of_letter(pos.side_to_move()) {
        Color::White => 'W',
        Color::Black => 'B',
    });
    for sq in order {
        out.push(dialect.letter(pos.piece_at(sq)));
    }
    out
}

/// Reads a Hub position string for the variant of `rules`.
pub fn parse_position<B: Bits>(
    rules: &Rules<B>,
    text: &str,
) -> Result<Position<B>, BoardTextError> {
    let variant = rules.variant();
    let geometry = &variant.geometry;
    let dialect = Dialect::of(variant);
    let squares = dialect.position_order(geometry);
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != squares.len() + 1 {
        return Err(BoardTextError(format!(
            "a position of {} has {} characters (side to move + {} squares), not {}",
            variant.id,
            squares.len() + 1,
            squares.len(),
            chars.len()
        )));
    }
    let side_to_move = match chars[0] {
        'W' => dialect.colour_of_letter(Color::White),
        'B' => dialect.colour_of_letter(Color::Black),
        c => {
            return Err(BoardTextError(format!(
                "the side to move is `W` or `B`, not `{c}`"
            )))
        }
    };
    let mut pieces = Vec::new();
    for (i, (&sq, &c)) in squares.iter().zip(&chars[1..]).enumerate() {
        let (letter, king) = match c {
            'w' => (Color::White, false),
            'b' => (Color::Black, false),
            'W' => (Color::White, true),
            'B' => (Color::Black, true),
            'e' => continue,
            c => {
                return Err(BoardTextError(format!(
                    "character {} (square {}) is `{c}`; use w, b, W, B or e",
                    i + 2,
                    geometry.algebraic(sq)
                )))
            }
        };
        let color = dialect.colour_of_letter(letter);
        pieces.push((sq, Piece { color, king }));
    }
    let setup = Setup {
        side_to_move: Some(side_to_move),
        pieces,
    };
    Position::from_setup(rules, &setup).map_err(|e| BoardTextError(e.to_string()))
}

/// A move of `variant` in Hub notation (needs no position: the captured squares make it
/// unambiguous).
pub fn write_move<B: Bits>(variant: &Variant, mv: &Move<B>) -> String {
    let geometry = &variant.geometry;
    let dialect = Dialect::of(variant);
    let name = |sq| dialect.name(geometry, sq);
    let mut parts = vec![name(mv.from()), name(mv.to())];
    if !mv.is_capture() {
        return parts.join("-");
    }
    let mut captured: Vec<Square> = mv.captured().squares().map(Square).collect();
    captured.sort_by_key(|&sq| {
        dialect
            .number(geometry, sq)
            .unwrap_or_else(|| geometry.number(sq))
    });
    parts.extend(captured.into_iter().map(name));
    parts.join("x")
}

/// Finds the legal move of `pos` that a Hub move text names. A capture written with only its
/// two ends (`28x19`) is accepted when one legal capture has those ends.
pub fn parse_move<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
) -> Result<Move<B>, BoardTextError> {
    let variant = rules.variant();
    let geometry = &variant.geometry;
    let dialect = Dialect::of(variant);
    let text = text.trim();
    let bad = |why: String| BoardTextError(format!("bad move `{text}`: {why}"));
    let capture = text.contains(['x', 'X']);
    if capture && text.contains('-') {
        return Err(bad("mixes `-` and `x`".into()));
    }
    let squares = text
        .split(['-', 'x', 'X'])
        .map(|part| dialect.parse_square(geometry, part).map_err(bad))
        .collect::<Result<Vec<Square>, _>>()?;
    if squares.len() < 2 {
        return Err(bad("a move needs at least two squares".into()));
    }
    if !capture && squares.len() > 2 {
        return Err(bad("a quiet move has two squares".into()));
    }
    let (from, to) = (squares[0], squares[1]);
    let mut captured = B::ZERO;
    for &sq in &squares[2..] {
        if captured.has(sq.index()) {
            return Err(bad(format!(
                "{} is captured twice",
                dialect.name(geometry, sq)
            )));
        }
        captured |= B::bit(sq.index());
    }
    let legal = rules.moves(pos);
    let matching: Vec<&Move<B>> = legal
        .iter()
        .filter(|m| {
            m.from() == from
                && m.to() == to
                && m.is_capture() == capture
                && (squares.len() == 2 || m.captured() == captured)
        })
        .collect();
    match matching.as_slice() {
        [mv, ..] if matching.len() == 1 || squares.len() > 2 || !capture => Ok(**mv),
        [] => {
            let names: Vec<String> = legal.iter().map(|m| write_move(variant, m)).collect();
            Err(BoardTextError(format!(
                "`{text}` is not a legal move; legal moves: {}",
                names.join(" ")
            )))
        }
        _ => {
            let names: Vec<String> = matching.iter().map(|m| write_move(variant, m)).collect();
            Err(BoardTextError(format!(
                "`{text}` is ambiguous: {}; give the captured squares",
                names.join(" or ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_notation::parse_fen;
    use damspel_rules::{with_rules, Catalogue};
    use std::sync::Arc;

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

    fn international() -> Arc<Rules<u64>> {
        let v = Catalogue::builtin().get("international").unwrap();
        Arc::new(Rules::new(v).unwrap())
    }

    fn from_fen(rules: &Rules<u64>, fen: &str) -> Position<u64> {
        let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
        Position::from_setup(rules, &setup).unwrap()
    }

    #[test]
    fn the_standard_start_position() {
        let rules = international();
        let start = Position::start(&rules);
        assert_eq!(write_position(rules.variant(), &start), START);
        assert_eq!(parse_position(&rules, START).unwrap(), start);
    }

    #[test]
    fn the_example_of_the_protocol_text() {
        // `pos pos=BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee moves="38-15 5-41 48-26"`
        let rules = international();
        let text = "BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee";
        let pos = parse_position(&rules, text).unwrap();
        assert_eq!(pos, from_fen(&rules, "B:WK4,K5,25,35,36:BK38,K48"));
        assert_eq!(write_position(rules.variant(), &pos), text);
        let mut p = pos;
        for m in ["38-15", "5-41", "48-26"] {
            let mv = parse_move(&rules, &p, m).unwrap();
            assert_eq!(write_move(rules.variant(), &mv), m);
            p = p.play(&mv);
        }
    }

    #[test]
    fn every_variant_round_trips_its_start_position_and_moves() {
        let catalogue = Catalogue::builtin();
        for id in catalogue.ids() {
            let variant = catalogue.get(&id).unwrap();
            with_rules!(variant, |rules| {
                let g = rules.variant();
                let start = Position::start(&rules);
                let text = write_position(g, &start);
                assert_eq!(text.len(), g.geometry.all_squares().len() + 1, "{id}");
                assert_eq!(parse_position(&rules, &text).unwrap(), start, "{id}");
                // Play a few plies, every legal move round-tripping through its text.
                let mut pos = start;
                for _ in 0..12 {
                    let moves = rules.moves(&pos);
                    if moves.is_empty() {
                        break;
                    }
                    for mv in &moves {
                        let t = write_move(g, mv);
                        assert_eq!(parse_move(&rules, &pos, &t).as_ref(), Ok(mv), "{id} {t}");
                    }
                    pos = pos.play(&moves[moves.len() / 2]);
                }
            });
        }
    }

    #[test]
    fn every_legal_move_has_its_own_text_in_every_variant() {
        // Random games (a fixed linear congruential sequence): the Hub text of the legal moves
        // of every position reached is unambiguous, and reads back as the same move.
        let catalogue = Catalogue::builtin();
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n
        };
        for id in catalogue.ids() {
            let variant = catalogue.get(&id).unwrap();
            with_rules!(variant, |rules| {
                let g = rules.variant();
                for _ in 0..12 {
                    let mut pos = Position::start(&rules);
                    for _ in 0..150 {
                        let moves = rules.moves(&pos);
                        if moves.is_empty() {
                            break;
                        }
                        let mut texts: Vec<String> =
                            moves.iter().map(|m| write_move(g, m)).collect();
                        texts.sort();
                        texts.dedup();
                        assert_eq!(texts.len(), moves.len(), "{id}: {texts:?}");
                        let mv = moves[next(moves.len())];
                        let text = write_move(g, &mv);
                        assert_eq!(parse_move(&rules, &pos, &text), Ok(mv), "{id} {text}");
                        let hub = write_position(g, &pos);
                        assert_eq!(parse_position(&rules, &hub), Ok(pos), "{id} {hub}");
                        pos = pos.play(&mv);
                    }
                }
            });
        }
    }

    #[test]
    fn all_squares_boards_outside_pydraughts_use_algebraic_order_and_names() {
        let variant = Catalogue::builtin().get("gothic").unwrap();
        with_rules!(variant, |rules| {
            let g = rules.variant();
            let start = Position::start(&rules);
            let text = write_position(g, &start);
            // a1..h2 white men, a3..h6 empty, a7..h8 black men.
            let expected = format!("W{}{}{}", "w".repeat(16), "e".repeat(32), "b".repeat(16));
            assert_eq!(text, expected);
            let mv = parse_move(&rules, &start, "d2-e3").unwrap();
            assert_eq!(write_move(g, &mv), "d2-e3");
        });
    }

    /// What pydraughts 0.6.7 sends at the start of a game (`Board(variant)._game.
    /// initial_hub_fen`) and its legal first moves (`Board.legal_moves()`, `Move.hub_move`),
    /// printed by pydraughts itself: Damspel must read the same position and the same moves.
    #[test]
    fn pydraughts_start_positions_and_first_moves() {
        let russian = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
        let turkish = format!(
            "W{}{}{}{}{}",
            "e".repeat(8),
            "b".repeat(16),
            "e".repeat(16),
            "w".repeat(16),
            "e".repeat(8)
        );
        let cases = [
            (
                "russian",
                &russian,
                "9-13 10-13 10-14 11-14 11-15 12-15 12-16",
            ),
            (
                "brazilian",
                &russian,
                "9-13 10-13 10-14 11-14 11-15 12-15 12-16",
            ),
            // Black to move, written as pydraughts' `W` on its rotated board.
            (
                "american",
                &russian,
                "12-16 11-16 11-15 10-15 10-14 9-14 9-13",
            ),
            (
                "turkish",
                &turkish,
                "17-25 18-26 19-27 20-28 21-29 22-30 23-31 24-32",
            ),
        ];
        let catalogue = Catalogue::builtin();
        for (id, pos, moves) in cases {
            with_rules!(catalogue.get(id).unwrap(), |rules| {
                let start = Position::start(&rules);
                assert_eq!(parse_position(&rules, pos).as_ref(), Ok(&start), "{id}");
                assert_eq!(&write_position(rules.variant(), &start), pos, "{id}");
                let mut ours: Vec<String> = rules
                    .moves(&start)
                    .iter()
                    .map(|m| write_move(rules.variant(), m))
                    .collect();
                let mut theirs: Vec<&str> = moves.split(' ').collect();
                ours.sort();
                theirs.sort();
                assert_eq!(ours, theirs, "{id}");
                for text in theirs {
                    assert!(parse_move(&rules, &start, text).is_ok(), "{id} {text}");
                }
            });
        }
    }

    /// Positions with kings, each side to move: pydraughts 0.6.7's `initial_hub_fen` of
    /// `Board(variant, fen)` and its legal moves (`hub_move`), printed by pydraughts.
    #[test]
    fn pydraughts_positions_with_kings_and_captures() {
        // (variant, pydraughts' Hub position, side to move, white kings, white men, black
        // kings, black men, pydraughts' legal moves)
        type Case<'a> = (&'a str, &'a str, Color, [&'a str; 4], &'a str);
        let cases: [Case; 4] = [
            (
                "russian",
                "WeeeBeeeeebbeeeeeeeeeweweeeeeeWee",
                Color::White,
                ["c1", "e3 a3", "h8", "d6 f6"],
                "11-14 11-15 2-5 2-6 9-13",
            ),
            (
                "brazilian",
                "BeeeBeeeebeeeeeeeebeeeewweeeeeWee",
                Color::Black,
                ["c1", "e3 g3", "h8", "d4 b6"],
                "14x16x11x12",
            ),
            (
                "american",
                "WeeBeeeeeeebeeeebewweeeeeeeeeeWee",
                Color::Black,
                ["c1", "c3 b4", "f8", "c5 e5"],
                "14x21x17",
            ),
            (
                "turkish",
                "WeeeeeeeBeeeeeeeeebeeeeeeeeebeeeeeeewweeeeeeeeeeeeeeeeeeeWeeeeeee",
                Color::White,
                ["a1", "d4 e4", "h8", "d5 b6"],
                "28x44x36",
            ),
        ];
        let catalogue = Catalogue::builtin();
        for (id, hub, side, [wk, wm, bk, bm], moves) in cases {
            with_rules!(catalogue.get(id).unwrap(), |rules| {
                let g = &rules.variant().geometry;
                let mut pieces = vec![];
                for (names, piece) in [
                    (wk, Piece::king(Color::White)),
                    (wm, Piece::man(Color::White)),
                    (bk, Piece::king(Color::Black)),
                    (bm, Piece::man(Color::Black)),
                ] {
                    for name in names.split(' ') {
                        pieces.push((g.parse_square(name).unwrap(), piece));
                    }
                }
                let setup = Setup {
                    side_to_move: Some(side),
                    pieces,
                };
                let expected = Position::from_setup(&rules, &setup).unwrap();
                assert_eq!(parse_position(&rules, hub), Ok(expected), "{id}");
                assert_eq!(write_position(rules.variant(), &expected), hub, "{id}");
                let mut ours: Vec<String> = rules
                    .moves(&expected)
                    .iter()
                    .map(|m| write_move(rules.variant(), m))
                    .collect();
                ours.sort();
                assert_eq!(ours.join(" "), moves, "{id}");
            });
        }
    }

    #[test]
    fn captures_name_their_captured_squares_in_any_order() {
        let rules = international();
        let g = rules.variant();
        // White 28 can take 23 and 12 ... a double capture: 28x17 over 22? Use a simple one.
        let pos = from_fen(&rules, "W:W28:B23,13");
        let moves = rules.moves(&pos);
        assert_eq!(moves.len(), 1);
        let mv = moves[0];
        assert_eq!(write_move(g, &mv), "28x8x13x23");
        for text in ["28x8x13x23", "28x8x23x13", "28X8X23X13", "28x8"] {
            assert_eq!(parse_move(&rules, &pos, text), Ok(mv), "{text}");
        }
        for bad in [
            "28x8x13",
            "28x8x13x23x23",
            "28-8",
            "28x8-13",
            "28",
            "",
            "28x",
            "28x99x1",
        ] {
            assert!(parse_move(&rules, &pos, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_positions_say_why() {
        let rules = international();
        for (bad, why) in [
            ("W", "51 characters"),
            (&START[..50], "51 characters"),
            (&format!("X{}", &START[1..]), "side to move"),
            (&format!("{}x", &START[..50]), "use w, b, W, B or e"),
            (&format!("We{}", &START[2..].replace('b', "e")), ""),
        ] {
            let err = parse_position(&rules, bad);
            if why.is_empty() {
                assert!(err.is_ok(), "{bad}");
            } else {
                assert!(err.unwrap_err().0.contains(why), "{bad}");
            }
        }
        // A white man on White's promotion row is refused by the rules.
        let mut chars: Vec<char> = START.chars().collect();
        chars[1] = 'w';
        let text: String = chars.into_iter().collect();
        assert!(parse_position(&rules, &text).is_err());
    }
}
