//! Playing a person (issue 12, items 5 and 6): how a game ended when the board did not end it
//! (resignation, an agreed or claimed draw, a flag fall), the draw offer on the table, the
//! clock, and the invitation that hands the second seat to a friend. All of it is stored with
//! the game (one JSON column, see store.rs), so a restart keeps it.

use damspel_notation::pdn::GameResult;
use damspel_rules::Color;
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, Quoted};
use crate::session::{Seat, Session};

/// Longest time control: 3 hours a side, 10 minutes increment.
pub const MAX_MINUTES: f64 = 180.0;
/// The least time a side starts with (less was accepted, down to 0 ms: a game lost on time at
/// its first move). Half a second: the tests' flag falls.
pub const MIN_CLOCK_MS: u64 = 500;
pub const MAX_INCREMENT: f64 = 600.0;

/// What the players did to the game, besides moving.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Play {
    /// How the game ended off the board (None: the board decides, see `Game::outcome`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<Ending>,
    /// The side whose draw offer is on the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_offer: Option<Side>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
}

/// A side as JSON writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// Why a game ended off the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum How {
    Resignation,
    Agreement,
    Claim,
    Time,
    /// The result an imported PDN game records where its moves do not end it on the board
    /// (a resignation, an agreed draw, a loss on time of a game played elsewhere).
    Recorded,
}

/// A result decided by the players or the clock. Its text is written in the variant's style
/// from `game_result` (`write_result`); rows stored before 2026-11-29 hold a `result` field of
/// their own, always "1-0" style, which reading ignores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ending {
    pub winner: Option<Side>,
    pub how: How,
    /// The reason a person reads (and the PDN Termination tag).
    pub reason: String,
    /// The main line's length when it ended (plies).
    pub plies: usize,
}

impl Ending {
    pub fn win(winner: Color, how: How, reason: String, plies: usize) -> Ending {
        Ending {
            winner: Some(winner.into()),
            how,
            reason,
            plies,
        }
    }

    pub fn draw(how: How, reason: String, plies: usize) -> Ending {
        Ending {
            winner: None,
            how,
            reason,
            plies,
        }
    }

    /// The result, for the variant's PDN style to write (`write_result`).
    pub fn game_result(&self) -> GameResult {
        match self.winner {
            Some(w) => GameResult::Win(w.into()),
            None => GameResult::Draw,
        }
    }
}

/// A time control and the time each side has left. Times are milliseconds; `since` is the wall
/// clock (Unix milliseconds) at which the side to move started thinking, None while the clock
/// is stopped (before the first move, and after the end).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub initial_ms: u64,
    pub increment_ms: u64,
    pub white_ms: i64,
    pub black_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Side>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Time left (white, black) after each ply of the main line, so that every acknowledged
    /// move keeps its clock (and the PDN could carry it).
    #[serde(default)]
    pub after: Vec<[i64; 2]>,
}

/// A time control asked for when a game is created.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// Minutes for each side (fractions allowed: 0.05 is three seconds).
    pub minutes: f64,
    /// Seconds added after each move.
    #[serde(default)]
    pub increment: f64,
}

impl TimeControl {
    pub fn clock(self) -> Result<Clock, ApiError> {
        let least = MIN_CLOCK_MS as f64 / 60_000.0;
        if !(self.minutes.is_finite()
            && self.minutes >= least - 1e-9
            && self.minutes <= MAX_MINUTES)
        {
            // Rounded up, so that the figure the message gives is itself accepted (0.0083,
            // half a second rounded down, is not).
            let shown = (least * 1e5).ceil() / 1e5;
            return Err(ApiError::unprocessable(format!(
                "clock minutes must be from {shown} (half a second) to {MAX_MINUTES}, not {}",
                Quoted(self.minutes)
            )));
        }
        if !(self.increment.is_finite() && (0.0..=MAX_INCREMENT).contains(&self.increment)) {
            return Err(ApiError::unprocessable(format!(
                "clock increment must be from 0 to {MAX_INCREMENT} seconds, not {}",
                Quoted(self.increment)
            )));
        }
        let initial = ((self.minutes * 60_000.0).round() as u64).max(MIN_CLOCK_MS);
        Ok(Clock {
            initial_ms: initial,
            increment_ms: (self.increment * 1000.0).round() as u64,
            white_ms: initial as i64,
            black_ms: initial as i64,
            running: None,
            since: None,
            after: Vec::new(),
        })
    }
}

/// Unix time in milliseconds.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Clock {
    pub fn left(&self, side: Side) -> i64 {
        match side {
            Side::White => self.white_ms,
            Side::Black => self.black_ms,
        }
    }

    fn left_mut(&mut self, side: Side) -> &mut i64 {
        match side {
            Side::White => &mut self.white_ms,
            Side::Black => &mut self.black_ms,
        }
    }

    /// Time left now for the side whose clock runs (None when stopped).
    pub fn running_left(&self, now: u64) -> Option<(Side, i64)> {
        let side = self.running?;
        let since = self.since.unwrap_or(now);
        Some((side, self.left(side) - now.saturating_sub(since) as i64))
    }

    /// The side whose time is up, if any.
    pub fn flagged(&self, now: u64) -> Option<Side> {
        self.running_left(now)
            .and_then(|(side, left)| (left <= 0).then_some(side))
    }

    /// When the running side's time is up (Unix ms).
    pub fn deadline(&self) -> Option<u64> {
        let side = self.running?;
        Some(self.since? + self.left(side).max(0) as u64)
    }

    /// The main line grew from `before` to `after` plies and `to_move` is now on move: the
    /// mover's thinking time is taken off, the increment added, and the other clock started.
    /// The clock starts with the first move (a friend may still be joining before it): that
    /// move is charged nothing, but gets its increment as every move does (Fischer's rule),
    /// or the side moving first would play the whole game one increment short.
    pub fn moved(&mut self, before: usize, after: usize, to_move: Color, now: u64) {
        if after <= before {
            return;
        }
        let inc = self.increment_ms as i64;
        match (self.running, self.since) {
            (Some(side), Some(since)) => {
                let spent = now.saturating_sub(since) as i64;
                *self.left_mut(side) += inc - spent;
            }
            _ => *self.left_mut((!to_move).into()) += inc,
        }
        self.after.truncate(before);
        while self.after.len() < after {
            self.after.push([self.white_ms, self.black_ms]);
        }
        self.running = Some(to_move.into());
        self.since = Some(now);
    }

    /// The main line kept its first `kept` plies and now has `after`: each side has the time it
    /// had after the plies kept (the moves after them have no time of their own), and the side
    /// to move runs from now (the clock starts with the first move).
    pub fn taken_back(&mut self, kept: usize, after: usize, to_move: Color, now: u64) {
        self.after.truncate(kept);
        let initial = self.initial_ms as i64;
        let [white, black] = self.after.last().copied().unwrap_or([initial, initial]);
        self.white_ms = white;
        self.black_ms = black;
        while self.after.len() < after {
            self.after.push([white, black]);
        }
        (self.running, self.since) = if after == 0 {
            (None, None)
        } else {
            (Some(to_move.into()), Some(now))
        };
    }

    /// Stops the clock (the game ended), charging the running side the time it used.
    pub fn stop(&mut self, now: u64) {
        if let Some((side, left)) = self.running_left(now) {
            *self.left_mut(side) = left;
        }
        self.running = None;
        self.since = None;
    }

    /// The engine's share of its time for one move: a 30th of what is left plus most of the
    /// increment, never more than `cap` seconds nor less than 10 ms.
    pub fn engine_share(&self, side: Side, now: u64, cap: f64) -> f64 {
        let left = match self.running_left(now) {
            Some((s, left)) if s == side => left,
            _ => self.left(side),
        }
        .max(0) as f64
            / 1000.0;
        let inc = self.increment_ms as f64 / 1000.0;
        let share = left / 30.0 + inc * 0.75;
        // Never plan to use more than half of what is left.
        share.min(left / 2.0).clamp(0.01, cap)
    }
}

/// The flag-fall result by the rule book: the side whose time is up loses. The rule book
/// (shared/rules/variants.md) has no time rules of its own; FMJD and the other federations score
/// a flag fall as a loss, and in draughts any piece the opponent still has can in principle win
/// (a lone man may still promote and a lone king capture), so there is no "insufficient
/// material" exception: a position where the opponent has nothing left has already ended on the
/// board.
pub fn flag_ending(flagged: Side, plies: usize) -> Ending {
    let loser: Color = flagged.into();
    let winner = !loser;
    Ending::win(
        winner,
        How::Time,
        format!("{winner} wins on time: {loser}'s time ran out"),
        plies,
    )
}

/// The game ended on time, if the mover's clock ran out and nothing ended it before: a copy
/// to commit.
pub fn settle_flag(session: &dyn Session, now: u64) -> Option<Box<dyn Session>> {
    let play = &session.meta().play;
    if play.ending.is_some() {
        return None;
    }
    let flagged = play.clock.as_ref()?.flagged(now)?;
    let mut next = session.clone_box();
    end_on_time(next.as_mut(), flagged, now);
    Some(next)
}

/// Ends the game: `flagged`'s time ran out.
fn end_on_time(session: &mut dyn Session, flagged: Side, now: u64) {
    let plies = session.main_plies();
    let meta = session.meta_mut();
    meta.play.ending = Some(flag_ending(flagged, plies));
    meta.play.draw_offer = None;
    if let Some(clock) = meta.play.clock.as_mut() {
        clock.stop(now);
        // Exactly zero: the time that ran out, not how late the server noticed.
        match flagged {
            Side::White => clock.white_ms = 0,
            Side::Black => clock.black_ms = 0,
        }
    }
}

/// Whether `side` is the engine's seat.
fn engine_seat(session: &dyn Session, side: Color) -> bool {
    let meta = session.meta();
    let seat = if side == Color::White {
        meta.white
    } else {
        meta.black
    };
    seat == Seat::Engine
}

/// The engine's move is about to be played, from a search that began at `started`: its clock,
/// paused while it waited to be asked and in the search queue, is charged from then. If its
/// time ran out during the search the game ends on time instead (true: no move to play).
pub fn engine_clock_from(session: &mut dyn Session, started: u64, now: u64) -> bool {
    let side = session.main_side_to_move();
    if session.meta().play.ending.is_some() || !engine_seat(session, side) {
        return false;
    }
    let Some(clock) = session.meta_mut().play.clock.as_mut() else {
        return false;
    };
    if clock.running != Some(side.into()) || clock.since.is_some() {
        return false;
    }
    clock.since = Some(started.min(now));
    match clock.flagged(now) {
        Some(flagged) => {
            end_on_time(session, flagged, now);
            true
        }
        None => false,
    }
}

/// After a change: a move that extended the main line runs the clock and withdraws a draw
/// offer the mover did not take; a game that is now over stops the clock.
pub fn after_change(session: &mut dyn Session, before: usize, kept: usize, now: u64) {
    let after = session.main_plies();
    let to_move = session.main_side_to_move();
    let board_over = session.main_over();
    let engine_next = engine_seat(session, to_move);
    let play = &mut session.meta_mut().play;
    if kept < before {
        // Moves of the main line taken back or replaced (with every held seat): an ending
        // after them goes with them, and the clock is as it was after the plies kept (a
        // resignation outlived the deletion of every move; the clock kept the times of moves
        // no longer played).
        if play.ending.as_ref().is_some_and(|e| e.plies > kept) {
            play.ending = None;
            play.draw_offer = None;
        }
        if let Some(clock) = play.clock.as_mut() {
            clock.taken_back(kept, after, to_move, now);
        }
    }
    let over = play.ending.is_some() || board_over;
    if kept == before && after > before {
        // The mover is the side not to move now; the offer was the other side's.
        if play.draw_offer == Some(to_move.into()) {
            play.draw_offer = None;
        }
        if let Some(clock) = play.clock.as_mut() {
            clock.moved(before, after, to_move, now);
        }
    }
    if over {
        play.draw_offer = None;
        if let Some(clock) = play.clock.as_mut() {
            clock.stop(now);
        }
    } else if engine_next {
        // The engine moves only when asked (`POST .../engine`): its clock waits, paused (no
        // `since`, so no deadline and no flag), until its search starts (`engine_clock_from`).
        if let Some(clock) = play.clock.as_mut() {
            if clock.running.is_some() {
                clock.since = None;
            }
        }
    }
}

/// When the running clock of a game runs out (Unix ms): None once it has ended, or while no
/// clock runs (before the first move, an engine waiting to be asked).
pub fn deadline(play: &Play) -> Option<u64> {
    if play.ending.is_some() {
        return None;
    }
    play.clock.as_ref()?.deadline()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_charges_its_time_and_adds_the_increment() {
        let mut c = TimeControl {
            minutes: 1.0,
            increment: 2.0,
        }
        .clock()
        .unwrap();
        // The first move starts the clock without charging anyone, and gets its increment
        // as every move does (it got none before: White played the game 2 s short).
        c.moved(0, 1, Color::Black, 1_000);
        assert_eq!((c.white_ms, c.black_ms), (62_000, 60_000));
        c.moved(1, 2, Color::White, 6_000);
        assert_eq!(c.black_ms, 60_000 - 5_000 + 2_000);
        assert_eq!(c.after, vec![[62_000, 60_000], [62_000, 57_000]]);
        assert_eq!(c.flagged(6_000 + 61_999), None);
        assert_eq!(c.flagged(6_000 + 62_000), Some(Side::White));
    }

    #[test]
    fn bad_time_controls_are_refused() {
        for (m, i) in [
            (0.0, 0.0),
            (-1.0, 0.0),
            (f64::NAN, 0.0),
            (1.0, -1.0),
            (500.0, 0.0),
        ] {
            assert!(TimeControl {
                minutes: m,
                increment: i
            }
            .clock()
            .is_err());
        }
    }

    /// A row stored when an ending kept its own "1-0"-style result still reads, as the same
    /// ending, and is written back without it.
    #[test]
    fn an_ending_stored_with_its_own_result_still_reads() {
        let old = r#"{"ending":{"result":"0-1","winner":"black","how":"resignation","reason":"black wins: white resigned","plies":0}}"#;
        let play: Play = serde_json::from_str(old).unwrap();
        let ending = play.ending.as_ref().unwrap();
        assert_eq!(ending.winner, Some(Side::Black));
        assert_eq!(ending.how, How::Resignation);
        assert_eq!(ending.game_result(), GameResult::Win(Color::Black));
        let written = serde_json::to_value(&play).unwrap();
        assert!(written["ending"].get("result").is_none(), "{written}");
    }
}
