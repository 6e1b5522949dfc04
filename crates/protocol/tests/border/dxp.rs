//! DXP frames and messages against hostile and valid input:
//!
//! * the deframer gives the same messages however the stream is cut, never holds more than one
//!   message's bytes once drained, and recovers after bad frames;
//! * the message parser never panics on arbitrary strings, near-valid messages (each header with
//!   fields over the protocol's alphabet) or mutations of valid ones; an error names a column
//!   inside the message;
//! * every message prints as a text that parses back as the same message; a parsed message
//!   prints back as the same text, except for the names the parser accepts and Damspel would
//!   not send (empty, starting with a blank or holding control characters);
//! * incoming moves and set-up positions are checked against the rules without panicking, and
//!   only legal moves are accepted.

use damspel_protocol::dxp::{
    decode_move, encode_move, frame, from_board, parse, print, AcceptCode, BackAcceptCode,
    BackRequest, Deframer, DxpBoard, EndReason, FrameError, GameAccept, GameEnd, GameRequest,
    Message, MoveMessage, ParseError, Start, StopCode, MAX_MESSAGE_LEN, NAME_LEN, TERMINATOR,
};
use damspel_rules::{Catalogue, Color, Piece, Position, Rules};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::{config, Rng};

// ---------------------------------------------------------------------------------------------
// Framing.

fn drain(d: &mut Deframer) -> Vec<Result<String, FrameError>> {
    let out: Vec<_> = std::iter::from_fn(|| d.next()).collect();
    out
}

/// The stream pushed whole, and in the pieces `cuts` gives, reads as the same messages, with
/// at most one message's bytes held back.
fn deframe(
    stream: &[u8],
    cuts: &[usize],
) -> Result<Vec<Result<String, FrameError>>, TestCaseError> {
    let mut whole = Deframer::new();
    whole.push(stream);
    let expected = drain(&mut whole);
    prop_assert!(whole.pending() <= MAX_MESSAGE_LEN);
    let mut pieces = Deframer::new();
    let mut got = Vec::new();
    let mut at = 0;
    for &cut in cuts {
        let next = (at + cut).min(stream.len());
        pieces.push(&stream[at..next]);
        got.extend(drain(&mut pieces));
        prop_assert!(
            pieces.pending() <= MAX_MESSAGE_LEN,
            "{} bytes pending",
            pieces.pending()
        );
        at = next;
    }
    pieces.push(&stream[at..]);
    got.extend(drain(&mut pieces));
    // Cutting may only change where an over-long message is noticed (its length).
    let shape = |r: &Result<String, FrameError>| match r {
        Err(FrameError::TooLong { .. }) => Err(None),
        Err(e) => Err(Some(e.clone())),
        Ok(m) => Ok(m.clone()),
    };
    prop_assert_eq!(
        got.iter().map(shape).collect::<Vec<_>>(),
        expected.iter().map(shape).collect::<Vec<_>>()
    );
    for r in &expected {
        match r {
            Ok(m) => {
                prop_assert!(!m.is_empty() && m.len() <= MAX_MESSAGE_LEN);
                prop_assert!(m.bytes().all(|b| (1..=127).contains(&b)));
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
    Ok(expected)
}

fn stream_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // A valid frame.
        "[ -~]{1,127}".prop_map(|t| frame(&t).unwrap()),
        // Any bytes.
        proptest::collection::vec(any::<u8>(), 0..300),
        // Bad frames: empty, too long, a byte above 127.
        Just(vec![TERMINATOR]),
        (128usize..600).prop_map(|n| {
            let mut v = vec![b'C'; n];
            v.push(TERMINATOR);
            v
        }),
        Just(b"E0\x80\0".to_vec()),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn streams_read_the_same_however_cut(
        pieces in proptest::collection::vec(stream_piece(), 0..12),
        cuts in proptest::collection::vec(0usize..200, 0..40),
    ) {
        let stream: Vec<u8> = pieces.concat();
        deframe(&stream, &cuts)?;
    }

    #[test]
    fn valid_frames_survive_garbage_around_them(
        texts in proptest::collection::vec("[ -~]{1,127}", 1..8),
        garbage in proptest::collection::vec(any::<u8>(), 0..400),
        cuts in proptest::collection::vec(1usize..64, 0..40),
    ) {
        // Garbage, then a NUL (which ends whatever the garbage was), then the frames.
        let mut stream = garbage;
        stream.push(TERMINATOR);
        for t in &texts {
            stream.extend(frame(t).unwrap());
        }
        let read = deframe(&stream, &cuts)?;
        let tail: Vec<String> = read
            .iter()
            .rev()
            .take(texts.len())
            .rev()
            .map(|r| r.clone().unwrap_or_default())
            .collect();
        prop_assert_eq!(tail, texts);
    }
}

/// Many messages in one push are read one by one (linear: the buffer moves once per push).
#[test]
fn a_large_push_of_small_messages() {
    let mut d = Deframer::new();
    d.push(&b"E00\0".repeat(100_000));
    let mut n = 0;
    while let Some(m) = d.next() {
        assert_eq!(m, Ok("E00".to_string()));
        n += 1;
    }
    assert_eq!(n, 100_000);
    assert_eq!(d.pending(), 0);
}

// ---------------------------------------------------------------------------------------------
// Messages.

fn check_error(text: &str, e: &ParseError) -> Result<(), TestCaseError> {
    prop_assert!(!e.reason.trim().is_empty(), "{:?}: empty reason", text);
    prop_assert!(!e.to_string().is_empty());
    if let Some(column) = e.column {
        prop_assert!(
            column >= 1 && column <= text.chars().count() + 1,
            "{:?}: column {} outside",
            text,
            column
        );
    }
    Ok(())
}

/// A name Damspel would write: printable ASCII, not starting or ending with a blank.
fn name() -> impl Strategy<Value = String> {
    assert_eq!(NAME_LEN, 32);
    "[!-~]([ -~]{0,30}[!-~])?"
}

/// Whether `message` holds a name the parser accepts but the printer refuses.
fn lenient_name(message: &Message) -> bool {
    let odd = |n: &str| {
        n.is_empty() || n.starts_with(' ') || n.chars().any(|c| !(' '..='~').contains(&c))
    };
    match message {
        Message::GameRequest(r) => odd(&r.initiator),
        Message::GameAccept(a) => odd(&a.follower),
        _ => false,
    }
}

/// Parses `text`: never panics; an error is explained; a message prints back as the text
/// (unless it holds a name Damspel would not write).
fn read_message(text: &str) -> Result<Option<Message>, TestCaseError> {
    match parse(text) {
        Err(e) => {
            check_error(text, &e)?;
            Ok(None)
        }
        Ok(message) => {
            match print(&message) {
                Ok(printed) => prop_assert_eq!(&printed, text),
                Err(e) => prop_assert!(lenient_name(&message), "{:?}: {}", text, e),
            }
            Ok(Some(message))
        }
    }
}

fn piece() -> impl Strategy<Value = Option<Piece>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(Piece::man(Color::White))),
        1 => Just(Some(Piece::man(Color::Black))),
        1 => Just(Some(Piece::king(Color::White))),
        1 => Just(Some(Piece::king(Color::Black))),
    ]
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn board() -> impl Strategy<Value = DxpBoard> {
    (color(), proptest::collection::vec(piece(), 50)).prop_map(|(to_move, pieces)| {
        let mut squares = [None; 50];
        squares.copy_from_slice(&pieces);
        DxpBoard { to_move, squares }
    })
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        (
            0u8..=99,
            name(),
            color(),
            0u16..=999,
            0u16..=999,
            proptest::option::of(board())
        )
            .prop_map(
                |(version, initiator, follower_color, minutes, moves, board)| {
                    Message::GameRequest(GameRequest {
                        version,
                        initiator,
                        follower_color,
                        minutes,
                        moves,
                        start: board.map_or(Start::Standard, Start::Setup),
                    })
                }
            ),
        (
            name(),
            prop_oneof![
                Just(AcceptCode::Accept),
                Just(AcceptCode::WrongVersion),
                Just(AcceptCode::DeclineThisGame),
                Just(AcceptCode::NoGame)
            ]
        )
            .prop_map(|(follower, code)| Message::GameAccept(GameAccept { follower, code })),
        (
            0u16..=9999,
            1u8..=50,
            1u8..=50,
            proptest::collection::vec(1u8..=50, 0..=20)
        )
            .prop_map(|(seconds, from, to, captured)| Message::Move(MoveMessage {
                seconds,
                from,
                to,
                captured
            })),
        (
            prop_oneof![
                Just(EndReason::Unspecified),
                Just(EndReason::GiveUp),
                Just(EndReason::Draw),
                Just(EndReason::Win)
            ],
            prop_oneof![Just(StopCode::NextGame), Just(StopCode::Stop)]
        )
            .prop_map(|(reason, stop)| Message::GameEnd(GameEnd { reason, stop })),
        "[\\x01-\\x09\\x0b\\x0c\\x0e-\\x7f]{0,126}".prop_map(Message::Chat),
        (1u16..=999, color()).prop_map(|(move_number, to_move)| Message::BackRequest(
            BackRequest {
                move_number,
                to_move
            }
        )),
        prop_oneof![
            Just(BackAcceptCode::Accept),
            Just(BackAcceptCode::NotSupported),
            Just(BackAcceptCode::Decline)
        ]
        .prop_map(Message::BackAccept),
    ]
}

/// Text-level mutations of a valid message.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const INSERTS: [&str; 16] = [
        "0", "9", " ", "R", "A", "M", "E", "C", "B", "K", "W", "Z", "e", "\u{0}", "é", "\u{7f}",
    ];
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[rng.below(bounds.len())];
        match rng.below(5) {
            0 => s.truncate(at),
            1 => s.insert_str(at, INSERTS[rng.below(INSERTS.len())]),
            2 => {
                if at < s.len() {
                    s.remove(at);
                }
            }
            3 => {
                // Replace a character.
                if let Some(c) = s[at..].chars().next() {
                    s.replace_range(at..at + c.len_utf8(), INSERTS[rng.below(INSERTS.len())]);
                }
            }
            _ => {
                let other = bounds[rng.below(bounds.len())];
                let (a, b) = (at.min(other), at.max(other));
                let slice = s[a..b].to_string();
                s.insert_str(b, &slice);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        read_message(&text)?;
    }

    #[test]
    fn near_valid_messages(header in "[RAMECBKX]", fields in "[0-9WZABewzZ ]{0,130}") {
        read_message(&format!("{header}{fields}"))?;
    }

    #[test]
    fn messages_read_back(message in message()) {
        let text = print(&message).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(text.len() <= MAX_MESSAGE_LEN);
        prop_assert_eq!(parse(&text), Ok(message.clone()));
        // Framed and deframed too.
        let mut d = Deframer::new();
        d.push(&frame(&text).map_err(|e| TestCaseError::fail(e.to_string()))?);
        prop_assert_eq!(d.next(), Some(Ok(text.clone())));
        prop_assert_eq!(read_message(&text)?, Some(message));
    }

    #[test]
    fn mutated_messages(message in message(), seed: u64) {
        let text = print(&message).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut rng = Rng(seed);
        for _ in 0..8 {
            read_message(&mutate(&text, &mut rng))?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Moves and positions against the rules.

fn international() -> Rules<u64> {
    Rules::new(Catalogue::builtin().get("international").unwrap()).unwrap()
}

proptest! {
    #![proptest_config(config(256))]

    /// An incoming MOVE is accepted only when it names a legal move, and every legal move
    /// encodes to a MOVE that decodes back to it.
    #[test]
    fn incoming_moves_are_checked(seed: u64, plies in 0usize..80, mv in any::<String>(), m in message()) {
        let rules = international();
        let g = &rules.variant().geometry;
        let mut rng = Rng(seed);
        let mut pos = Position::start(&rules);
        for _ in 0..plies {
            let legal = rules.moves(&pos);
            if legal.is_empty() {
                break;
            }
            pos = pos.play(&legal[rng.below(legal.len())]);
        }
        let legal = rules.moves(&pos);
        for l in &legal {
            let text = print(&Message::Move(encode_move(g, l, 0))).unwrap();
            let Ok(Message::Move(back)) = parse(&text) else { panic!("{text}") };
            prop_assert_eq!(decode_move(g, &legal, &back), Ok(*l));
        }
        let candidates = [format!("M0000{mv}"), print(&m).unwrap_or_default()];
        for text in candidates {
            if let Ok(Message::Move(incoming)) = parse(&text) {
                match decode_move(g, &legal, &incoming) {
                    Ok(found) => prop_assert!(legal.contains(&found)),
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }
        }
    }

    /// A set-up position from a GAMEREQ is checked by the rules: never a panic.
    #[test]
    fn set_up_positions_are_checked(board in board()) {
        let rules = international();
        match from_board(&rules, &board) {
            Ok(pos) => prop_assert_eq!(pos.side_to_move(), board.to_move),
            Err(e) => prop_assert!(!e.issues.is_empty()),
        }
    }
}

/// A MOVE built in code with squares off the board names no legal move (it used to panic).
#[test]
fn moves_off_the_board_are_not_legal() {
    let rules = international();
    let g = &rules.variant().geometry;
    let pos = Position::start(&rules);
    let legal = rules.moves(&pos);
    for (from, to, captured) in [
        (0, 28, vec![]),
        (32, 51, vec![]),
        (32, 28, vec![0]),
        (32, 28, vec![200]),
    ] {
        let m = MoveMessage {
            seconds: 0,
            from,
            to,
            captured,
        };
        assert!(decode_move(g, &legal, &m).is_err(), "{m:?}");
    }
    // On a board other than DXP's, square numbers beyond it are refused too.
    let american = Rules::<u64>::new(Catalogue::builtin().get("american").unwrap()).unwrap();
    let legal = american.moves(&Position::start(&american));
    let m = MoveMessage {
        seconds: 0,
        from: 45,
        to: 40,
        captured: vec![],
    };
    assert!(decode_move(&american.variant().geometry, &legal, &m).is_err());
}
