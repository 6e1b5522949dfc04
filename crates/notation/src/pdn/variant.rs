//! Which variant a PDN game is, decided honestly: a `Variant` tag naming a Damspel variant, or a
//! `GameType` tag (the bare number or the full form `20,W,10,10,N2,0`) mapping to one; a tag
//! naming a game Damspel lacks is refused with its name. Without such a tag, the caller's choice
//! if it gave one, else inferred: the board from the FEN tag and the squares the moves use, then
//! the variants of that board under which the whole main line replays. When several still fit,
//! the most played of them is taken (the PDN standard's conventions first, then the order of its
//! GameType list) and the others are named beside it, so that the caller can choose another; only
//! when none of them is a game of that list does the decision leave the choice to the caller.

use std::collections::HashMap;

use damspel_rules::{on_rules, quoted, AnyRules, Catalogue, Color, Squares, Until, Variant};
use serde::Serialize;

use super::read::PdnRead;
use super::replay::replay_until;
use super::tree::{Item, Line};

/// How the variant of a game was decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "how", rename_all = "kebab-case")]
pub enum How {
    /// A `Variant` tag names it.
    Tag { value: String },
    /// A `GameType` tag maps to it.
    GameType { value: String },
    /// The caller chose it (no tag decided).
    Chosen,
    /// Inferred from the board and the moves.
    Inferred,
    /// Several variants fit; the caller must choose among `candidates`.
    Ambiguous { candidates: Vec<String> },
    /// The game's tag names a game Damspel does not have.
    Unsupported,
    /// No variant fits.
    Unknown,
}

/// The decision: the variant (when there is one), how it was reached, and a sentence saying so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VariantDecision {
    pub variant: Option<String>,
    #[serde(flatten)]
    pub how: How,
    pub message: String,
    /// Other variants under which the game replays as well, when one was inferred among several.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
}

/// The PDN GameTypes (shared/reference/pdn-gametype.tsv, with lidraughts' 96-98) and the
/// Damspel variant of each, where there is one.
const GAME_TYPES: [(u32, &str, Option<&str>); 21] = [
    (20, "International draughts", Some("international")),
    (21, "English draughts / American checkers", Some("american")),
    (22, "Italian draughts", None),
    (23, "Pool checkers", None),
    (24, "Spanish draughts", None),
    (25, "Russian draughts", Some("russian")),
    (26, "Brazilian draughts", Some("brazilian")),
    (27, "Canadian draughts", None),
    (28, "Portuguese draughts", None),
    (29, "Czech draughts", None),
    (30, "Turkish draughts", Some("turkish")),
    (31, "Thai draughts", None),
    (32, "Ghanaian draughts (Dame)", None),
    (33, "Armenian draughts (Tama)", None),
    (34, "Malaysian / Singaporean checkers", None),
    (35, "Sri Lankan draughts", None),
    (40, "Frisian draughts", None),
    (41, "Spantsiretti draughts", None),
    (96, "Breakthrough draughts", None),
    (97, "Frysk!", None),
    (98, "Antidraughts", None),
];

/// Variant tag values that name no game (lidraughts writes them).
const GENERIC_VARIANT_TAGS: [&str; 4] = ["", "standard", "from position", "fromposition"];

/// What a GameType's start colour and notation fields say that Damspel does not follow: it plays
/// the variant's first player first, and reads numbers with square 1 at the top left as White
/// sees the board (FMJD's `N2`; `N1` said from Black's side, as English checkers' `21,B,8,8,N1`)
/// and algebraic names from a1 at White's bottom left (`A0`).
fn game_type_notes(v: &Variant, fields: &[&str]) -> Vec<String> {
    let side = |c: Color| match c {
        Color::White => "White",
        Color::Black => "Black",
    };
    let mut notes = Vec::new();
    let said = match fields.get(1).map(|f| f.to_ascii_uppercase()) {
        Some(f) if f == "W" => Some(Color::White),
        Some(f) if f == "B" => Some(Color::Black),
        _ => None,
    };
    if let Some(said) = said.filter(|&c| c != v.first_player) {
        // Its notation field is then seen from the other side: this says enough.
        notes.push(format!(
            "{} moves first in {}, not {} as it says",
            side(v.first_player),
            v.id,
            side(said)
        ));
        return notes;
    }
    if let Some(notation) = fields.get(4) {
        let read = match (notation.get(..1), v.first_player) {
            (Some("N"), Color::White) => "N2",
            (Some("N"), Color::Black) => "N1",
            (_, Color::White) => "A0",
            (_, Color::Black) => "A3",
        };
        if !notation.eq_ignore_ascii_case(read) {
            notes.push(format!(
                "its squares are read as {read} (numbers from square 1 at White's top left, \
                 names from a1 at White's bottom left), not as {notation} says"
            ));
        }
    }
    notes
}

/// What the game's squares say about its board.
#[derive(Debug, Default)]
struct Evidence {
    max_number: usize,
    /// Largest file index (a = 0) and rank (1-based) of algebraic squares.
    max_file: usize,
    max_rank: usize,
    /// An algebraic square off the dark diagonals (a1 is dark): a board of all squares.
    light: bool,
    /// How the squares are named: by the moves, else by the FEN.
    named: Named,
    fen_named: Named,
}

/// Which names of squares a text uses.
#[derive(Clone, Copy, Debug, Default)]
struct Named {
    numbers: bool,
    algebraic: bool,
}

impl Named {
    /// True for numbers, false for algebraic names, None for both or neither.
    fn numbers_only(self) -> Option<bool> {
        (self.numbers != self.algebraic).then_some(self.numbers)
    }
}

impl Evidence {
    fn of(game: &PdnRead) -> Evidence {
        let mut e = Evidence::default();
        if let Some(fen) = game.start_fen() {
            for part in fen.split([':', ',', '-', '.', '"']) {
                let part = part.trim();
                let part = part.strip_prefix(['W', 'B', 'K', 'w', 'b']).unwrap_or(part);
                let part = part.strip_prefix(['K', 'k']).unwrap_or(part);
                e.square(part);
            }
            e.fen_named = std::mem::take(&mut e.named);
        }
        e.line(&game.tree);
        e
    }

    /// Whether the game names its squares by numbers (true) or algebraically (false): the moves
    /// tell, else the FEN; None when neither does.
    fn numbers(&self) -> Option<bool> {
        self.named
            .numbers_only()
            .or_else(|| self.fen_named.numbers_only())
    }

    /// Squares of a line and its variations (depth is bounded by the reader).
    fn line(&mut self, line: &Line) {
        for item in &line.items {
            if let Item::Move(m) = item {
                for part in m.text.split(['-', 'x', 'X', ':']) {
                    self.square(part);
                }
                for v in &m.variations {
                    self.line(v);
                }
            }
        }
    }

    fn square(&mut self, s: &str) {
        if s.is_empty() || s.len() > 4 {
            return;
        }
        if s.bytes().all(|b| b.is_ascii_digit()) {
            self.max_number = self.max_number.max(s.parse().unwrap_or(0));
            self.named.numbers = true;
            return;
        }
        let (file, rank) = s.split_at(1);
        let file = file.as_bytes()[0].to_ascii_lowercase();
        if file.is_ascii_lowercase() && !rank.is_empty() && rank.bytes().all(|b| b.is_ascii_digit())
        {
            let (x, y) = ((file - b'a') as usize, rank.parse::<usize>().unwrap_or(0));
            self.named.algebraic = true;
            self.max_file = self.max_file.max(x);
            self.max_rank = self.max_rank.max(y);
            if y > 0 && (x + y - 1) % 2 == 1 {
                self.light = true;
            }
        }
    }

    /// Whether a variant's board can hold these squares.
    fn fits(&self, v: &Variant) -> bool {
        let g = &v.geometry;
        // Every dark-squares board reads numbers, also where its own notation is algebraic
        // (Russian and Brazilian files written with numbers).
        if self.max_number > 0 && (g.squares_kind() != Squares::Dark || self.max_number > g.len()) {
            return false;
        }
        if self.max_rank > 0
            && (self.max_file >= g.width() as usize || self.max_rank > g.height() as usize)
        {
            return false;
        }
        !(self.light && g.squares_kind() == Squares::Dark)
    }
}

/// Decides the variants of games, keeping the rules it compiles for inference between games.
pub struct VariantDecider {
    catalogue: Catalogue,
    variants: Vec<Variant>,
    compiled: HashMap<String, AnyRules>,
    /// When inference gives up replaying (a file can hold positions built to be slow).
    until: Until<'static>,
}

impl VariantDecider {
    pub fn new(catalogue: Catalogue) -> VariantDecider {
        let variants = catalogue.variants().unwrap_or_default();
        VariantDecider {
            catalogue,
            variants,
            compiled: HashMap::new(),
            until: Until::NEVER,
        }
    }

    /// Gives up replaying at `until` (a variant whose replay was given up does not fit).
    pub fn until(self, until: Until<'static>) -> VariantDecider {
        VariantDecider { until, ..self }
    }

    /// The variant of `game`; `choice` is used when no tag decides (see the module's doc).
    pub fn decide(&mut self, game: &PdnRead, choice: Option<&str>) -> VariantDecision {
        let decided = |variant: &str, how: How, message: String| VariantDecision {
            variant: Some(variant.to_string()),
            how,
            message,
            alternatives: Vec::new(),
        };
        let refused = |how: How, message: String| VariantDecision {
            variant: None,
            how,
            message,
            alternatives: Vec::new(),
        };
        let tagged = game.tag("Variant").map(str::trim);
        if let Some(value) = tagged {
            if let Some(v) = self.named(value) {
                let message = format!("{} (Variant tag `{}`)", v.id, quoted(value));
                return decided(
                    &v.id,
                    How::Tag {
                        value: value.into(),
                    },
                    message,
                );
            }
        }
        if let Some(value) = game.tag("GameType").map(str::trim) {
            return match self.game_type(value) {
                Ok((id, notes)) => {
                    let notes: String = notes.iter().map(|n| format!("; {n}")).collect();
                    let message = format!("{id} (GameType `{}`{notes})", quoted(value));
                    decided(
                        &id,
                        How::GameType {
                            value: value.into(),
                        },
                        message,
                    )
                }
                Err(message) => refused(How::Unsupported, message),
            };
        }
        if let Some(value) = tagged {
            if !GENERIC_VARIANT_TAGS.contains(&value.to_ascii_lowercase().as_str()) {
                let message = format!("Variant `{}` is not a variant Damspel has", quoted(value));
                return refused(How::Unsupported, message);
            }
        }
        if let Some(choice) = choice {
            return match self.catalogue.get(choice) {
                Ok(v) => decided(&v.id, How::Chosen, format!("{} (chosen)", v.id)),
                Err(e) => refused(How::Unknown, e.to_string()),
            };
        }
        self.infer(game)
    }

    /// The variant a Variant tag names: an id or alias of the catalogue, in any case, with
    /// spaces or underscores for hyphens (lidraughts writes `Russian`, others `English
    /// draughts`), or one of several names a slash separates (PlayStrategy's
    /// `American/English`).
    fn named(&self, value: &str) -> Option<Variant> {
        let forms = |name: &str| {
            let lower = name.trim().to_lowercase();
            let hyphens = lower.replace([' ', '_'], "-");
            [name.trim().to_string(), lower, hyphens]
        };
        std::iter::once(value)
            .chain(value.split('/'))
            .flat_map(forms)
            .find_map(|name| self.catalogue.get(&name).ok())
    }

    /// The variant a GameType names, with what the full form says that Damspel does not follow
    /// (said, not refused: real files declare a numbering they do not use), or why it cannot be
    /// played.
    fn game_type(&self, value: &str) -> Result<(String, Vec<String>), String> {
        let fields: Vec<&str> = value.split(',').map(str::trim).collect();
        let Ok(number) = fields[0].parse::<u32>() else {
            return Err(format!(
                "GameType `{}` is not a PDN game type",
                quoted(value)
            ));
        };
        let Some(&(_, name, id)) = GAME_TYPES.iter().find(|(n, _, _)| *n == number) else {
            return Err(format!(
                "GameType {number} is not a PDN game type Damspel knows"
            ));
        };
        let Some(v) = id.and_then(|id| self.catalogue.get(id).ok()) else {
            return Err(format!("GameType {number} ({name}) is not supported"));
        };
        // The full form's board must be the variant's: `20,W,8,8,...` is not International.
        if let (Some(w), Some(h)) = (fields.get(2), fields.get(3)) {
            let (gw, gh) = (
                v.geometry.width().to_string(),
                v.geometry.height().to_string(),
            );
            if (*w, *h) != (gw.as_str(), gh.as_str()) {
                return Err(format!(
                    "GameType `{}` describes a {}x{} board, but {name} is played on {gw}x{gh}",
                    quoted(value),
                    quoted(w),
                    quoted(h)
                ));
            }
        }
        Ok((v.id.clone(), game_type_notes(&v, &fields)))
    }

    /// Replays the game under every variant whose board holds its squares.
    fn infer(&mut self, game: &PdnRead) -> VariantDecision {
        let evidence = Evidence::of(game);
        let boards: Vec<Variant> = self
            .variants
            .iter()
            .filter(|v| evidence.fits(v))
            .cloned()
            .collect();
        let plies = game.moves.len();
        let mut fit = Vec::new();
        let mut farthest: Option<(String, String)> = None;
        let mut best = 0;
        for v in &boards {
            let compiled = self.compiled.entry(v.id.clone()).or_insert_with(|| {
                AnyRules::new(v.clone()).expect("a catalogue's boards have at most 128 squares")
            });
            let (played, error) = on_rules!(compiled, |rules| {
                let r = replay_until(game, rules, self.until);
                (r.plies.len(), r.error)
            });
            match error {
                None => fit.push(v.id.clone()),
                Some(e) if farthest.is_none() || played > best => {
                    best = played;
                    farthest = Some((v.id.clone(), e.to_string()));
                }
                Some(_) => {}
            }
        }
        // The smallest board that holds the squares and replays the game: numbers up to 32 are
        // an 8x8 board, even though a 10x10 one holds them too.
        let size = |id: &String| {
            self.variants
                .iter()
                .find(|v| &v.id == id)
                .map_or(usize::MAX, |v| v.geometry.len())
        };
        if let Some(smallest) = fit.iter().map(size).min() {
            fit.retain(|id| size(id) == smallest);
        }
        let board = board_words(&evidence);
        let refused = |message: String| VariantDecision {
            variant: None,
            how: How::Unknown,
            message,
            alternatives: Vec::new(),
        };
        if boards.is_empty() {
            return refused(format!("no variant of Damspel has a board for {board}"));
        }
        // The others that replay the game are named, in the message and for the caller.
        let inferred = |id: &str, why: String, fit: &[String]| {
            let alternatives: Vec<String> = fit.iter().filter(|f| *f != id).cloned().collect();
            let also = if alternatives.is_empty() {
                String::new()
            } else {
                format!(
                    "; all {plies} moves also replay under {}",
                    alternatives.join(", ")
                )
            };
            VariantDecision {
                variant: Some(id.to_string()),
                how: How::Inferred,
                message: format!("{id} (inferred: {why}{also})"),
                alternatives,
            }
        };
        match fit.len() {
            0 => refused(match farthest {
                Some((id, e)) => format!(
                    "no variant replays this game ({board}); it goes farthest under {id}, to \
                     {e}"
                ),
                None => format!("no variant replays this game ({board})"),
            }),
            1 => inferred(
                &fit[0],
                format!(
                    "{board}; of the variants of such boards, only it replays all {plies} moves"
                ),
                &fit,
            ),
            _ => {
                // The conventions of the PDN standard: no GameType means International (20);
                // numbered 8x8 squares with Black moving first are checkers' notation (21).
                if fit.iter().any(|f| f == "international") {
                    let why = format!("{board}; no GameType tag means International (GameType 20)");
                    return inferred("international", why, &fit);
                }
                let black_first: Vec<&String> = fit
                    .iter()
                    .filter(|f| self.first_player(f) == Some(damspel_rules::Color::Black))
                    .collect();
                if black_first.len() == 1
                    && black_first[0] == "american"
                    && game.start_fen().is_none()
                {
                    let why = format!(
                        "{board}; Black moves first, as in checkers' notation (GameType 21)"
                    );
                    return inferred("american", why, &fit);
                }
                // Otherwise a game of the PDN standard's list, preferring those whose players
                // name the squares as the game does, then the most played (the list's order):
                // checkers' numbered problem files are American, algebraic 8x8 files Russian.
                // Where the moves replay alike, so does the game; the others are named for the
                // caller.
                let rank = |id: &String| GAME_TYPES.iter().position(|(_, _, v)| *v == Some(id));
                let numbers = evidence.numbers();
                let named_so = |id: &String| {
                    numbers.is_none_or(|n| {
                        self.variants
                            .iter()
                            .find(|v| &v.id == id)
                            .is_some_and(|v| v.geometry.numeric_names() == n)
                    })
                };
                fit.sort_by_key(|id| {
                    let rank = rank(id);
                    (rank.is_none(), !named_so(id), rank, id.clone())
                });
                if let Some(rank) = rank(&fit[0]) {
                    let (number, name, _) = GAME_TYPES[rank];
                    let names = match numbers {
                        Some(true) => " that number the squares",
                        Some(false) => " that name the squares algebraically",
                        None => "",
                    };
                    let names = if named_so(&fit[0]) { names } else { "" };
                    let why = format!(
                        "{board}; the most played of the variants{names} that fit, {name} \
                         (GameType {number})"
                    );
                    return inferred(&fit[0], why, &fit);
                }
                let message = format!(
                    "the variant cannot be told from the moves ({board}); all {plies} moves \
                     replay under {}: choose one",
                    fit.join(", ")
                );
                VariantDecision {
                    variant: None,
                    how: How::Ambiguous { candidates: fit },
                    message,
                    alternatives: Vec::new(),
                }
            }
        }
    }

    fn first_player(&self, id: &str) -> Option<damspel_rules::Color> {
        self.variants
            .iter()
            .find(|v| v.id == id)
            .map(|v| v.first_player)
    }
}

/// The board evidence in words.
fn board_words(e: &Evidence) -> String {
    if e.max_number > 0 {
        format!("numbered squares up to {}", e.max_number)
    } else if e.max_rank > 0 {
        let kind = if e.light {
            "all squares"
        } else {
            "dark squares"
        };
        format!(
            "algebraic squares up to {}{} on {kind}",
            (b'a' + e.max_file as u8) as char,
            e.max_rank
        )
    } else {
        "no squares".to_string()
    }
}
