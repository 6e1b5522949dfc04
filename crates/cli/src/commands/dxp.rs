//! `damspel dxp --listen ADDR | --connect ADDR`: DXP play over TCP.
//!
//! `--listen` waits for one initiator and follows it: each GAMEREQ is answered with a GAMEACC
//! and played with the colour it gives Damspel, until the peer closes the connection or asks to
//! stop; with `--keep-listening` it then waits for the next initiator, and a peer's fault ends
//! only that peer's connection. `--peers N` serves up to N initiators at once, each on a thread
//! of its own with an engine of its own (a bot playing several games opens a connection for
//! each; a peer that stays silent then holds one place, not the port); a connection over the
//! limit waits in the listening queue until a place is free. `--connect` initiates one game:
//! Damspel plays White from the standard start, proposing a thinking time of 75 moves at
//! `--time` (10 minutes without it) and no move limit.
//!
//! Moves strictly alternate; every incoming move is checked against the rules. The side to
//! move ends a finished game with a GAMEEND (reason from its side: 1 I give up, 2 draw, 3 I
//! win), which the other side answers with a GAMEEND. A bad message from the peer (malformed,
//! an illegal move, out of turn) ends the game with a GAMEEND and an error. Take-backs
//! (BACKREQ) are accepted when they name a position of the game.
//!
//! The codec is `damspel_protocol::dxp`, the connection `damspel_arena::DxpConnection`. The log
//! goes to standard output, one line per event, each starting with `dxp: `.

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use damspel_arena::{Deadline, DxpConnection, LinkError, PeerClock};
use damspel_engine::{Clock, Engine, Limits, Silent};
use damspel_notation::format_move;
use damspel_protocol::dxp::{
    self, AcceptCode, BackAcceptCode, BackRequest, EndReason, GameAccept, GameEnd, GameRequest,
    Message, Start, StopCode, PROTOCOL_VERSION,
};
use damspel_rules::{with_rules, Bits, Catalogue, Color, Game, Outcome, Position, Rules};

pub struct Args<'a> {
    pub variant: &'a str,
    pub listen: Option<&'a str>,
    /// Serve peer after peer on the listening address, until interrupted.
    pub keep_listening: bool,
    /// With `keep_listening`: how many peers are served at once.
    pub peers: usize,
    pub connect: Option<&'a str>,
    pub time: Option<f64>,
    pub depth: Option<u32>,
    /// How long the peer may stay silent when no clock bounds it (waiting for a GAMEREQ, or
    /// for a move in a game without a time limit).
    pub idle: Duration,
}

const HASH_MB: usize = 32;
/// How often a search checks that the peer is still there.
const WATCH_INTERVAL: Duration = Duration::from_millis(20);
/// How long the peer may take to accept a game or to answer our GAMEEND.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// How long we wait for the answer to the GAMEEND that ends a game after a fault.
const FAULT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the listener waits after failing to take a connection before it tries again.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);
/// The most lines a connection logs about messages that do not advance the game (chat,
/// take-back requests, a BACKREQ or GAMEEND outside a game): a peer may send them without end.
const MAX_ASIDES: u64 = 100;

/// Prints a line of the log, after the tag of the peer it is about (`[3] `, or nothing when one
/// peer is served at a time). A peer's names and chat may hold control characters (a terminal
/// would obey escape sequences): they are shown as `?` (`files::printable`).
fn say(tag: &str, line: impl AsRef<str>) {
    println!("dxp: {tag}{}", crate::files::printable(line.as_ref()));
}

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    let variant = catalogue.get(args.variant)?;
    dxp::check_variant(&variant).map_err(|e| anyhow!(e))?;
    if let Some(t) = args.time {
        if !(t > 0.0 && t < 1e5) {
            bail!("--time must be a positive number of seconds, not {t}");
        }
    }
    if args.depth == Some(0) {
        bail!("--depth must be at least 1");
    }
    if args.listen.is_none() && args.connect.is_none() {
        bail!("give --listen ADDR (wait for a DXP program) or --connect ADDR (propose a game)");
    }
    with_rules!(variant, |rules| serve(Arc::new(rules), args))
}

fn serve<B: Bits>(rules: Arc<Rules<B>>, args: &Args) -> Result<()> {
    let name = format!("Damspel {}", env!("CARGO_PKG_VERSION"));
    if let Some(addr) = args.listen {
        let listener =
            TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
        say(
            "",
            format!(
                "listening on {} ({})",
                listener.local_addr()?,
                rules.variant().id
            ),
        );
        if args.keep_listening {
            return keep_listening(&rules, &listener, &name, args);
        }
        let conn = DxpConnection::accept(&listener).context("waiting for a DXP program")?;
        say("", format!("connection from {}", conn.peer_addr()));
        Endpoint::new(rules, conn, name, args, StopCode::NextGame, String::new()).follow()
    } else {
        let addr = args.connect.expect("--listen or --connect");
        let conn =
            DxpConnection::connect(addr).with_context(|| format!("cannot connect to {addr}"))?;
        say(
            "",
            format!("connected to {} ({})", conn.peer_addr(), rules.variant().id),
        );
        Endpoint::new(rules, conn, name, args, StopCode::Stop, String::new()).initiate(args.time)
    }
}

/// Serves peer after peer, up to `args.peers` at once, until interrupted. A peer's fault, or a
/// connection that cannot be taken, is said in the log and the listening goes on.
fn keep_listening<B: Bits>(
    rules: &Arc<Rules<B>>,
    listener: &TcpListener,
    name: &str,
    args: &Args,
) -> Result<()> {
    let addr = listener.local_addr()?;
    // A place per peer served at once: taken before a connection is accepted, given back when
    // the peer is gone, so a connection over the limit waits in the listening queue.
    let (give_back, take) = mpsc::sync_channel::<()>(args.peers);
    for _ in 0..args.peers {
        give_back
            .send(())
            .expect("the channel holds a place per peer");
    }
    let serving = AtomicUsize::new(0);
    let (mut number, mut failures) = (0, 0u64);
    std::thread::scope(|scope| loop {
        take.recv().expect("this thread keeps a sender");
        let conn = match DxpConnection::accept(listener) {
            Ok(conn) => conn,
            Err(e) => {
                // A connection reset before it was taken, or no descriptor left for a
                // while: no reason to stop serving the peers that come next. Said once, and
                // then every hundredth time while it lasts.
                if failures % 100 == 0 {
                    say("", format!("error: cannot take a connection: {e}"));
                }
                failures += 1;
                give_back.send(()).expect("the place just taken is free");
                std::thread::sleep(ACCEPT_RETRY);
                continue;
            }
        };
        failures = 0;
        number += 1;
        let tag = if args.peers > 1 {
            format!("[{number}] ")
        } else {
            String::new()
        };
        say(&tag, format!("connection from {}", conn.peer_addr()));
        serving.fetch_add(1, Ordering::Relaxed);
        let endpoint = Endpoint::new(
            rules.clone(),
            conn,
            name.to_string(),
            args,
            StopCode::NextGame,
            tag.clone(),
        );
        let (give_back, serving) = (give_back.clone(), &serving);
        scope.spawn(move || {
            // One peer's fault is not the next one's: said, and the listening goes on.
            if let Err(e) = endpoint.follow() {
                say(&tag, format!("error: {e:#}"));
            }
            let left = serving.fetch_sub(1, Ordering::Relaxed) - 1;
            if args.peers == 1 {
                say(&tag, format!("waiting for the next peer on {addr}"));
            } else {
                say(
                    &tag,
                    format!("gone; {left} of {} peers served on {addr}", args.peers),
                );
            }
            let _ = give_back.send(());
        });
    })
}

/// One end of a DXP connection with Damspel's engine behind it.
struct Endpoint<B: Bits> {
    rules: Arc<Rules<B>>,
    engine: Engine<B>,
    conn: DxpConnection,
    name: String,
    depth: Option<u32>,
    move_time: Option<Duration>,
    idle: Duration,
    /// The stop code of our GAMEENDs: a follower stays for more games, an initiator plays one.
    stop: StopCode,
    /// What the log's lines about this peer start with (see `say`).
    tag: String,
    /// Messages that do not advance the game received so far (see `aside`).
    asides: u64,
}

/// A game's time settings from the GAMEREQ.
#[derive(Clone, Copy)]
struct Terms {
    minutes: u16,
    moves: u16,
}

fn color_name(c: Color) -> &'static str {
    c.name()
}

impl<B: Bits> Endpoint<B> {
    fn new(
        rules: Arc<Rules<B>>,
        conn: DxpConnection,
        name: String,
        args: &Args,
        stop: StopCode,
        tag: String,
    ) -> Endpoint<B> {
        Endpoint {
            engine: Engine::new(rules.clone(), HASH_MB),
            rules,
            conn,
            name,
            depth: args.depth,
            move_time: args.time.map(Duration::from_secs_f64),
            idle: args.idle,
            stop,
            tag,
            asides: 0,
        }
    }

    fn say(&self, line: impl AsRef<str>) {
        say(&self.tag, line);
    }

    /// Logs a line about a message that does not advance the game: the first `MAX_ASIDES` of
    /// the connection, then one line saying the rest is not logged (counted by `asides_left`).
    fn aside(&mut self, line: impl AsRef<str>) {
        self.asides += 1;
        if self.asides <= MAX_ASIDES {
            self.say(line);
        } else if self.asides == MAX_ASIDES + 1 {
            self.say(format!(
                "more than {MAX_ASIDES} chat or other messages that do not advance the game: the rest is not logged"
            ));
        }
    }

    /// Says at the end of the connection how many asides were not logged.
    fn asides_left(&self) {
        let unlogged = self.asides.saturating_sub(MAX_ASIDES) + self.conn.dropped_chat();
        if unlogged > 0 {
            self.say(format!(
                "{unlogged} chat or other message(s) that do not advance the game were not logged"
            ));
        }
    }

    fn send(&mut self, message: Message) -> Result<()> {
        self.conn
            .send(&message)
            .map(|_| ())
            .with_context(|| format!("cannot send {}", message.kind()))
    }

    /// Follower: answers GAMEREQs and plays them until the peer leaves or asks to stop.
    fn follow(mut self) -> Result<()> {
        let result = self.follow_games();
        self.asides_left();
        result
    }

    fn follow_games(&mut self) -> Result<()> {
        let mut games = 0;
        // The peer has the idle time for its GAMEREQ, however much it sends in between.
        let mut deadline = Deadline::after(self.idle);
        loop {
            let message = match self.conn.receive_by(Some(deadline)) {
                Ok(m) => m,
                Err(LinkError::Closed) => {
                    self.say(format!(
                        "the peer closed the connection after {games} game(s)"
                    ));
                    return Ok(());
                }
                Err(LinkError::TimedOut(t)) => bail!(
                    "no GAMEREQ from the peer within {} s (--idle-timeout): closing",
                    t.as_secs()
                ),
                Err(e) => bail!("{e}"),
            };
            match message {
                Message::GameRequest(request) => {
                    let Some(start) = self.consider(&request)? else {
                        continue;
                    };
                    games += 1;
                    let terms = Terms {
                        minutes: request.minutes,
                        moves: request.moves,
                    };
                    let stop =
                        self.play(start, request.follower_color, &request.initiator, terms)?;
                    if stop {
                        self.say("the peer asked to stop");
                        return Ok(());
                    }
                    deadline = Deadline::after(self.idle);
                }
                Message::Chat(text) => self.aside(format!("chat: {text}")),
                Message::BackRequest(_) => {
                    self.aside("BACKREQ outside a game declined");
                    self.send(Message::BackAccept(BackAcceptCode::Decline))?;
                }
                Message::GameEnd(_) => self.aside("GAMEEND outside a game ignored"),
                other => bail!(
                    "DXP protocol error: the peer sent {} {:?} instead of a GAMEREQ",
                    other.kind(),
                    other.to_string()
                ),
            }
        }
    }

    /// Answers a GAMEREQ; the start position if the game is accepted.
    fn consider(&mut self, request: &GameRequest) -> Result<Option<Position<B>>> {
        let start = match &request.start {
            Start::Standard => "the standard start".to_string(),
            Start::Setup(board) => format!("the position {}", board.to_text()),
        };
        let moves = match request.moves {
            0 => "no move limit".to_string(),
            n => format!("{n} moves"),
        };
        let asked = format!(
            "game request from {:?}: Damspel plays {}, {} min, {moves}, from {start}",
            request.initiator,
            color_name(request.follower_color),
            request.minutes
        );
        let name = self.name.clone();
        let accept = |code| {
            Message::GameAccept(GameAccept {
                follower: name.clone(),
                code,
            })
        };
        if request.version != PROTOCOL_VERSION {
            self.send(accept(AcceptCode::WrongVersion))?;
            // A declined request does not advance the game: logged within the asides' bound
            // (a peer may send them without end within the idle time).
            self.aside(format!(
                "{asked}; declined: protocol version {:02}, Damspel speaks {PROTOCOL_VERSION:02}",
                request.version
            ));
            return Ok(None);
        }
        match dxp::start_position(&self.rules, &request.start) {
            Err(e) => {
                self.send(accept(AcceptCode::DeclineThisGame))?;
                self.aside(format!(
                    "{asked}; declined: the start position is not legal: {e}"
                ));
                Ok(None)
            }
            Ok(pos) => {
                self.say(asked);
                self.send(accept(AcceptCode::Accept))?;
                Ok(Some(pos))
            }
        }
    }

    /// Initiator: proposes one game with Damspel as White from the standard start.
    fn initiate(mut self, time: Option<f64>) -> Result<()> {
        let result = self.initiate_game(time);
        self.asides_left();
        result
    }

    fn initiate_game(&mut self, time: Option<f64>) -> Result<()> {
        let us = Color::White;
        let start = Position::start(&self.rules);
        let terms = Terms {
            minutes: proposed_minutes(time),
            moves: 0,
        };
        let request = GameRequest {
            version: PROTOCOL_VERSION,
            initiator: self.name.clone(),
            follower_color: !us,
            minutes: terms.minutes,
            moves: terms.moves,
            start: dxp::start_of(&self.rules, &start),
        };
        self.send(Message::GameRequest(request))?;
        self.say(format!(
            "game request sent: Damspel plays {}, {} min, no move limit",
            color_name(us),
            terms.minutes
        ));
        let deadline = Deadline::after(ANSWER_TIMEOUT);
        let peer = loop {
            match self.conn.receive_by(Some(deadline))? {
                Message::GameAccept(acc) if acc.code == AcceptCode::Accept => break acc.follower,
                Message::GameAccept(acc) => bail!(
                    "{:?} declined the game (GAMEACC code {}: {})",
                    acc.follower,
                    acc.code.digit(),
                    acc.code.meaning()
                ),
                Message::Chat(text) => self.aside(format!("chat: {text}")),
                other => bail!(
                    "DXP protocol error: the peer answered the GAMEREQ with {} {:?}",
                    other.kind(),
                    other.to_string()
                ),
            }
        };
        self.play(start, us, &peer, terms)?;
        Ok(())
    }

    /// The engine's limits for our next move.
    fn limits(&self, terms: Terms, used: Duration, our_moves: usize) -> Limits {
        if self.depth.is_some() || self.move_time.is_some() {
            return Limits {
                depth: self.depth,
                move_time: self.move_time,
                ..Limits::default()
            };
        }
        if terms.minutes == 0 {
            return Limits::move_time(Duration::from_secs(1));
        }
        let total = Duration::from_secs(terms.minutes as u64 * 60);
        Limits {
            clock: Some(Clock {
                remaining: total.saturating_sub(used).max(Duration::from_millis(50)),
                increment: Duration::ZERO,
                moves_to_go: (terms.moves > 0)
                    .then(|| (terms.moves as u32).saturating_sub(our_moves as u32).max(1)),
            }),
            ..Limits::default()
        }
    }

    /// Plays one game from `start` with Damspel as `us`; whether the peer asked to stop.
    fn play(&mut self, start: Position<B>, us: Color, peer: &str, terms: Terms) -> Result<bool> {
        let rules = self.rules.clone();
        let geometry = &rules.variant().geometry;
        let mut game = Game::from_position(rules.clone(), start);
        let start_side = start.side_to_move();
        self.engine.new_game();
        let mut used = Duration::ZERO;
        // The peer's time: used on its moves so far, and the turn it is on (since when, until
        // when), one deadline for the turn, which its chat and take-back requests do not move.
        let (mut peer_used, mut peer_moves) = (Duration::ZERO, 0u32);
        let mut peer_turn: Option<(Instant, Deadline)> = None;
        let (white, black) = match us {
            Color::White => (self.name.as_str(), peer),
            Color::Black => (peer, self.name.as_str()),
        };
        self.say(format!("game starts: {white} (white) - {black} (black)"));
        loop {
            if game.position().side_to_move() == us {
                if let Some((began, _)) = peer_turn.take() {
                    peer_used += began.elapsed();
                    peer_moves += 1;
                }
                if let Some(outcome) = game.outcome() {
                    let reason = dxp::end_reason(&outcome, us);
                    return self.end_game(reason, |this| {
                        this.result_by_rules(&outcome);
                    });
                }
                if terms.moves > 0 && game.moves().len() >= 2 * terms.moves as usize {
                    let limit = terms.moves;
                    return self.end_game(EndReason::Unspecified, |this| {
                        this.say(format!("result * (the limit of {limit} moves is reached)"));
                    });
                }
                let our_moves = game
                    .positions()
                    .filter(|p| p.side_to_move() == us)
                    .count()
                    .saturating_sub(1);
                let limits = self.limits(terms, used, our_moves);
                let clock = Instant::now();
                let found = self.search_while_connected(&game, &limits)?;
                let elapsed = clock.elapsed();
                used += elapsed;
                let mv = found
                    .best
                    .ok_or_else(|| anyhow!("the engine found no move in a position with moves"))?;
                let text = format_move(&rules, game.position(), &mv);
                let seconds = elapsed.as_secs().min(9999) as u16;
                self.send(Message::Move(dxp::encode_move(geometry, &mv, seconds)))?;
                self.say(ply_line(&game, start_side, &text, "damspel"));
                game.play_unchecked(&mv);
                continue;
            }
            // A peer that has used up its thinking time for the whole game (and the margin) has
            // lost on time; without a clock, a peer that has not moved within the idle time is
            // gone.
            let idle = self.idle;
            let (_, deadline) = *peer_turn.get_or_insert_with(|| {
                let allowed = match terms.minutes {
                    0 => idle,
                    m => PeerClock::for_minutes(m).left(peer_used, peer_moves),
                };
                (Instant::now(), Deadline::after(allowed))
            });
            let message = match self.conn.receive_by(Some(deadline)) {
                Ok(m) => m,
                Err(e) if e.is_malformed() => return Err(self.abandon(e.to_string())),
                Err(LinkError::TimedOut(t)) if terms.minutes == 0 => {
                    return Err(self.abandon(format!(
                        "no move from the peer within {} s (--idle-timeout)",
                        t.as_secs()
                    )))
                }
                Err(LinkError::TimedOut(_)) => {
                    // What the clock gives beyond the stated minutes.
                    let clock = PeerClock::for_minutes(terms.minutes);
                    let margin = clock.time + clock.increment * peer_moves
                        - Duration::from_secs(u64::from(terms.minutes) * 60);
                    return Err(self.abandon(format!(
                        "the peer has used up its thinking time for the game ({} min, with {} s of margin)",
                        terms.minutes,
                        margin.as_secs()
                    )));
                }
                Err(LinkError::Closed) => bail!(
                    "the peer closed the connection during the game (after {} plies)",
                    game.moves().len()
                ),
                Err(e) => bail!("{e}"),
            };
            match message {
                Message::Move(m) => {
                    if let Some(outcome) = game.outcome() {
                        // The peer moved on in a game the rules have ended: as the peer sees
                        // it, it is our turn, so we end the game.
                        self.say(format!(
                            "the peer played {} after the end of the game ({outcome})",
                            dxp::describe_move(&m)
                        ));
                        let reason = dxp::end_reason(&outcome, us);
                        return self.end_game(reason, |this| this.result_by_rules(&outcome));
                    }
                    match dxp::decode_move(geometry, &game.legal_moves(), &m) {
                        Ok(mv) => {
                            let text = format_move(&rules, game.position(), &mv);
                            self.say(ply_line(&game, start_side, &text, "peer"));
                            game.play_unchecked(&mv);
                        }
                        Err(e) => {
                            return Err(self.abandon(format!(
                                "illegal move from the peer after {} plies: {e}",
                                game.moves().len()
                            )))
                        }
                    }
                }
                Message::GameEnd(end) => {
                    self.send(Message::GameEnd(GameEnd {
                        reason: EndReason::Unspecified,
                        stop: self.stop,
                    }))?;
                    self.say(format!(
                        "GAMEEND received ({}), answered",
                        end.reason.meaning()
                    ));
                    self.result_after_peer_end(&game, us, end.reason);
                    return Ok(end.stop == StopCode::Stop);
                }
                Message::Chat(text) => self.aside(format!("chat: {text}")),
                Message::BackRequest(request) => self.take_back(&mut game, start_side, request)?,
                other => {
                    return Err(self.abandon(format!(
                        "DXP protocol error: the peer sent {} {:?} during the game",
                        other.kind(),
                        other.to_string()
                    )))
                }
            }
        }
    }

    /// Searches on a thread of its own while this one watches the connection: a peer that
    /// leaves stops the search at once (an error), instead of leaving it to run out its time or
    /// depth for no one.
    fn search_while_connected(
        &mut self,
        game: &Game<B>,
        limits: &Limits,
    ) -> Result<damspel_engine::SearchResult<B>> {
        let stop = self.engine.stop_flag();
        let (engine, conn) = (&mut self.engine, &mut self.conn);
        let (found, gone) = std::thread::scope(|scope| {
            let (done, finished) = std::sync::mpsc::channel();
            let search = scope.spawn(move || {
                let result = engine.search(game, limits, &mut Silent);
                let _ = done.send(());
                result
            });
            let mut gone = false;
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(WATCH_INTERVAL) {
                if !gone && conn.peer_closed() {
                    gone = true;
                    stop.store(true, Ordering::Relaxed);
                }
            }
            (search.join(), gone)
        });
        if gone {
            bail!(
                "the peer closed the connection during our search (after {} plies)",
                game.moves().len()
            );
        }
        found.map_err(|_| anyhow!("the search failed"))
    }

    /// Sends the first GAMEEND and waits for the answer; `report` prints the result. Returns
    /// whether the peer asked to stop.
    fn end_game(&mut self, reason: EndReason, report: impl FnOnce(&Self)) -> Result<bool> {
        self.send(Message::GameEnd(GameEnd {
            reason,
            stop: self.stop,
        }))?;
        self.say(format!("GAMEEND sent ({})", reason.meaning()));
        let deadline = Deadline::after(ANSWER_TIMEOUT);
        loop {
            match self.conn.receive_by(Some(deadline)) {
                Ok(Message::GameEnd(answer)) => {
                    self.say("GAMEEND answered");
                    report(self);
                    return Ok(answer.stop == StopCode::Stop);
                }
                Ok(Message::Chat(text)) => self.aside(format!("chat: {text}")),
                Ok(Message::BackRequest(_)) => {
                    self.send(Message::BackAccept(BackAcceptCode::Decline))?
                }
                Ok(other) => bail!(
                    "DXP protocol error: the peer answered our GAMEEND with {} {:?}",
                    other.kind(),
                    other.to_string()
                ),
                Err(e) => bail!("no answer to our GAMEEND: {e}"),
            }
        }
    }

    fn result_by_rules(&self, outcome: &Outcome) {
        self.say(format!("result {} ({outcome})", outcome.result_text()));
    }

    /// The result when the peer ended the game: the rules' result if the game is over by the
    /// rules (with a warning when the peer claimed another one), else the peer's claim.
    fn result_after_peer_end(&self, game: &Game<B>, us: Color, reason: EndReason) {
        let claimed = dxp::white_score_claimed(reason, !us);
        if let Some(outcome) = game.outcome() {
            let by_rules = match outcome {
                Outcome::Win {
                    winner: Color::White,
                    ..
                } => 1.0,
                Outcome::Win { .. } => 0.0,
                Outcome::Draw(_) => 0.5,
            };
            if claimed.is_some_and(|c| c != by_rules) {
                eprintln!(
                    "dxp: {}warning: the peer ended the game with \"{}\" but the rules say: {outcome}",
                    self.tag,
                    reason.meaning()
                );
            }
            self.result_by_rules(&outcome);
            return;
        }
        let (text, why) = match claimed {
            Some(s) if s > 0.75 => (
                "1-0",
                format!(
                    "the peer ({}) ended the game: {}",
                    color_name(!us),
                    reason.meaning()
                ),
            ),
            Some(s) if s < 0.25 => (
                "0-1",
                format!(
                    "the peer ({}) ended the game: {}",
                    color_name(!us),
                    reason.meaning()
                ),
            ),
            Some(_) => ("1/2-1/2", "the peer ended the game as a draw".to_string()),
            None => ("*", "the peer ended the game without a reason".to_string()),
        };
        self.say(format!("result {text} ({why})"));
    }

    /// Takes moves back to the position a BACKREQ names, if the game has it.
    fn take_back(
        &mut self,
        game: &mut Game<B>,
        start_side: Color,
        request: BackRequest,
    ) -> Result<()> {
        let wanted = format!(
            "move {} with {} to move",
            request.move_number,
            color_name(request.to_move)
        );
        match dxp::back_request_ply(start_side, &request).filter(|&p| p <= game.moves().len()) {
            Some(ply) => {
                while game.moves().len() > ply {
                    game.undo();
                }
                self.send(Message::BackAccept(BackAcceptCode::Accept))?;
                self.aside(format!("take-back to {wanted} accepted"));
            }
            None => {
                self.send(Message::BackAccept(BackAcceptCode::Decline))?;
                self.aside(format!(
                    "take-back to {wanted} declined: the game has no such position"
                ));
            }
        }
        Ok(())
    }

    /// Ends the game after a fault of the peer: a CHAT with the reason, a GAMEEND, a short wait
    /// for the answer. Returns the error to report.
    fn abandon(&mut self, why: String) -> anyhow::Error {
        let chat: String = format!("{}: {why}", self.name)
            .chars()
            .filter(|c| (' '..='~').contains(c))
            .take(120)
            .collect();
        let _ = self.conn.send(&Message::Chat(chat));
        let end = GameEnd {
            reason: EndReason::Unspecified,
            stop: StopCode::Stop,
        };
        if self.conn.send(&Message::GameEnd(end)).is_ok() {
            self.say("GAMEEND sent (the peer's fault)");
            let deadline = Instant::now() + FAULT_TIMEOUT;
            while let Some(left) = deadline.checked_duration_since(Instant::now()) {
                match self.conn.receive(Some(left)) {
                    Ok(Message::GameEnd(_)) => {
                        self.say("GAMEEND answered");
                        break;
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
        anyhow!(why)
    }
}

/// The thinking time an initiator proposes in its GAMEREQ (minutes for the whole game): 75
/// moves at `time` seconds a move, or 10 minutes without it.
pub(crate) fn proposed_minutes(time: Option<f64>) -> u16 {
    time.map_or(10, |t| (t * 75.0 / 60.0).ceil().clamp(1.0, 999.0) as u16)
}

/// `12. 32-28 (peer)` or `12... 19-23 (damspel)`: the move about to be played in `game`.
fn ply_line<B: Bits>(game: &Game<B>, start_side: Color, text: &str, who: &str) -> String {
    let absolute = game.moves().len() + usize::from(start_side == Color::Black);
    let number = absolute / 2 + 1;
    let dots = if absolute.is_multiple_of(2) {
        "."
    } else {
        "..."
    };
    format!("{number}{dots} {text} ({who})")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[test]
    fn the_peer_has_its_time_for_the_whole_game_and_a_margin() {
        let s = Duration::from_secs;
        // 1 minute a side, a minute of margin, a second for each move made.
        let clock = damspel_arena::PeerClock::for_minutes(1);
        assert_eq!(clock.left(s(0), 0), s(120));
        assert_eq!(clock.left(s(50), 10), s(80));
        assert_eq!(clock.left(s(130), 10), s(0));
        assert_eq!(clock.left(s(500), 10), s(0));
    }

    #[test]
    fn a_peers_control_characters_are_not_printed() {
        assert_eq!(
            crate::files::printable("chat: \u{1b}[2Jhi\u{7}"),
            "chat: ?[2Jhi?"
        );
    }
}
