//! A player on the other end of a DXP (DamExchange) connection: the match runner's DXP side.
//!
//! [`DxpConnection`] is one TCP connection carrying DXP messages (NUL-terminated, read in
//! pieces, with a timeout); the command line's `damspel dxp` uses it too. [`DxpPlayer`] makes a
//! remote DXP program a [`Player`]: for each of its turns it sends the moves our side played
//! since its last turn and waits for its MOVE, checked against the rules. A game goes:
//!
//! ```text
//! let mut peer = DxpPlayer::connect(rules.clone(), "127.0.0.1:27531", DxpConfig::default())?;
//! peer.start(Color::Black, &opening)?;              // GAMEREQ, GAMEACC (optional, see below)
//! let record = play_game(&rules, &mut ours, &mut peer, &opening, 400);
//! let end = peer.finish(&record)?;                  // the last move, then the GAMEEND exchange
//! ```
//!
//! `start` may be left out when there is no opening: the first `choose` then proposes the game
//! with the game's start position and the DXP side playing the side to move. A follower
//! ([`DxpPlayer::accept`]) waits for the peer's GAMEREQ with [`DxpPlayer::await_request`],
//! which tells the colour the peer plays.
//!
//! The peer forfeits when it sends an illegal or malformed move (we then end the game with a
//! GAMEEND), ends the game itself before the rules do, breaks the protocol, closes the
//! connection, or does not answer within [`DxpConfig::move_timeout`], or uses up its time for
//! the game ([`DxpConfig::peer_clock`]).

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_protocol::dxp::{
    self, AcceptCode, BackAcceptCode, Deframer, EndReason, FrameError, GameEnd, GameRequest,
    Message, ParseError, PrintError, StopCode, PROTOCOL_VERSION,
};
use damspel_rules::{Bits, Color, Game, Move, Position, Rules};

use crate::game::{Ending, GameRecord};
use crate::player::{Forfeit, Player};

/// What went wrong on a DXP connection.
#[derive(Debug)]
pub enum LinkError {
    Io(io::Error),
    /// The peer closed the connection.
    Closed,
    /// Nothing arrived in time.
    TimedOut(Duration),
    /// Bytes that are not a DXP message (bad character, no terminator within 127).
    Frame(FrameError),
    /// A message that does not parse.
    Malformed {
        text: String,
        error: ParseError,
    },
    /// A message of ours that cannot be written (a bug or a bad name in the configuration).
    Print(PrintError),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Io(e) => write!(f, "connection error: {e}"),
            LinkError::Closed => f.write_str("the peer closed the connection"),
            LinkError::TimedOut(t) => {
                write!(
                    f,
                    "no message from the peer within {:.1} s",
                    t.as_secs_f64()
                )
            }
            LinkError::Frame(e) => write!(f, "malformed data from the peer: {e}"),
            LinkError::Malformed { text, error } => {
                write!(f, "malformed message from the peer {text:?}: {error}")
            }
            LinkError::Print(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LinkError {}

impl From<io::Error> for LinkError {
    fn from(e: io::Error) -> LinkError {
        LinkError::Io(e)
    }
}

impl LinkError {
    /// Whether the peer sent something that is not a DXP message.
    pub fn is_malformed(&self) -> bool {
        matches!(self, LinkError::Frame(_) | LinkError::Malformed { .. })
    }
}

/// How long a send may wait for the peer to read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);
/// The most messages read while watching the connection (during a search) kept for `receive`;
/// beyond, chat is dropped and anything else waits in the socket.
const MAX_EARLY: usize = 1000;
/// The most reads of one look at the connection (a peer that sends without pause must not hold
/// the watcher).
const WATCH_READS: usize = 64;
/// The most lines of the transcript (a peer may chat without end).
pub const MAX_TRANSCRIPT: usize = 20_000;
/// The least time between two of our messages with no message of the peer's between them.
/// Clients that take each read of the socket for one message (pydraughts' `DXPEngine`, after
/// DXC100) lose the second of two messages that arrive together: a GAMEACC and the forced
/// move answered at once behind it, a BACKACC and the move after it, a last move and our
/// GAMEEND.
pub const MESSAGE_GAP: Duration = Duration::from_millis(250);

/// When a wait for the peer ends: set once for the wait, so that the messages that come in
/// between (a chat, a take-back request) do not push it back.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    at: Instant,
    allowed: Duration,
}

impl Deadline {
    /// `allowed` from now.
    pub fn after(allowed: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + allowed,
            allowed,
        }
    }

    /// How long the wait was allowed in all.
    pub fn allowed(&self) -> Duration {
        self.allowed
    }
}

/// One TCP connection carrying DXP messages, with a transcript of everything sent (`> `) and
/// received (`< `).
pub struct DxpConnection {
    stream: TcpStream,
    peer: SocketAddr,
    deframer: Deframer,
    /// Messages read while watching the connection, not yet received, in order.
    early: VecDeque<Result<String, FrameError>>,
    /// Chat messages read while watching and dropped, `early` being full.
    dropped_chat: u64,
    /// The peer's end of the stream (or a broken connection) has been read while watching.
    ended: bool,
    transcript: Vec<String>,
    /// When our last message went, if no message of the peer's has been received since.
    unanswered_since: Option<Instant>,
    /// The least time between two messages of ours in a row (`MESSAGE_GAP`).
    gap: Duration,
}

impl DxpConnection {
    pub fn new(stream: TcpStream) -> io::Result<DxpConnection> {
        stream.set_nodelay(true)?;
        // A peer that stops reading must not hold a send for ever.
        stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let peer = stream.peer_addr()?;
        Ok(DxpConnection {
            stream,
            peer,
            deframer: Deframer::new(),
            early: VecDeque::new(),
            dropped_chat: 0,
            ended: false,
            transcript: Vec::new(),
            unanswered_since: None,
            gap: MESSAGE_GAP,
        })
    }

    pub fn connect(addr: impl ToSocketAddrs) -> io::Result<DxpConnection> {
        DxpConnection::new(TcpStream::connect(addr)?)
    }

    /// Waits for one peer on the listener.
    pub fn accept(listener: &TcpListener) -> io::Result<DxpConnection> {
        let (stream, _) = listener.accept()?;
        DxpConnection::new(stream)
    }

    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
    }

    /// Sets the least time between two messages of ours in a row (`MESSAGE_GAP` unless set):
    /// zero for a test peer that floods the other side.
    pub fn set_message_gap(&mut self, gap: Duration) {
        self.gap = gap;
    }

    /// Whether the peer has closed the connection (or it broke), checked at once: what has
    /// arrived is read and kept, in order, for `receive`, so that the close behind a message is
    /// seen too (a peek would only ever see the message). At most `MAX_EARLY` messages are kept;
    /// beyond, chat is dropped (counted by `dropped_chat`) and other messages wait in the socket.
    pub fn peer_closed(&mut self) -> bool {
        if self.ended {
            return true;
        }
        if self.early.len() > MAX_EARLY {
            return false;
        }
        if self.stream.set_nonblocking(true).is_err() {
            return true;
        }
        let mut buf = [0u8; 1024];
        for _ in 0..WATCH_READS {
            match self.stream.read(&mut buf) {
                Ok(0) => self.ended = true,
                Ok(n) => {
                    self.deframer.push(&buf[..n]);
                    if self.keep_early() {
                        continue;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => self.ended = true,
            }
            break;
        }
        self.ended |= self.stream.set_nonblocking(false).is_err();
        self.ended
    }

    /// Moves the whole messages read into `early`; false when it is full.
    fn keep_early(&mut self) -> bool {
        while self.early.len() <= MAX_EARLY {
            let Some(next) = self.deframer.next() else {
                return true;
            };
            if self.early.len() == MAX_EARLY && matches!(&next, Ok(t) if t.starts_with('C')) {
                self.dropped_chat += 1;
                continue;
            }
            self.early.push_back(next);
        }
        false
    }

    /// How many chat messages were read while watching the connection and dropped unread
    /// (more than `MAX_EARLY` messages came during one search).
    pub fn dropped_chat(&self) -> u64 {
        self.dropped_chat
    }

    /// Every message sent (`> text`) and received (`< text`), in order; the first
    /// `MAX_TRANSCRIPT` of them, then a line saying the rest is not kept.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    fn note(&mut self, line: String) {
        match self.transcript.len() {
            n if n < MAX_TRANSCRIPT => self.transcript.push(line),
            MAX_TRANSCRIPT => self
                .transcript
                .push("(the transcript is full: later messages are not kept)".into()),
            _ => {}
        }
    }

    /// Sends a message; returns its text. A message that follows another of ours with no
    /// message of the peer's received between waits until the gap (`MESSAGE_GAP`) after it.
    pub fn send(&mut self, message: &Message) -> Result<String, LinkError> {
        let text = message.print().map_err(LinkError::Print)?;
        let bytes = dxp::frame(&text).map_err(LinkError::Frame)?;
        if let Some(sent) = self.unanswered_since {
            std::thread::sleep(self.gap.saturating_sub(sent.elapsed()));
        }
        self.stream.write_all(&bytes)?;
        self.stream.flush()?;
        self.unanswered_since = Some(Instant::now());
        self.note(format!("> {text}"));
        Ok(text)
    }

    /// Sends bytes as they are, terminators included and unchecked (to test how a peer handles
    /// bad data).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), LinkError> {
        self.stream.write_all(bytes)?;
        self.stream.flush()?;
        self.note(format!("> (raw) {}", String::from_utf8_lossy(bytes)));
        Ok(())
    }

    /// The next message, waiting at most `timeout` (for ever with None).
    pub fn receive(&mut self, timeout: Option<Duration>) -> Result<Message, LinkError> {
        self.receive_by(timeout.map(Deadline::after))
    }

    /// The next message, waiting until `deadline` at most (for ever with None).
    pub fn receive_by(&mut self, deadline: Option<Deadline>) -> Result<Message, LinkError> {
        let mut buf = [0u8; 1024];
        loop {
            if let Some(next) = self.early.pop_front().or_else(|| self.deframer.next()) {
                self.unanswered_since = None;
                let text = match next {
                    Ok(text) => text,
                    Err(e) => {
                        self.note(format!("< (bad data: {e})"));
                        return Err(LinkError::Frame(e));
                    }
                };
                self.note(format!("< {text}"));
                return Message::parse(&text).map_err(|error| LinkError::Malformed { text, error });
            }
            if self.ended {
                return Err(LinkError::Closed);
            }
            let wait = match deadline {
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline.at {
                        return Err(LinkError::TimedOut(deadline.allowed));
                    }
                    Some(deadline.at - now)
                }
                None => None,
            };
            self.stream.set_read_timeout(wait)?;
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(LinkError::Closed),
                Ok(n) => self.deframer.push(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(LinkError::Io(e)),
            }
        }
    }
}

/// Why a DXP game could not be set up or closed.
#[derive(Debug)]
pub enum DxpError {
    Link(LinkError),
    /// The peer broke the protocol (an unexpected message, a desynchronised game).
    Protocol(String),
    /// The peer declined the game.
    Declined(AcceptCode),
    /// What DXP or this player cannot do (another board, a set-up start position).
    Unsupported(String),
}

impl fmt::Display for DxpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DxpError::Link(e) => write!(f, "{e}"),
            DxpError::Protocol(why) => write!(f, "DXP protocol error: {why}"),
            DxpError::Declined(code) => write!(
                f,
                "the peer declined the game (GAMEACC code {}: {})",
                code.digit(),
                code.meaning()
            ),
            DxpError::Unsupported(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for DxpError {}

impl From<LinkError> for DxpError {
    fn from(e: LinkError) -> DxpError {
        DxpError::Link(e)
    }
}

/// A peer's thinking time for a whole game: `time`, and `increment` more for each move it has
/// made. Our measure of its time holds the network's delays, hence the margins of
/// [`PeerClock::for_minutes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerClock {
    pub time: Duration,
    pub increment: Duration,
}

impl PeerClock {
    /// The clock of a game whose GAMEREQ states `minutes` a side: those minutes and a minute
    /// more, and a second more for each move.
    pub fn for_minutes(minutes: u16) -> PeerClock {
        PeerClock {
            time: Duration::from_secs(u64::from(minutes) * 60 + 60),
            increment: Duration::from_secs(1),
        }
    }

    /// How long the peer may take for its next move, having used `used` on its `moves` moves.
    pub fn left(&self, used: Duration, moves: u32) -> Duration {
        (self.time + self.increment * moves).saturating_sub(used)
    }
}

/// The settings of a DXP player.
#[derive(Clone, Debug)]
pub struct DxpConfig {
    /// Our name in GAMEREQ and GAMEACC (at most 32 printable characters).
    pub name: String,
    /// Thinking time per player for the whole game, stated in GAMEREQ (minutes).
    pub minutes: u16,
    /// Number of moves of the game stated in GAMEREQ (0 = no limit).
    pub moves: u16,
    /// How long the peer may take for a move (or an answer); then it forfeits.
    pub move_timeout: Duration,
    /// The peer's time for the whole game, counted over its moves (None: each move is bounded
    /// by `move_timeout` alone); it forfeits when it is used up.
    pub peer_clock: Option<PeerClock>,
}

impl Default for DxpConfig {
    fn default() -> DxpConfig {
        DxpConfig {
            name: "Damspel match runner".into(),
            minutes: 10,
            moves: 0,
            move_timeout: Duration::from_secs(60),
            peer_clock: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Initiator,
    Follower,
}

/// One DXP game in progress, as both programs know it.
struct Session<B: Bits> {
    /// From the DXP start position: the moves sent and received.
    game: Game<B>,
    /// Plies of the runner's game before the DXP start (the opening).
    offset: usize,
    peer: Color,
    /// When the peer's last message came (the time of our next move counts from there).
    since: Instant,
    /// The time the peer took on its moves of this game so far, and how many it made.
    peer_used: Duration,
    peer_moves: u32,
    /// GAMEENDs exchanged so far, in order, with who sent them (true: the peer).
    ends: Vec<(bool, GameEnd)>,
    /// The connection can no longer be trusted (protocol error, bad data, closed).
    broken: bool,
}

/// How the GAMEEND exchange of a game went.
#[derive(Clone, Debug, PartialEq)]
pub struct DxpGameEnd {
    /// Whether the peer sent the first GAMEEND.
    pub peer_initiated: bool,
    /// The GAMEEND we sent (the first one or our answer), if any.
    pub sent: Option<GameEnd>,
    /// The GAMEEND the peer sent (the first one or its answer), if any.
    pub received: Option<GameEnd>,
    /// White's score claimed by the peer's first GAMEEND (None when it gave no reason or
    /// only answered ours).
    pub peer_white_score: Option<f64>,
    /// Whether the exchange was completed: a GAMEEND each way, on a connection still in step
    /// (false after a fault of the peer: a bad message, a timeout, a closed connection).
    pub complete: bool,
}

impl DxpGameEnd {
    /// Whether both sides closed the game with a GAMEEND and the peer's claim, if any,
    /// matches the runner's result.
    pub fn agrees_with(&self, ending: &Ending) -> bool {
        self.complete
            && self.sent.is_some()
            && self.received.is_some()
            && self
                .peer_white_score
                .is_none_or(|s| (s - ending.white_score()).abs() < 1e-9)
    }
}

/// A remote DXP program as a player.
/// The most chat messages from the peer kept (the latest).
pub const MAX_CHAT: usize = 100;

/// Keeps a chat message from the peer; only the last `MAX_CHAT` are kept (a peer may chat
/// without end).
fn keep_chat(chat: &mut Vec<String>, text: String) {
    if chat.len() == MAX_CHAT {
        chat.remove(0);
    }
    chat.push(text);
}

pub struct DxpPlayer<B: Bits> {
    rules: Arc<Rules<B>>,
    conn: DxpConnection,
    role: Role,
    config: DxpConfig,
    peer_name: Option<String>,
    session: Option<Session<B>>,
    /// The peer asked to stop entirely (stop code 1).
    peer_stopped: bool,
    /// A game ended on a fault: the two sides may be out of step, no new game on this connection.
    out_of_step: bool,
    chat: Vec<String>,
}

impl<B: Bits> DxpPlayer<B> {
    /// Connects to a DXP program that waits for games (we are the initiator).
    pub fn connect(
        rules: Arc<Rules<B>>,
        addr: impl ToSocketAddrs,
        config: DxpConfig,
    ) -> Result<DxpPlayer<B>, DxpError> {
        dxp::check_variant(rules.variant()).map_err(DxpError::Unsupported)?;
        let conn = DxpConnection::connect(addr).map_err(LinkError::Io)?;
        Ok(DxpPlayer::with_connection(
            rules,
            conn,
            Role::Initiator,
            config,
        ))
    }

    /// Waits on `listener` for a DXP program that proposes games (we are the follower).
    pub fn accept(
        rules: Arc<Rules<B>>,
        listener: &TcpListener,
        config: DxpConfig,
    ) -> Result<DxpPlayer<B>, DxpError> {
        dxp::check_variant(rules.variant()).map_err(DxpError::Unsupported)?;
        let conn = DxpConnection::accept(listener).map_err(LinkError::Io)?;
        Ok(DxpPlayer::with_connection(
            rules,
            conn,
            Role::Follower,
            config,
        ))
    }

    fn with_connection(
        rules: Arc<Rules<B>>,
        conn: DxpConnection,
        role: Role,
        config: DxpConfig,
    ) -> DxpPlayer<B> {
        DxpPlayer {
            rules,
            conn,
            role,
            config,
            peer_name: None,
            session: None,
            peer_stopped: false,
            out_of_step: false,
            chat: Vec::new(),
        }
    }

    /// The peer's name from its GAMEREQ or GAMEACC.
    pub fn peer_name(&self) -> Option<&str> {
        self.peer_name.as_deref()
    }

    pub fn peer_addr(&self) -> SocketAddr {
        self.conn.peer_addr()
    }

    /// Every message sent (`> `) and received (`< `) on the connection.
    pub fn transcript(&self) -> &[String] {
        self.conn.transcript()
    }

    /// The CHAT texts received.
    pub fn chat(&self) -> &[String] {
        &self.chat
    }

    /// Whether the peer asked to stop entirely (a GAMEEND with stop code 1).
    pub fn peer_stopped(&self) -> bool {
        self.peer_stopped
    }

    /// Proposes a game (initiator): the peer plays `peer`, from the variant's start position
    /// after `opening` (the opening `play_game` will be given). Waits for the GAMEACC.
    pub fn start(&mut self, peer: Color, opening: &[Move<B>]) -> Result<(), DxpError> {
        if self.role != Role::Initiator {
            return Err(DxpError::Protocol(
                "only the initiator proposes games; a follower calls await_request".into(),
            ));
        }
        if self.peer_stopped {
            return Err(DxpError::Protocol("the peer asked to stop playing".into()));
        }
        let mut game = Game::new(self.rules.clone());
        for mv in opening {
            if !game.play(mv) {
                return Err(DxpError::Unsupported(
                    "the opening has an illegal move".into(),
                ));
            }
        }
        self.propose(peer, *game.position(), opening.len())
    }

    fn propose(&mut self, peer: Color, start: Position<B>, offset: usize) -> Result<(), DxpError> {
        self.check_in_step()?;
        let request = GameRequest {
            version: PROTOCOL_VERSION,
            initiator: self.config.name.clone(),
            follower_color: peer,
            minutes: self.config.minutes,
            moves: self.config.moves,
            start: dxp::start_of(&self.rules, &start),
        };
        self.conn.send(&Message::GameRequest(request))?;
        let deadline = Deadline::after(self.config.move_timeout);
        loop {
            match self.conn.receive_by(Some(deadline))? {
                Message::GameAccept(acc) => {
                    self.peer_name = Some(acc.follower);
                    if acc.code != AcceptCode::Accept {
                        return Err(DxpError::Declined(acc.code));
                    }
                    break;
                }
                Message::Chat(text) => keep_chat(&mut self.chat, text),
                other => {
                    return Err(DxpError::Protocol(format!(
                        "expected GAMEACC, got {} {:?}",
                        other.kind(),
                        other.to_string()
                    )))
                }
            }
        }
        self.session = Some(Session {
            game: Game::from_position(self.rules.clone(), start),
            offset,
            peer,
            since: Instant::now(),
            peer_used: Duration::ZERO,
            peer_moves: 0,
            ends: Vec::new(),
            broken: false,
        });
        Ok(())
    }

    /// Waits for the peer's GAMEREQ (follower) and accepts it when the game starts from the
    /// variant's start position (the only start `play_game` knows); returns the colour the peer
    /// plays. Other starts and protocol versions are declined.
    pub fn await_request(&mut self) -> Result<Color, DxpError> {
        if self.role != Role::Follower {
            return Err(DxpError::Protocol(
                "the initiator proposes games with start".into(),
            ));
        }
        self.check_in_step()?;
        let deadline = Deadline::after(self.config.move_timeout);
        let request = loop {
            match self.conn.receive_by(Some(deadline))? {
                Message::GameRequest(r) => break r,
                Message::Chat(text) => keep_chat(&mut self.chat, text),
                other => {
                    return Err(DxpError::Protocol(format!(
                        "expected GAMEREQ, got {} {:?}",
                        other.kind(),
                        other.to_string()
                    )))
                }
            }
        };
        self.peer_name = Some(request.initiator.clone());
        let decline = |this: &mut Self, code: AcceptCode, why: String| {
            this.conn
                .send(&Message::GameAccept(dxp::GameAccept {
                    follower: this.config.name.clone(),
                    code,
                }))
                .map_err(DxpError::Link)?;
            Err(DxpError::Unsupported(why))
        };
        if request.version != PROTOCOL_VERSION {
            return decline(
                self,
                AcceptCode::WrongVersion,
                format!("the peer speaks DXP version {}", request.version),
            );
        }
        let start =
            match dxp::start_position(&self.rules, &request.start) {
                Ok(p) if p == Position::start(&self.rules) => p,
                Ok(_) => return decline(
                    self,
                    AcceptCode::DeclineThisGame,
                    "the peer proposes a set-up position; the match runner plays from the start"
                        .into(),
                ),
                Err(e) => {
                    return decline(
                        self,
                        AcceptCode::DeclineThisGame,
                        format!("the peer's start position is not legal: {e}"),
                    )
                }
            };
        self.conn.send(&Message::GameAccept(dxp::GameAccept {
            follower: self.config.name.clone(),
            code: AcceptCode::Accept,
        }))?;
        let peer = !request.follower_color;
        self.session = Some(Session {
            game: Game::from_position(self.rules.clone(), start),
            offset: 0,
            peer,
            since: Instant::now(),
            peer_used: Duration::ZERO,
            peer_moves: 0,
            ends: Vec::new(),
            broken: false,
        });
        Ok(peer)
    }

    fn check_in_step(&self) -> Result<(), DxpError> {
        if self.out_of_step {
            return Err(DxpError::Protocol(
                "the last game ended on a fault and the connection may be out of step: connect again"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Sends the moves of the runner's game (the full list, opening included) that the peer
    /// has not seen: our side's moves since its last one.
    fn send_our_moves(&mut self, all_moves: &[Move<B>]) -> Result<(), String> {
        let s = self.session.as_mut().expect("a session");
        let known = s.game.moves();
        let ours = all_moves
            .get(s.offset..)
            .ok_or("the game is shorter than its DXP opening")?;
        if ours.len() < known.len() || ours[..known.len()] != *known {
            return Err("the game and the DXP game have different moves".into());
        }
        let new: Vec<Move<B>> = ours[known.len()..].to_vec();
        for mv in new {
            if s.game.position().side_to_move() == s.peer {
                return Err(
                    "the game has a move for the DXP side that the peer did not send".into(),
                );
            }
            if !s.game.play(&mv) {
                return Err("the game has a move the rules do not allow".into());
            }
            let seconds = s.since.elapsed().as_secs().min(9999) as u16;
            let message = dxp::encode_move(&self.rules.variant().geometry, &mv, seconds);
            self.conn
                .send(&Message::Move(message))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Ends the game from our side (it is our turn as the peer sees it), and reads the peer's
    /// answer if it comes within a short time. Used after a bad message from the peer.
    fn end_after_fault(&mut self, why: &str) {
        let name = self.config.name.clone();
        let Some(s) = self.session.as_mut() else {
            return;
        };
        s.broken = true;
        let chat: String = format!("{name}: {why}")
            .chars()
            .filter(|c| (' '..='~').contains(c))
            .take(120)
            .collect();
        let _ = self.conn.send(&Message::Chat(chat));
        let end = GameEnd {
            reason: EndReason::Unspecified,
            stop: StopCode::NextGame,
        };
        if self.conn.send(&Message::GameEnd(end)).is_ok() {
            s.ends.push((false, end));
            let deadline = Instant::now() + Duration::from_secs(2);
            while let Some(left) = deadline.checked_duration_since(Instant::now()) {
                match self.conn.receive(Some(left)) {
                    Ok(Message::GameEnd(e)) => {
                        s.ends.push((true, e));
                        break;
                    }
                    Ok(Message::Chat(text)) => keep_chat(&mut self.chat, text),
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
    }

    /// Closes the game after `play_game`: sends our side's last move if the peer has not seen
    /// it, then exchanges the GAMEENDs. The side to move sends the first GAMEEND (DXP allows
    /// nothing else): when it is the peer, we wait for its GAMEEND (if it moves instead, we end
    /// the game then); when it is our side, we send ours with the result as our side sees it
    /// and wait for the answer.
    ///
    /// After an incomplete end (`complete` false, or an error) the connection may be out of
    /// step: no further game can be started on it.
    pub fn finish(&mut self, record: &GameRecord<B>) -> Result<DxpGameEnd, DxpError> {
        let result = self.close_game(record);
        self.out_of_step |= !matches!(&result, Ok(end) if end.complete);
        result
    }

    fn close_game(&mut self, record: &GameRecord<B>) -> Result<DxpGameEnd, DxpError> {
        let Some(session) = self.session.as_ref() else {
            return Err(DxpError::Protocol("no DXP game is in progress".into()));
        };
        let report = |s: &Session<B>, complete: bool| {
            let first_by_peer = s.ends.first().map(|e| e.0);
            DxpGameEnd {
                peer_initiated: first_by_peer == Some(true),
                sent: s.ends.iter().find(|e| !e.0).map(|e| e.1),
                received: s.ends.iter().find(|e| e.0).map(|e| e.1),
                peer_white_score: match s.ends.first() {
                    Some((true, e)) => dxp::white_score_claimed(e.reason, s.peer),
                    _ => None,
                },
                complete,
            }
        };
        if session.broken || !session.ends.is_empty() {
            let s = self.session.take().expect("a session");
            let complete = !s.broken && s.ends.len() == 2;
            return Ok(report(&s, complete));
        }
        let mut all: Vec<Move<B>> = record.opening.clone();
        all.extend_from_slice(&record.moves);
        if let Err(why) = self.send_our_moves(&all) {
            self.session = None;
            return Err(DxpError::Protocol(why));
        }
        let mut s = self.session.take().expect("a session");
        let ours = !s.peer;
        let our_reason = match &record.ending {
            Ending::Rules(outcome) => dxp::end_reason(outcome, ours),
            Ending::Forfeit { loser, .. } if *loser == ours => EndReason::GiveUp,
            Ending::Forfeit { .. } => EndReason::Win,
            Ending::MoveLimit(_) => EndReason::Draw,
        };
        let timeout = self.config.move_timeout;
        if s.game.position().side_to_move() != ours {
            // The peer is to move: it ends the game, or moves on if it does not see the end.
            let deadline = Deadline::after(timeout);
            loop {
                match self.conn.receive_by(Some(deadline))? {
                    Message::GameEnd(e) => {
                        s.ends.push((true, e));
                        self.peer_stopped |= e.stop == StopCode::Stop;
                        let answer = GameEnd {
                            reason: EndReason::Unspecified,
                            stop: StopCode::NextGame,
                        };
                        self.conn.send(&Message::GameEnd(answer))?;
                        s.ends.push((false, answer));
                        return Ok(report(&s, true));
                    }
                    // It moved on: as it sees it, it is our turn, so we end the game.
                    Message::Move(_) => break,
                    Message::Chat(text) => keep_chat(&mut self.chat, text),
                    Message::BackRequest(_) => {
                        self.conn
                            .send(&Message::BackAccept(BackAcceptCode::NotSupported))?;
                    }
                    other => {
                        return Err(DxpError::Protocol(format!(
                            "expected GAMEEND or MOVE at the end of the game, got {other}"
                        )))
                    }
                }
            }
        }
        let end = GameEnd {
            reason: our_reason,
            stop: StopCode::NextGame,
        };
        self.conn.send(&Message::GameEnd(end))?;
        s.ends.push((false, end));
        let deadline = Deadline::after(timeout);
        loop {
            match self.conn.receive_by(Some(deadline))? {
                Message::GameEnd(e) => {
                    self.peer_stopped |= e.stop == StopCode::Stop;
                    s.ends.push((true, e));
                    return Ok(report(&s, true));
                }
                Message::Chat(text) => keep_chat(&mut self.chat, text),
                Message::BackRequest(_) => {
                    self.conn
                        .send(&Message::BackAccept(BackAcceptCode::NotSupported))?;
                }
                other => {
                    return Err(DxpError::Protocol(format!(
                        "expected the answering GAMEEND, got {other}"
                    )))
                }
            }
        }
    }

    /// The peer's move, once our side's moves are sent.
    fn receive_move(&mut self) -> Result<Move<B>, Forfeit> {
        // One deadline for the move, which chat and take-back requests do not push back: the
        // move's bound, or what is left of the peer's time for the game if that is less.
        let began = Instant::now();
        let s = self.session.as_ref().expect("a session");
        let left = self
            .config
            .peer_clock
            .map(|clock| (clock, clock.left(s.peer_used, s.peer_moves)))
            .filter(|&(_, left)| left < self.config.move_timeout);
        let deadline = Deadline::after(left.map_or(self.config.move_timeout, |(_, l)| l));
        loop {
            let message = match self.conn.receive_by(Some(deadline)) {
                Ok(m) => m,
                Err(LinkError::TimedOut(t)) => {
                    self.session.as_mut().expect("a session").broken = true;
                    return Err(match left {
                        Some((clock, _)) => Forfeit::OutOfTime {
                            time: clock.time,
                            increment: clock.increment,
                        },
                        None => Forfeit::TimedOut(t),
                    });
                }
                Err(e) if e.is_malformed() => {
                    let why = e.to_string();
                    self.end_after_fault(&why);
                    return Err(Forfeit::Crashed(why));
                }
                Err(e) => {
                    self.session.as_mut().expect("a session").broken = true;
                    return Err(Forfeit::Crashed(e.to_string()));
                }
            };
            let s = self.session.as_mut().expect("a session");
            match message {
                Message::Move(m) => {
                    let legal = s.game.legal_moves();
                    return match dxp::decode_move(&self.rules.variant().geometry, &legal, &m) {
                        Ok(mv) => {
                            s.game.play_unchecked(&mv);
                            s.since = Instant::now();
                            s.peer_used += began.elapsed();
                            s.peer_moves += 1;
                            Ok(mv)
                        }
                        Err(e) => {
                            let why = e.to_string();
                            self.end_after_fault(&format!("illegal move: {why}"));
                            Err(Forfeit::IllegalMove(why))
                        }
                    };
                }
                Message::GameEnd(e) => {
                    s.ends.push((true, e));
                    self.peer_stopped |= e.stop == StopCode::Stop;
                    let answer = GameEnd {
                        reason: EndReason::Unspecified,
                        stop: StopCode::NextGame,
                    };
                    match self.conn.send(&Message::GameEnd(answer)) {
                        Ok(_) => s.ends.push((false, answer)),
                        Err(_) => s.broken = true,
                    }
                    return Err(Forfeit::Crashed(format!(
                        "the DXP peer ended the game before the rules did (GAMEEND reason {}: {})",
                        e.reason.digit(),
                        e.reason.meaning()
                    )));
                }
                Message::Chat(text) => keep_chat(&mut self.chat, text),
                Message::BackRequest(_) => {
                    // play_game cannot take moves back.
                    if let Err(e) = self
                        .conn
                        .send(&Message::BackAccept(BackAcceptCode::NotSupported))
                    {
                        s.broken = true;
                        return Err(Forfeit::Crashed(e.to_string()));
                    }
                }
                other => {
                    let why = format!(
                        "DXP protocol error: {} {:?} during the game",
                        other.kind(),
                        other.to_string()
                    );
                    self.end_after_fault(&why);
                    return Err(Forfeit::Crashed(why));
                }
            }
        }
    }
}

impl<B: Bits> Player<B> for DxpPlayer<B> {
    fn name(&self) -> String {
        self.peer_name
            .clone()
            .unwrap_or_else(|| format!("dxp:{}", self.conn.peer_addr()))
    }

    /// Nothing to do: a DXP game starts with `start`/`await_request` or at the first `choose`,
    /// and ends with `finish`.
    fn new_game(&mut self) {}

    fn choose(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit> {
        if self.session.is_none() {
            if self.role == Role::Follower {
                return Err(Forfeit::Crashed(
                    "no DXP game was agreed: call await_request before play_game".into(),
                ));
            }
            // No opening: the game's start is the DXP start, and the moves so far are ours.
            let peer = game.position().side_to_move();
            let ok = match game.moves() {
                [] => true,
                [_] => game.start().side_to_move() != peer,
                _ => false,
            };
            if !ok {
                return Err(Forfeit::Crashed(
                    "the game has an opening: call DxpPlayer::start with it before play_game"
                        .into(),
                ));
            }
            self.propose(peer, *game.start(), 0)
                .map_err(|e| Forfeit::Crashed(e.to_string()))?;
        }
        let s = self.session.as_ref().expect("a session");
        if s.broken || !s.ends.is_empty() {
            return Err(Forfeit::Crashed("the DXP game is over".into()));
        }
        if let Err(why) = self.send_our_moves(game.moves()) {
            self.session.as_mut().expect("a session").broken = true;
            return Err(Forfeit::Crashed(why));
        }
        let s = self.session.as_ref().expect("a session");
        if s.game.position() != game.position() {
            return Err(Forfeit::Crashed(
                "the DXP game is out of step with the game".into(),
            ));
        }
        self.receive_move()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::play_game;
    use crate::player::RandomPlayer;
    use damspel_rules::Catalogue;
    use std::thread::JoinHandle;

    fn rules() -> Arc<Rules<u64>> {
        let variant = Catalogue::builtin().get("international").unwrap();
        Arc::new(Rules::<u64>::new(variant).unwrap())
    }

    fn config(timeout_ms: u64) -> DxpConfig {
        DxpConfig {
            move_timeout: Duration::from_millis(timeout_ms),
            ..DxpConfig::default()
        }
    }

    /// A scripted follower: accepts the connection and the GAMEREQ, then runs `script`;
    /// returns what the script returns (e.g. the messages it received).
    fn fake_peer<T: Send + 'static>(
        script: impl FnOnce(&mut DxpConnection) -> T + Send + 'static,
    ) -> (SocketAddr, JoinHandle<T>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = std::thread::spawn(move || {
            let mut conn = DxpConnection::accept(&listener).unwrap();
            // Scripts send in bursts (thousands of chats), which the peer under test must take.
            conn.set_message_gap(Duration::ZERO);
            let t = Some(Duration::from_secs(10));
            let Message::GameRequest(req) = conn.receive(t).unwrap() else {
                panic!("expected GAMEREQ")
            };
            assert_eq!(req.follower_color, Color::White);
            conn.send(&Message::GameAccept(dxp::GameAccept {
                follower: "fake".into(),
                code: AcceptCode::Accept,
            }))
            .unwrap();
            script(&mut conn)
        });
        (addr, handle)
    }

    /// Everything the peer receives until the connection closes or goes quiet, answering a
    /// GAMEEND with a GAMEEND.
    fn collect(conn: &mut DxpConnection) -> Vec<Message> {
        let mut got = Vec::new();
        while let Ok(m) = conn.receive(Some(Duration::from_secs(5))) {
            if let Message::GameEnd(_) = m {
                let _ = conn.send(&Message::GameEnd(GameEnd {
                    reason: EndReason::Unspecified,
                    stop: StopCode::NextGame,
                }));
            }
            got.push(m);
        }
        got
    }

    /// The DXP side plays White against a random mover.
    fn game_with(
        addr: SocketAddr,
        timeout_ms: u64,
    ) -> (DxpPlayer<u64>, GameRecord<u64>, DxpGameEnd) {
        let rules = rules();
        let mut dxp = DxpPlayer::connect(rules.clone(), addr, config(timeout_ms)).unwrap();
        dxp.start(Color::White, &[]).unwrap();
        let mut random = RandomPlayer::new(1);
        let record = play_game(&rules, &mut dxp, &mut random, &[], 100);
        let end = dxp.finish(&record).unwrap();
        (dxp, record, end)
    }

    #[test]
    fn an_illegal_move_forfeits_and_ends_the_game() {
        let (addr, peer) = fake_peer(|conn| {
            // 19-24 is a Black move; the peer plays White.
            conn.send_raw(b"M0000192400\0").unwrap();
            collect(conn)
        });
        let (dxp, record, end) = game_with(addr, 5000);
        let Ending::Forfeit {
            loser: Color::White,
            reason: Forfeit::IllegalMove(why),
        } = &record.ending
        else {
            panic!("{:?}", record.ending)
        };
        assert!(why.starts_with("move 19-24 is not legal here"), "{why}");
        assert!(record.moves.is_empty());
        // No new game on a connection that ended on a fault.
        let mut dxp = dxp;
        let e = dxp.start(Color::White, &[]).unwrap_err();
        assert!(e.to_string().contains("out of step"), "{e}");
        drop(dxp);
        let got = peer.join().unwrap();
        assert!(
            matches!(&got[0], Message::Chat(t) if t.contains("illegal move")),
            "{got:?}"
        );
        assert!(matches!(got[1], Message::GameEnd(_)), "{got:?}");
        assert_eq!(end.sent.map(|e| e.reason), Some(EndReason::Unspecified));
        assert!(!end.complete);
    }

    #[test]
    fn malformed_data_forfeits() {
        let (addr, peer) = fake_peer(|conn| {
            conn.send_raw(b"M00zz\0").unwrap();
            collect(conn)
        });
        let (dxp, record, _) = game_with(addr, 5000);
        let Ending::Forfeit {
            loser: Color::White,
            reason: Forfeit::Crashed(why),
        } = &record.ending
        else {
            panic!("{:?}", record.ending)
        };
        assert!(
            why.contains("malformed message from the peer \"M00zz\": MOVE field `time`"),
            "{why}"
        );
        drop(dxp);
        let got = peer.join().unwrap();
        assert!(got.iter().any(|m| matches!(m, Message::GameEnd(_))));
    }

    #[test]
    fn a_silent_peer_times_out() {
        let (addr, peer) = fake_peer(|conn| {
            std::thread::sleep(Duration::from_millis(600));
            collect(conn)
        });
        let start = Instant::now();
        let (dxp, record, end) = game_with(addr, 200);
        assert!(
            matches!(
                record.ending,
                Ending::Forfeit {
                    loser: Color::White,
                    reason: Forfeit::TimedOut(_)
                }
            ),
            "{:?}",
            record.ending
        );
        assert!(start.elapsed() < Duration::from_secs(3));
        assert!(!end.complete);
        drop(dxp);
        peer.join().unwrap();
    }

    /// With a clock for the game, a peer that takes 200 ms a move, well within each move's
    /// bound of 5 s, loses on time at the move that passes its 500 ms for the game (its third).
    /// Before, each move was bounded alone: such a peer could take the whole bound on every
    /// move of a game.
    #[test]
    fn the_peers_time_is_counted_over_the_game() {
        let (addr, peer) = fake_peer(|conn| {
            let rules = rules();
            let geometry = rules.variant().geometry.clone();
            let mut game = Game::new(rules);
            loop {
                if game.position().side_to_move() == Color::White {
                    std::thread::sleep(Duration::from_millis(200));
                    let mv = game.legal_moves()[0];
                    if conn
                        .send(&Message::Move(dxp::encode_move(&geometry, &mv, 0)))
                        .is_err()
                    {
                        return;
                    }
                    game.play_unchecked(&mv);
                } else {
                    let Ok(Message::Move(m)) = conn.receive(Some(Duration::from_secs(5))) else {
                        return;
                    };
                    let mv = dxp::decode_move(&geometry, &game.legal_moves(), &m).unwrap();
                    game.play_unchecked(&mv);
                }
            }
        });
        let rules = rules();
        let clock = PeerClock {
            time: Duration::from_millis(500),
            increment: Duration::ZERO,
        };
        let config = DxpConfig {
            peer_clock: Some(clock),
            ..config(5000)
        };
        let mut dxp = DxpPlayer::connect(rules.clone(), addr, config).unwrap();
        dxp.start(Color::White, &[]).unwrap();
        let record = play_game(&rules, &mut dxp, &mut RandomPlayer::new(1), &[], 100);
        assert!(
            matches!(
                record.ending,
                Ending::Forfeit {
                    loser: Color::White,
                    reason: Forfeit::OutOfTime { time, .. }
                } if time == clock.time
            ),
            "{:?}",
            record.ending
        );
        assert_eq!(
            record.moves.len(),
            4,
            "two moves each, then the third lost on time"
        );
        drop(dxp);
        peer.join().unwrap();
    }

    #[test]
    fn a_peer_that_chats_without_end_is_kept_to_the_last_messages() {
        let (addr, peer) = fake_peer(|conn| {
            for i in 0..MAX_TRANSCRIPT + 1000 {
                conn.send(&Message::Chat(format!("{i}"))).unwrap();
            }
            conn.send_raw(b"B001W\0").unwrap();
            let answer = conn.receive(Some(Duration::from_secs(5))).unwrap();
            conn.send_raw(b"E10\0").unwrap();
            let end = conn.receive(Some(Duration::from_secs(5))).unwrap();
            (answer, end)
        });
        let (dxp, _record, _end) = game_with(addr, 5000);
        assert_eq!(dxp.chat().len(), MAX_CHAT);
        let last = (MAX_TRANSCRIPT + 999).to_string();
        assert_eq!(dxp.chat().last(), Some(&last));
        // The transcript too is bounded, and says so.
        assert_eq!(dxp.transcript().len(), MAX_TRANSCRIPT + 1);
        assert!(dxp.transcript()[MAX_TRANSCRIPT].contains("not kept"));
        let _ = peer.join();
    }

    #[test]
    fn chat_does_not_push_back_the_deadline_of_a_move() {
        // A chat every 50 ms for 10 s, then a legal move: the move is 10 s late for a
        // deadline of 300 ms, however much the peer chatted before it.
        let (addr, peer) = fake_peer(|conn| {
            let began = Instant::now();
            while began.elapsed() < Duration::from_secs(10) {
                if conn.send(&Message::Chat("still here".into())).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = conn.send_raw(b"M0000322800\0");
            collect(conn);
        });
        let (dxp, record, _end) = game_with(addr, 300);
        assert!(
            matches!(
                record.ending,
                Ending::Forfeit {
                    loser: Color::White,
                    reason: Forfeit::TimedOut(t)
                } if t == Duration::from_millis(300)
            ),
            "{:?}",
            record.ending
        );
        assert!(record.moves.is_empty());
        drop(dxp);
        peer.join().unwrap();
    }

    #[test]
    fn a_close_behind_a_message_is_seen_and_the_message_kept() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let mut conn = DxpConnection::connect(addr).unwrap();
            conn.send(&Message::Chat("hello".into())).unwrap();
        });
        let mut conn = DxpConnection::accept(&listener).unwrap();
        peer.join().unwrap();
        // A guard against a hang only: the close is there to be seen at once.
        let guard = Instant::now() + Duration::from_secs(10);
        while !conn.peer_closed() {
            assert!(Instant::now() < guard, "the close was not seen");
            std::thread::sleep(Duration::from_millis(10));
        }
        let t = Some(Duration::from_secs(5));
        assert_eq!(conn.receive(t).unwrap(), Message::Chat("hello".into()));
        assert!(matches!(conn.receive(t), Err(LinkError::Closed)));
    }

    #[test]
    fn a_peer_that_gives_up_loses_and_the_end_is_answered() {
        let (addr, peer) = fake_peer(|conn| {
            conn.send(&Message::Chat("hello".into())).unwrap();
            conn.send_raw(b"B001W\0").unwrap();
            let answer = conn.receive(Some(Duration::from_secs(5))).unwrap();
            conn.send_raw(b"M0000322800\0").unwrap();
            let reply = conn.receive(Some(Duration::from_secs(5))).unwrap();
            conn.send_raw(b"E10\0").unwrap();
            let end = conn.receive(Some(Duration::from_secs(5))).unwrap();
            (answer, reply, end)
        });
        let (dxp, record, end) = game_with(addr, 5000);
        assert!(
            matches!(
                &record.ending,
                Ending::Forfeit { loser: Color::White, reason: Forfeit::Crashed(why) }
                    if why.contains("GAMEEND reason 1: I give up")
            ),
            "{:?}",
            record.ending
        );
        assert_eq!(record.moves.len(), 2);
        assert_eq!(dxp.chat(), ["hello"]);
        assert!(end.peer_initiated && end.complete);
        assert_eq!(end.peer_white_score, Some(0.0));
        assert!(end.agrees_with(&record.ending));
        let (answer, reply, ack) = peer.join().unwrap();
        assert_eq!(answer, Message::BackAccept(BackAcceptCode::NotSupported));
        assert!(matches!(reply, Message::Move(_)));
        assert_eq!(
            ack,
            Message::GameEnd(GameEnd {
                reason: EndReason::Unspecified,
                stop: StopCode::NextGame
            })
        );
    }

    #[test]
    fn a_declined_game_is_an_error() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let mut conn = DxpConnection::accept(&listener).unwrap();
            conn.receive(Some(Duration::from_secs(5))).unwrap();
            conn.send_raw(b"Afake                            2\0")
                .unwrap();
        });
        let mut dxp = DxpPlayer::connect(rules(), addr, config(5000)).unwrap();
        let e = dxp.start(Color::Black, &[]).unwrap_err();
        assert!(matches!(e, DxpError::Declined(AcceptCode::DeclineThisGame)));
        assert!(
            e.to_string().contains("declined the game (GAMEACC code 2"),
            "{e}"
        );
        peer.join().unwrap();
    }

    #[test]
    fn other_boards_are_refused() {
        let variant = Catalogue::builtin().get("russian").unwrap();
        let rules = Arc::new(Rules::<u64>::new(variant).unwrap());
        let e = DxpPlayer::connect(rules, "127.0.0.1:9", DxpConfig::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("10x10"), "{e}");
    }

    #[test]
    fn two_messages_of_ours_in_a_row_go_apart_and_an_answer_goes_at_once() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let mut conn = DxpConnection::accept(&listener).unwrap();
            let t = Some(Duration::from_secs(10));
            let first = conn.receive(t).unwrap();
            let second = conn.receive(t).unwrap();
            conn.send(&Message::Chat("your turn".into())).unwrap();
            conn.receive(t).unwrap();
            (first, second)
        });
        let mut us = DxpConnection::connect(addr).unwrap();
        let start = Instant::now();
        us.send(&Message::Chat("one".into())).unwrap();
        us.send(&Message::Chat("two".into())).unwrap();
        // A lower bound only: the second message was held back for the gap.
        assert!(start.elapsed() >= MESSAGE_GAP, "{:?}", start.elapsed());
        assert_eq!(
            us.receive(Some(Duration::from_secs(10))).unwrap(),
            Message::Chat("your turn".into())
        );
        // The peer has spoken since: our next message is not held back.
        assert_eq!(us.unanswered_since, None);
        us.send(&Message::Chat("three".into())).unwrap();
        let (first, second) = peer.join().unwrap();
        assert_eq!(first, Message::Chat("one".into()));
        assert_eq!(second, Message::Chat("two".into()));
    }
}
