//! Positions and moves in Hub notation, for every variant.
//!
//! **Position.** The side to move (`W` or `B`), then one character per square in the variant's
//! numbering order (`Geometry::all_squares`): `w` white man, `b` black man, `W` white king,
//! `B` black king, `e` empty. On 10x10 dark-squares boards this is exactly the protocol's
//! 51-character position (squares 1–50). Other boards use the same rule: 33 characters on 8x8
//! dark-squares boards (squares 1–32), 65 on 8x8 all-squares boards in the order a1, b1, …, h1,
//! a2, …, h8.
//!
//! **Moves.** Quiet `from-to`; capture `from x to x captured x captured …` with the captured
//! squares in any order and no intermediate landing squares. Squares are written in the
//! variant's notation: numbers on dark-squares boards (`32-28`, `28x19x23`), algebraic names on
//! all-squares boards (`d3-d4`, `d4xd6xd5`). This side writes captured squares in numbering
//! order.

use std::fmt;

use damspel_rules::{Bits, Color, Geometry, Move, Piece, Position, Rules, Setup, Square, Squares};

/// Why a position or move text was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardTextError(pub String);

impl fmt::Display for BoardTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BoardTextError {}

fn piece_char(piece: Option<Piece>) -> char {
    piece.map_or('e', Piece::symbol)
}

/// The Hub position string of `pos`.
pub fn write_position<B: Bits>(geometry: &Geometry, pos: &Position<B>) -> String {
    let mut out = String::with_capacity(geometry.len() + 1);
    out.push(match pos.side_to_move() {
        Color::White => 'W',
        Color::Black => 'B',
    });
    for &sq in geometry.all_squares() {
        out.push(piece_char(pos.piece_at(sq)));
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
    let squares = geometry.all_squares();
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
        'W' => Color::White,
        'B' => Color::Black,
        c => {
            return Err(BoardTextError(format!(
                "the side to move is `W` or `B`, not `{c}`"
            )))
        }
    };
    let mut pieces = Vec::new();
    for (i, (&sq, &c)) in squares.iter().zip(&chars[1..]).enumerate() {
        let piece = match c {
            'w' => Piece::man(Color::White),
            'b' => Piece::man(Color::Black),
            'W' => Piece::king(Color::White),
            'B' => Piece::king(Color::Black),
            'e' => continue,
            c => {
                return Err(BoardTextError(format!(
                    "character {} (square {}) is `{c}`; use w, b, W, B or e",
                    i + 2,
                    geometry.name(sq)
                )))
            }
        };
        pieces.push((sq, piece));
    }
    let setup = Setup {
        side_to_move: Some(side_to_move),
        pieces,
    };
    Position::from_setup(rules, &setup).map_err(|e| BoardTextError(e.to_string()))
}

/// A square in Hub notation: numbered on every dark-squares board (the Hub specification's
/// numbers), even where the variant's own notation is algebraic (Russian, Brazilian).
fn hub_name(geometry: &Geometry, sq: Square) -> String {
    if geometry.squares_kind() == Squares::Dark {
        geometry.number(sq).to_string()
    } else {
        geometry.name(sq)
    }
}

/// A move in Hub notation (needs no position: the captured squares make it unambiguous).
pub fn write_move<B: Bits>(geometry: &Geometry, mv: &Move<B>) -> String {
    let mut parts = vec![hub_name(geometry, mv.from()), hub_name(geometry, mv.to())];
    if !mv.is_capture() {
        return parts.join("-");
    }
    let mut captured: Vec<Square> = mv.captured().squares().map(Square).collect();
    captured.sort_by_key(|&sq| geometry.number(sq));
    parts.extend(captured.into_iter().map(|sq| hub_name(geometry, sq)));
    parts.join("x")
}

/// Finds the legal move of `pos` that a Hub move text names. A capture written with only its
/// two ends (`28x19`) is accepted when one legal capture has those ends.
pub fn parse_move<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
) -> Result<Move<B>, BoardTextError> {
    let geometry = &rules.variant().geometry;
    let text = text.trim();
    let bad = |why: String| BoardTextError(format!("bad move `{text}`: {why}"));
    let capture = text.contains(['x', 'X']);
    if capture && text.contains('-') {
        return Err(bad("mixes `-` and `x`".into()));
    }
    let squares = text
        .split(['-', 'x', 'X'])
        .map(|part| geometry.parse_square(part).map_err(|e| bad(e.to_string())))
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
            return Err(bad(format!("{} is captured twice", geometry.name(sq))));
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
            let names: Vec<String> = legal.iter().map(|m| write_move(geometry, m)).collect();
            Err(BoardTextError(format!(
                "`{text}` is not a legal move; legal moves: {}",
                names.join(" ")
            )))
        }
        _ => {
            let names: Vec<String> = matching.iter().map(|m| write_move(geometry, m)).collect();
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
        assert_eq!(write_position(&rules.variant().geometry, &start), START);
        assert_eq!(parse_position(&rules, START).unwrap(), start);
    }

    #[test]
    fn the_example_of_the_protocol_text() {
        // `pos pos=BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee moves="38-15 5-41 48-26"`
        let rules = international();
        let text = "BeeeWWeeeeeeeeeeeeeeeeeeeweeeeeeeeewweBeeeeeeeeeBee";
        let pos = parse_position(&rules, text).unwrap();
        assert_eq!(pos, from_fen(&rules, "B:WK4,K5,25,35,36:BK38,K48"));
        assert_eq!(write_position(&rules.variant().geometry, &pos), text);
        let mut p = pos;
        for m in ["38-15", "5-41", "48-26"] {
            let mv = parse_move(&rules, &p, m).unwrap();
            assert_eq!(write_move(&rules.variant().geometry, &mv), m);
            p = p.play(&mv);
        }
    }

    #[test]
    fn every_variant_round_trips_its_start_position_and_moves() {
        let catalogue = Catalogue::builtin();
        for id in catalogue.ids() {
            let variant = catalogue.get(&id).unwrap();
            with_rules!(variant, |rules| {
                let g = &rules.variant().geometry;
                let start = Position::start(&rules);
                let text = write_position(g, &start);
                assert_eq!(text.len(), g.all_squares().len() + 1, "{id}");
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
                let g = &rules.variant().geometry;
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
    fn all_squares_boards_use_algebraic_order_and_names() {
        let variant = Catalogue::builtin().get("turkish").unwrap();
        with_rules!(variant, |rules| {
            let g = &rules.variant().geometry;
            let start = Position::start(&rules);
            let text = write_position(g, &start);
            // a1..h1 empty, a2..h3 white men, a4..h5 empty, a6..h7 black men, a8..h8 empty.
            let expected = format!(
                "W{}{}{}{}{}",
                "e".repeat(8),
                "w".repeat(16),
                "e".repeat(16),
                "b".repeat(16),
                "e".repeat(8)
            );
            assert_eq!(text, expected);
            let mv = parse_move(&rules, &start, "d3-d4").unwrap();
            assert_eq!(write_move(g, &mv), "d3-d4");
        });
    }

    #[test]
    fn captures_name_their_captured_squares_in_any_order() {
        let rules = international();
        let g = &rules.variant().geometry;
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
