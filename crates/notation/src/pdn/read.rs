//! Reading PDN text: whole files of games (`read_file`, `read_text`) and the first game of a
//! text (`read_game`). The reader follows the PDN 3.0 grammar with the leniency of the readers
//! players trust (lidraughts, pydraughts, CheckerBoard, Turbo Dambase exports): blanks inside a
//! move (`1- 7`, `28 x17`), moves without a separator (`c3d4`), any result a Result tag gives
//! (`4-6`, `1.01-0.99`), a result glued to the next game's tags (`0-1[Event`), setup commands
//! (`/FEN "..."/`) in move text.
//!
//! One pass over the text, no recursion: variations are a stack bounded by [`MAX_DEPTH`]. A game
//! is read within [`MAX_GAME_LEN`] bytes, [`MAX_MOVES`] main-line moves and [`MAX_TREE_MOVES`]
//! moves in all; a file within [`ReadLimits`]. A bad game is one [`GameError`] naming it, and
//! reading goes on at the next game.

use std::fmt;

use damspel_rules::quoted;
use serde::Serialize;

use super::encoding::{decode, TextEncoding};
use super::tree::{Item, Line, MoveNode};

/// One game read from PDN text: its tags, the texts of its main-line moves (not yet checked
/// against the rules), its move text as a tree, and the result token that ended it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PdnRead {
    /// Its place in the file, from 1.
    pub number: usize,
    /// The line (from 1) where it starts.
    pub line: usize,
    /// Every tag, in the order and spelling written, values unescaped.
    pub tags: Vec<(String, String)>,
    /// The main line's move texts, normalised as in [`MoveNode::text`]; setup commands are in
    /// `tree` only.
    pub moves: Vec<String>,
    /// The move text: main line, variations, comments, NAGs, setups.
    pub tree: Line,
    /// The result token that ends the move text, as written (`2-0`, `1/2-1/2`, `*`, `4-6`).
    pub result: Option<String>,
}

impl PdnRead {
    /// The value of the first tag with this name (case-insensitive).
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag_value(&self.tags, name)
    }

    /// The FEN tag's position, unless it is empty or `?` (lidraughts writes `[FEN "?"]` when it
    /// does not know the start: the standard one is taken, and the moves say if it is not).
    pub fn start_fen(&self) -> Option<&str> {
        self.tag("FEN")
            .filter(|f| !f.trim().is_empty() && f.trim() != "?")
    }

    /// "White - Black (Event)" for messages, from whichever of these tags it has.
    pub fn label(&self) -> String {
        label_of(&self.tags)
    }

    /// The game written back as PDN: its tags in order, its tree and its result (read back, it
    /// gives the same tags, tree and result). Moves are written as read, not re-formatted.
    pub fn to_pdn(&self) -> String {
        let mut out = String::new();
        for (name, value) in &self.tags {
            out.push('[');
            out.push_str(name);
            out.push_str(" \"");
            out.push_str(&value.replace('\\', "\\\\").replace('"', "\\\""));
            out.push_str("\"]\n");
        }
        if !self.tags.is_empty() {
            out.push('\n');
        }
        let mut moves = String::new();
        self.tree.write(&mut moves);
        out.push_str(&moves);
        if let Some(result) = &self.result {
            if !moves.is_empty() {
                out.push(' ');
            }
            out.push_str(result);
        }
        out.push_str("\n\n");
        out
    }
}

/// The value of the first of `tags` named `name` (case-insensitive, as PDN readers match tags).
pub fn tag_value<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn label_of(tags: &[(String, String)]) -> String {
    let get = |name: &str| {
        tag_value(tags, name)
            .map(str::trim)
            .filter(|v| !v.is_empty() && *v != "?")
    };
    let mut out = match (get("White"), get("Black")) {
        (None, None) => String::new(),
        (w, b) => format!("{} - {}", w.unwrap_or("?"), b.unwrap_or("?")),
    };
    if let Some(event) = get("Event") {
        if out.is_empty() {
            out = event.to_string();
        } else {
            out = format!("{out} ({event})");
        }
    }
    out
}

/// The most bytes read for one game: a thousand-move game with comments is a few tens of KiB.
pub const MAX_GAME_LEN: usize = 1 << 20;
/// The most moves (plies) of one game's main line, far above any game played under a draw rule.
pub const MAX_MOVES: usize = 10_000;
/// The most moves of one game's tree, variations included.
pub const MAX_TREE_MOVES: usize = 50_000;
/// The longest move text: a capture of 64 pieces written in full on a 16-wide board is about 260
/// bytes; nothing longer is a move.
pub const MAX_MOVE_LEN: usize = 300;
/// The deepest nesting of variations: annotators nest a few levels; hostile text is refused.
pub const MAX_DEPTH: usize = 64;
/// The most bytes of a file, by default: the largest public databases are a few tens of MiB.
pub const MAX_FILE_LEN: usize = 64 << 20;
/// The most games (read or refused) of a file, by default.
pub const MAX_GAMES: usize = 100_000;

/// What is wrong with a PDN text, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("bad PDN at character {}: {reason}", offset + 1)]
pub struct PdnError {
    pub kind: PdnErrorKind,
    /// Byte offset into the (decoded) text.
    pub offset: usize,
    pub reason: String,
}

/// The kind of a [`PdnError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PdnErrorKind {
    /// Not PDN: an unclosed tag, comment or variation, a token that is not a move, ...
    Syntax,
    /// The game goes on past [`MAX_GAME_LEN`] bytes (or a file past its byte limit).
    TooLong,
    /// More than [`MAX_MOVES`] moves in the main line, or [`MAX_TREE_MOVES`] in all.
    TooManyMoves,
    /// A token longer than [`MAX_MOVE_LEN`].
    TokenTooLong,
    /// Variations nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

fn syntax(offset: usize, reason: impl Into<String>) -> PdnError {
    PdnError {
        kind: PdnErrorKind::Syntax,
        offset,
        reason: reason.into(),
    }
}

/// One game of a file that could not be read: which game (its number, where it starts, its
/// names as far as they were read) and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameError {
    pub number: usize,
    /// The line (from 1) where the game starts.
    pub line: usize,
    /// The line (from 1) of the error.
    pub error_line: usize,
    /// The tags read before the error.
    pub tags: Vec<(String, String)>,
    pub error: PdnError,
}

impl GameError {
    /// "White - Black (Event)", from the tags read before the error.
    pub fn label(&self) -> String {
        label_of(&self.tags)
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}", self.number)?;
        let label = self.label();
        if !label.is_empty() {
            write!(f, " ({label})")?;
        }
        write!(
            f,
            ", line {}: {} (line {})",
            self.line, self.error.reason, self.error_line
        )
    }
}

impl std::error::Error for GameError {}

/// How much of a file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    pub max_bytes: usize,
    pub max_games: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_bytes: MAX_FILE_LEN,
            max_games: MAX_GAMES,
        }
    }
}

/// A PDN file read: the encoding used, every game read, one error per game that could not be
/// read, in file order by `number`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PdnFile {
    pub encoding: Option<TextEncoding>,
    pub games: Vec<PdnRead>,
    pub errors: Vec<GameError>,
    /// Set when reading stopped at the game limit: what was not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl PdnFile {
    /// Games read and refused.
    pub fn count(&self) -> usize {
        self.games.len() + self.errors.len()
    }
}

/// Reads a whole file's bytes with the default limits (see [`read_file_with`]).
pub fn read_file(bytes: &[u8]) -> Result<PdnFile, PdnError> {
    read_file_with(bytes, &ReadLimits::default())
}

/// Reads a whole file's bytes: the encoding detected (see `encoding`), then every game.
/// A file over `limits.max_bytes` is refused whole.
pub fn read_file_with(bytes: &[u8], limits: &ReadLimits) -> Result<PdnFile, PdnError> {
    if bytes.len() > limits.max_bytes {
        return Err(PdnError {
            kind: PdnErrorKind::TooLong,
            offset: limits.max_bytes,
            reason: format!(
                "the file has {} bytes; at most {} are read",
                bytes.len(),
                limits.max_bytes
            ),
        });
    }
    let (text, encoding) = decode(bytes);
    let mut file = read_text(&text, limits);
    file.encoding = Some(encoding);
    Ok(file)
}

/// Reads every game of a text (the byte limit is the caller's: the text is already in memory).
pub fn read_text(text: &str, limits: &ReadLimits) -> PdnFile {
    let mut file = PdnFile::default();
    let mut lines = LineCounter::default();
    let mut at = 0;
    while at < text.len() {
        if file.count() == limits.max_games {
            let rest = text[at..].trim();
            if !rest.is_empty() {
                file.stopped = Some(format!(
                    "reading stopped after {} games, the most read from one file; the rest \
                     (from line {}) was not read",
                    limits.max_games,
                    lines.line_of(text, at)
                ));
            }
            break;
        }
        let mut parser = Parser::new(text, at);
        let outcome = parser.run();
        let start = parser.first.unwrap_or(at);
        match outcome {
            Ok(end) if parser.is_empty() => {
                at = end.max(at + 1);
            }
            Ok(end) => {
                let mut game = parser.finish();
                game.number = file.count() + 1;
                game.line = lines.line_of(text, start);
                file.games.push(game);
                at = end.max(at + 1);
            }
            Err(error) => {
                let line = lines.line_of(text, start);
                let error_line = lines.line_of(text, error.offset.min(text.len()));
                let had_tags = !parser.game.tags.is_empty();
                let mut from = error.offset.clamp(at + 1, text.len());
                // Past the character the error is in (`at + 1` may fall inside one).
                while !text.is_char_boundary(from) {
                    from += 1;
                }
                file.errors.push(GameError {
                    number: file.count() + 1,
                    line,
                    error_line,
                    tags: parser.game.tags,
                    error,
                });
                at = recover(text, from, had_tags);
            }
        }
    }
    file
}

/// Reads the first game of a PDN text: tags, then move text, up to its result or the tags of a
/// next game. What follows is not read.
pub fn read_game(text: &str) -> Result<PdnRead, PdnError> {
    let mut parser = Parser::new(text, 0);
    parser.run()?;
    let first = parser.first.unwrap_or(0);
    let mut game = parser.finish();
    game.number = 1;
    game.line = 1 + text[..first].matches('\n').count();
    Ok(game)
}

/// Line numbers of offsets met in increasing order, in one pass over the text.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    line: usize,
}

impl LineCounter {
    fn line_of(&mut self, text: &str, offset: usize) -> usize {
        let offset = text.floor_char_boundary(offset);
        if offset >= self.offset {
            self.line += text[self.offset..offset].matches('\n').count();
        } else {
            self.line -= text[offset..self.offset].matches('\n').count();
        }
        self.offset = offset;
        self.line + 1
    }
}

/// Whether a tag (`[Name "`) starts at `at`.
fn tag_starts(text: &str, at: usize) -> bool {
    let rest = &text.as_bytes()[at..];
    if rest.first() != Some(&b'[') {
        return false;
    }
    let name = rest[1..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let after = &rest[1 + name..];
    let blanks = after
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    name > 0 && after.get(blanks) == Some(&b'"')
}

/// Where to go on after a bad game whose error is at `from`: the next line that starts a block
/// of tags (a tag line after a line that is not one), or, for games without tags, just after
/// the next result.
fn recover(text: &str, from: usize, had_tags: bool) -> usize {
    let line_start = text[..from].rfind('\n').map_or(0, |n| n + 1);
    let mut prev_tag = tag_starts(text, line_start + leading_blanks(&text[line_start..]));
    let mut tag_block = text.len();
    let mut pos = text[from..].find('\n').map_or(text.len(), |n| from + n + 1);
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |n| pos + n + 1);
        let line = &text[pos..end];
        if !line.trim().is_empty() {
            let tag = tag_starts(text, pos + leading_blanks(line));
            if tag && !prev_tag {
                tag_block = pos;
                break;
            }
            prev_tag = tag;
        }
        pos = end;
    }
    if had_tags {
        return tag_block;
    }
    let mut i = from;
    for token in text[from..tag_block].split_inclusive(|c: char| c.is_whitespace() || c == '[') {
        i += token.len();
        let t = token.trim_end_matches(|c: char| c.is_whitespace() || c == '[');
        if STANDARD_RESULTS.contains(&t) {
            return i - (token.len() - t.len());
        }
    }
    tag_block
}

fn leading_blanks(s: &str) -> usize {
    s.len() - s.trim_start_matches([' ', '\t']).len()
}

/// The results of the PDN tag pages' ResultTypes, read whatever else the Result tag says.
const STANDARD_RESULTS: [&str; 9] = [
    "1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*", "½-½",
];

/// Whether a token is a result without a Result tag to say so: a standard one or a decimal
/// score.
fn is_result(t: &str) -> bool {
    STANDARD_RESULTS.contains(&t) || decimal_score(t)
}

/// A score with decimals on both sides (`1.01-0.99`, `-0.98-1.02`: ResultFormat "Goes"): never
/// a move (`1.31-26` is move 1, 31-26).
fn decimal_score(t: &str) -> bool {
    let t = t.strip_prefix('-').unwrap_or(t);
    let Some((a, b)) = t.split_once('-') else {
        return false;
    };
    let b = b.strip_prefix('-').unwrap_or(b);
    let number = |s: &str| {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        !int.is_empty()
            && int.bytes().all(|c| c.is_ascii_digit())
            && frac.bytes().all(|c| c.is_ascii_digit())
    };
    a.contains('.') && b.contains('.') && number(a) && number(b)
}

fn is_separator(c: char) -> bool {
    matches!(c, '-' | 'x' | 'X' | ':')
}

/// A move being read whose text may go on in the next token (`28` then `x17`, `1-` then `7`).
struct Pending {
    text: String,
    at: usize,
    number: Option<String>,
}

/// Reads one game from `start`.
struct Parser<'a> {
    body: &'a str,
    cut: bool,
    i: usize,
    /// Where the game's first tag or token is.
    first: Option<usize>,
    game: PdnRead,
    /// The lines being read: the main line, then each open variation.
    stack: Vec<Line>,
    pending: Option<Pending>,
    number: Option<String>,
    in_moves: bool,
    tree_moves: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, start: usize) -> Parser<'a> {
        let end = if text.len() - start > MAX_GAME_LEN {
            text.floor_char_boundary(start + MAX_GAME_LEN)
        } else {
            text.len()
        };
        Parser {
            body: &text[..end],
            cut: end < text.len(),
            i: start,
            first: None,
            game: PdnRead::default(),
            stack: vec![Line::default()],
            pending: None,
            number: None,
            in_moves: false,
            tree_moves: 0,
        }
    }

    /// Nothing but blanks and line comments was read.
    fn is_empty(&self) -> bool {
        self.game.tags.is_empty() && self.stack[0].items.is_empty() && self.game.result.is_none()
    }

    fn finish(mut self) -> PdnRead {
        self.game.tree = self.stack.swap_remove(0);
        self.game
    }

    fn too_long(&self, what: &str) -> PdnError {
        PdnError {
            kind: PdnErrorKind::TooLong,
            offset: self.body.len(),
            reason: format!("{what} goes on past {MAX_GAME_LEN} bytes, the most read for one game"),
        }
    }

    /// Reads the game; returns the offset after it.
    fn run(&mut self) -> Result<usize, PdnError> {
        while let Some(c) = self.body[self.i..].chars().next() {
            if c.is_whitespace() {
                self.i += c.len_utf8();
                continue;
            }
            if c == '%' {
                self.i += self.body[self.i..]
                    .find('\n')
                    .unwrap_or(self.body.len() - self.i);
                continue;
            }
            self.first.get_or_insert(self.i);
            match c {
                // A tag this game has already begins the next game's tags: this one has tags
                // and nothing else (files list such games, the next one's tags right after).
                '[' if self.stack.len() == 1
                    && !self.in_moves
                    && tag_name(&self.body[self.i..])
                        .is_some_and(|name| self.game.tag(name).is_some()) =>
                {
                    return Ok(self.i);
                }
                '[' if self.stack.len() == 1 && !self.in_moves => {
                    self.i = read_tag(self.body, self.i, &mut self.game).map_err(|e| {
                        if self.cut && e.reason == UNCLOSED_TAG {
                            self.too_long("a tag")
                        } else {
                            e
                        }
                    })?;
                }
                // The tags of the next game: this one had no result.
                '[' if self.stack.len() == 1 => {
                    self.flush()?;
                    return Ok(self.i);
                }
                '[' => {
                    return Err(syntax(
                        self.i,
                        "a variation is not closed before the next game's tags",
                    ))
                }
                '{' => self.comment()?,
                '(' => self.open()?,
                ')' => self.close()?,
                '/' => self.setup()?,
                _ => {
                    if let Some(end) = self.token()? {
                        return Ok(end);
                    }
                }
            }
        }
        if self.cut {
            return Err(self.too_long("the game"));
        }
        self.flush()?;
        if self.stack.len() > 1 {
            return Err(syntax(self.body.len(), "a variation is not closed"));
        }
        Ok(self.body.len())
    }

    fn line(&mut self) -> &mut Line {
        self.stack
            .last_mut()
            .expect("the main line is never closed")
    }

    fn last_move(&mut self) -> Option<&mut MoveNode> {
        match self.line().items.last_mut() {
            Some(Item::Move(m)) => Some(m),
            _ => None,
        }
    }

    fn comment(&mut self) -> Result<(), PdnError> {
        let at = self.i;
        let Some(close) = self.body[at..].find('}') else {
            return Err(if self.cut {
                self.too_long("a comment")
            } else {
                syntax(at, "a comment is not closed with }")
            });
        };
        let text = &self.body[at + 1..at + close];
        // A comment that runs into the next game's tags was left open.
        if text
            .match_indices('\n')
            .any(|(n, _)| tag_starts(self.body, at + 1 + n + 1 + leading_blanks(&text[n + 1..])))
        {
            return Err(syntax(
                at,
                "a comment is not closed before the next game's tags",
            ));
        }
        self.flush()?;
        let text = unwrapped(text);
        self.line().items.push(Item::Comment { text });
        self.i = at + close + 1;
        Ok(())
    }

    fn open(&mut self) -> Result<(), PdnError> {
        let rest = &self.body[self.i + 1..];
        let marks = rest.len() - rest.trim_start_matches(['!', '?']).len();
        if marks > 0 && rest[marks..].starts_with(')') {
            // `(!)`, `(?!)`: a move strength mark, not a variation.
            self.flush()?;
            let mark = self.body[self.i..self.i + marks + 2].to_string();
            self.mark(mark);
            self.i += marks + 2;
            return Ok(());
        }
        self.flush()?;
        if self.stack.len() > MAX_DEPTH {
            return Err(PdnError {
                kind: PdnErrorKind::TooDeep,
                offset: self.i,
                reason: format!("variations nested more than {MAX_DEPTH} deep"),
            });
        }
        self.in_moves = true;
        self.stack.push(Line::default());
        self.i += 1;
        Ok(())
    }

    fn close(&mut self) -> Result<(), PdnError> {
        self.flush()?;
        if self.stack.len() == 1 {
            return Err(syntax(self.i, "a variation closes without opening"));
        }
        let line = self.stack.pop().expect("an open variation");
        // Comments and NAGs may stand between a move and its variations: how many is kept, so
        // that the variation is written again where it was.
        let replaced = self
            .line()
            .items
            .iter_mut()
            .rev()
            .enumerate()
            .find_map(|(after, item)| match item {
                Item::Move(m) => Some((m, after)),
                _ => None,
            });
        match replaced {
            Some((m, after)) => {
                m.variation_places.resize(m.variations.len(), 0);
                m.variations.push(line);
                m.variation_places.push(after);
            }
            None => {
                return Err(syntax(
                    self.i,
                    "a variation must follow the move it replaces",
                ))
            }
        }
        self.i += 1;
        Ok(())
    }

    fn setup(&mut self) -> Result<(), PdnError> {
        let at = self.i;
        // Searched as bytes: the window may end inside a character, and `/` is one byte.
        let end = self.body.len().min(at + 1 + crate::MAX_FEN_LEN + 16);
        let Some(close) = self.body.as_bytes()[at + 1..end]
            .iter()
            .position(|&b| b == b'/')
        else {
            return Err(syntax(
                at,
                "a setup command /FEN \"...\"/ is not closed with /",
            ));
        };
        let inner = self.body[at + 1..at + 1 + close].trim();
        let inner = inner.strip_prefix("FEN").unwrap_or(inner);
        // No FEN holds a quote: dropping them all (not only the outer pair) reads what the
        // writer writes back as the same FEN, whatever stray quotes the file had.
        let fen = inner.replace('"', "").trim().to_string();
        if fen.len() > crate::MAX_FEN_LEN {
            return Err(syntax(
                at,
                format!(
                    "a setup command's FEN may have at most {} bytes",
                    crate::MAX_FEN_LEN
                ),
            ));
        }
        self.flush()?;
        self.in_moves = true;
        self.line().items.push(Item::Setup { fen });
        self.i = at + 1 + close + 1;
        Ok(())
    }

    /// Attaches a move strength mark (or a NAG) to the move before it.
    fn mark(&mut self, mark: String) {
        let nag = mark.starts_with('$');
        match self.last_move() {
            Some(m) if nag => m.nags.push(mark),
            Some(m) => match &mut m.strength {
                Some(s) => s.push_str(&mark),
                None => m.strength = Some(mark),
            },
            None => self.line().items.push(Item::Nag { nag: mark }),
        }
    }

    /// Whether the Result tag's value, whatever it is, is written at `i` and ends the game.
    fn tagged_result_at(&self, i: usize) -> Option<usize> {
        let value = self.game.tag("Result")?.trim();
        if value.is_empty() || !self.body[i..].starts_with(value) {
            return None;
        }
        let after = i + value.len();
        let rest = self.body[after..].trim_start();
        let delimited = self.body[after..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace() || c == '[');
        (delimited && (rest.is_empty() || rest.starts_with('['))).then_some(after)
    }

    /// Reads a token at `self.i`: a move (or part of one), a move number, a NAG, a strength mark
    /// or the result. Returns the offset after the game at its result.
    fn token(&mut self) -> Result<Option<usize>, PdnError> {
        let at = self.i;
        self.in_moves = true;
        if self.stack.len() == 1 {
            if let Some(after) = self.tagged_result_at(at) {
                self.flush()?;
                self.game.result = Some(self.body[at..after].to_string());
                return Ok(Some(after));
            }
        }
        let len = self.body[at..]
            .char_indices()
            .find(|&(k, c)| {
                c.is_whitespace() || matches!(c, '{' | '(' | ')' | '[') || (c == '$' && k > 0)
            })
            .map_or(self.body.len() - at, |(k, _)| k);
        if len > MAX_MOVE_LEN {
            return Err(PdnError {
                kind: PdnErrorKind::TokenTooLong,
                offset: at,
                reason: format!("a token of {len} bytes; a move has at most {MAX_MOVE_LEN}"),
            });
        }
        if at + len == self.body.len() && self.cut {
            return Err(self.too_long("the game"));
        }
        let token = &self.body[at..at + len];
        self.i = at + len;
        if token.starts_with('$') {
            self.flush()?;
            self.mark(token.to_string());
            return Ok(None);
        }
        if is_result(token) {
            self.flush()?;
            return Ok(self.result(token.to_string()));
        }
        // Move numbers may be glued to the move: "1.d3-d4", "12...32-28".
        let mut rest = token;
        let mut number = None;
        if let Some(dot) = rest.rfind('.') {
            if rest[..dot]
                .trim_end_matches('.')
                .bytes()
                .all(|b| b.is_ascii_digit())
            {
                number = Some(rest[..=dot].to_string());
                rest = &rest[dot + 1..];
            }
        }
        if number.is_some() && is_result(rest) {
            // `8.1-0`: a move number glued to the result.
            self.flush()?;
            return Ok(self.result(rest.to_string()));
        }
        let marks = rest.len() - rest.trim_end_matches(['!', '?']).len();
        let (rest, mark) = rest.split_at(rest.len() - marks);
        if rest.is_empty() {
            if number.is_some() {
                self.flush()?;
                self.number = number;
            }
            if !mark.is_empty() {
                self.flush()?;
                self.mark(mark.to_string());
            }
            return Ok(None);
        }
        if let Some((k, _)) = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || is_separator(c)))
        {
            return Err(syntax(at + k, format!("`{}` is not a move", quoted(token))));
        }
        let joins = self.pending.as_ref().is_some_and(|p| {
            number.is_none() && (p.text.ends_with(is_separator) || rest.starts_with(is_separator))
        });
        if joins {
            let p = self.pending.as_mut().expect("a pending move");
            p.text.push_str(rest);
            if is_result(&p.text) {
                // `1 - 0`, `1-` and `0` on two lines: the result, written apart, never a move
                // (a move `1-0` would be written back as the result).
                let result = self.pending.take().expect("a pending move").text;
                return Ok(self.result(result));
            }
            if p.text.len() > MAX_MOVE_LEN {
                return Err(PdnError {
                    kind: PdnErrorKind::TokenTooLong,
                    offset: p.at,
                    reason: format!(
                        "a move of {} bytes; a move has at most {MAX_MOVE_LEN}",
                        p.text.len()
                    ),
                });
            }
        } else {
            self.flush()?;
            let number = number.or_else(|| self.number.take());
            self.pending = Some(Pending {
                text: rest.to_string(),
                at,
                number,
            });
        }
        if !mark.is_empty() {
            self.flush()?;
            self.mark(mark.to_string());
        }
        Ok(None)
    }

    /// A result read just before `self.i`: at the top level it is the game's and ends it (the
    /// offset after it is returned); inside a variation it ends nothing.
    fn result(&mut self, result: String) -> Option<usize> {
        if self.stack.len() != 1 {
            return None;
        }
        self.game.result = Some(result);
        Some(self.i)
    }

    /// Ends the move being read and adds it to the current line.
    fn flush(&mut self) -> Result<(), PdnError> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        if p.text.ends_with(is_separator) || p.text.starts_with(is_separator) {
            return Err(syntax(p.at, format!("`{}` is not a move", quoted(&p.text))));
        }
        if p.text.bytes().all(|b| b.is_ascii_digit()) {
            // A move number written without its dot.
            self.number = Some(p.text);
            return Ok(());
        }
        let text = with_separators(&p.text);
        let too_many = |reason: String| PdnError {
            kind: PdnErrorKind::TooManyMoves,
            offset: p.at,
            reason,
        };
        if self.stack.len() == 1 {
            if self.game.moves.len() == MAX_MOVES {
                return Err(too_many(format!("more than {MAX_MOVES} moves")));
            }
            self.game.moves.push(text.clone());
        }
        self.tree_moves += 1;
        if self.tree_moves > MAX_TREE_MOVES {
            return Err(too_many(format!(
                "more than {MAX_TREE_MOVES} moves with the variations"
            )));
        }
        let number = p.number.or_else(|| self.number.take());
        self.line().items.push(Item::Move(MoveNode {
            number,
            text,
            ..MoveNode::default()
        }));
        Ok(())
    }
}

/// `c3d4` is `c3-d4`, `a3b4xd6f8`... is written with `x`: algebraic squares run together get
/// separators (`-` between two squares, `x` between more: only a capture has more). Anything
/// else is returned as it is.
fn with_separators(text: &str) -> String {
    if text.contains(is_separator) || !text.starts_with(|c: char| c.is_ascii_lowercase()) {
        return text.to_string();
    }
    let mut squares = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        if !c.is_ascii_lowercase() || digits == 0 || digits > 2 {
            return text.to_string();
        }
        squares.push(&rest[..1 + digits]);
        rest = &rest[1 + digits..];
    }
    if squares.len() < 2 {
        return text.to_string();
    }
    squares.join(if squares.len() == 2 { "-" } else { "x" })
}

const UNCLOSED_TAG: &str = "a tag is not closed with ]";

/// The name of the tag `text` starts with (after its `[`), if it has one.
fn tag_name(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('[')?.trim_start();
    let len = rest.find(|c: char| c.is_whitespace() || matches!(c, '"' | ']'))?;
    (len > 0).then(|| &rest[..len])
}

/// Reads the tag `[Name "value"]` that starts at `at` (the value's `\"` and `\\` escapes undone)
/// and returns the offset after it. A value with unescaped quotes inside
/// (`[Event "the "Big" one"]`) ends at the last `"]` of its line.
fn read_tag(text: &str, at: usize, game: &mut PdnRead) -> Result<usize, PdnError> {
    let unclosed = || syntax(at, UNCLOSED_TAG);
    let needs = || syntax(at, "a tag needs a name and a quoted value");
    let mut i = at + 1;
    let skip_blanks = |i: &mut usize| {
        while let Some(c) = text[*i..].chars().next().filter(|c| c.is_whitespace()) {
            *i += c.len_utf8();
        }
    };
    skip_blanks(&mut i);
    let name_len = text[i..]
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | ']'))
        .ok_or_else(unclosed)?;
    if name_len == 0 {
        return Err(needs());
    }
    let name = &text[i..i + name_len];
    i += name_len;
    skip_blanks(&mut i);
    match text[i..].chars().next() {
        None => return Err(unclosed()),
        Some('"') => i += 1,
        Some(']') => return Err(needs()),
        Some(_) => return Err(syntax(at, "a tag value must be in double quotes")),
    }
    let value_start = i;
    let mut value = String::new();
    let mut chars = text[i..].char_indices();
    loop {
        match chars.next() {
            None => return Err(unclosed()),
            Some((k, '"')) => {
                i += k + 1;
                break;
            }
            Some((_, '\\')) => match chars.next() {
                Some((_, c @ ('"' | '\\'))) => value.push(c),
                Some((_, c)) => {
                    value.push('\\');
                    value.push(c);
                }
                None => return Err(unclosed()),
            },
            Some((_, c)) => value.push(c),
        }
    }
    skip_blanks(&mut i);
    match text[i..].chars().next() {
        Some(']') => {}
        None => return Err(unclosed()),
        Some(_) => {
            // Unescaped quotes inside the value: it ends at the last `"]` of the line.
            let line_end = text[value_start..]
                .find('\n')
                .map_or(text.len(), |n| value_start + n);
            match text[value_start..line_end].rfind("\"]") {
                Some(k) if value_start + k >= i - 1 => {
                    game.tags.push((
                        name.to_string(),
                        text[value_start..value_start + k].to_string(),
                    ));
                    return Ok(value_start + k + 2);
                }
                _ => return Err(syntax(at, "a tag value must be in double quotes")),
            }
        }
    }
    game.tags.push((name.to_string(), value));
    Ok(i + 1)
}

/// A comment's text with each line break, and the blanks around it, read as one space: writers
/// (ours, and the PDN standard's export format) wrap move text at 80 columns, comments
/// included, so a break inside a comment is where a line was full, not a word of the comment.
/// Read as written, a long comment came back from its own export with line breaks for spaces.
fn unwrapped(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut blanks = String::new();
    let mut broken = false;
    for c in text.chars() {
        match c {
            ' ' | '\t' => blanks.push(c),
            '\n' | '\r' => broken = true,
            _ => {
                if broken {
                    out.push(' ');
                } else {
                    out.push_str(&blanks);
                }
                blanks.clear();
                broken = false;
                out.push(c);
            }
        }
    }
    if broken {
        out.push(' ');
    } else {
        out.push_str(&blanks);
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_moves_and_the_tree() {
        let g = read_game(
            "[Event \"x\"]\n[FEN \"W:W31-50:B1-20\"]\n\n1. 32-28 {good} 19-23 (2. 28x19) 2. 28x19 $1 14x23! 1-0",
        )
        .unwrap();
        assert_eq!(g.tag("fen"), Some("W:W31-50:B1-20"));
        assert_eq!(g.moves, ["32-28", "19-23", "28x19", "14x23"]);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        assert_eq!(g.tree.items.len(), 5);
        let Item::Move(m) = &g.tree.items[2] else {
            panic!("{:?}", g.tree)
        };
        assert_eq!(m.variations[0].moves().next().unwrap().text, "28x19");
        assert!(read_game("[Event \"x\"").is_err());
        assert!(read_game("1. 32-28 {open").is_err());
        assert!(read_game("1. 32-28 (19-23").is_err());
        assert!(read_game("1. 32-28 é4").is_err());
    }

    /// A line break in a comment is where a writer wrapped the move text: read as a space, so
    /// a long comment comes back from its own export as it was. Blanks elsewhere are kept.
    #[test]
    fn a_comment_wrapped_over_lines_reads_as_one_line() {
        for (written, read) in [
            ("the quick\nbrown fox", "the quick brown fox"),
            ("the quick \r\n  brown\n\nfox ", "the quick brown fox "),
            ("two  spaces\tand a tab", "two  spaces\tand a tab"),
            ("\nat the ends\n", " at the ends "),
        ] {
            let g = read_game(&format!("1. 32-28 {{{written}}} 19-23 *")).unwrap();
            let Item::Comment { text } = &g.tree.items[1] else {
                panic!("{:?}", g.tree)
            };
            assert_eq!(text, read, "{written:?}");
        }
    }

    #[test]
    fn a_setup_command_reads_back_as_written_and_is_bounded() {
        // Stray quotes are no part of a FEN (found by CI's run of the PDN properties:
        // `/"\n"a/` read as the FEN `"a`, written `/FEN ""a"/`, read back as `a`).
        for (text, fen) in [
            ("/\"\n\"a/ $", "a"),
            ("/FEN \"W:W31:B1\"/", "W:W31:B1"),
            ("/ \"W:W31:B1/", "W:W31:B1"),
            ("/W:W\"31\":B1/", "W:W31:B1"),
            ("/FEN/", ""),
        ] {
            let g = read_game(text).unwrap();
            assert_eq!(g.tree.items[0], Item::Setup { fen: fen.into() }, "{text:?}");
            let again = read_game(&g.to_pdn()).unwrap();
            assert_eq!(again.tree, g.tree, "{text:?}");
        }
        // A long setup is an error, also when its window ends inside a character (this
        // panicked: the window was cut at a byte count).
        let n = crate::MAX_FEN_LEN + 15;
        for text in [
            format!("/{}é/", "a".repeat(n)),
            format!("/{}/", "a".repeat(crate::MAX_FEN_LEN + 1)),
        ] {
            let e = read_game(&text).unwrap_err();
            assert_eq!(e.offset, 0, "{}", e.reason);
        }
        let fen = "a".repeat(crate::MAX_FEN_LEN);
        let g = read_game(&format!("/{fen}/")).unwrap();
        assert_eq!(read_game(&g.to_pdn()).unwrap().tree, g.tree);
    }

    #[test]
    fn a_result_written_apart_is_the_result_not_a_move() {
        // A move may be written apart (`32 - 28`), but a result so written is the result: a
        // move `1-0` would be written back as the result (found by a long run of the PDN
        // properties: `1-\n0` read as a move, written back as `1-0`).
        for text in [
            "1. 32-28 1 - 0",
            "1. 32-28 1-\n0",
            "1. 32-28 1\n-0",
            "1. 32-28 0 -1",
        ] {
            let g = read_game(text).unwrap();
            assert_eq!(g.moves, ["32-28"], "{text:?}");
            assert_eq!(g.tree.moves().count(), 1, "{text:?}");
            assert!(
                matches!(g.result.as_deref(), Some("1-0" | "0-1")),
                "{text:?}"
            );
            let again = read_game(&g.to_pdn()).unwrap();
            assert_eq!(
                (&again.tree, &again.result),
                (&g.tree, &g.result),
                "{text:?}"
            );
        }
        // Inside a variation it ends nothing, and is no move either.
        let g = read_game("1. 32-28 (1 - 0) 19-23 *").unwrap();
        assert_eq!(g.moves, ["32-28", "19-23"]);
        let Item::Move(m) = &g.tree.items[0] else {
            panic!("{:?}", g.tree)
        };
        assert_eq!(m.variations[0].moves().count(), 0);
        // A move written apart still reads as one.
        assert_eq!(
            read_game("1. 32 - 28 19-\n23 *").unwrap().moves,
            ["32-28", "19-23"]
        );
    }

    #[test]
    fn separators() {
        assert_eq!(with_separators("c3d4"), "c3-d4");
        assert_eq!(with_separators("a3b4xd6"), "a3b4xd6");
        assert_eq!(with_separators("a1b2c3"), "a1xb2xc3");
        assert_eq!(with_separators("a10b9"), "a10-b9");
        assert_eq!(with_separators("c3"), "c3");
        assert_eq!(with_separators("32-28"), "32-28");
    }
}
