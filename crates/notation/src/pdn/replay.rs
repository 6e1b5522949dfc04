//! Replaying a game as recorded: its main line played from its start (the FEN tag, or the
//! variant's start), PDN 3.0 setup commands taking effect where written. Draw rules that are a
//! player's claim in a recorded game (repetition, move limits) do not stop it: the ply where a
//! claim became possible is marked and the game goes on to its recorded end, as in
//! Tinsley–Chinook, London 1992, which plays on past a threefold repetition.

use std::sync::Arc;

use damspel_rules::{Bits, Color, Game, Move, Outcome, Position, Rules, Until};
use serde::Serialize;

use super::read::PdnRead;
use super::tree::Item;
use crate::fen::parse_fen;
use crate::movetext::{parse_move_until, MoveTextError};

/// A game replayed: its start, every ply played, the draw claims met, and the first error.
#[derive(Clone, Debug)]
pub struct Replay<B: Bits> {
    pub start: Position<B>,
    pub plies: Vec<ReplayPly<B>>,
    pub claims: Vec<Claim>,
    /// The first move (or setup) that could not be played; the plies before it stand.
    pub error: Option<ReplayError>,
    /// How the rules see the final position: a win (no legal move for the side to move) or an
    /// automatic draw; `None` while the game could go on.
    pub end: Option<Outcome>,
}

/// One ply: the move as written and as played, the positions around it.
#[derive(Clone, Debug)]
pub struct ReplayPly<B: Bits> {
    pub text: String,
    pub mv: Move<B>,
    pub before: Position<B>,
    pub after: Position<B>,
}

/// A draw that could be claimed after `ply` plies (1-based), and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Claim {
    pub ply: usize,
    pub reason: String,
}

/// The first thing in the main line that could not be played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("ply {ply} `{}`: {reason}", damspel_rules::quoted(.text))]
pub struct ReplayError {
    /// The ply (1-based) that failed; for a bad start or setup, the ply it comes before.
    pub ply: usize,
    pub text: String,
    pub reason: String,
}

impl<B: Bits> Replay<B> {
    /// The positions of the main line: the start, then the one after each ply (a setup command
    /// shows as the `before` of the ply after it).
    pub fn positions(&self) -> impl Iterator<Item = &Position<B>> {
        std::iter::once(&self.start).chain(self.plies.iter().map(|p| &p.after))
    }

    /// The final position reached.
    pub fn last(&self) -> &Position<B> {
        self.plies.last().map_or(&self.start, |p| &p.after)
    }

    /// Whether every move of the main line was played.
    pub fn complete(&self) -> bool {
        self.error.is_none()
    }
}

/// The position a FEN names where `next` is the move recorded after it. The PDN standard lets a
/// FEN leave the side to move unknown (`?`): it is then the side that can play `next`, or
/// White when no move follows or neither side can play it (the replay then names that move).
pub fn position_for<B: Bits>(
    rules: &Rules<B>,
    fen: &str,
    next: Option<&str>,
) -> Result<Position<B>, String> {
    position_for_until(rules, fen, next, Until::NEVER)
}

fn position_for_until<B: Bits>(
    rules: &Rules<B>,
    fen: &str,
    next: Option<&str>,
    until: Until,
) -> Result<Position<B>, String> {
    let mut setup = parse_fen(&rules.variant().geometry, fen).map_err(|e| e.to_string())?;
    if setup.side_to_move.is_none() {
        let mut first = None;
        for side in [Color::White, Color::Black] {
            setup.side_to_move = Some(side);
            let Ok(pos) = Position::from_setup(rules, &setup) else {
                continue;
            };
            match next.map(|text| parse_move_until(rules, &pos, text, until)) {
                Some(Ok(_)) => return Ok(pos),
                Some(Err(e @ MoveTextError::Stopped { .. })) => return Err(e.to_string()),
                _ => {}
            }
            first.get_or_insert(pos);
        }
        if let Some(pos) = first {
            return Ok(pos);
        }
        setup.side_to_move = None;
    }
    Position::from_setup(rules, &setup).map_err(|e| e.to_string())
}

/// The text of the first move among `items`, before any setup command.
fn next_move(items: &[Item]) -> Option<&str> {
    items.iter().find_map(|item| match item {
        Item::Move(node) => Some(Some(node.text.as_str())),
        Item::Setup { .. } => Some(None),
        _ => None,
    })?
}

/// Replays the main line of `game` under `rules` (see the module's documentation).
pub fn replay<B: Bits>(game: &PdnRead, rules: &Arc<Rules<B>>) -> Replay<B> {
    replay_until(game, rules, Until::NEVER)
}

/// `replay`, given up (with an error at the move being read) when `until` is reached: a file
/// can hold positions built to make listing their moves slow.
pub fn replay_until<B: Bits>(game: &PdnRead, rules: &Arc<Rules<B>>, until: Until) -> Replay<B> {
    let items = &game.tree.items;
    let parse = |pos: &Position<B>, text: &str| parse_move_until(rules, pos, text, until);
    let start = match game.start_fen() {
        None => Ok(Position::start(rules)),
        Some(fen) => {
            position_for_until(rules, fen, next_move(items), until).map_err(|reason| ReplayError {
                ply: 1,
                text: format!("[FEN \"{fen}\"]"),
                reason,
            })
        }
    };
    let mut out = Replay {
        start: Position::start(rules),
        plies: Vec::new(),
        claims: Vec::new(),
        error: None,
        end: None,
    };
    match start {
        Ok(pos) => out.start = pos,
        Err(e) => {
            out.error = Some(e);
            return out;
        }
    }
    let mut state = Game::from_position(rules.clone(), out.start);
    let mut claimed = Vec::new();
    let mut budget = LOOK_AHEAD_BUDGET;
    for (i, item) in items.iter().enumerate() {
        let ply = out.plies.len() + 1;
        match item {
            Item::Setup { fen } => {
                match position_for_until(rules, fen, next_move(&items[i + 1..]), until) {
                    Ok(pos) => state = Game::from_position(rules.clone(), pos),
                    Err(reason) => {
                        out.error = Some(ReplayError {
                            ply,
                            text: format!("/FEN \"{fen}\"/"),
                            reason,
                        });
                        break;
                    }
                }
            }
            Item::Move(node) => {
                let before = *state.position();
                // A quiet move written as a capture (`38x33`) is read as players read it.
                let parsed = parse(&before, &node.text)
                    .or_else(|e| match node.text.split_once(['x', 'X', ':']) {
                        Some((a, b)) if !b.contains(['x', 'X', ':']) => {
                            parse(&before, &format!("{a}-{b}"))
                                .ok()
                                .filter(|mv| !mv.is_capture())
                                .ok_or(e)
                        }
                        _ => Err(e),
                    })
                    .or_else(|e| match e {
                        MoveTextError::Ambiguous { ref candidates, .. } => {
                            resolve(&parse, &state, candidates, &items[i + 1..], &mut budget)
                                .ok_or(e)
                        }
                        e => Err(e),
                    });
                match parsed {
                    Ok(mv) => {
                        state.play_unchecked(&mv);
                        out.plies.push(ReplayPly {
                            text: node.text.clone(),
                            mv,
                            before,
                            after: *state.position(),
                        });
                        if let Some(Outcome::Draw(reason)) = state.outcome() {
                            // Marked once per kind of claim, where it first became possible.
                            let kind = std::mem::discriminant(&reason);
                            if !claimed.contains(&kind) {
                                claimed.push(kind);
                                out.claims.push(Claim {
                                    ply,
                                    reason: Outcome::Draw(reason).to_string(),
                                });
                            }
                        }
                    }
                    Err(e) => {
                        out.error = Some(ReplayError {
                            ply,
                            text: node.text.clone(),
                            reason: e.to_string(),
                        });
                        break;
                    }
                }
            }
            Item::Comment { .. } | Item::Nag { .. } => {}
        }
    }
    out.end = state.outcome();
    out
}

/// Plies the look-ahead of one replay may play in all: enough to follow every route of a game's
/// ambiguous captures to its end, and a bound on what a hostile file can make it cost.
const LOOK_AHEAD_BUDGET: usize = 100_000;

/// A capture written by its ends only (`31x48`) where several routes with those ends take
/// different pieces, as some files write them: the route after which the moves that follow
/// can be played furthest (up to the end of the main line or the next setup command; a wrong
/// route can stand for twenty plies before a move shows it), when exactly one does, as a reader
/// of the game would tell them apart. `None` when the moves that follow do not decide.
fn resolve<B: Bits>(
    parse: &impl Fn(&Position<B>, &str) -> Result<Move<B>, MoveTextError>,
    state: &Game<B>,
    candidates: &[String],
    rest: &[Item],
    budget: &mut usize,
) -> Option<Move<B>> {
    let mut best: Vec<(Move<B>, usize)> = Vec::new();
    for text in candidates {
        let Ok(mv) = parse(state.position(), text) else {
            continue;
        };
        let mut pos = state.position().play(&mv);
        let mut played = 0;
        for item in rest {
            match item {
                Item::Move(node) if *budget > 0 => {
                    *budget -= 1;
                    match parse(&pos, &node.text) {
                        Ok(next) => {
                            pos = pos.play(&next);
                            played += 1;
                        }
                        Err(_) => break,
                    }
                }
                Item::Comment { .. } | Item::Nag { .. } => {}
                _ => break,
            }
        }
        best.push((mv, played));
    }
    let most = best.iter().map(|&(_, n)| n).max()?;
    let mut winners = best.iter().filter(|&&(_, n)| n == most);
    match (winners.next(), winners.next()) {
        (Some(&(mv, _)), None) => Some(mv),
        _ => None,
    }
}
