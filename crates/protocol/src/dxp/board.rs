//! DXP positions and moves against Damspel's rules: the 50 squares of a GAMEREQ to a
//! `Position`, a `Move` to a MOVE message and back. An incoming move is identified by its from
//! and to squares and its set of captured squares among the legal moves of the position (the
//! FMJD convention, which is also Damspel's `Move`).

use std::fmt;

use damspel_rules::{
    Bits, Color, Geometry, Move, Outcome, Position, PositionError, Rules, Setup, Squares, Variant,
};

use super::message::{BackRequest, DxpBoard, EndReason, MoveMessage, Start, BOARD_SQUARES};

/// Whether a variant can be played over DXP: a 10x10 board of dark squares numbered 1 to 50.
/// The error is one line, naming the variant and its board.
pub fn check_variant(variant: &Variant) -> Result<(), String> {
    let g = &variant.geometry;
    if g.width() == 10
        && g.height() == 10
        && g.squares_kind() == Squares::Dark
        && g.len() == BOARD_SQUARES
    {
        Ok(())
    } else {
        Err(format!(
            "DXP plays on the 10x10 board of 50 dark squares; {} ({}) is played on {}",
            variant.id,
            variant.name,
            variant.board_label()
        ))
    }
}

fn square_number<B: Bits>(rules: &Rules<B>, n: u8) -> damspel_rules::Square {
    rules
        .variant()
        .geometry
        .numbered(n as usize)
        .expect("squares 1-50 exist on a checked DXP board")
}

/// The DXP board of a position (the variant must pass [`check_variant`]).
pub fn to_board<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> DxpBoard {
    let mut squares = [None; BOARD_SQUARES];
    for (i, sq) in squares.iter_mut().enumerate() {
        *sq = pos.piece_at(square_number(rules, i as u8 + 1));
    }
    DxpBoard {
        to_move: pos.side_to_move(),
        squares,
    }
}

/// The position of a DXP board, checked against the variant.
pub fn from_board<B: Bits>(
    rules: &Rules<B>,
    board: &DxpBoard,
) -> Result<Position<B>, PositionError> {
    let pieces = board
        .squares
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (square_number(rules, i as u8 + 1), p)))
        .collect();
    Position::from_setup(
        rules,
        &Setup {
            side_to_move: Some(board.to_move),
            pieces,
        },
    )
}

/// The starting position a GAMEREQ names: `A` is the normal start (Black on 1-20, White on
/// 31-50, White to move).
pub fn start_position<B: Bits>(
    rules: &Rules<B>,
    start: &Start,
) -> Result<Position<B>, PositionError> {
    match start {
        Start::Standard => from_board(rules, &DxpBoard::standard()),
        Start::Setup(board) => from_board(rules, board),
    }
}

/// How a GAMEREQ names a position: `A` when it is the normal start, else `B` with the squares.
pub fn start_of<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> Start {
    let board = to_board(rules, pos);
    if board == DxpBoard::standard() {
        Start::Standard
    } else {
        Start::Setup(board)
    }
}

/// The MOVE message of a move, captured squares in ascending order.
pub fn encode_move<B: Bits>(geometry: &Geometry, mv: &Move<B>, seconds: u16) -> MoveMessage {
    let mut captured: Vec<u8> = mv
        .captured()
        .squares()
        .map(|i| geometry.number(damspel_rules::Square(i)) as u8)
        .collect();
    captured.sort_unstable();
    MoveMessage {
        seconds: seconds.min(9999),
        from: geometry.number(mv.from()) as u8,
        to: geometry.number(mv.to()) as u8,
        captured,
    }
}

/// A MOVE in words: `32-28`, `5x25 (captures 12, 20, 22, 23)`.
pub fn describe_move(m: &MoveMessage) -> String {
    if m.captured.is_empty() {
        format!("{}-{}", m.from, m.to)
    } else {
        let list: Vec<String> = m.captured.iter().map(u8::to_string).collect();
        format!("{}x{} (captures {})", m.from, m.to, list.join(", "))
    }
}

/// Why an incoming MOVE is not a legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// A captured square is listed twice.
    DuplicateCapture { mv: String, square: u8 },
    /// No legal move has these from and to squares and this captured set.
    NotLegal {
        mv: String,
        /// The legal moves, in DXP words.
        legal: Vec<String>,
        /// Legal moves with the same from and to squares but other captures.
        same_route: Vec<String>,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::DuplicateCapture { mv, square } => {
                write!(f, "move {mv} lists captured square {square} twice")
            }
            MoveError::NotLegal {
                mv,
                legal,
                same_route,
            } => {
                write!(f, "move {mv} is not legal here")?;
                if !same_route.is_empty() {
                    write!(
                        f,
                        "; with these from and to squares the captures must be: {}",
                        same_route.join(" or ")
                    )
                } else if legal.is_empty() {
                    write!(f, "; there is no legal move")
                } else {
                    const SHOWN: usize = 12;
                    write!(
                        f,
                        "; legal moves ({}): {}",
                        legal.len(),
                        legal[..legal.len().min(SHOWN)].join(", ")
                    )?;
                    if legal.len() > SHOWN {
                        write!(f, ", ...")?;
                    }
                    Ok(())
                }
            }
        }
    }
}

impl std::error::Error for MoveError {}

/// The legal move (among `legal`) a MOVE message names.
pub fn decode_move<B: Bits>(
    geometry: &Geometry,
    legal: &[Move<B>],
    m: &MoveMessage,
) -> Result<Move<B>, MoveError> {
    let text = describe_move(m);
    // The parser keeps squares within 1-50; a message built otherwise names no legal move.
    let square = |n: u8| geometry.numbered(n as usize);
    let mut captured = B::ZERO;
    let mut on_board = true;
    for &n in &m.captured {
        let Some(sq) = square(n) else {
            on_board = false;
            continue;
        };
        let bit = B::bit(sq.0);
        if !(captured & bit).is_empty() {
            return Err(MoveError::DuplicateCapture {
                mv: text,
                square: n,
            });
        }
        captured |= bit;
    }
    if let (Some(from), Some(to), true) = (square(m.from), square(m.to), on_board) {
        if let Some(mv) = legal
            .iter()
            .find(|mv| mv.from() == from && mv.to() == to && mv.captured() == captured)
        {
            return Ok(*mv);
        }
    }
    // The legal moves in square order, for the reader.
    let mut all: Vec<MoveMessage> = legal
        .iter()
        .map(|mv| encode_move(geometry, mv, 0))
        .collect();
    all.sort_by(|a, b| (a.from, a.to, &a.captured).cmp(&(b.from, b.to, &b.captured)));
    Err(MoveError::NotLegal {
        mv: text,
        legal: all.iter().map(describe_move).collect(),
        same_route: all
            .iter()
            .filter(|l| l.from == m.from && l.to == m.to)
            .map(describe_move)
            .collect(),
    })
}

/// The GAMEEND reason a player sends for a game over by the rules.
pub fn end_reason(outcome: &Outcome, me: Color) -> EndReason {
    match outcome {
        Outcome::Win { winner, .. } if *winner == me => EndReason::Win,
        Outcome::Win { .. } => EndReason::GiveUp,
        Outcome::Draw(_) => EndReason::Draw,
    }
}

/// White's score (1, ½, 0) claimed by a GAMEEND reason from `sender`, if it claims one.
pub fn white_score_claimed(reason: EndReason, sender: Color) -> Option<f64> {
    reason.sender_score().map(|s| match sender {
        Color::White => s,
        Color::Black => 1.0 - s,
    })
}

/// The ply (0 = the game's start position) a BACKREQ asks for, counted from a start position
/// with `start_side` to move: move `n` with White to move is ply 2(n-1), with Black to move
/// 2(n-1)+1 (one less when Black moved first). None if it is before the start.
pub fn back_request_ply(start_side: Color, req: &BackRequest) -> Option<usize> {
    let ply =
        2 * (req.move_number as usize).checked_sub(1)? + usize::from(req.to_move == Color::Black);
    ply.checked_sub(usize::from(start_side == Color::Black))
}

/// The BACKREQ for a ply of a game whose start has `start_side` to move.
pub fn back_request_for(start_side: Color, ply: usize) -> BackRequest {
    let absolute = ply + usize::from(start_side == Color::Black);
    BackRequest {
        move_number: (absolute / 2 + 1).min(999) as u16,
        to_move: if absolute.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxp::message::{parse, Message};
    use damspel_rules::{Catalogue, Game, Piece};
    use std::sync::Arc;

    fn rules(id: &str) -> Arc<Rules<u64>> {
        let variant = Catalogue::builtin().get(id).unwrap();
        assert!(variant.fits_u64());
        Arc::new(Rules::<u64>::new(variant).unwrap())
    }

    fn setup(rules: &Rules<u64>, text: &str) -> Position<u64> {
        let setup =
            damspel_notation::parse_fen(&rules.variant().geometry, text).expect("a good FEN");
        Position::from_setup(rules, &setup).unwrap()
    }

    fn move_of(text: &str) -> MoveMessage {
        match parse(text).unwrap() {
            Message::Move(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_10x10_dark_boards_qualify() {
        let catalogue = Catalogue::builtin();
        let mut ok = Vec::new();
        for v in catalogue.variants().unwrap() {
            match check_variant(&v) {
                Ok(()) => ok.push(v.id.clone()),
                Err(e) => assert!(e.contains(&v.id) && !e.contains('\n'), "{e}"),
            }
        }
        for id in [
            "international",
            "killer",
            "deferred",
            "deferred-killer",
            "deferred-halt",
            "hoogland-10",
            "babylonian",
            "babylonian-c",
        ] {
            assert!(ok.contains(&id.to_string()), "{id} missing from {ok:?}");
        }
        for id in ["russian", "american", "turkish", "hoogland"] {
            assert!(!ok.contains(&id.to_string()), "{id}");
        }
    }

    #[test]
    fn the_standard_start_is_the_international_start() {
        let r = rules("international");
        let start = Position::start(&r);
        assert_eq!(to_board(&r, &start), DxpBoard::standard());
        assert_eq!(start_of(&r, &start), Start::Standard);
        assert_eq!(start_position(&r, &Start::Standard).unwrap(), start);
        // The GAMEREQ of the reference examples starts there too.
        let Message::GameRequest(req) =
            parse("R01Tornado voor Windows 4.0        W060065A").unwrap()
        else {
            panic!()
        };
        assert_eq!(start_position(&r, &req.start).unwrap(), start);
    }

    #[test]
    fn set_up_positions_round_trip_through_the_board() {
        let r = rules("international");
        let pos = setup(&r, "B:WK4,31,32:BK46,19,20");
        let board = to_board(&r, &pos);
        assert_eq!(board.to_move, Color::Black);
        assert_eq!(board.squares[3], Some(Piece::king(Color::White)));
        assert_eq!(board.squares[45], Some(Piece::king(Color::Black)));
        assert_eq!(board.squares[18], Some(Piece::man(Color::Black)));
        assert_eq!(board.squares[30], Some(Piece::man(Color::White)));
        assert_eq!(board.squares.iter().flatten().count(), 6);
        let Start::Setup(b) = start_of(&r, &pos) else {
            panic!()
        };
        assert_eq!(from_board(&r, &b).unwrap(), pos);
        // A white man on 3 stands on its promotion row.
        let mut bad = b;
        bad.squares[2] = Some(Piece::man(Color::White));
        assert!(from_board(&r, &bad).is_err());
    }

    #[test]
    fn the_reference_capture_decodes_against_the_legal_moves() {
        // M001205250422122320: 5x25 capturing 23, 22, 12 and 20 (mesander.nl emove.htm). A
        // black king on 5 with white men on 12, 20, 22 and 23 takes them all on the route
        // 5x28x17x3x25.
        let r = rules("international");
        let pos = setup(&r, "B:W12,20,22,23,48:BK5,1");
        let legal = r.moves(&pos);
        let m = move_of("M001205250422122320");
        let mv = decode_move(&r.variant().geometry, &legal, &m)
            .unwrap_or_else(|e| panic!("{e}; legal {legal:?}"));
        assert_eq!(mv.capture_count(), 4);
        // Written back: ascending captured squares, same from, to and set.
        let back = encode_move(&r.variant().geometry, &mv, 12);
        assert_eq!(back.captured, vec![12, 20, 22, 23]);
        assert_eq!(Message::Move(back).print().unwrap(), "M001205250412202223");
    }

    #[test]
    fn every_legal_move_round_trips() {
        let r = rules("international");
        let g = &r.variant().geometry;
        let mut game = Game::new(r.clone());
        // Walk a deterministic game: every move of every position decodes to itself.
        for ply in 0..80 {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            for mv in &legal {
                let text = Message::Move(encode_move(g, mv, 3)).print().unwrap();
                let Message::Move(m) = parse(&text).unwrap() else {
                    panic!()
                };
                assert_eq!(decode_move(g, &legal, &m).unwrap(), *mv, "{text}");
            }
            let pick = legal
                .iter()
                .max_by_key(|m| (m.capture_count(), (ply * 7 + m.to().0 as usize) % 11))
                .unwrap();
            game.play(pick);
        }
    }

    #[test]
    fn illegal_moves_are_refused_with_the_reason() {
        let r = rules("international");
        let g = &r.variant().geometry;
        let start = Position::start(&r);
        let legal = r.moves(&start);
        let e = decode_move(g, &legal, &move_of("M0000323700")).unwrap_err();
        let text = e.to_string();
        assert_eq!(
            text,
            "move 32-37 is not legal here; legal moves (9): 31-26, 31-27, 32-27, 32-28, 33-28, \
             33-29, 34-29, 34-30, 35-30"
        );
        // Black's move with White to move.
        assert!(decode_move(g, &legal, &move_of("M0000192400")).is_err());

        // A capture named with a wrong captured set.
        let pos = setup(&r, "W:W28:B23,22");
        let legal = r.moves(&pos);
        assert_eq!(legal.len(), 2);
        let e = decode_move(g, &legal, &move_of("M000028190122")).unwrap_err();
        assert!(
            e.to_string()
                .contains("captures must be: 28x19 (captures 23)"),
            "{e}"
        );
        assert!(decode_move(g, &legal, &move_of("M0000281900")).is_err());
        assert!(decode_move(g, &legal, &move_of("M00002819022322")).is_err());
        let e = decode_move(g, &legal, &move_of("M00002819022323")).unwrap_err();
        assert!(
            matches!(e, MoveError::DuplicateCapture { square: 23, .. }),
            "{e}"
        );
        let ok = decode_move(g, &legal, &move_of("M000028190123")).unwrap();
        assert_eq!(ok.capture_count(), 1);
        let ok = decode_move(g, &legal, &move_of("M000028170122")).unwrap();
        assert_eq!(ok.capture_count(), 1);
    }

    #[test]
    fn end_reasons_follow_the_outcome() {
        use damspel_rules::{DrawReason, WinReason};
        let win = Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Blocked,
        };
        assert_eq!(end_reason(&win, Color::Black), EndReason::Win);
        assert_eq!(end_reason(&win, Color::White), EndReason::GiveUp);
        let draw = Outcome::Draw(DrawReason::Repetition(3));
        assert_eq!(end_reason(&draw, Color::White), EndReason::Draw);
        assert_eq!(
            white_score_claimed(EndReason::GiveUp, Color::White),
            Some(0.0)
        );
        assert_eq!(
            white_score_claimed(EndReason::GiveUp, Color::Black),
            Some(1.0)
        );
        assert_eq!(white_score_claimed(EndReason::Win, Color::Black), Some(0.0));
        assert_eq!(
            white_score_claimed(EndReason::Draw, Color::Black),
            Some(0.5)
        );
        assert_eq!(
            white_score_claimed(EndReason::Unspecified, Color::Black),
            None
        );
    }

    #[test]
    fn back_requests_count_moves_from_one() {
        let req = |n, c| BackRequest {
            move_number: n,
            to_move: c,
        };
        // B005Z: Black to move in move 5 = after 9 plies from the normal start.
        assert_eq!(
            back_request_ply(Color::White, &req(5, Color::Black)),
            Some(9)
        );
        assert_eq!(
            back_request_ply(Color::White, &req(1, Color::White)),
            Some(0)
        );
        assert_eq!(
            back_request_ply(Color::Black, &req(1, Color::Black)),
            Some(0)
        );
        assert_eq!(back_request_ply(Color::Black, &req(1, Color::White)), None);
        assert_eq!(
            back_request_ply(Color::Black, &req(2, Color::White)),
            Some(1)
        );
        for side in Color::BOTH {
            for ply in 0..40 {
                assert_eq!(
                    back_request_ply(side, &back_request_for(side, ply)),
                    Some(ply)
                );
            }
        }
    }
}
