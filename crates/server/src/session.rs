//! A game in progress on the server, whatever its board: `Session` hides the bitboard type so
//! the handlers work on every variant through one object.

use std::sync::Arc;
use std::time::Duration;

use damspel_engine::{Engine, Info, Level, Limits, ScoreKind};
use damspel_notation::pdn::{tag_value, GameResult, PdnGame};
use damspel_notation::{format_all, format_detail, full_path, parse_fen, parse_move, write_fen};
use damspel_rules::{
    with_rules, Bits, Color, Duplicates, Game, Move, Outcome, Position, Rules, Variant,
};
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::pool::Cancel;
use crate::seats::SeatKeys;

/// Longest game the server keeps, in plies. The draw rules end real games long before (the
/// longest games of the reference data have a few hundred plies); beyond this a game is not
/// draughts but a way to make every request on it slow.
pub const MAX_PLIES: usize = 2000;

/// Longest search a request may ask for, in seconds.
pub const MAX_ENGINE_TIME: f64 = 10.0;

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
    /// The engine's playing level in this game, 1 to 8 (8: full strength at `engine_time`).
    pub level: u8,
    pub start_fen: String,
    pub created: String,
    pub updated: String,
    /// The tags of an imported PDN game (players, event, date, ...), written back on export.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<(String, String)>,
    /// Hashes of the seats' secrets: never sent to anyone.
    #[serde(skip)]
    pub keys: SeatKeys,
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
    /// A copy to change: the stored game is replaced by it only once the change is committed.
    fn clone_box(&self) -> Box<dyn Session>;
    fn state(&self) -> GameState;
    fn side_to_move(&self) -> Color;
    /// Plays a move given as PDN text (a full path always works).
    fn play(&mut self, text: &str) -> Result<(), ApiError>;
    /// Plays a move of a recorded game: as `play`, but a draw the players could have claimed
    /// (repetition, a move limit) does not end it.
    fn play_recorded(&mut self, text: &str) -> Result<(), ApiError>;
    fn undo(&mut self) -> Result<(), ApiError>;
    fn redo(&mut self) -> Result<(), ApiError>;
    /// The moves played, as full paths (what is stored), and the undone ones for redo.
    fn moves_full(&self) -> (Vec<String>, Vec<String>);
    fn outcome_json(&self) -> Option<OutcomeJson>;
    fn position_hash(&self) -> u64;
    fn pdn(&self) -> String;
    /// A search of the current position for at most `time` at `level` (`Level::FULL` for
    /// hints), stopped early by `cancel`.
    fn search_job(&self, time: Duration, level: Level, cancel: Arc<Cancel>) -> SearchJob;
}

#[derive(Clone)]
struct GameSession<B: Bits> {
    meta: Meta,
    game: Game<B>,
    /// Each played move as shown, computed once when it is played, so that showing a game costs
    /// one move generation (the current position's), not one per ply.
    shown: Vec<MoveJson>,
    /// Undone moves as a stack: the next one to redo is last.
    undone: Vec<(Move<B>, MoveJson)>,
}

/// A session for a variant, from a start FEN and stored moves.
pub fn open(
    variant: Variant,
    meta: Meta,
    moves: &[String],
    redo: &[String],
) -> Result<Box<dyn Session>, ApiError> {
    let t = meta.engine_time;
    if !(t.is_finite() && t > 0.0 && t <= MAX_ENGINE_TIME) {
        return Err(ApiError::unprocessable(format!(
            "engine_time must be between 0 and {MAX_ENGINE_TIME} seconds, not {t}"
        )));
    }
    if !(1..=8).contains(&meta.level) {
        return Err(ApiError::unprocessable(format!(
            "level must be from 1 to 8, not {}",
            meta.level
        )));
    }
    with_rules!(variant, |rules| {
        let s = GameSession::new(Arc::new(rules), meta, moves, redo)?;
        Ok(Box::new(s) as Box<dyn Session>)
    })
}

fn color_name(c: Color) -> &'static str {
    c.name()
}

impl<B: Bits> GameSession<B> {
    /// Plays a move given as text; `recorded`: a draw the players could have claimed does not
    /// stop it (a recorded game, or a stored one replayed).
    fn play_as(&mut self, text: &str, recorded: bool) -> Result<(), ApiError> {
        match self.game.outcome() {
            Some(Outcome::Draw(_)) if recorded => {}
            Some(outcome) => {
                return Err(ApiError::conflict(format!("the game is over: {outcome}")));
            }
            None => {}
        }
        if self.game.moves().len() >= MAX_PLIES {
            return Err(too_long());
        }
        let rules = self.game.rules();
        let pos = self.game.position();
        let mv =
            parse_move(rules, pos, text).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let legal = rules.legal_moves_detailed(pos, Duplicates::Merge);
        let detail = legal.iter().find(|d| d.mv == mv).ok_or_else(|| {
            ApiError::internal(format!("`{text}` parsed to a move not in the list"))
        })?;
        let g = &rules.variant().geometry;
        let shown = move_json(g, detail, format_detail(g, detail, &legal));
        self.game.play_unchecked(&mv);
        self.shown.push(shown);
        // A new move ends the redo line unless it is the move that was undone.
        if self.undone.last().map(|(m, _)| m) == Some(&mv) {
            self.undone.pop();
        } else {
            self.undone.clear();
        }
        Ok(())
    }

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
        if moves.len() + redo.len() > MAX_PLIES {
            return Err(too_long());
        }
        let mut session = GameSession {
            meta,
            game: Game::from_position(rules, start),
            shown: Vec::new(),
            undone: Vec::new(),
        };
        // Stored moves were accepted once; an imported game may have gone on past a draw claim.
        for (i, text) in moves.iter().enumerate() {
            session
                .play_as(text, true)
                .map_err(|e| e.context(&format!("move {} (`{text}`)", i + 1)))?;
        }
        // Undone moves are stored in playing order: play them, then take them back again.
        let depth = session.game.moves().len();
        for (i, text) in redo.iter().enumerate() {
            session
                .play_as(text, true)
                .map_err(|e| e.context(&format!("undone move {} (`{text}`)", i + 1)))?;
        }
        while session.game.moves().len() > depth {
            session.undo()?;
        }
        Ok(session)
    }
}

fn too_long() -> ApiError {
    ApiError::unprocessable(format!(
        "a game may have at most {MAX_PLIES} plies: a game that long is not draughts (the draw \
         rules end real games long before)"
    ))
}

fn move_json<B: Bits>(
    g: &damspel_rules::Geometry,
    detail: &damspel_rules::MoveDetail<B>,
    notation: String,
) -> MoveJson {
    MoveJson {
        notation,
        full: full_path(g, detail),
        from: g.name(detail.mv.from()),
        to: g.name(detail.mv.to()),
        path: detail.path.iter().map(|&s| g.name(s)).collect(),
        captures: detail.captures.iter().map(|&s| g.name(s)).collect(),
        promotes: detail.mv.promotes(),
    }
}

impl<B: Bits> Session for GameSession<B> {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }

    fn clone_box(&self) -> Box<dyn Session> {
        Box::new(self.clone())
    }

    fn side_to_move(&self) -> Color {
        self.game.position().side_to_move()
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
            .zip(format_all(g, &legal_details))
            .map(|(d, notation)| move_json(g, d, notation))
            .collect();
        let mut must_capture: Vec<String> = legal_details
            .iter()
            .filter(|d| d.mv.is_capture())
            .map(|d| g.name(d.mv.from()))
            .collect();
        must_capture.dedup();
        let history = self
            .game
            .positions()
            .zip(&self.shown)
            .enumerate()
            .map(|(i, (p, shown))| PlyJson {
                ply: i + 1,
                side: color_name(p.side_to_move()),
                mv: shown.clone(),
            })
            .collect();
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
        self.play_as(text, false)
    }

    fn play_recorded(&mut self, text: &str) -> Result<(), ApiError> {
        self.play_as(text, true)
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        let mv = self
            .game
            .undo()
            .ok_or_else(|| ApiError::conflict("there is no move to take back"))?;
        let shown = self.shown.pop().expect("one shown move per move");
        self.undone.push((mv, shown));
        Ok(())
    }

    fn redo(&mut self) -> Result<(), ApiError> {
        let (mv, shown) = self
            .undone
            .pop()
            .ok_or_else(|| ApiError::conflict("there is no move to play again"))?;
        self.game.play_unchecked(&mv);
        self.shown.push(shown);
        Ok(())
    }

    fn moves_full(&self) -> (Vec<String>, Vec<String>) {
        let played = self.shown.iter().map(|m| m.full.clone()).collect();
        // Undone moves in playing order: the next to redo first.
        let redo = self
            .undone
            .iter()
            .rev()
            .map(|(_, m)| m.full.clone())
            .collect();
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
            Seat::Engine if self.meta.level < 8 => format!("Damspel (level {})", self.meta.level),
            Seat::Engine => format!("Damspel ({} s/move)", self.meta.engine_time),
        };
        // An imported game keeps its own tags; the writer decides the rest (result, variant,
        // GameType, FEN).
        let tags = &self.meta.tags;
        let tag = |name: &str| tag_value(tags, name).map(str::to_string);
        const WRITTEN: [&str; 11] = [
            "Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant", "GameType",
            "FEN", "SetUp",
        ];
        let mut extra: Vec<(String, String)> = tags
            .iter()
            .filter(|(n, _)| !WRITTEN.iter().any(|w| w.eq_ignore_ascii_case(n)))
            .cloned()
            .collect();
        if let Some(o) = self.outcome_json() {
            extra.push(("Termination".to_string(), o.reason));
        }
        PdnGame {
            rules: self.game.rules(),
            event: tag("Event").unwrap_or_else(|| format!("Damspel game {}", self.meta.id)),
            site: tag("Site").unwrap_or_else(|| "damspel serve".into()),
            date: tag("Date").unwrap_or_else(|| {
                self.meta
                    .created
                    .get(..10)
                    .unwrap_or("????-??-??")
                    .replace('-', ".")
            }),
            round: tag("Round").unwrap_or_else(|| "-".into()),
            white: tag("White").unwrap_or_else(|| seat(self.meta.white)),
            black: tag("Black").unwrap_or_else(|| seat(self.meta.black)),
            result: GameResult::from_outcome(self.game.outcome().as_ref()),
            start: *self.game.start(),
            moves: self.game.moves().to_vec(),
            extra,
        }
        .to_pdn()
    }

    fn search_job(&self, time: Duration, level: Level, cancel: Arc<Cancel>) -> SearchJob {
        let game = self.game.clone();
        // Each move of a game draws from its own seed (the level mixes in the position).
        let seed = self
            .meta
            .id
            .bytes()
            .fold(0u64, |h, b| h.rotate_left(5) ^ u64::from(b));
        Box::new(move |report: &mut dyn FnMut(Value)| {
            let rules = game.rules_arc();
            let pos = *game.position();
            let mut engine = Engine::new(rules.clone(), 16);
            // A request that is gone stops its search (at once if it went before it started).
            cancel.attach(engine.stop_flag());
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
            let result = level.choose(
                &mut engine,
                &game,
                &Limits::move_time(time),
                seed,
                &mut on_info,
            );
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
