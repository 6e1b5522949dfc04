//! A game's PDN: a recorded game's lines grafted onto the tree on import, and the move text
//! written for export (numbers, comments, NAGs, variations, the clock's `[%clk]`).

use super::*;

impl<B: Bits> GameSession<B> {
    /// Adds one line of a recorded game after node `at`. `main`: its moves are already played
    /// (the main line), so only its variations and notes are added.
    pub(super) fn graft_line(
        &mut self,
        mut at: usize,
        line: &Line,
        main: bool,
        skipped: &mut Vec<String>,
        deadline: Instant,
    ) {
        let mut pre: Option<String> = None;
        let mut moved = false;
        for item in &line.items {
            match item {
                Item::Move(m) => {
                    let node = if main {
                        self.tree.node(at).children.first().copied()
                    } else {
                        match self.play_as(at, &m.text, true, deadline) {
                            Ok(n) => Some(n),
                            Err(e) => {
                                skipped.push(format!(
                                    "a variation from `{}` on: {}",
                                    damspel_rules::quoted(&m.text),
                                    e.message
                                ));
                                None
                            }
                        }
                    };
                    let Some(node) = node else { return };
                    for v in &m.variations {
                        self.graft_line(at, v, false, skipped, deadline);
                    }
                    let n = self.tree.node_mut(node);
                    if let Some(p) = pre.take() {
                        n.pre = Some(p);
                    }
                    for nag in m.strength.iter().chain(&m.nags) {
                        keep_nag(&mut n.nags, nag, &m.text, skipped);
                    }
                    at = node;
                    moved = true;
                }
                Item::Comment { text } => {
                    let slot = if moved || (main && at == 0) {
                        &mut self.tree.node_mut(at).comment
                    } else {
                        &mut pre
                    };
                    // Comments of one place are joined; what would make the whole too long for
                    // a comment (which the game could not be read back with) is left out.
                    let joined = match slot.as_deref() {
                        Some(before) => format!("{before} {text}"),
                        None => text.clone(),
                    };
                    match check_comment(&joined) {
                        Ok(Some(whole)) => *slot = Some(whole),
                        Ok(None) => {}
                        Err(why) => {
                            skipped.push(format!("a comment of {} bytes ({why})", text.len()))
                        }
                    }
                }
                Item::Nag { nag } => {
                    if at != 0 {
                        let n = self.tree.node_mut(at);
                        let after =
                            n.mv.as_ref()
                                .map_or(String::new(), |(_, s)| s.notation.clone());
                        keep_nag(&mut n.nags, nag, &after, skipped);
                    }
                }
                // The start's setup was read by the import; one inside a line is a study
                // diagram, not a move.
                Item::Setup { fen } => {
                    if moved || !main {
                        skipped.push(format!("a position set up inside a line (/FEN \"{fen}\"/)"));
                        return;
                    }
                }
            }
        }
    }

    /// The time the mover of main-line ply `ply` (1-based) had left after it, as h:mm:ss.
    fn clock_left(&self, ply: usize) -> Option<ClockText> {
        let clock = self.meta.play.clock.as_ref()?;
        let left = clock.after.get(ply - 1)?;
        let white_moved =
            (ply - 1).is_multiple_of(2) == (self.game.start().side_to_move() == Color::White);
        let ms = if white_moved { left[0] } else { left[1] };
        Some(ClockText((ms.max(0) / 1000) as u64))
    }

    /// The game's PDN: its tags and result, with `movetext`.
    pub(super) fn pdn_with(&self, movetext: &str) -> String {
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
        // This game's own ending and clock come first: the writer keeps the first of a repeated
        // tag, and an imported game's Termination or TimeControl is no longer this game's.
        let mut extra: Vec<(String, String)> = Vec::new();
        // The result is the main line's, whichever node is shown.
        let mut main = self.clone();
        let _ = main.go(self.tree.main_end());
        // (A result recorded by an imported PDN keeps the file's own Termination, if any.)
        let recorded = self
            .meta
            .play
            .ending
            .as_ref()
            .is_some_and(|e| e.how == crate::friend::How::Recorded);
        if let Some(o) = main.outcome_json().filter(|_| !recorded) {
            extra.push(("Termination".to_string(), o.reason));
        }
        if let Some(clock) = &self.meta.play.clock {
            // PGN's form, which PDN readers take too: seconds, "+", the increment.
            let seconds = |ms: u64| {
                if ms.is_multiple_of(1000) {
                    (ms / 1000).to_string()
                } else {
                    format!("{:.3}", ms as f64 / 1000.0)
                }
            };
            extra.push((
                "TimeControl".to_string(),
                format!(
                    "{}+{}",
                    seconds(clock.initial_ms),
                    seconds(clock.increment_ms)
                ),
            ));
        }
        extra.extend(
            tags.iter()
                .filter(|(n, _)| !WRITTEN.iter().any(|w| w.eq_ignore_ascii_case(n)))
                .cloned(),
        );
        let result = match &self.meta.play.ending {
            Some(end) => end.game_result(),
            None => GameResult::from_outcome(main.game.outcome().as_ref()),
        };
        let game = PdnGame {
            rules: main.game.rules(),
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
            result,
            start: *main.game.start(),
            moves: Vec::new(),
            extra,
        };
        // The writer gives the tags and the result; the move text, with its variations and
        // comments, is written here.
        game.to_pdn_with(movetext)
    }

    /// The main line's move text, numbered, and nothing else.
    pub(super) fn main_movetext(&self) -> String {
        let first = self.game.rules().variant().first_player;
        let offset = usize::from(self.game.start().side_to_move() != first);
        let mut out = String::new();
        for (i, node) in self.tree.continuation(0).into_iter().enumerate() {
            let k = i + offset;
            if k.is_multiple_of(2) {
                out.push_str(&format!("{}. ", k / 2 + 1));
            } else if i == 0 {
                out.push_str(&format!("{}... ", k / 2 + 1));
            }
            let (_, shown) = self.tree.node(node).mv.as_ref().expect("a move node");
            out.push_str(&shown.notation);
            out.push(' ');
        }
        out
    }

    /// The move text of every line from the start, numbered, with comments, NAGs and
    /// variations in parentheses.
    pub(super) fn movetext(&self) -> String {
        let first = self.game.rules().variant().first_player;
        let offset = usize::from(self.game.start().side_to_move() != first);
        let mut out = String::new();
        if let Some(c) = &self.tree.node(0).comment {
            out.push_str(&format!("{{{c}}} "));
        }
        if let Some(&start) = self.tree.node(0).children.first() {
            self.write_line(start, 1, offset, true, &mut out);
        }
        out
    }

    /// Writes the line that starts with node `node` at ply `ply` (1-based). `main`: the main
    /// line, whose first move's variations are written here (a variation's first move's
    /// siblings are written by the line it branches from).
    fn write_line(
        &self,
        mut node: usize,
        mut ply: usize,
        offset: usize,
        main: bool,
        out: &mut String,
    ) {
        let mut number_next = true;
        let mut first = true;
        loop {
            let n = self.tree.node(node);
            if let Some(p) = &n.pre {
                out.push_str(&format!("{{{p}}} "));
                number_next = true;
            }
            let k = ply - 1 + offset;
            let number = k / 2 + 1;
            let (_, shown) = n.mv.as_ref().expect("a move node");
            if k.is_multiple_of(2) {
                out.push_str(&format!("{number}. "));
            } else if number_next {
                out.push_str(&format!("{number}... "));
            }
            out.push_str(&shown.notation);
            // The strength mark against the move, then the NAGs (rows stored before marks were
            // put first may have them the other way round).
            let (marks, nags): (Vec<&String>, Vec<&String>) =
                n.nags.iter().partition(|t| is_strength_mark(t));
            for mark in marks {
                out.push_str(mark);
            }
            for nag in nags {
                out.push(' ');
                out.push_str(nag);
            }
            out.push(' ');
            number_next = false;
            // The main line's moves carry the mover's time left (`[%clk h:mm:ss]`, as lichess and
            // PGN readers write it) where the game had a clock.
            let clock = if main { self.clock_left(ply) } else { None };
            match (clock, &n.comment) {
                (Some(t), Some(c)) => out.push_str(&format!("{{[%clk {t}] {c}}} ")),
                (Some(t), None) => out.push_str(&format!("{{[%clk {t}]}} ")),
                (None, Some(c)) => out.push_str(&format!("{{{c}}} ")),
                (None, None) => {}
            }
            if clock.is_some() || n.comment.is_some() {
                number_next = true;
            }
            // The variations of this move (its siblings), written after it; a variation's own
            // first move is written by its line.
            if !first || main {
                let parent = self.tree.node(n.parent);
                for &v in parent.children.iter().skip(1) {
                    out.push('(');
                    self.write_line(v, ply, offset, false, out);
                    let end = out.trim_end().len();
                    out.truncate(end);
                    out.push_str(") ");
                    number_next = true;
                }
            }
            first = false;
            match n.children.first() {
                Some(&next) => {
                    node = next;
                    ply += 1;
                }
                None => break,
            }
        }
    }
}

/// Adds an imported NAG to a move's, or says why it is left out.
fn keep_nag(nags: &mut Vec<String>, nag: &str, after: &str, skipped: &mut Vec<String>) {
    match check_nag(nag) {
        Err(why) => skipped.push(format!(
            "`{}` after `{}` ({why})",
            damspel_rules::quoted(nag),
            damspel_rules::quoted(after)
        )),
        Ok(_) if nags.len() >= MAX_NAGS => skipped.push(format!(
            "`{}` after `{}` (a move has at most {MAX_NAGS} NAGs)",
            damspel_rules::quoted(nag),
            damspel_rules::quoted(after)
        )),
        Ok(nag) => nags.push(nag),
    }
}

/// Seconds written as PGN's `%clk` writes them (h:mm:ss).
#[derive(Clone, Copy)]
struct ClockText(u64);

impl std::fmt::Display for ClockText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.0;
        write!(f, "{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}
