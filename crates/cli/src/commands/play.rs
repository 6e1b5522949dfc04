//! `damspel play ID [--time S | --depth D] [--level N] [--color white|black] [--fen FEN]`: a
//! game against the engine in the terminal.
//!
//! The human enters moves in the variant's notation (or as from and to squares) and commands
//! (`help` lists them); the engine shows its search on one status line, then its move. The board
//! is drawn from the human's side with the last move marked. End of input leaves the game.

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Result};
use damspel_engine::{Engine, Info, Level, Limits, Silent};
use damspel_notation::pdn::{write_result, GameResult, PdnGame};
use damspel_notation::{
    format_all, format_detail, full_path, parse_move, quoted, sort_for_reading, write_fen,
    MoveTextError,
};
use damspel_protocol::hub::stream::{self, Got};
use damspel_protocol::hub::MAX_LINE_LEN;
use damspel_rules::{
    with_rules, Bits, Catalogue, Color, Duplicates, Game, Move, MoveDetail, Outcome, Position,
    Rules,
};

use super::analyze::{limits, line_notation, score_text};
use crate::board_view::BoardView;
use crate::files::printable;

pub struct Args<'a> {
    pub id: &'a str,
    pub time: Option<f64>,
    pub depth: Option<u32>,
    /// The human's colour (default white).
    pub color: Option<&'a str>,
    pub fen: Option<&'a str>,
    /// Playing level (None: full strength).
    pub level: Option<Level>,
    /// Folder of endgame tables (default: the cache folder).
    pub tb_dir: Option<&'a std::path::Path>,
}

/// Seconds per engine move when neither --time nor --depth is given.
const DEFAULT_SECONDS: f64 = 2.0;

/// Transposition table of the engine, MiB.
const HASH_MB: usize = 64;

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    let human = match args.color {
        None => Color::White,
        Some(text) => parse_color(text)?,
    };
    if args.depth.is_some() && args.level.is_some_and(|l| l < Level::FULL) {
        // It would be ignored: a level below 8 searches to its own depth.
        bail!(
            "--depth is for level 8 (full strength); levels 1 to 7 search to depths of their own"
        );
    }
    let time = match (args.time, args.depth) {
        (None, None) => Some(DEFAULT_SECONDS),
        (time, _) => time,
    };
    let limits = limits(time, args.depth)?;
    let variant = catalogue.get(args.id)?;
    with_rules!(variant, |rules| play(Arc::new(rules), args, human, limits))
}

fn parse_color(text: &str) -> Result<Color> {
    match text.trim().to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        _ => bail!("--color must be white or black, not `{text}`"),
    }
}

fn play<B: Bits>(rules: Arc<Rules<B>>, args: &Args, human: Color, limits: Limits) -> Result<()> {
    let pos = super::position(&rules, args.fen)?;
    let game = Game::from_position(rules.clone(), pos);
    if let Some(outcome) = game.outcome() {
        bail!("the game is over in this position: {outcome}");
    }
    let strength = match (args.time, args.depth) {
        _ if args.level.is_some_and(|l| l < Level::FULL) => {
            format!("plays at level {} of 8", args.level.unwrap_or(Level::FULL))
        }
        (Some(t), Some(d)) => format!("thinks up to {} a move, at most depth {d}", seconds(t)),
        (None, Some(d)) => format!("searches to depth {d}"),
        (Some(t), None) => format!("thinks {} a move", seconds(t)),
        (None, None) => format!("thinks {} a move", seconds(DEFAULT_SECONDS)),
    };
    let strength = match args.level {
        Some(Level::FULL) => format!("plays at level 8 of 8 (full strength): it {strength}"),
        _ => strength,
    };
    let mut engine = Engine::new(rules.clone(), HASH_MB);
    // The tables play perfectly: only at full strength, not at the levels made to be beaten.
    if args.level.is_none_or(|l| l == Level::FULL) {
        engine.set_tablebase(super::tables(&rules, args.tb_dir)?);
    }
    let mut session = Session {
        level: args.level.unwrap_or(Level::FULL),
        seed: seed(),
        engine,
        rules,
        game,
        limits,
        human,
        view: BoardView {
            white_at_bottom: human == Color::White,
            color: BoardView::color_from_env(),
        },
        echo: !io::stdin().is_terminal(),
        terminal: io::stdout().is_terminal(),
        announced: false,
    };
    session.intro(&strength)?;
    session.run()
}

/// The seed of a game's draws at the low levels: the clock (each game differs).
fn seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn seconds(t: f64) -> String {
    format!("{t} s")
}

/// What a command asks the main loop to do next.
enum Next {
    Continue,
    Quit,
}

struct Session<B: Bits> {
    rules: Arc<Rules<B>>,
    game: Game<B>,
    engine: Engine<B>,
    limits: Limits,
    /// The engine's playing level, and the seed of its draws below level 8.
    level: Level,
    seed: u64,
    human: Color,
    view: BoardView,
    /// Input is not typed at a terminal: echo each line after the prompt, as a transcript.
    echo: bool,
    /// Output goes to a terminal: keep the engine's lines within its width.
    terminal: bool,
    /// The end of the game has been shown (reset by undo).
    announced: bool,
}

fn out() -> io::Stdout {
    io::stdout()
}

impl<B: Bits> Session<B> {
    fn intro(&self, strength: &str) -> Result<()> {
        let v = self.rules.variant();
        let engine = !self.human;
        let mut o = out();
        writeln!(
            o,
            "{}\nYou play {}; Damspel plays {} and {strength}.",
            v.name, self.human, engine
        )?;
        let example = self.example_move();
        writeln!(
            o,
            "Enter moves in the variant's notation{example}, or as from and to squares;\n\
             `help` lists the commands."
        )?;
        self.draw()
    }

    /// ", e.g. d3-d4": a move the human could play here if it were their turn (or a move of
    /// the board's notation).
    fn example_move(&self) -> String {
        let pos = self.game.position().with_side_to_move(self.human);
        let legal = self.rules.legal_moves_detailed(&pos, Duplicates::Merge);
        let g = &self.rules.variant().geometry;
        if let Some(d) = legal.first() {
            return format!(", e.g. {}", format_detail(g, d, &legal));
        }
        if g.numeric_names() {
            ", e.g. 32-28 or 28x19".to_string()
        } else {
            ", e.g. d3-d4 or d4xd6".to_string()
        }
    }

    fn run(&mut self) -> Result<()> {
        let stdin = io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        loop {
            match self.game.outcome() {
                Some(outcome) => {
                    if !self.announced {
                        self.announce(outcome)?;
                        self.announced = true;
                    }
                }
                None => {
                    self.announced = false;
                    if self.game.position().side_to_move() != self.human {
                        self.engine_move()?;
                        continue;
                    }
                }
            }
            self.prompt()?;
            // A line is read up to a bound: a file without line breaks (`< /dev/zero`) would
            // otherwise be held whole.
            let text = match stream::read_line(&mut input, &mut buf) {
                Got::Line(text) => text,
                Got::TooLong => {
                    stream::skip_line(&mut input, &mut buf);
                    writeln!(out())?;
                    writeln!(
                        out(),
                        "A line of more than {MAX_LINE_LEN} bytes: ignored. Type `help` for the \
                         commands."
                    )?;
                    continue;
                }
                Got::End => {
                    writeln!(out())?;
                    writeln!(out(), "End of input: goodbye.")?;
                    return Ok(());
                }
            };
            let line = text.trim();
            if self.echo {
                // The transcript shows what was typed; a long line (up to the bound) is cut,
                // and a control character (an escape sequence in a piped file) shown as `?`.
                writeln!(out(), "{}", printable(&quoted(line)))?;
            }
            if let Next::Quit = self.command(line)? {
                writeln!(out(), "Goodbye.")?;
                return Ok(());
            }
        }
    }

    fn prompt(&self) -> Result<()> {
        let mut o = out();
        if self.game.outcome().is_some() {
            write!(o, "game over> ")?;
        } else {
            let label = self.move_label(self.game.moves().len());
            write!(o, "{label} {}, your move> ", self.human)?;
        }
        o.flush()?;
        Ok(())
    }

    /// "12." or "12...": the number of the move at ply `index` of the game, as PDN writes it
    /// (the first player's moves get one dot).
    fn move_label(&self, index: usize) -> String {
        let first = self.rules.variant().first_player;
        let start = self.game.start().side_to_move();
        let mover = mover(start, index);
        let number = if start == first {
            1 + index / 2
        } else {
            1 + index.div_ceil(2)
        };
        if mover == first {
            format!("{number}.")
        } else {
            format!("{number}...")
        }
    }

    /// One line of input: a command or a move.
    fn command(&mut self, line: &str) -> Result<Next> {
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let word = word.to_lowercase();
        let no_argument = |name: &str| -> Result<bool> {
            if rest.is_empty() {
                Ok(true)
            } else {
                writeln!(out(), "`{name}` takes no argument.")?;
                Ok(false)
            }
        };
        match word.as_str() {
            "" => {}
            "help" | "?" => self.help()?,
            "quit" | "exit" | "q" => {
                if no_argument(&word)? {
                    return Ok(Next::Quit);
                }
            }
            "moves" => {
                if no_argument("moves")? {
                    self.list_moves()?
                }
            }
            "undo" => {
                if no_argument("undo")? {
                    self.undo()?
                }
            }
            "hint" => {
                if no_argument("hint")? {
                    self.hint()?
                }
            }
            "flip" => {
                if no_argument("flip")? {
                    self.view.white_at_bottom = !self.view.white_at_bottom;
                    self.draw()?
                }
            }
            "board" => {
                if no_argument("board")? {
                    self.draw()?
                }
            }
            "fen" => {
                if no_argument("fen")? {
                    let fen = write_fen(&self.rules.variant().geometry, self.game.position());
                    writeln!(out(), "{fen}")?
                }
            }
            "save" => self.save(rest)?,
            _ if word.chars().all(char::is_alphabetic) => {
                let text = format!(
                    "Unknown command `{}`. Enter a move{}, or one of: moves, hint, undo, \
                     flip, board, fen, save FILE, help, quit.",
                    quoted(&word),
                    self.example_move()
                );
                writeln!(out(), "{}", self.wrapped(&text))?;
            }
            _ => self.human_move(line)?,
        }
        Ok(Next::Continue)
    }

    fn help(&self) -> Result<()> {
        let g = &self.rules.variant().geometry;
        let notation = if g.numeric_names() {
            "Squares are numbered (see the diagram beside the board): 32-28 moves, 28x19
captures, and a capture may be written with its landing squares: 28x19x10."
        } else {
            "Squares are named a1, b1, ...: d3-d4 moves, d4xd6 captures, and a capture
may be written with its landing squares: d1xd3xb3xb1."
        };
        let text = format!(
            "Enter a move in the variant's notation.
{notation}
From and to squares alone (`d4 d6`, `d4d6`, `32 28`) will do when only one move
fits them; when two captures share them, write the full path.
Commands:
  moves       list the legal moves
  hint        ask Damspel for a move, with its score for you
  undo        take back your last move (and Damspel's reply)
  flip        turn the board around
  board       draw the board again
  fen         print the position in PDN FEN
  save FILE   write the game so far as PDN (with its start position)
  help        this text
  quit        leave the game (end of input, Ctrl-D, too)
Scores are in men (+1.00: a man ahead) for the side named; `win in N` and
`loss in N` count plies (single moves) to the end of the game."
        );
        writeln!(out(), "{text}")?;
        Ok(())
    }

    fn list_moves(&self) -> Result<()> {
        if let Some(outcome) = self.game.outcome() {
            writeln!(out(), "No moves: the game is over ({outcome}).")?;
            return Ok(());
        }
        let g = &self.rules.variant().geometry;
        let pos = self.game.position();
        let mut legal = self.rules.legal_moves_detailed(pos, Duplicates::Merge);
        sort_for_reading(g, &mut legal);
        let texts: Vec<String> = format_all(g, &legal);
        let capture = legal.iter().all(|d| d.mv.is_capture());
        let head = if capture {
            format!(
                "You must capture ({} way{}):",
                texts.len(),
                if texts.len() == 1 { "" } else { "s" }
            )
        } else {
            format!("Legal moves ({}):", texts.len())
        };
        writeln!(out(), "{}", wrap(&head, &texts, 78))?;
        Ok(())
    }

    /// Takes back moves until the human's last move is undone, so that it is their turn again.
    fn undo(&mut self) -> Result<()> {
        let start = self.game.start().side_to_move();
        let human_moved = (0..self.game.moves().len()).any(|i| mover(start, i) == self.human);
        if !human_moved {
            writeln!(out(), "Nothing to take back: you have not moved yet.")?;
            return Ok(());
        }
        let mut taken = Vec::new();
        while let Some(mv) = self.game.undo() {
            let mover = self.game.position().side_to_move();
            let text = self.describe(self.game.position(), &mv);
            taken.push(text);
            if mover == self.human {
                break;
            }
        }
        taken.reverse();
        writeln!(out(), "Taken back: {}.", taken.join(" "))?;
        self.draw()
    }

    fn hint(&mut self) -> Result<()> {
        if let Some(outcome) = self.game.outcome() {
            writeln!(out(), "No hint: the game is over ({outcome}).")?;
            return Ok(());
        }
        writeln!(out(), "Damspel is looking for a move for you...")?;
        let result = self.engine.search(&self.game, &self.limits, &mut Silent);
        let Some(best) = result.best else {
            writeln!(out(), "No hint: there is no legal move.")?;
            return Ok(());
        };
        let pos = self.game.position();
        let line = line_notation(&self.rules, pos, &[], &result.pv);
        writeln!(
            out(),
            "Hint: {}  (score {} for you, depth {})",
            self.describe(pos, &best),
            score_text(result.score.kind()),
            result.depth,
        )?;
        let width = if self.terminal { terminal_width() } else { 0 };
        writeln!(out(), "{}", fit("  expected line: ", &line, width))?;
        Ok(())
    }

    fn save(&self, path: &str) -> Result<()> {
        if path.is_empty() {
            writeln!(out(), "Usage: save FILE, e.g. save game.pdn")?;
            return Ok(());
        }
        let outcome = self.game.outcome();
        let name = |c: Color| {
            if c == self.human {
                "Player".to_string()
            } else {
                "Damspel".to_string()
            }
        };
        let pdn = PdnGame {
            rules: &self.rules,
            event: format!("damspel play {}", self.rules.variant().id),
            site: "damspel".into(),
            date: today(),
            round: "-".into(),
            white: name(Color::White),
            black: name(Color::Black),
            result: GameResult::from_outcome(outcome.as_ref()),
            start: *self.game.start(),
            moves: self.game.moves().to_vec(),
            extra: outcome
                .map(|o| vec![("Termination".to_string(), o.to_string())])
                .unwrap_or_default(),
        };
        match std::fs::write(path, pdn.to_pdn()) {
            Ok(()) => writeln!(
                out(),
                "Game saved to {} ({}).",
                printable(path),
                self.length()
            )?,
            Err(e) => writeln!(out(), "Cannot write {}: {e}", printable(&quoted(path)))?,
        }
        Ok(())
    }

    /// "3 moves, 5 plies": moves as PDN numbers them (a move is one of each side's).
    fn length(&self) -> String {
        let plies = self.game.moves().len();
        let moves = match plies {
            0 => 0,
            n => {
                let number = |label: String| {
                    label
                        .trim_end_matches('.')
                        .parse::<usize>()
                        .expect("a move number")
                };
                number(self.move_label(n - 1)) - number(self.move_label(0)) + 1
            }
        };
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        format!(
            "{}, {}",
            plural(moves, "move"),
            plural(plies, "ply").replace("plys", "plies")
        )
    }

    /// A move of the human, as typed.
    fn human_move(&mut self, text: &str) -> Result<()> {
        if let Some(outcome) = self.game.outcome() {
            writeln!(
                out(),
                "The game is over ({outcome}). You can undo, save FILE or quit."
            )?;
            return Ok(());
        }
        let pos = *self.game.position();
        let mv = match read_move(&self.rules, &pos, text) {
            Ok(mv) => mv,
            Err(e) => {
                let advice = match e {
                    MoveTextError::Syntax { .. } => {
                        " Type `moves` for the legal moves, `help` for the commands."
                    }
                    _ => "",
                };
                let message = e.to_string();
                let stop = if message.ends_with('.') { "" } else { "." };
                let text = format!("{message}{stop}{advice}");
                writeln!(out(), "{}", self.wrapped(&text))?;
                return Ok(());
            }
        };
        let label = self.move_label(self.game.moves().len());
        let description = self.describe(&pos, &mv);
        if !self.game.play(&mv) {
            // parse_move only returns legal moves, and the game is not over.
            writeln!(out(), "`{text}` cannot be played here.")?;
            return Ok(());
        }
        writeln!(out(), "You play {label} {description}")?;
        if self.game.outcome().is_some() {
            self.draw()?;
        }
        Ok(())
    }

    fn engine_move(&mut self) -> Result<()> {
        let pos = *self.game.position();
        let side = pos.side_to_move();
        let legal = self.rules.moves(&pos);
        let label = self.move_label(self.game.moves().len());
        let (mv, note) = if legal.len() == 1 {
            (legal[0], "  (the only legal move)".to_string())
        } else {
            // One status line, rewritten in place at a terminal (nothing when the output is a
            // file or a pipe): the move line below says what the search found.
            let rules = &self.rules;
            let terminal = self.terminal;
            let width = if terminal { terminal_width() } else { 0 };
            let mut report = |info: &Info<B>| {
                if !terminal {
                    return;
                }
                let pv = line_notation(rules, &pos, &legal, &info.pv);
                let head = format!(
                    "  thinking: depth {}  score {}  {:.1} s  ",
                    info.depth,
                    score_text(info.score.kind()),
                    info.elapsed.as_secs_f64()
                );
                let mut o = out();
                let _ = write!(o, "\r\x1b[2K{}", fit(&head, &pv, width));
                let _ = o.flush();
            };
            let result = self.level.choose(
                &mut self.engine,
                &self.game,
                &self.limits,
                self.seed,
                &mut report,
            );
            if terminal {
                write!(out(), "\r\x1b[2K")?;
            }
            let Some(best) = result.best else {
                bail!("the engine found no move in a position that has legal moves");
            };
            let note = format!(
                "  (score {} for {side}, depth {}, {:.1} s)",
                score_text(result.score.kind()),
                result.depth,
                result.elapsed.as_secs_f64()
            );
            (best, note)
        };
        let description = self.describe(&pos, &mv);
        if !self.game.play(&mv) {
            bail!("the engine chose an illegal move: {description}");
        }
        writeln!(out(), "Damspel plays {label} {description}{note}")?;
        self.draw()
    }

    /// A message broken between words to fit the terminal (unchanged when not a terminal).
    fn wrapped(&self, text: &str) -> String {
        if !self.terminal {
            return text.to_string();
        }
        let words: Vec<String> = text.split(' ').map(str::to_string).collect();
        let (first, rest) = words.split_first().expect("split gives one part at least");
        wrap(first, rest, terminal_width())
    }

    /// A move in notation, with its full path when it captures in several legs, and its
    /// crowning.
    fn describe(&self, pos: &Position<B>, mv: &Move<B>) -> String {
        let g = &self.rules.variant().geometry;
        let legal = self.rules.legal_moves_detailed(pos, Duplicates::Merge);
        let Some(detail) = legal.iter().find(|d| d.mv == *mv) else {
            return line_notation(&self.rules, pos, &[], &[*mv]).join("");
        };
        let text = format_detail(g, detail, &legal);
        let mut notes = Vec::new();
        let path = full_path(g, detail);
        if path != text {
            notes.push(path);
        }
        if mv.promotes() {
            notes.push("crowned".to_string());
        }
        if notes.is_empty() {
            text
        } else {
            format!("{text} ({})", notes.join("; "))
        }
    }

    /// The last move with its route, for marking the board.
    fn last_detail(&self) -> Option<MoveDetail<B>> {
        let mv = *self.game.moves().last()?;
        let before = self.game.positions().nth(self.game.moves().len() - 1)?;
        self.rules
            .legal_moves_detailed(before, Duplicates::Merge)
            .into_iter()
            .find(|d| d.mv == mv)
    }

    fn draw(&self) -> Result<()> {
        let g = &self.rules.variant().geometry;
        let pos = self.game.position();
        let last = self.last_detail();
        let mut o = out();
        writeln!(o)?;
        write!(o, "{}", self.view.render(g, pos, last.as_ref()))?;
        writeln!(o, "  {}", self.view.legend())?;
        let count = |c: Color| {
            let men = pos.men(c).count();
            let kings = pos.kings(c).count();
            let plural =
                |n: u32, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
            match (men, kings) {
                (0, 0) => "no pieces".to_string(),
                (m, 0) => plural(m, "man").replace("mans", "men"),
                (0, k) => plural(k, "king"),
                (m, k) => format!(
                    "{}, {}",
                    plural(m, "man").replace("mans", "men"),
                    plural(k, "king")
                ),
            }
        };
        let mut status = format!(
            "  white: {}   black: {}",
            count(Color::White),
            count(Color::Black)
        );
        if let Some(d) = &last {
            let index = self.game.moves().len() - 1;
            let before = self
                .game
                .positions()
                .nth(index)
                .expect("a position before each move");
            status.push_str(&format!(
                "\n  last move: {} {}",
                self.move_label(index),
                self.describe(before, &d.mv)
            ));
        }
        writeln!(o, "{status}")?;
        writeln!(o)?;
        Ok(())
    }

    fn announce(&self, outcome: Outcome) -> Result<()> {
        let verdict = match outcome {
            Outcome::Win { winner, .. } if winner == self.human => "You win!",
            Outcome::Win { .. } => "Damspel wins.",
            Outcome::Draw(_) => "A draw.",
        };
        // The result as the saved PDN writes it: `1-0` is Black's win in American checkers,
        // and International scores out of two.
        let result = write_result(
            self.rules.variant(),
            GameResult::from_outcome(Some(&outcome)),
        );
        let mut o = out();
        writeln!(o, "Game over: {outcome} ({result}). {verdict}")?;
        writeln!(
            o,
            "Type `save FILE` to keep the game, `undo` to take back your move, or `quit`."
        )?;
        Ok(())
    }
}

/// Who plays the move at ply `index` of a game whose start has `start` to move.
fn mover(start: Color, index: usize) -> Color {
    if index.is_multiple_of(2) {
        start
    } else {
        !start
    }
}

/// The legal move a text names: the variant's notation first, then the same squares written
/// another way (`d4 d6`, `d4d6`, `32 28`, `d1 d3 b3 b1`).
fn read_move<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
) -> Result<Move<B>, MoveTextError> {
    let first = match parse_move(rules, pos, text) {
        Ok(mv) => return Ok(mv),
        Err(e @ (MoveTextError::Illegal { .. } | MoveTextError::Ambiguous { .. })) => {
            return Err(e)
        }
        Err(e) => e,
    };
    let Some(alternative) = squares_only(text) else {
        return Err(first);
    };
    match parse_move(rules, pos, &alternative) {
        Ok(mv) => Ok(mv),
        Err(MoveTextError::Illegal { hint, .. }) => Err(MoveTextError::Illegal {
            text: text.trim().to_string(),
            hint,
        }),
        Err(MoveTextError::Ambiguous { candidates, .. }) => Err(MoveTextError::Ambiguous {
            text: text.trim().to_string(),
            candidates,
        }),
        // "a4 a9": the squares were read, so what is wrong with them beats "unexpected ` `".
        Err(e @ MoveTextError::Syntax { .. }) if text.trim().contains(char::is_whitespace) => {
            Err(e)
        }
        Err(MoveTextError::Syntax { .. }) => Err(first),
        Err(e @ MoveTextError::Stopped { .. }) => Err(e),
    }
}

/// The square names of a text with spaces or no separators (`d4 d6`, `d4d6`, `d1 x d3`),
/// rewritten in notation (`d4-d6`, `d1xd3`); None if it is not that.
fn squares_only(text: &str) -> Option<String> {
    let mut squares: Vec<String> = Vec::new();
    let mut capture = false;
    let mut chars = text.trim().chars().peekable();
    // Square names: a letter (a to p: boards are at most 16 wide, so never x) and digits, or
    // digits alone (numbered boards).
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() || c == '-' {
            chars.next();
        } else if matches!(c, 'x' | 'X' | ':') {
            capture = true;
            chars.next();
        } else if c.is_ascii_alphabetic() || c.is_ascii_digit() {
            let mut name = String::new();
            if c.is_ascii_alphabetic() {
                name.push(c);
                chars.next();
            }
            while let Some(&d) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                name.push(d);
                chars.next();
            }
            if name.len() < 2 && !name.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            squares.push(name);
        } else {
            return None;
        }
    }
    if squares.len() < 2 {
        return None;
    }
    let separator = if capture || squares.len() > 2 {
        "x"
    } else {
        "-"
    };
    let rewritten = squares.join(separator);
    (rewritten != text.trim()).then_some(rewritten)
}

/// `head` then `items` separated by spaces, wrapped at `width` with an indent of two.
fn wrap(head: &str, items: &[String], width: usize) -> String {
    let mut out = head.to_string();
    let mut line_len = out.len();
    for item in items {
        if line_len + 1 + item.len() > width {
            out.push_str("\n ");
            line_len = 1;
        }
        out.push(' ');
        out.push_str(item);
        line_len += 1 + item.len();
    }
    out
}

/// `head` and as much of the line `pv` as fits in `width` characters (all of it if width is 0).
fn fit(head: &str, pv: &[String], width: usize) -> String {
    let mut out = head.to_string();
    for (i, mv) in pv.iter().enumerate() {
        let more = i + 1 < pv.len();
        if width > 0 && out.len() + mv.len() + if more { 4 } else { 0 } > width {
            out.push_str("...");
            break;
        }
        out.push_str(mv);
        out.push(' ');
    }
    out.trim_end().to_string()
}

/// Columns of the terminal: $COLUMNS if set, otherwise 80.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|&c| c >= 40)
        .unwrap_or(80)
        - 1
}

/// Today's date as PDN writes it (YYYY.MM.DD), in UTC.
fn today() -> String {
    let Ok(since) = SystemTime::now().duration_since(UNIX_EPOCH) else {
        return "????.??.??".to_string();
    };
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = (since.as_secs() / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_only_rewrites_from_and_to() {
        assert_eq!(squares_only("d4 d6").as_deref(), Some("d4-d6"));
        assert_eq!(squares_only("d4d6").as_deref(), Some("d4-d6"));
        assert_eq!(squares_only("D4D6").as_deref(), Some("D4-D6"));
        assert_eq!(squares_only("32 28").as_deref(), Some("32-28"));
        assert_eq!(squares_only("d1 d3 b3 b1").as_deref(), Some("d1xd3xb3xb1"));
        assert_eq!(squares_only("d4 x d6").as_deref(), Some("d4xd6"));
        assert_eq!(squares_only("d4-d6"), None);
        assert_eq!(squares_only("3228"), None);
        assert_eq!(squares_only("d"), None);
        assert_eq!(squares_only("dé4 d6"), None);
        assert_eq!(squares_only("ab4 d6"), None);
    }

    #[test]
    fn the_pv_fits_the_width() {
        let pv: Vec<String> = (0..30).map(|i| format!("{i}-{i}")).collect();
        let line = fit("  depth 1  ", &pv, 40);
        assert!(line.len() <= 40 && line.ends_with("..."), "{line}");
        assert_eq!(fit("x ", &pv[..2], 0), "x 0-0 1-1");
    }
}
