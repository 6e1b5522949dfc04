//! A game in progress on the server, whatever its board: `Session` hides the bitboard type so
//! the handlers work on every variant through one object.

use std::sync::Arc;
use std::time::Duration;

use damspel_engine::{Engine, Info, Limits, ScoreKind};
use damspel_notation::pdn::PdnGame;
use damspel_notation::{format_detail, full_path, parse_fen, parse_move, write_fen};
use damspel_rules::{
    with_rules, Bits, Color, Duplicates, Game, Move, Outcome, Position, Rules, Variant,
};
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::ApiError;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    Human,
    Engine,
}

/// What is stored about a game besides its moves.
#[derive(Clone, Debug, Serialize)]
pub struct Meta {
    pub id: String,
    pub variant: String,
    pub white: Seat,
    pub black: Seat,
    pub engine_time: f64,
    pub start_fen: String,
    pub created: String,
    pub updated: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct PieceJson {
    pub square: String,
    pub x: u8,
    pub y: u8,
    pub color: &'static str,
    pub king: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct MoveJson {
    pub notation: String,
    pub full: String,
    pub from: String,
    pub to: String,
    pub path: Vec<String>,
    pub captures: Vec<String>,
    pub promotes: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlyJson {
    pub ply: usize,
    pub side: &'static str,
    #[serde(flatten)]
    pub mv: MoveJson,
}

#[derive(Clone, Debug, Serialize)]
pub struct OutcomeJson {
    pub result: &'static str,
    pub winner: Option<&'static str>,
    pub reason: String,
}

/// Everything the page needs to show a game.
#[derive(Clone, Debug, Serialize)]
pub struct GameState {
    #[serde(flatten)]
    pub meta: Meta,
    pub fen: String,
    pub side_to_move: &'static str,
    pub pieces: Vec<PieceJson>,
    pub legal: Vec<MoveJson>,
    pub must_capture: Vec<String>,
    pub history: Vec<PlyJson>,
    pub redo: usize,
    pub engine_to_move: bool,
    pub outcome: Option<OutcomeJson>,
}

/// The result of a search on a session's position.
pub struct SearchOutcome {
    pub best_full: Option<String>,
    pub best_notation: Option<String>,
    pub score: Value,
    pub pv: Vec<String>,
    /// The position's hash when the search started (to check it is still current).
    pub position_hash: u64,
}

/// A search that can run on another thread.
pub type SearchJob = Box<dyn FnOnce(&mut dyn FnMut(Value)) -> SearchOutcome + Send>;

pub fn score_json(kind: ScoreKind) -> Value {
    match kind {
        ScoreKind::Men(m) => json!({ "men": (m * 100.0).round() / 100.0 }),
        ScoreKind::WinIn(n) => json!({ "win_in": n }),
        ScoreKind::LossIn(n) => json!({ "loss_in": n }),
    }
}

/// A game of any variant.
pub trait Session: Send {
    fn meta(&self) -> &Meta;
    fn meta_mut(&mut self) -> &mut Meta;
    fn state(&self) -> GameState;
    /// Plays a move given as PDN text (a full path always works).
    fn play(&mut self, text: &str) -> Result<(), ApiError>;
    fn undo(&mut self) -> Result<(), ApiError>;
    fn redo(&mut self) -> Result<(), ApiError>;
    /// The moves played, as full paths (what is stored), and the undone ones for redo.
    fn moves_full(&self) -> (Vec<String>, Vec<String>);
    fn outcome_json(&self) -> Option<OutcomeJson>;
    fn position_hash(&self) -> u64;
    fn pdn(&self) -> String;
    /// A search of the current position for at most `time`.
    fn search_job(&self, time: Duration) -> SearchJob;
}

struct GameSession<B: Bits> {
    meta: Meta,
    game: Game<B>,
    /// Undone moves as a stack: the next one to redo is last.
    undone: Vec<Move<B>>,
}

/// A session for a variant, from a start FEN and stored moves.
pub fn open(
    variant: Variant,
    meta: Meta,
    moves: &[String],
    redo: &[String],
) -> Result<Box<dyn Session>, ApiError> {
    with_rules!(variant, |rules| {
        let s = GameSession::new(Arc::new(rules), meta, moves, redo)?;
        Ok(Box::new(s) as Box<dyn Session>)
    })
}

fn color_name(c: Color) -> &'static str {
    c.name()
}

impl<B: Bits> GameSession<B> {
    fn new(
        rules: Arc<Rules<B>>,
        meta: Meta,
        moves: &[String],
        redo: &[String],
    ) -> Result<Self, ApiError> {
        let g = &rules.variant().geometry;
        let setup =
            parse_fen(g, &meta.start_fen).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let start = Position::from_setup(&rules, &setup)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let mut session = GameSession {
            meta,
            game: Game::from_position(rules, start),
            undone: Vec::new(),
        };
        for text in moves {
            session.play(text)?;
        }
        // Undone moves are stored in playing order: play them, then take them back again.
        let depth = session.game.moves().len();
        for text in redo {
            session.play(text)?;
        }
        while session.game.moves().len() > depth {
            let mv = session.game.undo().expect("a replayed move");
            session.undone.push(mv);
        }
        Ok(session)
    }

    fn move_json(&self, pos: &Position<B>, mv: &Move<B>) -> MoveJson {
        let rules = self.game.rules();
        let g = &rules.variant().geometry;
        let legal = rules.legal_moves_detailed(pos, Duplicates::Merge);
        let detail = legal
            .iter()
            .find(|d| d.mv == *mv)
            .cloned()
            .unwrap_or_else(|| damspel_rules::MoveDetail {
                mv: *mv,
                path: vec![mv.to()],
                captures: mv.captured().squares().map(damspel_rules::Square).collect(),
            });
        MoveJson {
            notation: format_detail(g, &detail, &legal),
            full: full_path(g, &detail),
            from: g.name(mv.from()),
            to: g.name(mv.to()),
            path: detail.path.iter().map(|&s| g.name(s)).collect(),
            captures: detail.captures.iter().map(|&s| g.name(s)).collect(),
            promotes: mv.promotes(),
        }
    }
}

impl<B: Bits> Session for GameSession<B> {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }

    fn state(&self) -> GameState {
        let rules = self.game.rules();
        let g = &rules.variant().geometry;
        let pos = self.game.position();
        let pieces = g
            .all_squares()
            .iter()
            .filter_map(|&sq| {
                pos.piece_at(sq).map(|p| {
                    let (x, y) = g.coords(sq);
                    PieceJson {
                        square: g.name(sq),
                        x,
                        y,
                        color: color_name(p.color),
                        king: p.king,
                    }
                })
            })
            .collect();
        let outcome = self.outcome_json();
        let legal_details = if outcome.is_some() {
            Vec::new()
        } else {
            rules.legal_moves_detailed(pos, Duplicates::Merge)
        };
        let legal: Vec<MoveJson> = legal_details
            .iter()
            .map(|d| MoveJson {
                notation: format_detail(g, d, &legal_details),
                full: full_path(g, d),
                from: g.name(d.mv.from()),
                to: g.name(d.mv.to()),
                path: d.path.iter().map(|&s| g.name(s)).collect(),
                captures: d.captures.iter().map(|&s| g.name(s)).collect(),
                promotes: d.mv.promotes(),
            })
            .collect();
        let mut must_capture: Vec<String> = legal_details
            .iter()
            .filter(|d| d.mv.is_capture())
            .map(|d| g.name(d.mv.from()))
            .collect();
        must_capture.dedup();
        let mut history = Vec::new();
        let positions: Vec<&Position<B>> = self.game.positions().collect();
        for (i, mv) in self.game.moves().iter().enumerate() {
            history.push(PlyJson {
                ply: i + 1,
                side: color_name(positions[i].side_to_move()),
                mv: self.move_json(positions[i], mv),
            });
        }
        let side = pos.side_to_move();
        let seat = if side == Color::White {
            self.meta.white
        } else {
            self.meta.black
        };
        GameState {
            meta: self.meta.clone(),
            fen: write_fen(g, pos),
            side_to_move: color_name(side),
            pieces,
            legal,
            must_capture,
            history,
            redo: self.undone.len(),
            engine_to_move: outcome.is_none() && seat == Seat::Engine,
            outcome,
        }
    }

    fn play(&mut self, text: &str) -> Result<(), ApiError> {
        if let Some(outcome) = self.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over: {outcome}")));
        }
        let mv = parse_move(self.game.rules(), self.game.position(), text)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        self.game.play_unchecked(&mv);
        // A new move ends the redo line unless it is the move that was undone.
        if self.undone.last() == Some(&mv) {
            self.undone.pop();
        } else {
            self.undone.clear();
        }
        Ok(())
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        let mv = self
            .game
            .undo()
            .ok_or_else(|| ApiError::conflict("there is no move to take back"))?;
        self.undone.push(mv);
        Ok(())
    }

    fn redo(&mut self) -> Result<(), ApiError> {
        let mv = *self
            .undone
            .last()
            .ok_or_else(|| ApiError::conflict("there is no move to play again"))?;
        self.game.play_unchecked(&mv);
        self.undone.pop();
        Ok(())
    }

    fn moves_full(&self) -> (Vec<String>, Vec<String>) {
        let rules = self.game.rules();
        let g = &rules.variant().geometry;
        let positions: Vec<&Position<B>> = self.game.positions().collect();
        let full = |pos: &Position<B>, mv: &Move<B>| {
            let legal = rules.legal_moves_detailed(pos, Duplicates::Merge);
            legal
                .iter()
                .find(|d| d.mv == *mv)
                .map(|d| full_path(g, d))
                .unwrap_or_default()
        };
        let played: Vec<String> = self
            .game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, mv)| full(positions[i], mv))
            .collect();
        // Undone moves in playing order (the next to redo first), each from the position it follows.
        let mut redo = Vec::new();
        let mut pos = *self.game.position();
        for mv in self.undone.iter().rev() {
            redo.push(full(&pos, mv));
            pos = pos.play(mv);
        }
        (played, redo)
    }

    fn outcome_json(&self) -> Option<OutcomeJson> {
        self.game.outcome().map(|o| OutcomeJson {
            result: o.result_text(),
            winner: match o {
                Outcome::Win { winner, .. } => Some(color_name(winner)),
                Outcome::Draw(_) => None,
            },
            reason: o.to_string(),
        })
    }

    fn position_hash(&self) -> u64 {
        self.game.position().hash()
    }

    fn pdn(&self) -> String {
        let seat = |s: Seat| match s {
            Seat::Human => "human".to_string(),
            Seat::Engine => format!("Damspel ({} s/move)", self.meta.engine_time),
        };
        PdnGame {
            rules: self.game.rules(),
            event: format!("Damspel game {}", self.meta.id),
            site: "damspel serve".into(),
            date: self
                .meta
                .created
                .get(..10)
                .unwrap_or("????-??-??")
                .replace('-', "."),
            round: "-".into(),
            white: seat(self.meta.white),
            black: seat(self.meta.black),
            result: self.outcome_json().map_or("*", |o| o.result).to_string(),
            start: *self.game.start(),
            moves: self.game.moves().to_vec(),
            extra: self
                .outcome_json()
                .map(|o| vec![("Termination".to_string(), o.reason)])
                .unwrap_or_default(),
        }
        .to_pdn()
    }

    fn search_job(&self, time: Duration) -> SearchJob {
        let game = self.game.clone();
        Box::new(move |report: &mut dyn FnMut(Value)| {
            let rules = game.rules_arc();
            let pos = *game.position();
            let mut engine = Engine::new(rules.clone(), 16);
            let line = |line: &[Move<B>]| {
                let mut p = pos;
                line.iter()
                    .map(|mv| {
                        let text = damspel_notation::format_move(&rules, &p, mv);
                        p = p.play(mv);
                        text
                    })
                    .collect::<Vec<String>>()
            };
            let mut on_info = |info: &Info<B>| {
                report(json!({
                    "depth": info.depth,
                    "score": score_json(info.score.kind()),
                    "nodes": info.nodes,
                    "nps": info.nps(),
                    "pv": line(&info.pv),
                }));
            };
            let result = engine.search(&game, &Limits::move_time(time), &mut on_info);
            let legal = rules.legal_moves_detailed(&pos, Duplicates::Merge);
            let g = &rules.variant().geometry;
            let best = result.best.and_then(|mv| legal.iter().find(|d| d.mv == mv));
            SearchOutcome {
                best_full: best.map(|d| full_path(g, d)),
                best_notation: best.map(|d| format_detail(g, d, &legal)),
                score: score_json(result.score.kind()),
                pv: line(&result.pv),
                position_hash: pos.hash(),
            }
        })
    }
}
