//! A game: the start position, the moves played and the positions they led to, and the result
//! with its reason under the variant's end-of-game and draw rules (D22).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::bitboard::Bits;
use crate::mv::Move;
use crate::position::Position;
use crate::rules::Rules;
use crate::spec::DrawSpec;
use crate::Color;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win { winner: Color, reason: WinReason },
    Draw(DrawReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser has no piece left.
    NoPieces,
    /// The loser has pieces but none can move.
    Blocked,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// Exactly one piece each (the Turkish family).
    OnePieceEach,
    /// The same position with the same side to move occurred this many times.
    Repetition(u32),
    /// This many moves by each side without a man move or a capture.
    NoProgress(u32),
    /// An endgame limit of this many moves passed without a win (the FMJD limits, the
    /// Russian one of kings against a lone king).
    EndgameLimit(u32),
}

impl Outcome {
    /// PDN result text: "1-0", "0-1" or "1/2-1/2".
    pub fn result_text(&self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Color::Black,
                ..
            } => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => {
                let loser = !*winner;
                match reason {
                    WinReason::NoPieces => write!(f, "{winner} wins: {loser} has no pieces left"),
                    WinReason::Blocked => write!(f, "{winner} wins: {loser} cannot move"),
                }
            }
            Outcome::Draw(reason) => match reason {
                DrawReason::OnePieceEach => f.write_str("draw: one piece each"),
                DrawReason::Repetition(n) => write!(f, "draw: the same position {n} times"),
                DrawReason::NoProgress(n) => {
                    write!(f, "draw: {n} moves each without a man move or a capture")
                }
                DrawReason::EndgameLimit(n) => {
                    write!(
                        f,
                        "draw: the {n}-move limit of this endgame passed without a win"
                    )
                }
            },
        }
    }
}

/// A game in progress or finished.
#[derive(Clone, Debug)]
pub struct Game<B: Bits> {
    rules: Arc<Rules<B>>,
    /// plies[0] holds the start; plies[i + 1] follows moves[i].
    plies: Vec<Ply<B>>,
    moves: Vec<Move<B>>,
    /// How often each position hash occurs in `plies` (repetition in O(1)).
    seen: HashMap<u64, u32>,
}

/// A position of the game with the counters the draw rules need.
#[derive(Clone, Copy, Debug)]
struct Ply<B: Bits> {
    position: Position<B>,
    /// Consecutive plies without a man move or a capture, up to here.
    king_only: u32,
    /// Plies since the last capture (or since the start).
    since_capture: u32,
    /// Plies since the material of an endgame limit was reached (0 outside one).
    endgame: u32,
}

impl<B: Bits> Game<B> {
    pub fn new(rules: Arc<Rules<B>>) -> Game<B> {
        let start = Position::start(&rules);
        Game::from_position(rules, start)
    }

    pub fn from_position(rules: Arc<Rules<B>>, start: Position<B>) -> Game<B> {
        Game {
            rules,
            plies: vec![Ply {
                position: start,
                king_only: 0,
                since_capture: 0,
                endgame: 0,
            }],
            moves: Vec::new(),
            seen: HashMap::from([(start.hash(), 1)]),
        }
    }

    pub fn rules(&self) -> &Rules<B> {
        &self.rules
    }

    /// A shared handle to the rules.
    pub fn rules_arc(&self) -> Arc<Rules<B>> {
        self.rules.clone()
    }

    pub fn position(&self) -> &Position<B> {
        &self
            .plies
            .last()
            .expect("a game has a start position")
            .position
    }

    pub fn start(&self) -> &Position<B> {
        &self.plies[0].position
    }

    pub fn moves(&self) -> &[Move<B>] {
        &self.moves
    }

    /// The positions of the game: the start, then the one after each move.
    pub fn positions(&self) -> impl Iterator<Item = &Position<B>> {
        self.plies.iter().map(|p| &p.position)
    }

    /// The legal moves now (none once the game is over).
    pub fn legal_moves(&self) -> Vec<Move<B>> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        self.rules.moves(self.position())
    }

    /// Plays a move; returns false (and changes nothing) if it is not legal here.
    pub fn play(&mut self, mv: &Move<B>) -> bool {
        if !self.legal_moves().contains(mv) {
            return false;
        }
        self.push(mv);
        true
    }

    /// Plays a move known to be legal (from `legal_moves` of this very position).
    pub fn play_unchecked(&mut self, mv: &Move<B>) {
        self.push(mv);
    }

    fn push(&mut self, mv: &Move<B>) {
        let last = *self.plies.last().expect("a start position");
        let position = last.position.play(mv);
        let man_moved = !last.position.kings.has(mv.from);
        self.plies.push(Ply {
            position,
            king_only: if mv.is_capture() || man_moved {
                0
            } else {
                last.king_only + 1
            },
            since_capture: if mv.is_capture() {
                0
            } else {
                last.since_capture + 1
            },
            endgame: endgame_plies_after(
                &self.rules.variant().draw,
                &last.position,
                mv,
                &position,
                last.endgame,
            ),
        });
        *self.seen.entry(position.hash()).or_default() += 1;
        self.moves.push(*mv);
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move<B>> {
        let mv = self.moves.pop()?;
        let ply = self.plies.pop().expect("one position per move");
        if let Some(n) = self.seen.get_mut(&ply.position.hash()) {
            *n -= 1;
        }
        Some(mv)
    }

    /// Hashes of the positions since the last capture, oldest first, ending with the current
    /// one: the only earlier positions the current one can repeat.
    pub fn reversible_hashes(&self) -> Vec<u64> {
        let since = self.plies.last().map_or(0, |p| p.since_capture) as usize;
        self.plies[self.plies.len() - 1 - since..]
            .iter()
            .map(|p| p.position.hash())
            .collect()
    }

    /// Consecutive plies without a man move or a capture, up to now.
    pub fn king_only_plies(&self) -> u32 {
        self.plies.last().map_or(0, |p| p.king_only)
    }

    /// Plies since the last capture (or the start).
    pub fn plies_since_capture(&self) -> u32 {
        self.plies.last().map_or(0, |p| p.since_capture)
    }

    /// Plies played since the material of an FMJD endgame limit was reached (0 outside one,
    /// or where the variant has no such limits).
    pub fn endgame_plies(&self) -> u32 {
        self.plies.last().map_or(0, |p| p.endgame)
    }

    /// How many times the current position (same pieces, same side to move) has occurred.
    pub fn repetitions(&self) -> u32 {
        let pos = self.position();
        if self.seen.get(&pos.hash()).copied().unwrap_or(0) < 2 {
            return 1;
        }
        // Confirm on the positions themselves: hashes may collide.
        self.positions().filter(|p| *p == pos).count() as u32
    }

    /// The result, if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        let ply = self.plies.last().expect("a start position");
        let pos = &ply.position;
        let side = pos.side_to_move();
        if pos.pieces(!side).is_empty() && !pos.pieces(side).is_empty() {
            // Set up, not played to: the player who moved last has no pieces, so lost already
            // (a position like `W:WK1-50:B`, where White cannot move either).
            return Some(Outcome::Win {
                winner: side,
                reason: WinReason::NoPieces,
            });
        }
        if !self.rules.has_legal_move(pos) {
            let reason = if pos.pieces(side).is_empty() {
                WinReason::NoPieces
            } else {
                WinReason::Blocked
            };
            return Some(Outcome::Win {
                winner: !side,
                reason,
            });
        }
        let draw = &self.rules.variant().draw;
        if draw.one_piece_each && pos.pieces(side).count() == 1 && pos.pieces(!side).count() == 1 {
            return Some(Outcome::Draw(DrawReason::OnePieceEach));
        }
        if draw.repetition >= 2 && self.repetitions() >= draw.repetition {
            return Some(Outcome::Draw(DrawReason::Repetition(draw.repetition)));
        }
        if draw.no_progress_moves > 0 && ply.king_only >= 2 * draw.no_progress_moves {
            return Some(Outcome::Draw(DrawReason::NoProgress(
                draw.no_progress_moves,
            )));
        }
        if let Some(limit) = endgame_limit(draw, pos) {
            if limit.reached(ply.endgame, side) {
                return Some(Outcome::Draw(DrawReason::EndgameLimit(limit.moves)));
            }
        }
        None
    }
}

/// An endgame limit: the moves the stronger side has to win once the material is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameLimit {
    pub moves: u32,
    pub counted: Counted,
}

/// Whose moves an endgame limit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    /// Each side's (the FMJD limits: "16 moves each").
    Each,
    /// Only this side's, the stronger one (Russian, §10 A3: "within 15 moves of the stronger
    /// side").
    Stronger(Color),
}

impl EndgameLimit {
    /// Whether the limit has passed `plies` plies after the material was reached, with `to_move`
    /// to move now.
    pub fn reached(&self, plies: u32, to_move: Color) -> bool {
        match self.counted {
            Counted::Each => plies >= 2 * self.moves,
            Counted::Stronger(strong) => {
                // With an odd count, the side to move now is the one that did not move first.
                let moved = if plies.is_multiple_of(2) || to_move == strong {
                    plies / 2
                } else {
                    plies / 2 + 1
                };
                moved >= self.moves
            }
        }
    }
}

/// The endgame limit `pos` falls under, if any (D22 with §10 A1 and A3):
/// - FMJD (4.01): three pieces with a king against a lone king, 16 moves each; two kings, or a
///   king and a man, against a lone king, 5 moves each (16 in the variants of A1); a king
///   against a king, 5 moves each;
/// - Russian (A3): three or more kings against a lone king, the variant's moves of the
///   stronger side.
///
/// The count starts when the material is reached, by a capture or by a promotion (A2; see
/// `endgame_plies_after`).
pub fn endgame_limit<B: Bits>(draw: &DrawSpec, pos: &Position<B>) -> Option<EndgameLimit> {
    let lone_king = |c: Color| pos.pieces(c).count() == 1 && pos.kings(c).count() == 1;
    for c in Color::BOTH {
        if !lone_king(!c) {
            continue;
        }
        let kings = pos.kings(c).count();
        if draw.kings_against_king_moves > 0 && kings >= 3 {
            return Some(EndgameLimit {
                moves: draw.kings_against_king_moves,
                counted: Counted::Stronger(c),
            });
        }
        if draw.fmjd_endgame && kings >= 1 {
            let moves = match pos.pieces(c).count() {
                3 => 16,
                2 => draw.fmjd_two_pieces_moves,
                1 => 5,
                _ => continue,
            };
            return Some(EndgameLimit {
                moves,
                counted: Counted::Each,
            });
        }
    }
    None
}

/// The endgame count after `mv` (played from `before` to `after`), given the count before it:
/// one more while the same limit applies, 0 when a capture or a promotion has just reached a
/// limit's material (2 men against a king become a king and a man: the 5 moves start now), or
/// outside any limit. A promotion within the same limit (a king and a man become two kings)
/// does not restart it.
pub fn endgame_plies_after<B: Bits>(
    draw: &DrawSpec,
    before: &Position<B>,
    mv: &Move<B>,
    after: &Position<B>,
    plies: u32,
) -> u32 {
    match endgame_limit(draw, after) {
        Some(limit) if !mv.is_capture() && endgame_limit(draw, before) == Some(limit) => plies + 1,
        _ => 0,
    }
}
