//! `damspel pdn`: list, check and convert the games of a PDN file (any encoding, any number of
//! games). The library does the work (damspel_notation::pdn); this prints it.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::{Subcommand, ValueEnum};
use damspel_notation::pdn::{
    read_file, read_result, replay, write_movetext, GameResult, Item, PdnFile, PdnGame, PdnRead,
    Replay, VariantDecider, VariantDecision, MAX_FILE_LEN,
};
use damspel_notation::write_fen;
use damspel_rules::{on_rules, AnyRules, Bits, Catalogue, Move, Rules, SquareNames};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::{json, Value};

use crate::files::printable;

#[derive(Subcommand)]
pub enum Action {
    /// One line per game: number, White, Black, Event, Date, Result, moves, and the variant
    /// with how it was decided (tag, GameType, chosen, inferred, ambiguous, unsupported).
    List {
        /// The PDN file (UTF-8, CP1251 or CP1252/Latin-1; the encoding is detected).
        file: PathBuf,
        /// The variant of games whose tags do not say (Variant or GameType tags win).
        #[arg(long)]
        variant: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Replay every game's main line to its end; name the first error of each game that fails.
    /// Draws a player could have claimed (repetition, move limits) are noted, not errors.
    /// Exits non-zero if any game cannot be read, has no variant, or does not replay.
    Check {
        /// The PDN file (UTF-8, CP1251 or CP1252/Latin-1; the encoding is detected).
        file: PathBuf,
        /// The variant of games whose tags do not say (Variant or GameType tags win).
        #[arg(long)]
        variant: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Convert every game: `fen` (the FEN of every position of the main line), `json` (tags,
    /// moves, result, the move tree, the variant decision, the replay) or `pdn` (re-written by
    /// Damspel's writer in the variant's notation). Exits non-zero if any game fails.
    Convert {
        /// The PDN file (UTF-8, CP1251 or CP1252/Latin-1; the encoding is detected).
        file: PathBuf,
        /// What to write: every position's FEN, JSON, or PDN in Damspel's writing.
        #[arg(long, value_enum)]
        to: Format,
        /// The variant of games whose tags do not say (Variant or GameType tags win).
        #[arg(long)]
        variant: Option<String>,
        /// Write squares as FMJD numbers or algebraically (`c3-d4`) instead of in the variant's
        /// own notation (numbers only on boards of dark squares).
        #[arg(long, value_enum)]
        notation: Option<Notation>,
    },
}

/// Square names to write, whatever the variant's own.
#[derive(Clone, Copy, ValueEnum)]
pub enum Notation {
    Numbers,
    Algebraic,
}

impl From<Notation> for SquareNames {
    fn from(n: Notation) -> SquareNames {
        match n {
            Notation::Numbers => SquareNames::Numbers,
            Notation::Algebraic => SquareNames::Algebraic,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Fen,
    Json,
    Pdn,
}

pub fn run(catalogue: &Catalogue, action: Action) -> Result<()> {
    match action {
        Action::List {
            file,
            variant,
            json,
        } => list(catalogue, &file, variant.as_deref(), json),
        Action::Check {
            file,
            variant,
            json,
        } => check(catalogue, &file, variant.as_deref(), json),
        Action::Convert {
            file,
            to,
            variant,
            notation,
        } => convert(catalogue, &file, variant.as_deref(), to, notation),
    }
}

/// A PDN file read from disk, refused past the reader's size limit.
pub(crate) fn load(path: &Path) -> Result<PdnFile> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    if size > MAX_FILE_LEN as u64 {
        bail!(
            "{} has {size} bytes; at most {MAX_FILE_LEN} are read",
            path.display()
        );
    }
    let bytes = crate::files::read(path, MAX_FILE_LEN, "PDN file")?;
    Ok(read_file(&bytes)?)
}

struct Games<'a> {
    catalogue: &'a Catalogue,
    decider: VariantDecider,
    /// The rules of the variants met, compiled once.
    rules: HashMap<String, AnyRules>,
    choice: Option<&'a str>,
    /// Square names to write instead of each variant's own.
    names: Option<SquareNames>,
}

impl<'a> Games<'a> {
    fn new(catalogue: &'a Catalogue, choice: Option<&'a str>) -> Result<Games<'a>> {
        if let Some(id) = choice {
            catalogue.get(id)?;
        }
        Ok(Games {
            catalogue,
            decider: VariantDecider::new(catalogue.clone()),
            rules: HashMap::new(),
            choice,
            names: None,
        })
    }

    fn decide(&mut self, game: &PdnRead) -> VariantDecision {
        self.decider.decide(game, self.choice)
    }

    fn rules(&mut self, id: &str) -> Result<&AnyRules> {
        if !self.rules.contains_key(id) {
            let mut v = self.catalogue.get(id)?;
            if let Some(names) = self.names {
                // Variants are data: the same rules with other names for the squares.
                v.geometry =
                    v.geometry.clone().with_names(names).map_err(|e| {
                        anyhow::anyhow!("{id} cannot be written in that notation: {e}")
                    })?;
            }
            self.rules.insert(id.to_string(), AnyRules::new(v)?);
        }
        Ok(&self.rules[id])
    }
}

/// A progress bar on a terminal, for files of many games.
fn progress(games: usize) -> ProgressBar {
    if games < 200 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(games as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} games {eta}") {
        bar.set_style(style);
    }
    bar
}

fn tag<'g>(game: &'g PdnRead, name: &str) -> &'g str {
    game.tag(name).unwrap_or("")
}

#[derive(Serialize)]
struct ListRow<'g> {
    number: usize,
    line: usize,
    white: &'g str,
    black: &'g str,
    event: &'g str,
    date: &'g str,
    result: &'g str,
    moves: usize,
    variant: VariantDecision,
}

fn list(catalogue: &Catalogue, path: &Path, choice: Option<&str>, json: bool) -> Result<()> {
    let file = load(path)?;
    let mut games = Games::new(catalogue, choice)?;
    let bar = progress(file.games.len());
    let rows: Vec<ListRow> = file
        .games
        .iter()
        .map(|g| {
            bar.inc(1);
            ListRow {
                number: g.number,
                line: g.line,
                white: tag(g, "White"),
                black: tag(g, "Black"),
                event: tag(g, "Event"),
                date: tag(g, "Date"),
                result: g.result.as_deref().unwrap_or(tag(g, "Result")),
                moves: g.moves.len(),
                variant: games.decide(g),
            }
        })
        .collect();
    bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    if json {
        let value = json!({
            "encoding": file.encoding,
            "games": rows,
            "errors": file.errors,
            "stopped": file.stopped,
        });
        writeln!(out, "{}", crate::files::json_text(&value)?)?;
        return Ok(());
    }
    let encoding = file.encoding.map_or("?", |e| e.label());
    writeln!(
        out,
        "{}: {} games ({} unreadable), {encoding}",
        printable(&path.display().to_string()),
        file.count(),
        file.errors.len()
    )?;
    writeln!(out, "#\tWhite\tBlack\tEvent\tDate\tResult\tMoves\tVariant")?;
    let unreadable = |e: &damspel_notation::pdn::GameError| {
        format!("{}\tunreadable: {}", e.number, printable(&e.to_string()))
    };
    let mut errors = file.errors.iter().peekable();
    for row in &rows {
        while let Some(e) = errors.next_if(|e| e.number < row.number) {
            writeln!(out, "{}", unreadable(e))?;
        }
        // The file's text, each column cleaned: a tab in a tag would shift the columns.
        let text = [
            row.white,
            row.black,
            row.event,
            row.date,
            row.result,
            &row.variant.message,
        ]
        .map(printable);
        writeln!(
            out,
            "{}\t{}\t{}\t{}",
            row.number,
            text[..5].join("\t"),
            row.moves,
            text[5]
        )?;
    }
    for e in errors {
        writeln!(out, "{}", unreadable(e))?;
    }
    if let Some(stopped) = &file.stopped {
        writeln!(out, "{}", printable(stopped))?;
    }
    Ok(())
}

/// What a replay says, for printing.
#[derive(Serialize)]
struct Checked {
    number: usize,
    label: String,
    variant: VariantDecision,
    plies: usize,
    claims: Vec<damspel_notation::pdn::Claim>,
    error: Option<String>,
    /// The FEN of every position of the main line (only for `convert --to fen|json`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fens: Vec<String>,
    /// The Result tag and the result ending the move text, where they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    results_differ: Option<(String, String)>,
}

fn summarise<B: Bits>(rules: &Rules<B>, r: &Replay<B>, fens: bool, out: &mut Checked) {
    out.plies = r.plies.len();
    out.claims = r.claims.clone();
    out.error = r.error.as_ref().map(|e| e.to_string());
    if fens {
        let g = &rules.variant().geometry;
        out.fens = r.positions().map(|p| write_fen(g, p)).collect();
    }
}

/// Decides and replays one game.
fn replay_game(games: &mut Games, game: &PdnRead, fens: bool) -> Checked {
    let variant = games.decide(game);
    let mut checked = Checked {
        number: game.number,
        label: game.label(),
        variant: variant.clone(),
        plies: 0,
        claims: Vec::new(),
        error: None,
        fens: Vec::new(),
        results_differ: match (game.tag("Result").map(str::trim), game.result.as_deref()) {
            (Some(tag), Some(text)) if !tag.is_empty() && tag != text.trim() => {
                Some((tag.to_string(), text.trim().to_string()))
            }
            _ => None,
        },
    };
    let Some(id) = &variant.variant else {
        checked.error = Some(variant.message.clone());
        return checked;
    };
    match games.rules(id) {
        Err(e) => checked.error = Some(e.to_string()),
        Ok(any) => on_rules!(any, |rules| summarise(
            rules,
            &replay(game, rules),
            fens,
            &mut checked
        )),
    }
    checked
}

fn check(catalogue: &Catalogue, path: &Path, choice: Option<&str>, json: bool) -> Result<()> {
    let file = load(path)?;
    let mut games = Games::new(catalogue, choice)?;
    let bar = progress(file.games.len());
    let checked: Vec<Checked> = file
        .games
        .iter()
        .map(|g| {
            bar.inc(1);
            replay_game(&mut games, g, false)
        })
        .collect();
    bar.finish_and_clear();
    let failed = checked.iter().filter(|c| c.error.is_some()).count();
    let mut out = std::io::stdout().lock();
    if json {
        let value = json!({
            "encoding": file.encoding,
            "games": checked,
            "errors": file.errors,
            "stopped": file.stopped,
        });
        writeln!(out, "{}", crate::files::json_text(&value)?)?;
    } else {
        // Each line is the file's text (tags, moves, errors quoting them) as a terminal shows it.
        let mut errors = file.errors.iter().peekable();
        for c in &checked {
            while let Some(e) = errors.next_if(|e| e.number < c.number) {
                writeln!(out, "{}", printable(&e.to_string()))?;
            }
            let name = if c.label.is_empty() {
                format!("game {}", c.number)
            } else {
                format!("game {} ({})", c.number, c.label)
            };
            let line = match &c.error {
                // The variant decided, and what its GameType says that was not followed.
                Some(e) if c.variant.variant.is_some() => {
                    format!("{name}: FAILED: {e} ({})", c.variant.message)
                }
                Some(e) => format!("{name}: FAILED: {e}"),
                None => {
                    let mut line = format!("{name}: ok, {} plies, {}", c.plies, c.variant.message);
                    for claim in &c.claims {
                        let on = if claim.ply < c.plies {
                            " (played on)"
                        } else {
                            ""
                        };
                        line.push_str(&format!("; {} after ply {}{on}", claim.reason, claim.ply));
                    }
                    if let Some((tag, text)) = &c.results_differ {
                        line.push_str(&format!(
                            "; its Result tag says `{tag}`, its move text ends `{text}`"
                        ));
                    }
                    line
                }
            };
            writeln!(out, "{}", printable(&line))?;
        }
        for e in errors {
            writeln!(out, "{}", printable(&e.to_string()))?;
        }
        writeln!(
            out,
            "{}: {} games: {} replayed to their end, {failed} failed, {} unreadable{}",
            printable(&path.display().to_string()),
            file.count(),
            checked.len() - failed,
            file.errors.len(),
            file.stopped
                .as_deref()
                .map_or(String::new(), |s| format!("; {}", printable(s)))
        )?;
    }
    if failed + file.errors.len() > 0 || file.stopped.is_some() {
        bail!(
            "{} of {} games failed",
            failed + file.errors.len(),
            file.count()
        );
    }
    Ok(())
}

fn convert(
    catalogue: &Catalogue,
    path: &Path,
    choice: Option<&str>,
    to: Format,
    notation: Option<Notation>,
) -> Result<()> {
    let file = load(path)?;
    let mut games = Games::new(catalogue, choice)?;
    games.names = notation.map(SquareNames::from);
    let mut out = std::io::stdout().lock();
    let mut failed = file.errors.len();
    for e in &file.errors {
        eprintln!("damspel: {}", printable(&e.to_string()));
    }
    let mut values: Vec<Value> = Vec::new();
    for game in &file.games {
        let checked = replay_game(&mut games, game, !matches!(to, Format::Pdn));
        if let Some(e) = &checked.error {
            failed += 1;
            eprintln!("damspel: game {}: {}", game.number, printable(e));
        }
        match to {
            Format::Fen => {
                writeln!(out, "# game {} {}", game.number, printable(&checked.label))?;
                for fen in &checked.fens {
                    writeln!(out, "{fen}")?;
                }
            }
            Format::Json => values.push(json!({
                "number": game.number,
                "line": game.line,
                "tags": game.tags,
                "moves": game.moves,
                "result": game.result,
                "tree": game.tree,
                "variant": checked.variant,
                "replay": checked,
            })),
            Format::Pdn => {
                // A position set up with no move after it has no start to write (the writer
                // takes the position before the first move for it).
                let items = &game.tree.items;
                let set_up = !items.iter().any(|item| matches!(item, Item::Move(_)))
                    && items.iter().any(|item| matches!(item, Item::Setup { .. }));
                if set_up && checked.error.is_none() {
                    failed += 1;
                    eprintln!(
                        "damspel: game {}: a position is set up with no move after it (/FEN/): \
                         not converted",
                        game.number
                    );
                } else if checked.error.is_none() {
                    if let Some((tag, text)) = &checked.results_differ {
                        eprintln!(
                            "damspel: game {}: its Result tag says `{}`, its move text ends \
                             `{}`: the move text's is written",
                            game.number,
                            printable(tag),
                            printable(text)
                        );
                    }
                    let id = checked.variant.variant.clone().unwrap_or_default();
                    let text = on_rules!(games.rules(&id)?, |rules| rewrite(rules, game));
                    write!(out, "{text}")?;
                }
            }
        }
    }
    if let Format::Json = to {
        let value = json!({ "encoding": file.encoding, "games": values, "errors": file.errors });
        writeln!(out, "{}", crate::files::json_text(&value)?)?;
    }
    if failed > 0 {
        bail!("{failed} of {} games failed", file.count());
    }
    Ok(())
}

/// A game written again by Damspel's PDN writer: the roster, the other tags, the moves in the
/// variant's notation with the comments, NAGs and variations read.
fn rewrite<B: Bits>(rules: &Arc<Rules<B>>, game: &PdnRead) -> String {
    let r = replay(game, rules);
    // A position set up before the first move (`/FEN "..."/`) is where the moves start.
    let start = r.plies.first().map_or(r.start, |p| p.before);
    let moves: Vec<Move<B>> = r.plies.iter().map(|p| p.mv).collect();
    let text = write_movetext(rules, &start, &game.tree, &moves);
    let roster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
    let skip = ["Variant", "GameType", "FEN", "SetUp"];
    let extra = game
        .tags
        .iter()
        .filter(|(n, _)| {
            !roster
                .iter()
                .chain(&skip)
                .any(|r| r.eq_ignore_ascii_case(n))
        })
        .cloned()
        .collect();
    let get = |name: &str| game.tag(name).unwrap_or("?").to_string();
    // Read in the variant's own result convention (CheckerBoard's for American); one that no
    // convention reads (`0-0`, `4-6`) is written as it stands, not as `*`.
    let written = game.result.as_deref().or_else(|| game.tag("Result"));
    let result = written.and_then(|text| read_result(rules.variant(), text));
    let pdn = PdnGame {
        rules,
        event: get("Event"),
        site: get("Site"),
        date: get("Date"),
        round: get("Round"),
        white: get("White"),
        black: get("Black"),
        result: result.unwrap_or(GameResult::Unfinished),
        start,
        moves,
        extra,
    };
    match (result, written) {
        (None, Some(kept)) => {
            let token = game.result.as_deref().unwrap_or("*");
            pdn.to_pdn_with_result(&text, kept, token)
        }
        _ => pdn.to_pdn_with(&text),
    }
}
