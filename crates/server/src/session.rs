//! A game in progress on the server, whatever its board: `Session` hides the bitboard type so
//! the handlers work on every variant through one object.

use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_engine::{Engine, Info, Level, Limits, PvLine, Reporter, ScoreKind};
use damspel_notation::pdn::{tag_value, write_result, GameResult, Item, Line, PdnGame};
use damspel_notation::{
    format_all, format_detail, full_path, parse_fen, parse_move_among, write_fen,
};
use damspel_rules::{
    with_rules, Bits, Color, Duplicates, Game, Move, MoveDetail, Outcome, Position, Rules, Until,
    Variant,
};
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{ApiError, Quoted};
use crate::pool::Cancel;
use crate::seats::SeatKeys;
use crate::tree::{
    check_comment, check_nag, is_strength_mark, order_nags, StoredTree, Tree, MAX_NAGS,
    MAX_NESTING, MAX_NODES,
};

mod pdn;
#[cfg(test)]
mod tests;

/// Longest game the server keeps, in plies. The draw rules end real games long before (the
/// longest games of the reference data have a few hundred plies); beyond this a game is not
/// draughts but a way to make every request on it slow.
pub const MAX_PLIES: usize = 2000;

/// Longest search a request may ask for, in seconds.
pub const MAX_ENGINE_TIME: f64 = 10.0;
/// What an import lists as left out (`skipped`) at most; then how many more.
pub const MAX_SKIPPED: usize = 100;

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
    /// Counts the game's committed changes (its creation is 1): a state with a higher version is
    /// newer, so a page can tell a state that arrived late from the one it shows. Stored, so a
    /// restart goes on counting.
    pub version: u64,
    /// The tags of an imported PDN game (players, event, date, ...), written back on export.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<(String, String)>,
    /// Hashes of the seats' secrets: never sent to anyone.
    #[serde(skip)]
    pub keys: SeatKeys,
    /// Resignation, draw offers and claims, flag falls, the clock (friend.rs).
    #[serde(flatten)]
    pub play: crate::friend::Play,
    /// The invitation that hands the free seat to a friend: `seat:hash` while open,
    /// [`INVITE_USED`] once used, None if the game never had one. Only whether one is open is
    /// shown.
    #[serde(rename = "invite_open", serialize_with = "is_open")]
    pub invite: Option<String>,
}

/// The stored invitation of a game whose invitation was used (so that a join is told so, not
/// that the game never had one).
pub const INVITE_USED: &str = "used";

fn is_open<S: serde::Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bool(v.as_deref().is_some_and(|i| i != INVITE_USED))
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
    /// As the variant's PDN writes it (`2-0` in International, `1-0` for Black, the first
    /// player, in American checkers), so that the page and the export agree.
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
    /// The moves from the start to the current node.
    pub history: Vec<PlyJson>,
    /// Moves of the line after the current node (what redo steps through).
    pub redo: usize,
    pub engine_to_move: bool,
    pub outcome: Option<OutcomeJson>,
    /// Every line of the game.
    pub tree: TreeJson,
}

/// The game's move tree as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct TreeJson {
    /// The node whose position is shown (0: the start).
    pub current: usize,
    /// The last node of the main line (where a game goes on, and the engine plays).
    pub main_end: usize,
    /// Indexed by id; node 0 is the start position.
    pub nodes: Vec<NodeJson>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeJson {
    pub id: usize,
    pub parent: usize,
    /// Plies from the start (0 for the start).
    pub ply: usize,
    /// Who played the move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notation: Option<String>,
    /// The full path (every landing square), as stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full: Option<String>,
    pub capture: bool,
    /// The main continuation first, then the variations.
    pub children: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<String>,
}

/// The result of a search on a session's position.
pub struct SearchOutcome {
    pub best_full: Option<String>,
    pub best_notation: Option<String>,
    pub score: Value,
    pub pv: Vec<String>,
    /// With more than one line asked for: the last iteration's lines, best first.
    pub lines: Vec<Value>,
    pub depth: u32,
    /// The position's hash when the search started (to check it is still current).
    pub position_hash: u64,
    /// When the search began (Unix ms; set by the caller that ran it).
    pub started_ms: u64,
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

/// What a search is asked for.
#[derive(Clone, Debug)]
pub struct SearchAsk {
    pub time: Duration,
    /// Lines (MultiPV); 1 is the ordinary search.
    pub lines: usize,
    /// The game's level for the engine's own moves, `Level::FULL` for hints and analysis.
    pub level: Level,
    /// Folder of the endgame tables, used at full strength (the lower levels are made to be
    /// beaten).
    pub tb_dir: Arc<std::path::Path>,
}

/// A game of any variant.
pub trait Session: Send {
    fn meta(&self) -> &Meta;
    fn meta_mut(&mut self) -> &mut Meta;
    /// A copy to change: the stored game is replaced by it only once the change is committed.
    fn clone_box(&self) -> Box<dyn Session>;
    fn state(&self) -> GameState;
    fn side_to_move(&self) -> Color;
    /// Plays a move given as PDN text (a full path always works) at the current node.
    fn play(&mut self, text: &str) -> Result<(), ApiError>;
    /// Plays a move at node `at`: a move already there is followed, a new one starts a
    /// variation (or continues the line if nothing follows `at`). The new node is current.
    fn play_at(&mut self, at: usize, text: &str) -> Result<(), ApiError>;
    /// Plays a move of a recorded game: as `play`, but a draw the players could have claimed
    /// (repetition, a move limit) does not end it.
    fn play_recorded(&mut self, text: &str) -> Result<(), ApiError>;
    fn undo(&mut self) -> Result<(), ApiError>;
    fn redo(&mut self) -> Result<(), ApiError>;
    /// Shows node `node`.
    fn goto(&mut self, node: usize) -> Result<(), ApiError>;
    /// Moves the line through `node` one place up (see `tree::Tree::promote`).
    fn promote(&mut self, node: usize) -> Result<(), ApiError>;
    /// Deletes `node` and every move after it.
    fn delete(&mut self, node: usize) -> Result<(), ApiError>;
    /// Sets a node's comment and NAGs (None: leave as is).
    fn annotate(
        &mut self,
        node: usize,
        comment: Option<&str>,
        nags: Option<&[String]>,
    ) -> Result<(), ApiError>;
    /// Adds the variations, comments and NAGs of a recorded game whose main line has been
    /// played; returns what could not be added (a variation with an illegal move is kept up to
    /// that move). Ends at the end of the main line.
    fn graft(&mut self, line: &Line) -> Vec<String>;
    /// The node shown.
    fn current(&self) -> usize;
    /// The side to move at `node`, if a move there goes on with the game (`node` is the end of
    /// the main line); None for a move that starts or extends a variation.
    fn game_move_side(&self, node: usize) -> Option<Color>;
    /// Whether the current node is the end of the main line.
    fn at_main_end(&self) -> bool;
    /// The last node of the main line (where the game goes on).
    fn main_end(&self) -> usize;
    /// Plies of the main line (where the game goes on, and the clock counts).
    fn main_plies(&self) -> usize;
    /// The side to move at the end of the main line.
    fn main_side_to_move(&self) -> Color;
    /// Whether the board has ended the game at the end of the main line.
    fn main_over(&self) -> bool;
    /// The moves from the start to the current node, as full paths, and the line after it.
    fn moves_full(&self) -> (Vec<String>, Vec<String>);
    /// The moves of the main line (the game itself), as full paths.
    fn main_line(&self) -> Vec<String>;
    /// The whole tree as stored (JSON).
    fn tree_text(&self) -> String;
    /// The result at the node shown.
    fn outcome_json(&self) -> Option<OutcomeJson>;
    /// The game's result: at the end of its main line, whichever node is shown.
    fn main_outcome_json(&self) -> Option<OutcomeJson>;
    fn position_hash(&self) -> u64;
    fn pdn(&self) -> String;
    /// The game's PDN with its main line only: no variations, comments or NAGs (what a review
    /// reads; those could make the whole too long or too deep to read back).
    fn main_line_pdn(&self) -> String;
    /// A search of the current position (at the ask's level: `Level::FULL` for hints and
    /// analysis), stopped early by `cancel`.
    fn search_job(&self, ask: SearchAsk, cancel: Arc<Cancel>) -> SearchJob;
}

type Played<B> = (Move<B>, MoveJson);

#[derive(Clone)]
struct GameSession<B: Bits> {
    meta: Meta,
    /// The moves from the start to the current node.
    game: Game<B>,
    /// Every move played, each as shown computed once when it was played, so that showing a
    /// game costs one move generation (the current position's), not one per ply.
    tree: Tree<Played<B>>,
    /// The tree's nodes from the root to the current node (one more than the game's moves).
    path: Vec<usize>,
    /// The positions whose moves were listed last (a start, a move played, a position shown),
    /// with them: the state shown next and the moves played next need them again, and a
    /// position built to be slow lists in most of a second.
    listings: Listings<B>,
    /// The time taken to list the moves of the positions the game's moves entered, in all since
    /// it was opened (its replay included): about what reopening it takes.
    listing_spent: Duration,
}

/// The most positions whose moves a game keeps (`Listings`).
const LISTINGS_KEPT: usize = 16;

/// The listings of a game's last positions, shared by its copies (a change works on a copy,
/// and a listing is the same whichever copy made it).
#[derive(Clone, Default)]
struct Listings<B: Bits>(Arc<std::sync::Mutex<Kept<B>>>);

/// The positions kept, the oldest first.
type Kept<B> = std::collections::VecDeque<(Position<B>, Listing<B>)>;

impl<B: Bits> Listings<B> {
    fn get(&self, pos: &Position<B>) -> Option<Listing<B>> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|(at, _)| at == pos)
            .map(|(_, moves)| Arc::clone(moves))
    }

    fn put(&self, pos: Position<B>, moves: Listing<B>) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(at, _)| *at != pos);
        if kept.len() >= LISTINGS_KEPT {
            kept.pop_front();
        }
        kept.push_back((pos, moves));
    }
}

/// The time a game's positions may take to list in all before it takes no new move (a game is
/// replayed when it is opened again, each position within `MOVE_LIST_TIME`): real games list
/// in milliseconds; only a game built from positions made to be slow comes near.
pub const MAX_GAME_LISTING: Duration = Duration::from_secs(10);

/// A position's legal moves, shared between what admitted it and what shows it.
type Listing<B> = Arc<Vec<MoveDetail<B>>>;

/// A session for a variant, from a start FEN and stored moves: `tree` (JSON) when the game
/// has one, else `moves` (the main line up to the current position) and `redo` (the rest).
pub fn open(
    variant: Variant,
    meta: Meta,
    moves: &[String],
    redo: &[String],
    tree: Option<&str>,
) -> Result<Box<dyn Session>, ApiError> {
    let t = meta.engine_time;
    if !(t.is_finite() && t > 0.0 && t <= MAX_ENGINE_TIME) {
        return Err(ApiError::unprocessable(format!(
            "engine_time must be more than 0 and at most {MAX_ENGINE_TIME} seconds, not {}",
            Quoted(t)
        )));
    }
    if !(1..=8).contains(&meta.level) {
        return Err(ApiError::unprocessable(format!(
            "level must be from 1 to 8, not {}",
            meta.level
        )));
    }
    let stored = match tree {
        Some(text) => Some(
            serde_json::from_str::<StoredTree>(text)
                .map_err(|e| ApiError::unprocessable(format!("its move tree is not valid: {e}")))?,
        ),
        None => None,
    };
    with_rules!(variant, |rules| {
        let s = GameSession::new(Arc::new(rules), meta, moves, redo, stored)?;
        Ok(Box::new(s) as Box<dyn Session>)
    })
}

fn color_name(c: Color) -> &'static str {
    c.name()
}

fn bad_node(node: usize) -> ApiError {
    ApiError::unprocessable(format!("the game has no node {node}"))
}

impl<B: Bits> GameSession<B> {
    /// The move of node `n` (not the root) as a full path.
    fn full(&self, n: usize) -> String {
        let (_, shown) = self.tree.node(n).mv.as_ref().expect("a move node");
        shown.full.clone()
    }

    fn cursor(&self) -> usize {
        *self.path.last().expect("the path holds the root")
    }

    /// Shows `target`: takes back to the common ancestor, then plays down to it.
    fn go(&mut self, target: usize) -> Result<(), ApiError> {
        if self.tree.get(target).is_none() {
            return Err(bad_node(target));
        }
        let want = self.tree.path(target);
        let common = self
            .path
            .iter()
            .zip(&want)
            .take_while(|(a, b)| a == b)
            .count();
        while self.path.len() > common {
            self.game.undo();
            self.path.pop();
        }
        for &n in &want[common..] {
            let (mv, _) = self
                .tree
                .node(n)
                .mv
                .as_ref()
                .expect("a node below the root");
            self.game.play_unchecked(mv);
            self.path.push(n);
        }
        Ok(())
    }

    /// Plays a move given as text at `at`; `recorded`: a draw the players could have claimed
    /// does not stop it (a recorded game, or a stored one replayed). Returns the move's node.
    fn play_as(
        &mut self,
        at: usize,
        text: &str,
        recorded: bool,
        deadline: Instant,
    ) -> Result<usize, ApiError> {
        self.go(at)?;
        // (Stored and recorded moves were accepted once: they are replayed whatever the end.)
        if let Some(end) = self.meta.play.ending.as_ref().filter(|_| !recorded) {
            if at == self.tree.main_end() {
                return Err(ApiError::conflict(format!(
                    "the game is over: {}",
                    end.reason
                )));
            }
        }
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
        let legal = self.listed_here(deadline)?;
        let rules = self.game.rules();
        let pos = self.game.position();
        let mv = parse_move_among(
            rules,
            pos,
            text,
            (*legal).clone(),
            Until::deadline(deadline),
        )
        .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        // The move is already there: follow it.
        let known = self
            .tree
            .node(at)
            .children
            .iter()
            .copied()
            .find(|&c| self.tree.node(c).mv.as_ref().map(|(m, _)| m) == Some(&mv));
        if let Some(child) = known {
            self.go(child)?;
            return Ok(child);
        }
        if self.tree.len() >= MAX_NODES {
            return Err(ApiError::unprocessable(format!(
                "a game may have at most {MAX_NODES} moves in all its lines"
            )));
        }
        // A new variation nested deeper than PDN can be read back with is refused: every game
        // the server holds exports to a PDN it can import again.
        let nesting = self.tree.nesting(at) + usize::from(!self.tree.node(at).children.is_empty());
        if nesting > MAX_NESTING {
            return Err(ApiError::unprocessable(format!(
                "variations may be nested at most {MAX_NESTING} deep (as PDN can be read back); \
                 this one would be {nesting} deep"
            )));
        }
        let most = limits().1;
        if !recorded && self.listing_spent > most {
            return Err(ApiError::unprocessable(format!(
                "the positions of this game took {:.1} s to list in all, more than the {} s a \
                 game may take to open again; start a new game from this position",
                self.listing_spent.as_secs_f64(),
                most.as_secs_f64()
            )));
        }
        let detail = legal.iter().find(|d| d.mv == mv).ok_or_else(|| {
            ApiError::internal(format!("`{text}` parsed to a move not in the list"))
        })?;
        // The game's positions are shown with their moves: one whose moves cannot be listed in
        // time is not played into.
        let after = pos.play(&mv);
        let began = Instant::now();
        let next = listed(rules, &after, deadline)
            .map_err(|e| e.context(&format!("after `{}`", damspel_rules::quoted(text))))?;
        self.listing_spent += began.elapsed();
        let g = &rules.variant().geometry;
        let shown = move_json(g, detail, format_detail(g, detail, &legal));
        let node = self.tree.add(at, (mv, shown));
        self.game.play_unchecked(&mv);
        self.path.push(node);
        self.listings.put(after, Arc::new(next));
        Ok(node)
    }

    /// The legal moves of the current position within `deadline` (those listed before, if
    /// they are kept).
    fn listed_here(&mut self, deadline: Instant) -> Result<Listing<B>, ApiError> {
        let pos = *self.game.position();
        if let Some(moves) = self.listings.get(&pos) {
            return Ok(moves);
        }
        let began = Instant::now();
        let moves = Arc::new(listed(self.game.rules(), &pos, deadline)?);
        self.listing_spent += began.elapsed();
        self.listings.put(pos, Arc::clone(&moves));
        Ok(moves)
    }

    fn new(
        rules: Arc<Rules<B>>,
        meta: Meta,
        moves: &[String],
        redo: &[String],
        stored: Option<StoredTree>,
    ) -> Result<Self, ApiError> {
        let g = &rules.variant().geometry;
        let setup =
            parse_fen(g, &meta.start_fen).map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let start = Position::from_setup(&rules, &setup)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let mut session = GameSession {
            meta,
            game: Game::from_position(rules, start),
            tree: Tree::new(),
            path: vec![0],
            listings: Listings::default(),
            listing_spent: Duration::ZERO,
        };
        // Each position is checked within the bound of the request that played it (one bound
        // for the whole replay failed to reopen a game whose every move had been accepted: a
        // dozen moves from a position that lists in 0.7 s), and listed once while it is kept.
        session
            .listed_here(listing_deadline())
            .map_err(|e| e.context("the start position"))?;
        if let Some(stored) = stored {
            session.load_tree(stored)?;
            return Ok(session);
        }
        if moves.len() + redo.len() > MAX_PLIES {
            return Err(too_long());
        }
        // Stored moves were accepted once; an imported game may have gone on past a draw claim.
        // The undone moves (stored in playing order) go on the same line.
        let mut at = 0;
        for (i, text) in moves.iter().chain(redo).enumerate() {
            at = session
                .play_as(at, text, true, listing_deadline())
                .map_err(|e| {
                    let which = if i < moves.len() {
                        format!("move {}", i + 1)
                    } else {
                        format!("undone move {}", i + 1 - moves.len())
                    };
                    e.context(&format!("{which} (`{}`)", damspel_rules::quoted(text)))
                })?;
        }
        let current = session.tree.path(at)[moves.len()];
        session.go(current)?;
        Ok(session)
    }

    /// Rebuilds a stored tree, checking it like a request: each parent before its children,
    /// each move legal where it stands, no move twice after the same node.
    fn load_tree(&mut self, stored: StoredTree) -> Result<(), ApiError> {
        if stored.nodes.len() >= MAX_NODES {
            return Err(ApiError::unprocessable(format!(
                "the tree has {} moves, more than {MAX_NODES}",
                stored.nodes.len()
            )));
        }
        self.tree.node_mut(0).comment =
            check(check_comment(stored.comment.as_deref().unwrap_or_default()))?;
        for (i, n) in stored.nodes.iter().enumerate() {
            let id = i + 1;
            let context = |e: ApiError| e.context(&format!("node {id} (`{}`)", n.mv));
            if n.parent >= id {
                return Err(context(ApiError::unprocessable(
                    "its parent comes after it".to_string(),
                )));
            }
            let got = self
                .play_as(n.parent, &n.mv, true, listing_deadline())
                .map_err(context)?;
            if got != id {
                return Err(context(ApiError::unprocessable(
                    "the same move twice after one node".to_string(),
                )));
            }
            let node = self.tree.node_mut(id);
            node.comment =
                check(check_comment(n.comment.as_deref().unwrap_or_default())).map_err(context)?;
            node.pre =
                check(check_comment(n.pre.as_deref().unwrap_or_default())).map_err(context)?;
            if n.nags.len() > MAX_NAGS {
                return Err(context(ApiError::unprocessable(format!(
                    "more than {MAX_NAGS} NAGs"
                ))));
            }
            node.nags = n
                .nags
                .iter()
                .map(|t| check(check_nag(t)))
                .collect::<Result<_, _>>()
                .map_err(context)?;
        }
        let places: Vec<usize> = stored.nodes.iter().map(|n| n.at).collect();
        self.tree.order_children(&places);
        if stored.cursor >= self.tree.len() {
            return Err(ApiError::unprocessable(format!(
                "its current node {} is not in the tree",
                stored.cursor
            )));
        }
        // Moves were played in id order: the path must follow the reordered tree.
        self.path = vec![0];
        self.game = Game::from_position(self.game.rules_arc(), *self.game.start());
        self.go(stored.cursor)
    }
}

/// A check's message as a 422.
fn check<T>(r: Result<T, String>) -> Result<T, ApiError> {
    r.map_err(ApiError::unprocessable)
}

/// The longest a game's position may take to list its moves. Only positions built to be slow
/// (a flying king among twenty kings) come near: the slowest known takes under a second. A
/// position is checked when it enters a game (its start, a move played or replayed), so that
/// showing it later is bounded too.
pub const MOVE_LIST_TIME: Duration = Duration::from_secs(5);

/// The most legal moves a game's position may have. A game's state shows every legal move
/// with its route (some 450 bytes each in JSON): a position built to have half a million
/// distinct captures (a king among thirty pieces without the majority rule) made a state of
/// 223 MB that took 15 s to send, at every look at the game. Real positions have a few dozen.
pub const MAX_LEGAL_MOVES: usize = 5_000;

/// The legal moves of `pos`, or a refusal when they are not listed by `deadline` (the request's
/// bound, `MOVE_LIST_TIME` from its start) or are more than `MAX_LEGAL_MOVES`.
fn listed<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    deadline: Instant,
) -> Result<Vec<MoveDetail<B>>, ApiError> {
    let too_slow = |_| {
        ApiError::unprocessable(format!(
            "listing the legal moves of this position went past the {} s a request may spend \
             on it (a capture with too many routes to walk); Damspel does not play it",
            MOVE_LIST_TIME.as_secs()
        ))
    };
    let too_many = |n: usize| {
        ApiError::unprocessable(format!(
            "this position has {n} legal moves, more than the {MAX_LEGAL_MOVES} a game shows (a \
             capture with that many ways is built, not played); `damspel moves` lists them",
        ))
    };
    // Without the majority rule a capture may have hundreds of thousands of moves, each walked
    // with its route: they are counted first by the list without routes, far quicker there.
    // Under the rule the list with routes walks as the count does (docs/architecture.md).
    if !rules.majority() {
        let mut moves = Vec::new();
        rules
            .legal_moves_until(
                pos,
                &mut moves,
                Duplicates::Merge,
                Until::deadline(deadline),
            )
            .map_err(too_slow)?;
        if moves.len() > MAX_LEGAL_MOVES {
            return Err(too_many(moves.len()));
        }
    }
    let moves = rules
        .legal_moves_detailed_until(pos, Duplicates::Merge, Until::deadline(deadline))
        .map_err(too_slow)?;
    if moves.len() > MAX_LEGAL_MOVES {
        return Err(too_many(moves.len()));
    }
    Ok(moves)
}

/// The end of the time a request may spend listing the moves of the positions it plays.
fn listing_deadline() -> Instant {
    Instant::now() + limits().0
}

/// `MOVE_LIST_TIME` and `MAX_GAME_LISTING`.
#[cfg(not(test))]
fn limits() -> (Duration, Duration) {
    (MOVE_LIST_TIME, MAX_GAME_LISTING)
}

// Tests set small limits, to see them reached by positions that list in milliseconds.
#[cfg(test)]
thread_local! {
    static LIMITS_IN_TESTS: std::cell::Cell<(Duration, Duration)> =
        const { std::cell::Cell::new((MOVE_LIST_TIME, MAX_GAME_LISTING)) };
}

#[cfg(test)]
fn limits() -> (Duration, Duration) {
    LIMITS_IN_TESTS.with(|l| l.get())
}

/// `listing_deadline` for the notation library's replays (an import's inference and replay).
pub(crate) fn listing_until() -> Until<'static> {
    Until::deadline(listing_deadline())
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

/// A move's text in the variant's notation, written along a line.
/// A line's moves in the notation the page shows; `root`: the legal moves of `pos`, listed once
/// for a whole search (a position built to be slow lists in most of a second, and each report
/// of an iteration listed it twice: a hint of 0.05 s answered after 2.5 s).
fn line_text<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    root: &[MoveDetail<B>],
    line: &[Move<B>],
) -> Vec<String> {
    let g = &rules.variant().geometry;
    let mut p = *pos;
    line.iter()
        .enumerate()
        .map(|(ply, mv)| {
            let text = match root.iter().find(|d| d.mv == *mv).filter(|_| ply == 0) {
                Some(detail) => format_detail(g, detail, root),
                None => damspel_notation::format_move(rules, &p, mv),
            };
            p = p.play(mv);
            text
        })
        .collect()
}

/// A line of an analysis as the page shows it: score, moves, and the first move's squares.
fn line_json<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    legal: &[MoveDetail<B>],
    score: ScoreKind,
    pv: &[Move<B>],
) -> Value {
    let g = &rules.variant().geometry;
    let first = pv.first().and_then(|m| legal.iter().find(|d| d.mv == *m));
    json!({
        "score": score_json(score),
        "pv": line_text(rules, pos, legal, pv),
        "full": first.map(|d| full_path(g, d)),
        "from": first.map(|d| g.name(d.mv.from())),
        "to": first.map(|d| g.name(d.mv.to())),
        "path": first.map(|d| d.path.iter().map(|&s| g.name(s)).collect::<Vec<_>>()),
    })
}

/// Sends each iteration, with its lines (one, or MultiPV's), as one `info` message.
struct LinesReport<'a, 'b, B: Bits> {
    rules: &'a Rules<B>,
    pos: Position<B>,
    /// The legal moves of `pos`.
    legal: &'a [MoveDetail<B>],
    report: &'a mut dyn FnMut(Value),
    /// The last iteration's lines.
    last: &'b mut Vec<Value>,
    multipv: bool,
}

impl<B: Bits> Reporter<B> for LinesReport<'_, '_, B> {
    fn iteration(&mut self, info: &Info<B>) {
        if !self.multipv {
            *self.last = vec![line_json(
                self.rules,
                &self.pos,
                self.legal,
                info.score.kind(),
                &info.pv,
            )];
        }
        (self.report)(json!({
            "depth": info.depth,
            "score": score_json(info.score.kind()),
            "nodes": info.nodes,
            "nps": info.nps(),
            "pv": line_text(self.rules, &self.pos, self.legal, &info.pv),
            "lines": self.last.clone(),
        }));
    }

    fn lines(&mut self, _depth: u32, lines: &[PvLine<B>]) {
        *self.last = lines
            .iter()
            .map(|l| line_json(self.rules, &self.pos, self.legal, l.score.kind(), &l.pv))
            .collect();
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
            Arc::new(Vec::new())
        } else {
            self.listings.get(pos).unwrap_or_else(|| {
                let moves = Arc::new(rules.legal_moves_detailed(pos, Duplicates::Merge));
                self.listings.put(*pos, Arc::clone(&moves));
                moves
            })
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
            .zip(&self.path[1..])
            .enumerate()
            .map(|(i, (p, &node))| PlyJson {
                ply: i + 1,
                side: color_name(p.side_to_move()),
                mv: self
                    .tree
                    .node(node)
                    .mv
                    .as_ref()
                    .expect("a move node")
                    .1
                    .clone(),
            })
            .collect();
        let side = pos.side_to_move();
        let seat = if side == Color::White {
            self.meta.white
        } else {
            self.meta.black
        };
        // Plies are counted from the start position, whose side moves first.
        let start_side = self.game.start().side_to_move();
        let mut plies = vec![0usize; self.tree.len()];
        let nodes = self
            .tree
            .nodes()
            .iter()
            .enumerate()
            .map(|(id, n)| {
                let ply = if id == 0 { 0 } else { plies[n.parent] + 1 };
                plies[id] = ply;
                let mover = if ply % 2 == 1 {
                    start_side
                } else {
                    !start_side
                };
                NodeJson {
                    id,
                    parent: n.parent,
                    ply,
                    side: n.mv.as_ref().map(|_| color_name(mover)),
                    notation: n.mv.as_ref().map(|(_, s)| s.notation.clone()),
                    full: n.mv.as_ref().map(|(_, s)| s.full.clone()),
                    capture: n.mv.as_ref().is_some_and(|(m, _)| m.is_capture()),
                    children: n.children.clone(),
                    comment: n.comment.clone(),
                    pre: n.pre.clone(),
                    nags: n.nags.clone(),
                }
            })
            .collect();
        GameState {
            meta: self.meta.clone(),
            fen: write_fen(g, pos),
            side_to_move: color_name(side),
            pieces,
            legal,
            must_capture,
            history,
            redo: self.tree.continuation(self.cursor()).len(),
            // The engine plays only where the game goes on: at the end of the main line.
            engine_to_move: outcome.is_none() && seat == Seat::Engine && self.at_main_end(),
            outcome,
            tree: TreeJson {
                current: self.cursor(),
                main_end: self.tree.main_end(),
                nodes,
            },
        }
    }

    fn play(&mut self, text: &str) -> Result<(), ApiError> {
        self.play_as(self.cursor(), text, false, listing_deadline())
            .map(|_| ())
    }

    fn play_at(&mut self, at: usize, text: &str) -> Result<(), ApiError> {
        self.play_as(at, text, false, listing_deadline())
            .map(|_| ())
    }

    fn play_recorded(&mut self, text: &str) -> Result<(), ApiError> {
        self.play_as(self.cursor(), text, true, listing_deadline())
            .map(|_| ())
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        let cursor = self.cursor();
        if cursor == 0 {
            return Err(ApiError::conflict("there is no move to take back"));
        }
        self.go(self.tree.node(cursor).parent)
    }

    fn redo(&mut self) -> Result<(), ApiError> {
        let next = self
            .tree
            .node(self.cursor())
            .children
            .first()
            .copied()
            .ok_or_else(|| ApiError::conflict("there is no move to play again"))?;
        self.go(next)
    }

    fn goto(&mut self, node: usize) -> Result<(), ApiError> {
        self.go(node)
    }

    fn promote(&mut self, node: usize) -> Result<(), ApiError> {
        if self.tree.get(node).is_none() {
            return Err(bad_node(node));
        }
        self.tree.promote(node).map_err(ApiError::conflict)?;
        // The shown node stays; its path may now run through other children.
        let cursor = self.cursor();
        self.path = vec![0];
        self.game = Game::from_position(self.game.rules_arc(), *self.game.start());
        self.go(cursor)
    }

    fn delete(&mut self, node: usize) -> Result<(), ApiError> {
        if self.tree.get(node).is_none() {
            return Err(bad_node(node));
        }
        let cursor = self
            .tree
            .delete(node, self.cursor())
            .map_err(ApiError::unprocessable)?;
        self.path = vec![0];
        self.game = Game::from_position(self.game.rules_arc(), *self.game.start());
        self.go(cursor)
    }

    fn annotate(
        &mut self,
        node: usize,
        comment: Option<&str>,
        nags: Option<&[String]>,
    ) -> Result<(), ApiError> {
        if self.tree.get(node).is_none() {
            return Err(bad_node(node));
        }
        let comment = comment.map(|c| check(check_comment(c))).transpose()?;
        let nags = match nags {
            Some(list) if node == 0 && !list.is_empty() => {
                return Err(ApiError::unprocessable(
                    "the start position has no move to mark",
                ))
            }
            Some(list) if list.len() > MAX_NAGS => {
                return Err(ApiError::unprocessable(format!(
                    "a move may have at most {MAX_NAGS} NAGs"
                )))
            }
            Some(list) => Some(check(order_nags(list))?),
            None => None,
        };
        let n = self.tree.node_mut(node);
        if let Some(c) = comment {
            n.comment = c;
        }
        if let Some(list) = nags {
            n.nags = list;
        }
        Ok(())
    }

    fn graft(&mut self, line: &Line) -> Vec<String> {
        let mut skipped = Vec::new();
        self.graft_line(0, line, true, &mut skipped, listing_deadline());
        let end = self.tree.main_end();
        let _ = self.go(end);
        // The first ones say what kind of thing was left out; a file of 100,000 bad NAGs made
        // an answer of 9.6 MB.
        if skipped.len() > MAX_SKIPPED {
            let more = skipped.len() - MAX_SKIPPED;
            skipped.truncate(MAX_SKIPPED);
            skipped.push(format!("and {more} more left out"));
        }
        skipped
    }

    fn current(&self) -> usize {
        self.cursor()
    }

    fn game_move_side(&self, node: usize) -> Option<Color> {
        let n = self.tree.get(node)?;
        (n.children.is_empty() && self.tree.is_main(node)).then(|| {
            let start = self.game.start().side_to_move();
            let ply = self.tree.path(node).len() - 1;
            if ply.is_multiple_of(2) {
                start
            } else {
                !start
            }
        })
    }

    fn at_main_end(&self) -> bool {
        self.tree.main_end() == self.cursor()
    }

    fn main_end(&self) -> usize {
        self.tree.main_end()
    }

    fn main_plies(&self) -> usize {
        self.tree.path(self.tree.main_end()).len() - 1
    }

    fn main_side_to_move(&self) -> Color {
        let start = self.game.start().side_to_move();
        if self.main_plies().is_multiple_of(2) {
            start
        } else {
            !start
        }
    }

    fn main_over(&self) -> bool {
        if self.at_main_end() {
            return self.game.outcome().is_some();
        }
        let mut main = self.clone();
        main.go(self.tree.main_end()).is_ok() && main.game.outcome().is_some()
    }

    fn moves_full(&self) -> (Vec<String>, Vec<String>) {
        let played = self.path[1..].iter().map(|&n| self.full(n)).collect();
        let redo = self
            .tree
            .continuation(self.cursor())
            .into_iter()
            .map(|n| self.full(n))
            .collect();
        (played, redo)
    }

    fn main_line(&self) -> Vec<String> {
        self.tree
            .continuation(0)
            .into_iter()
            .map(|n| self.full(n))
            .collect()
    }

    fn tree_text(&self) -> String {
        let stored = self.tree.stored(self.cursor(), |(_, s)| s.full.clone());
        serde_json::to_string(&stored).unwrap_or_default()
    }

    fn main_outcome_json(&self) -> Option<OutcomeJson> {
        if self.at_main_end() {
            return self.outcome_json();
        }
        let mut main = self.clone();
        main.go(self.tree.main_end()).ok()?;
        main.outcome_json()
    }

    fn outcome_json(&self) -> Option<OutcomeJson> {
        // A resignation, an agreed draw or a flag fall ends the game where its main line ends.
        if let Some(end) = &self.meta.play.ending {
            if self.at_main_end() {
                return Some(OutcomeJson {
                    result: write_result(self.game.rules().variant(), end.game_result()),
                    winner: end.winner.map(|s| color_name(s.into())),
                    reason: end.reason.clone(),
                });
            }
        }
        self.game.outcome().map(|o| OutcomeJson {
            result: write_result(
                self.game.rules().variant(),
                GameResult::from_outcome(Some(&o)),
            ),
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
        self.pdn_with(&self.movetext())
    }

    fn main_line_pdn(&self) -> String {
        self.pdn_with(&self.main_movetext())
    }

    fn search_job(&self, ask: SearchAsk, cancel: Arc<Cancel>) -> SearchJob {
        let game = self.game.clone();
        // The position's moves, as listed when it entered the game (if they are kept).
        let listed = self.listings.get(self.game.position());
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
            engine.set_multipv(ask.lines);
            if ask.level == Level::FULL {
                // Tables that cannot be opened leave the engine without them (the verdict
                // endpoint reports why).
                if let Ok(tb) = damspel_tablebase::Tablebase::open(&ask.tb_dir, &rules) {
                    if !tb.materials().is_empty() {
                        engine.set_tablebase(Some(Arc::new(tb)));
                    }
                }
            }
            // A request that is gone stops its search (at once if it went before it started).
            cancel.attach(engine.stop_flag());
            let legal = listed
                .unwrap_or_else(|| Arc::new(rules.legal_moves_detailed(&pos, Duplicates::Merge)));
            let mut lines = Vec::new();
            let result = {
                let mut reporter = LinesReport {
                    rules: &rules,
                    pos,
                    legal: &legal,
                    report,
                    last: &mut lines,
                    multipv: ask.lines > 1,
                };
                ask.level.choose(
                    &mut engine,
                    &game,
                    &Limits::move_time(ask.time),
                    seed,
                    &mut reporter,
                )
            };
            let g = &rules.variant().geometry;
            let best = result.best.and_then(|mv| legal.iter().find(|d| d.mv == mv));
            SearchOutcome {
                best_full: best.map(|d| full_path(g, d)),
                best_notation: best.map(|d| format_detail(g, d, &legal)),
                score: score_json(result.score.kind()),
                pv: line_text(&rules, &pos, &legal, &result.pv),
                lines,
                depth: result.depth,
                position_hash: pos.hash(),
                started_ms: 0,
            }
        })
    }
}
