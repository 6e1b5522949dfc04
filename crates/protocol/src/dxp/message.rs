//! The seven DXP messages, typed, with their parser and printer.
//!
//! Every message is one line of 1 to 127 ASCII characters whose first character names its type;
//! the fields after it have fixed widths, numbers are zero-padded and names blank-padded to 32
//! characters (mesander.nl/damexchange, `edxplg2.htm` and one page per message):
//!
//! | header | message  | fields |
//! |--------|----------|--------|
//! | `R`    | GAMEREQ  | version(2) initiator name(32) follower colour(1) minutes(3) moves(3) start(1: `A` or `B` + colour to move(1) + 50 squares) |
//! | `A`    | GAMEACC  | follower name(32) acceptance code(1) |
//! | `M`    | MOVE     | seconds(4) from(2) to(2) number captured(2) captured squares(2 each) |
//! | `E`    | GAMEEND  | reason(1) stop code(1) |
//! | `C`    | CHAT     | free text |
//! | `B`    | BACKREQ  | move number(3) colour to move(1) |
//! | `K`    | BACKACC  | acceptance code(1) |
//!
//! [`Message::parse`] checks every field and names the one that is wrong; [`Message::print`]
//! refuses values that do not fit their field instead of cutting them.

use std::fmt;
use std::ops::RangeInclusive;

use damspel_rules::{Color, Piece};

/// The longest message: 127 characters (the NUL terminator not counted).
pub const MAX_MESSAGE_LEN: usize = 127;
/// The width of the name fields of GAMEREQ and GAMEACC.
pub const NAME_LEN: usize = 32;
/// The squares of a DXP board: the 50 dark squares of the 10x10 board, numbered 1 to 50.
pub const BOARD_SQUARES: usize = 50;
/// The protocol version Damspel speaks (the only one published).
pub const PROTOCOL_VERSION: u8 = 1;
/// The most captured pieces a MOVE message may list.
pub const MAX_CAPTURED: usize = 20;

/// The type of a message, named by its first character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    GameRequest,
    GameAccept,
    Move,
    GameEnd,
    Chat,
    BackRequest,
    BackAccept,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::GameRequest,
        Kind::GameAccept,
        Kind::Move,
        Kind::GameEnd,
        Kind::Chat,
        Kind::BackRequest,
        Kind::BackAccept,
    ];

    /// The header character.
    pub fn header(self) -> char {
        match self {
            Kind::GameRequest => 'R',
            Kind::GameAccept => 'A',
            Kind::Move => 'M',
            Kind::GameEnd => 'E',
            Kind::Chat => 'C',
            Kind::BackRequest => 'B',
            Kind::BackAccept => 'K',
        }
    }

    /// The protocol's name of the message: GAMEREQ, GAMEACC, MOVE, ...
    pub fn name(self) -> &'static str {
        match self {
            Kind::GameRequest => "GAMEREQ",
            Kind::GameAccept => "GAMEACC",
            Kind::Move => "MOVE",
            Kind::GameEnd => "GAMEEND",
            Kind::Chat => "CHAT",
            Kind::BackRequest => "BACKREQ",
            Kind::BackAccept => "BACKACC",
        }
    }

    pub fn from_header(c: char) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.header() == c)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A DXP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    GameRequest(GameRequest),
    GameAccept(GameAccept),
    Move(MoveMessage),
    GameEnd(GameEnd),
    Chat(String),
    BackRequest(BackRequest),
    BackAccept(BackAcceptCode),
}

/// GAMEREQ: the initiator proposes a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRequest {
    /// Always 1 in the published protocol; a follower answers other versions with
    /// [`AcceptCode::WrongVersion`].
    pub version: u8,
    /// The initiator's name, without the blank padding.
    pub initiator: String,
    /// The colour the follower plays.
    pub follower_color: Color,
    /// Thinking time of each player for the whole game, in minutes (0-999).
    pub minutes: u16,
    /// Number of moves of the game (0-999); 0 means no limit.
    pub moves: u16,
    pub start: Start,
}

/// The starting position of a GAMEREQ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// `A`: the normal starting position, White to move.
    Standard,
    /// `B`: the side to move and the 50 squares.
    Setup(DxpBoard),
}

/// A DXP position: the side to move and squares 1 to 50 (`squares[0]` is square 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DxpBoard {
    pub to_move: Color,
    pub squares: [Option<Piece>; BOARD_SQUARES],
}

impl DxpBoard {
    /// The normal starting position: Black's men on 1-20, White's on 31-50, White to move.
    pub fn standard() -> DxpBoard {
        let mut squares = [None; BOARD_SQUARES];
        for (i, sq) in squares.iter_mut().enumerate() {
            *sq = match i + 1 {
                1..=20 => Some(Piece::man(Color::Black)),
                31..=50 => Some(Piece::man(Color::White)),
                _ => None,
            };
        }
        DxpBoard {
            to_move: Color::White,
            squares,
        }
    }

    /// The 51 characters of a `B` start: colour to move, then `e w z W Z` per square.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(1 + BOARD_SQUARES);
        s.push(color_char(self.to_move));
        s.extend(self.squares.iter().map(|p| piece_char(*p)));
        s
    }
}

/// The letter of a square's content: `e` empty, `w`/`z` a white/black man, `W`/`Z` a king.
pub fn piece_char(piece: Option<Piece>) -> char {
    match piece {
        None => 'e',
        Some(Piece {
            color: Color::White,
            king: false,
        }) => 'w',
        Some(Piece {
            color: Color::Black,
            king: false,
        }) => 'z',
        Some(Piece {
            color: Color::White,
            king: true,
        }) => 'W',
        Some(Piece {
            color: Color::Black,
            king: true,
        }) => 'Z',
    }
}

fn piece_of(c: u8) -> Option<Option<Piece>> {
    Some(match c {
        b'e' => None,
        b'w' => Some(Piece::man(Color::White)),
        b'z' => Some(Piece::man(Color::Black)),
        b'W' => Some(Piece::king(Color::White)),
        b'Z' => Some(Piece::king(Color::Black)),
        _ => return None,
    })
}

/// `W` for White, `Z` (zwart) for Black.
pub fn color_char(color: Color) -> char {
    match color {
        Color::White => 'W',
        Color::Black => 'Z',
    }
}

/// GAMEACC: the follower's answer to a GAMEREQ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameAccept {
    /// The follower's name, without the blank padding.
    pub follower: String,
    pub code: AcceptCode,
}

/// The acceptance code of GAMEACC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AcceptCode {
    /// `0`: the game is accepted.
    Accept,
    /// `1`: the protocol version is not the expected one.
    WrongVersion,
    /// `2`: this game is declined, another one would be played.
    DeclineThisGame,
    /// `3`: no game at all.
    NoGame,
}

impl AcceptCode {
    const CODES: [(AcceptCode, u8, &'static str); 4] = [
        (AcceptCode::Accept, b'0', "accepted"),
        (
            AcceptCode::WrongVersion,
            b'1',
            "protocol version not as expected",
        ),
        (
            AcceptCode::DeclineThisGame,
            b'2',
            "this game declined, another one would be played",
        ),
        (AcceptCode::NoGame, b'3', "no game wanted at all"),
    ];

    pub fn digit(self) -> char {
        Self::CODES
            .iter()
            .find(|c| c.0 == self)
            .map_or('0', |c| c.1 as char)
    }

    pub fn meaning(self) -> &'static str {
        Self::CODES.iter().find(|c| c.0 == self).map_or("", |c| c.2)
    }

    fn from_digit(d: u8) -> Option<AcceptCode> {
        Self::CODES.iter().find(|c| c.1 == d).map(|c| c.0)
    }
}

/// MOVE: a move, by its from and to squares and the squares of the captured pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveMessage {
    /// Seconds used for the move (informational), 0-9999.
    pub seconds: u16,
    /// Square numbers 1-50.
    pub from: u8,
    pub to: u8,
    /// The captured squares in the order given (the order carries no meaning).
    pub captured: Vec<u8>,
}

/// GAMEEND: ends the game; sent instead of a move, and answered with a GAMEEND.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameEnd {
    pub reason: EndReason,
    pub stop: StopCode,
}

/// The reason of a GAMEEND, from its sender's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// `0`: no reason given (always allowed; the only reason of an answering GAMEEND).
    Unspecified,
    /// `1`: I give up (I lose).
    GiveUp,
    /// `2`: draw.
    Draw,
    /// `3`: I win.
    Win,
}

impl EndReason {
    pub fn digit(self) -> char {
        match self {
            EndReason::Unspecified => '0',
            EndReason::GiveUp => '1',
            EndReason::Draw => '2',
            EndReason::Win => '3',
        }
    }

    fn from_digit(d: u8) -> Option<EndReason> {
        Some(match d {
            b'0' => EndReason::Unspecified,
            b'1' => EndReason::GiveUp,
            b'2' => EndReason::Draw,
            b'3' => EndReason::Win,
            _ => return None,
        })
    }

    pub fn meaning(self) -> &'static str {
        match self {
            EndReason::Unspecified => "no reason given",
            EndReason::GiveUp => "I give up",
            EndReason::Draw => "draw",
            EndReason::Win => "I win",
        }
    }

    /// The sender's score claimed by the reason (1, ½, 0), if it claims one.
    pub fn sender_score(self) -> Option<f64> {
        match self {
            EndReason::Unspecified => None,
            EndReason::GiveUp => Some(0.0),
            EndReason::Draw => Some(0.5),
            EndReason::Win => Some(1.0),
        }
    }
}

/// The stop code of a GAMEEND.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopCode {
    /// `0`: this game ends; a next game may follow.
    NextGame,
    /// `1`: the sender wants to stop entirely.
    Stop,
}

impl StopCode {
    pub fn digit(self) -> char {
        match self {
            StopCode::NextGame => '0',
            StopCode::Stop => '1',
        }
    }
}

/// BACKREQ: go back to the position of a move number with a colour to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BackRequest {
    /// 1-999; the first move of the game is move 1.
    pub move_number: u16,
    pub to_move: Color,
}

/// The acceptance code of BACKACC (dctl `back_acknowledge.hpp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackAcceptCode {
    /// `0`: the take-back is done.
    Accept,
    /// `1`: take-backs are not supported.
    NotSupported,
    /// `2`: this take-back is declined.
    Decline,
}

impl BackAcceptCode {
    pub fn digit(self) -> char {
        match self {
            BackAcceptCode::Accept => '0',
            BackAcceptCode::NotSupported => '1',
            BackAcceptCode::Decline => '2',
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            BackAcceptCode::Accept => "accepted",
            BackAcceptCode::NotSupported => "take-backs not supported",
            BackAcceptCode::Decline => "declined",
        }
    }
}

/// Why a text is not a DXP message: the message type and field when known, the column
/// (1-based, the header is column 1) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub kind: Option<Kind>,
    pub field: Option<&'static str>,
    pub column: Option<usize>,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(kind) = self.kind {
            write!(f, "{kind}")?;
            if let Some(field) = self.field {
                write!(f, " field `{field}`")?;
            }
            if let Some(column) = self.column {
                write!(f, " (column {column})")?;
            }
            write!(f, ": ")?;
        } else if let Some(column) = self.column {
            write!(f, "column {column}: ")?;
        }
        f.write_str(&self.reason)
    }
}

impl std::error::Error for ParseError {}

/// Why a typed message cannot be printed: the value does not fit its field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintError {
    pub kind: Kind,
    pub field: &'static str,
    pub reason: String,
}

impl fmt::Display for PrintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write {} field `{}`: {}",
            self.kind, self.field, self.reason
        )
    }
}

impl std::error::Error for PrintError {}

/// Parses one message (without its NUL terminator).
pub fn parse(text: &str) -> Result<Message, ParseError> {
    Message::parse(text)
}

/// Prints one message (without its NUL terminator).
pub fn print(message: &Message) -> Result<String, PrintError> {
    message.print()
}

impl Message {
    pub fn kind(&self) -> Kind {
        match self {
            Message::GameRequest(_) => Kind::GameRequest,
            Message::GameAccept(_) => Kind::GameAccept,
            Message::Move(_) => Kind::Move,
            Message::GameEnd(_) => Kind::GameEnd,
            Message::Chat(_) => Kind::Chat,
            Message::BackRequest(_) => Kind::BackRequest,
            Message::BackAccept(_) => Kind::BackAccept,
        }
    }

    /// Parses one message (without its NUL terminator).
    pub fn parse(text: &str) -> Result<Message, ParseError> {
        let whole = |column: Option<usize>, reason: String| ParseError {
            kind: None,
            field: None,
            column,
            reason,
        };
        if text.is_empty() {
            return Err(whole(None, "empty message".into()));
        }
        if let Some((i, c)) = text
            .char_indices()
            .find(|&(_, c)| !c.is_ascii() || c == '\0')
        {
            let column = text[..i].chars().count() + 1;
            return Err(whole(
                Some(column),
                format!(
                    "character {c:?} (U+{:04X}) is not allowed: DXP messages are ASCII 1-127",
                    c as u32
                ),
            ));
        }
        if text.len() > MAX_MESSAGE_LEN {
            return Err(whole(
                None,
                format!(
                    "message of {} characters; DXP allows at most {MAX_MESSAGE_LEN}",
                    text.len()
                ),
            ));
        }
        let header = text.as_bytes()[0] as char;
        let Some(kind) = Kind::from_header(header) else {
            return Err(whole(
                Some(1),
                format!("unknown message type {header:?} (expected one of R A M E C B K)"),
            ));
        };
        let mut f = Fields {
            text: text.as_bytes(),
            pos: 1,
            kind,
        };
        let message = match kind {
            Kind::GameRequest => Message::GameRequest(parse_game_request(&mut f)?),
            Kind::GameAccept => {
                let follower = f.name("follower name")?;
                let code = f.code("acceptance code", "0, 1, 2 or 3", AcceptCode::from_digit)?;
                Message::GameAccept(GameAccept { follower, code })
            }
            Kind::Move => Message::Move(parse_move(&mut f)?),
            Kind::GameEnd => {
                let reason = f.code("reason", "0, 1, 2 or 3", EndReason::from_digit)?;
                let stop = f.code("stop code", "0 or 1", |d| match d {
                    b'0' => Some(StopCode::NextGame),
                    b'1' => Some(StopCode::Stop),
                    _ => None,
                })?;
                Message::GameEnd(GameEnd { reason, stop })
            }
            Kind::Chat => {
                let rest = &text[1..];
                f.pos = text.len();
                Message::Chat(rest.to_string())
            }
            Kind::BackRequest => {
                let move_number = f.number("move number", 3, 1..=999)?;
                let to_move = f.color("color to move")?;
                Message::BackRequest(BackRequest {
                    move_number,
                    to_move,
                })
            }
            Kind::BackAccept => {
                let code = f.code("acceptance code", "0, 1 or 2", |d| match d {
                    b'0' => Some(BackAcceptCode::Accept),
                    b'1' => Some(BackAcceptCode::NotSupported),
                    b'2' => Some(BackAcceptCode::Decline),
                    _ => None,
                })?;
                Message::BackAccept(code)
            }
        };
        f.end()?;
        Ok(message)
    }

    /// Prints the message (without its NUL terminator).
    pub fn print(&self) -> Result<String, PrintError> {
        let kind = self.kind();
        let err = |field: &'static str, reason: String| PrintError {
            kind,
            field,
            reason,
        };
        let mut s = String::new();
        s.push(kind.header());
        match self {
            Message::GameRequest(r) => {
                push_number(&mut s, r.version as u32, 2).map_err(|e| err("version", e))?;
                push_name(&mut s, &r.initiator).map_err(|e| err("initiator name", e))?;
                s.push(color_char(r.follower_color));
                push_number(&mut s, r.minutes as u32, 3).map_err(|e| err("thinking time", e))?;
                push_number(&mut s, r.moves as u32, 3).map_err(|e| err("number of moves", e))?;
                match &r.start {
                    Start::Standard => s.push('A'),
                    Start::Setup(board) => {
                        s.push('B');
                        s.push_str(&board.to_text());
                    }
                }
            }
            Message::GameAccept(a) => {
                push_name(&mut s, &a.follower).map_err(|e| err("follower name", e))?;
                s.push(a.code.digit());
            }
            Message::Move(m) => {
                push_number(&mut s, m.seconds as u32, 4).map_err(|e| err("time", e))?;
                push_square(&mut s, m.from).map_err(|e| err("from field", e))?;
                push_square(&mut s, m.to).map_err(|e| err("to field", e))?;
                if m.captured.len() > MAX_CAPTURED {
                    return Err(err(
                        "number captured",
                        format!(
                            "{} captured pieces; DXP allows at most {MAX_CAPTURED}",
                            m.captured.len()
                        ),
                    ));
                }
                push_number(&mut s, m.captured.len() as u32, 2)
                    .map_err(|e| err("number captured", e))?;
                for &sq in &m.captured {
                    push_square(&mut s, sq).map_err(|e| err("captured pieces", e))?;
                }
            }
            Message::GameEnd(e) => {
                s.push(e.reason.digit());
                s.push(e.stop.digit());
            }
            Message::Chat(text) => {
                if let Some(c) = text
                    .chars()
                    .find(|&c| !c.is_ascii() || c == '\0' || c == '\r' || c == '\n')
                {
                    return Err(err(
                        "text",
                        format!("character {c:?} is not printable ASCII"),
                    ));
                }
                s.push_str(text);
            }
            Message::BackRequest(b) => {
                if b.move_number == 0 {
                    return Err(err("move number", "move numbers start at 1".into()));
                }
                push_number(&mut s, b.move_number as u32, 3).map_err(|e| err("move number", e))?;
                s.push(color_char(b.to_move));
            }
            Message::BackAccept(code) => s.push(code.digit()),
        }
        if s.len() > MAX_MESSAGE_LEN {
            return Err(err(
                "message",
                format!(
                    "{} characters; DXP allows at most {MAX_MESSAGE_LEN}",
                    s.len()
                ),
            ));
        }
        Ok(s)
    }
}

impl fmt::Display for Message {
    /// The message text, or a description when it cannot be printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.print() {
            Ok(text) => f.write_str(&text),
            Err(e) => write!(f, "<{e}>"),
        }
    }
}

fn push_number(s: &mut String, n: u32, width: usize) -> Result<(), String> {
    let text = format!("{n:0width$}");
    if text.len() > width {
        return Err(format!("{n} does not fit in {width} digits"));
    }
    s.push_str(&text);
    Ok(())
}

fn push_square(s: &mut String, sq: u8) -> Result<(), String> {
    if !(1..=BOARD_SQUARES as u8).contains(&sq) {
        return Err(format!("square {sq} is not between 1 and {BOARD_SQUARES}"));
    }
    push_number(s, sq as u32, 2)
}

fn push_name(s: &mut String, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if name.starts_with(' ') {
        return Err("a name must not start with a blank".into());
    }
    if let Some(c) = name.chars().find(|c| !(' '..='~').contains(c)) {
        return Err(format!("character {c:?} is not printable ASCII"));
    }
    if name.len() > NAME_LEN {
        return Err(format!(
            "{:?} has {} characters; the field holds {NAME_LEN}",
            name,
            name.len()
        ));
    }
    s.push_str(&format!("{name:<NAME_LEN$}"));
    Ok(())
}

/// A cursor over the fields of one message.
struct Fields<'a> {
    text: &'a [u8],
    pos: usize,
    kind: Kind,
}

impl Fields<'_> {
    fn error(&self, field: &'static str, column: usize, reason: String) -> ParseError {
        ParseError {
            kind: Some(self.kind),
            field: Some(field),
            column: Some(column),
            reason,
        }
    }

    /// The next `n` characters.
    fn take(&mut self, field: &'static str, n: usize) -> Result<String, ParseError> {
        let start = self.pos;
        if self.text.len() < start + n {
            return Err(self.error(
                field,
                start + 1,
                format!(
                    "the message ends after {} characters; this field needs {n} more",
                    self.text.len(),
                    n = start + n - self.text.len()
                ),
            ));
        }
        self.pos += n;
        // The whole text was checked to be ASCII.
        Ok(String::from_utf8_lossy(&self.text[start..start + n]).into_owned())
    }

    fn number(
        &mut self,
        field: &'static str,
        width: usize,
        range: RangeInclusive<u16>,
    ) -> Result<u16, ParseError> {
        let column = self.pos + 1;
        let digits = self.take(field, width)?;
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error(
                field,
                column,
                format!("expected {width} digits, found {digits:?}"),
            ));
        }
        let n: u16 = digits.parse().unwrap_or(u16::MAX);
        if !range.contains(&n) {
            return Err(self.error(
                field,
                column,
                format!(
                    "{digits} is out of range ({:0width$}-{:0width$})",
                    range.start(),
                    range.end()
                ),
            ));
        }
        Ok(n)
    }

    fn char(&mut self, field: &'static str) -> Result<u8, ParseError> {
        Ok(self.take(field, 1)?.as_bytes()[0])
    }

    fn code<T>(
        &mut self,
        field: &'static str,
        expected: &str,
        decode: impl Fn(u8) -> Option<T>,
    ) -> Result<T, ParseError> {
        let column = self.pos + 1;
        let c = self.char(field)?;
        decode(c).ok_or_else(|| {
            self.error(
                field,
                column,
                format!("expected {expected}, found {:?}", c as char),
            )
        })
    }

    fn color(&mut self, field: &'static str) -> Result<Color, ParseError> {
        self.code(field, "W or Z", |c| match c {
            b'W' => Some(Color::White),
            b'Z' => Some(Color::Black),
            _ => None,
        })
    }

    /// A 32-character name: the trailing blanks are padding.
    fn name(&mut self, field: &'static str) -> Result<String, ParseError> {
        Ok(self
            .take(field, NAME_LEN)?
            .trim_end_matches(' ')
            .to_string())
    }

    fn end(&self) -> Result<(), ParseError> {
        if self.pos < self.text.len() {
            let rest = String::from_utf8_lossy(&self.text[self.pos..]).into_owned();
            return Err(ParseError {
                kind: Some(self.kind),
                field: None,
                column: Some(self.pos + 1),
                reason: format!("unexpected characters after the last field: {rest:?}"),
            });
        }
        Ok(())
    }
}

fn parse_game_request(f: &mut Fields) -> Result<GameRequest, ParseError> {
    let version = f.number("version", 2, 0..=99)? as u8;
    let initiator = f.name("initiator name")?;
    let follower_color = f.color("follower color")?;
    let minutes = f.number("thinking time", 3, 0..=999)?;
    let moves = f.number("number of moves", 3, 0..=999)?;
    let start = match f.code("starting position", "A or B", |c| match c {
        b'A' | b'B' => Some(c),
        _ => None,
    })? {
        b'A' => Start::Standard,
        _ => {
            let to_move = f.color("color to move first")?;
            let column = f.pos + 1;
            let cells = f.take("position", BOARD_SQUARES)?;
            let mut squares = [None; BOARD_SQUARES];
            for (i, c) in cells.bytes().enumerate() {
                squares[i] = piece_of(c).ok_or_else(|| {
                    f.error(
                        "position",
                        column + i,
                        format!(
                            "square {} holds {:?}; expected e, w, z, W or Z",
                            i + 1,
                            c as char
                        ),
                    )
                })?;
            }
            Start::Setup(DxpBoard { to_move, squares })
        }
    };
    Ok(GameRequest {
        version,
        initiator,
        follower_color,
        minutes,
        moves,
        start,
    })
}

fn parse_move(f: &mut Fields) -> Result<MoveMessage, ParseError> {
    const SQUARES: RangeInclusive<u16> = 1..=BOARD_SQUARES as u16;
    let seconds = f.number("time", 4, 0..=9999)?;
    let from = f.number("from field", 2, SQUARES)? as u8;
    let to = f.number("to field", 2, SQUARES)? as u8;
    let count = f.number("number captured", 2, 0..=MAX_CAPTURED as u16)? as usize;
    let (needed, present) = (2 * count, f.text.len() - f.pos);
    if present != needed {
        let rest = String::from_utf8_lossy(&f.text[f.pos..]).into_owned();
        return Err(f.error(
            "captured pieces",
            f.pos + 1,
            if present < needed {
                format!("{count} captured pieces need {needed} characters, found {present}: {rest:?}")
            } else {
                format!("{count} captured pieces take {needed} characters, but {present} follow: {rest:?}")
            },
        ));
    }
    let mut captured = Vec::with_capacity(count);
    for _ in 0..count {
        captured.push(f.number("captured pieces", 2, SQUARES)? as u8);
    }
    Ok(MoveMessage {
        seconds,
        from,
        to,
        captured,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference examples (a copy of shared/reference/dxp-messages.tsv, rows and sources).
    const TSV: &str = include_str!("testdata/dxp-messages.tsv");

    /// (header, example text) for every example of the file; the MOVE row has two.
    fn examples() -> Vec<(char, String)> {
        let mut out = Vec::new();
        for line in TSV.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 5, "five columns: {line}");
            let header = cols[0].chars().next().unwrap();
            let example = cols[3];
            if header == 'M' {
                // "M0012061100 ; M001205250422122320 (5x25 capturing 23,22,12,20)"
                for part in example.split(';') {
                    let text = part.trim().split(' ').next().unwrap();
                    out.push((header, text.to_string()));
                }
            } else {
                out.push((header, example.to_string()));
            }
        }
        out
    }

    #[test]
    fn the_copy_matches_the_shared_reference() {
        let shared = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/reference/dxp-messages.tsv"
        );
        // CI has the shared directory beside the repository; elsewhere the copy stands alone.
        if let Ok(text) = std::fs::read_to_string(shared) {
            assert_eq!(text, TSV, "testdata/dxp-messages.tsv differs from {shared}");
        }
    }

    #[test]
    fn every_reference_example_round_trips() {
        let examples = examples();
        assert_eq!(examples.len(), 8, "{examples:?}");
        for (header, text) in &examples {
            let message = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(message.kind().header(), *header, "{text}");
            assert_eq!(print(&message).unwrap(), *text, "round trip of {text:?}");
        }
        // Every message type has an example.
        for kind in Kind::ALL {
            assert!(
                examples.iter().any(|(h, _)| *h == kind.header()),
                "{kind} has no example"
            );
        }
    }

    #[test]
    fn the_reference_examples_have_the_documented_values() {
        let get = |h: char, n: usize| {
            parse(
                &examples()
                    .into_iter()
                    .filter(|e| e.0 == h)
                    .nth(n)
                    .unwrap()
                    .1,
            )
            .unwrap()
        };
        assert_eq!(
            get('R', 0),
            Message::GameRequest(GameRequest {
                version: 1,
                initiator: "Tornado voor Windows 4.0".into(),
                follower_color: Color::White,
                minutes: 60,
                moves: 65,
                start: Start::Standard,
            })
        );
        assert_eq!(
            get('A', 0),
            Message::GameAccept(GameAccept {
                follower: "Tornado voor Windows 4.0".into(),
                code: AcceptCode::Accept,
            })
        );
        assert_eq!(
            get('M', 0),
            Message::Move(MoveMessage {
                seconds: 12,
                from: 6,
                to: 11,
                captured: vec![],
            })
        );
        // 5x25 capturing 23, 22, 12 and 20 (mesander.nl emove.htm): in the order written.
        assert_eq!(
            get('M', 1),
            Message::Move(MoveMessage {
                seconds: 12,
                from: 5,
                to: 25,
                captured: vec![22, 12, 23, 20],
            })
        );
        assert_eq!(
            get('E', 0),
            Message::GameEnd(GameEnd {
                reason: EndReason::Unspecified,
                stop: StopCode::NextGame,
            })
        );
        assert_eq!(
            get('C', 0),
            Message::Chat("What do you think about move 35?".into())
        );
        assert_eq!(
            get('B', 0),
            Message::BackRequest(BackRequest {
                move_number: 5,
                to_move: Color::Black,
            })
        );
        assert_eq!(
            get('K', 0),
            Message::BackAccept(BackAcceptCode::NotSupported)
        );
    }

    #[test]
    fn set_up_positions_round_trip() {
        let mut board = DxpBoard::standard();
        board.to_move = Color::Black;
        board.squares[0] = Some(Piece::king(Color::White));
        board.squares[49] = Some(Piece::king(Color::Black));
        board.squares[24] = None;
        let message = Message::GameRequest(GameRequest {
            version: 1,
            initiator: "Damspel".into(),
            follower_color: Color::Black,
            minutes: 5,
            moves: 0,
            start: Start::Setup(board),
        });
        let text = print(&message).unwrap();
        assert_eq!(text.len(), 1 + 2 + 32 + 1 + 3 + 3 + 1 + 1 + 50);
        assert_eq!(
            &text[42..],
            format!("BZW{}{}{}Z", "z".repeat(19), "e".repeat(10), "w".repeat(19))
        );
        assert_eq!(parse(&text).unwrap(), message);
        assert_eq!(
            DxpBoard::standard().to_text(),
            format!("W{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20))
        );
    }

    fn error(text: &str) -> ParseError {
        parse(text).expect_err(text)
    }

    #[test]
    fn errors_name_the_field() {
        let e = error("R01Tornado voor Windows 4.0        X060065A");
        assert_eq!(
            (e.kind, e.field, e.column),
            (Some(Kind::GameRequest), Some("follower color"), Some(36))
        );
        assert!(e.to_string().contains("expected W or Z"), "{e}");

        let e = error("R01Tornado voor Windows 4.0        W06a065A");
        assert_eq!(e.field, Some("thinking time"));
        let e = error("R01Tornado voor Windows 4.0        W060065C");
        assert_eq!(e.field, Some("starting position"));
        let e = error("R01Tornado voor Windows 4.0        W060065AX");
        assert_eq!((e.field, e.column), (None, Some(44)));
        let e = error("R01Tornado voor Windows 4.0        W060065BW");
        assert_eq!(e.field, Some("position"));
        let mut bad = format!("R01{:<32}W060065BW{}", "x", "e".repeat(50));
        bad.replace_range(60..61, "q");
        let e = error(&bad);
        assert_eq!((e.field, e.column), (Some("position"), Some(61)), "{e}");
        assert!(e.to_string().contains("square 17 "), "{e}");
        let e = error("RX1Tornado");
        assert_eq!(e.field, Some("version"));
        let e = error("R01Tornado");
        assert_eq!(e.field, Some("initiator name"));
        assert!(e.to_string().contains("ends after"), "{e}");

        assert_eq!(
            error("ATornado voor Windows 4.0        7").field,
            Some("acceptance code")
        );
        assert_eq!(error("M0012511100").field, Some("from field"));
        assert_eq!(error("M0012060000").field, Some("to field"));
        assert_eq!(error("M00120611").field, Some("number captured"));
        assert_eq!(error("M0012061121").field, Some("number captured"));
        let e = error("M00120525042212232");
        assert_eq!(e.field, Some("captured pieces"));
        assert!(e.to_string().contains("need 8 characters"), "{e}");
        assert_eq!(error("M0012052501990").field, Some("captured pieces"));
        assert_eq!(error("M001205250100").field, Some("captured pieces"));
        assert_eq!(error("M 012061100").field, Some("time"));
        assert_eq!(error("E40").field, Some("reason"));
        assert_eq!(error("E02").field, Some("stop code"));
        assert_eq!(error("E0").field, Some("stop code"));
        assert_eq!(error("E000").field, None);
        assert_eq!(error("B000W").field, Some("move number"));
        assert_eq!(error("B005B").field, Some("color to move"));
        assert_eq!(error("K3").field, Some("acceptance code"));
        assert_eq!(error("K").field, Some("acceptance code"));
    }

    #[test]
    fn whole_message_errors() {
        let e = error("This is not a valid DXP message");
        assert_eq!((e.kind, e.column), (None, Some(1)));
        assert!(e.to_string().contains("unknown message type 'T'"), "{e}");
        assert!(error("").to_string().contains("empty"));
        let e = error("CHé");
        assert_eq!(e.column, Some(3));
        assert!(error("C\0").to_string().contains("ASCII"));
        let long = format!("C{}", "x".repeat(127));
        assert!(error(&long).to_string().contains("at most 127"));
        assert!(parse(&format!("C{}", "x".repeat(126))).is_ok());
    }

    #[test]
    fn printing_refuses_what_does_not_fit() {
        let long_name = Message::GameAccept(GameAccept {
            follower: "x".repeat(33),
            code: AcceptCode::Accept,
        });
        assert_eq!(print(&long_name).unwrap_err().field, "follower name");
        let blank = Message::GameAccept(GameAccept {
            follower: " x".into(),
            code: AcceptCode::Accept,
        });
        assert!(print(&blank).is_err());
        let mv = Message::Move(MoveMessage {
            seconds: 10000,
            from: 1,
            to: 2,
            captured: vec![],
        });
        assert_eq!(print(&mv).unwrap_err().field, "time");
        let mv = Message::Move(MoveMessage {
            seconds: 1,
            from: 51,
            to: 2,
            captured: vec![],
        });
        assert_eq!(print(&mv).unwrap_err().field, "from field");
        let mv = Message::Move(MoveMessage {
            seconds: 1,
            from: 1,
            to: 2,
            captured: vec![3; 21],
        });
        assert_eq!(print(&mv).unwrap_err().field, "number captured");
        let chat = Message::Chat("x".repeat(127));
        assert_eq!(print(&chat).unwrap_err().field, "message");
        let chat = Message::Chat("a\nb".into());
        assert_eq!(print(&chat).unwrap_err().field, "text");
        let back = Message::BackRequest(BackRequest {
            move_number: 1000,
            to_move: Color::White,
        });
        assert_eq!(print(&back).unwrap_err().field, "move number");
    }

    #[test]
    fn names_are_blank_padded_and_trimmed() {
        let a = Message::GameAccept(GameAccept {
            follower: "Damspel 0.1".into(),
            code: AcceptCode::DeclineThisGame,
        });
        let text = print(&a).unwrap();
        assert_eq!(text, format!("A{:<32}2", "Damspel 0.1"));
        assert_eq!(parse(&text).unwrap(), a);
        let full = "x".repeat(32);
        let a = Message::GameAccept(GameAccept {
            follower: full.clone(),
            code: AcceptCode::NoGame,
        });
        assert_eq!(print(&a).unwrap(), format!("A{full}3"));
    }
}
