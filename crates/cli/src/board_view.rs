//! The board as text for `damspel play`: files and ranks around it, men and kings of both
//! colours, the last move marked, seen from either side. Dark-squares boards also get a second
//! diagram with the square numbers beside the first, since their moves are written in numbers.
//!
//! Plain ASCII by default (`w b` men, `W B` kings, `.` an empty square, `[ ]` the from and to
//! squares of the last move, `x` a square whose piece it captured); with `color`, ANSI colours:
//! shaded squares, the last move highlighted and the pieces as white or black letter blocks.

use damspel_rules::{Bits, Color, Geometry, MoveDetail, Position, Square};

/// How the board is drawn.
#[derive(Clone, Copy, Debug)]
pub struct BoardView {
    /// White's first rank at the bottom (White's view); false turns the board around.
    pub white_at_bottom: bool,
    /// ANSI colours (only for a terminal, and only when NO_COLOR is unset).
    pub color: bool,
}

/// What a cell shows of the last move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    None,
    /// The from or to square.
    Moved,
    /// A piece was captured here.
    Captured,
}

const RESET: &str = "\x1b[0m";
/// Backgrounds (256-colour palette): light and dark cells, the last move, a capture.
const BG_LIGHT: &str = "\x1b[48;5;180m";
const BG_DARK: &str = "\x1b[48;5;137m";
const BG_MOVED: &str = "\x1b[48;5;143m";
const BG_CAPTURED: &str = "\x1b[48;5;174m";
/// Pieces are tokens: a white letter block for White, a black one for Black.
const WHITE_PIECE: &str = "\x1b[1;38;5;16;48;5;231m";
const BLACK_PIECE: &str = "\x1b[1;38;5;231;48;5;16m";
const FG_MARK: &str = "\x1b[38;5;52m";

impl BoardView {
    /// Whether colours suit standard output: a terminal, NO_COLOR unset or empty, TERM not dumb.
    pub fn color_from_env() -> bool {
        use std::io::IsTerminal;
        std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::env::var("TERM").map_or(true, |t| t != "dumb")
    }

    /// The board of `pos`, one line per rank, ending with a newline; `last` is the move that led
    /// to it (its from, to and captured squares are marked).
    pub fn render<B: Bits>(
        &self,
        g: &Geometry,
        pos: &Position<B>,
        last: Option<&MoveDetail<B>>,
    ) -> String {
        let (w, h) = (g.width() as i32, g.height() as i32);
        let xs: Vec<i32> = if self.white_at_bottom {
            (0..w).collect()
        } else {
            (0..w).rev().collect()
        };
        let ys: Vec<i32> = if self.white_at_bottom {
            (0..h).rev().collect()
        } else {
            (0..h).collect()
        };
        let mark = |sq: Square| match last {
            Some(d) if d.mv.from() == sq || d.mv.to() == sq => Mark::Moved,
            Some(d) if d.captures.contains(&sq) => Mark::Captured,
            _ => Mark::None,
        };
        let numbers = g.numeric_names();
        let files: String = xs
            .iter()
            .map(|&x| format!(" {} ", (b'a' + x as u8) as char))
            .collect();
        let file_line = format!("   {files}");
        let mut out = String::new();
        out.push_str(file_line.trim_end());
        if numbers {
            // Over the numbers diagram.
            out.push_str(&" ".repeat(3 + 3 + 3 * w as usize + 3 - file_line.trim_end().len()));
            out.push_str("square numbers");
        }
        out.push('\n');
        for &y in &ys {
            out.push_str(&format!("{:>2} ", y + 1));
            for &x in &xs {
                out.push_str(&self.cell(g, pos, x, y, &mark));
            }
            out.push_str(&format!(" {}", y + 1));
            if numbers {
                out.push_str(if y + 1 >= 10 { "   " } else { "    " });
                let row: String = xs
                    .iter()
                    .map(|&x| match g.square_at(x, y) {
                        Some(sq) => format!("{:>3}", g.number(sq)),
                        None => "   ".to_string(),
                    })
                    .collect();
                out.push_str(row.trim_end());
            }
            out.push('\n');
        }
        out.push_str(file_line.trim_end());
        out.push('\n');
        out
    }

    /// One cell, three characters wide (plus colour codes).
    fn cell<B: Bits>(
        &self,
        g: &Geometry,
        pos: &Position<B>,
        x: i32,
        y: i32,
        mark: &dyn Fn(Square) -> Mark,
    ) -> String {
        let dark = (x + y) % 2 == 0;
        let Some(sq) = g.square_at(x, y) else {
            // A light cell of a dark-squares board: never used.
            return if self.color {
                format!("{BG_LIGHT}   {RESET}")
            } else {
                "   ".to_string()
            };
        };
        let piece = pos.piece_at(sq);
        let m = mark(sq);
        if !self.color {
            let c = match (piece, m) {
                (Some(p), _) => p.symbol(),
                (None, Mark::Captured) => 'x',
                (None, _) => '.',
            };
            return if m == Mark::Moved {
                format!("[{c}]")
            } else {
                format!(" {c} ")
            };
        }
        let bg = match m {
            Mark::Moved => BG_MOVED,
            Mark::Captured => BG_CAPTURED,
            Mark::None if dark => BG_DARK,
            Mark::None => BG_LIGHT,
        };
        match (piece, m) {
            (Some(p), _) => {
                let token = if p.color == Color::White {
                    WHITE_PIECE
                } else {
                    BLACK_PIECE
                };
                format!("{bg} {token}{}{RESET}{bg} {RESET}", p.symbol())
            }
            (None, Mark::Captured) => format!("{bg}{FG_MARK} x {RESET}"),
            (None, _) => format!("{bg}   {RESET}"),
        }
    }

    /// A line explaining the symbols.
    pub fn legend(&self) -> &'static str {
        if self.color {
            "w b men, W B kings; highlighted: the last move, x: a piece it captured"
        } else {
            "w b men, W B kings, . empty; [ ] the last move, x a piece it captured"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_rules::{Catalogue, Rules};

    #[test]
    fn draws_the_turkish_start_from_both_sides() {
        let v = Catalogue::builtin().get("turkish").unwrap();
        let rules = Rules::<u64>::new(v).unwrap();
        let pos = Position::start(&rules);
        let g = &rules.variant().geometry;
        let mut view = BoardView {
            white_at_bottom: true,
            color: false,
        };
        let text = view.render(g, &pos, None);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "    a  b  c  d  e  f  g  h");
        assert_eq!(lines[1], " 8  .  .  .  .  .  .  .  .  8");
        assert_eq!(lines[2], " 7  b  b  b  b  b  b  b  b  7");
        assert_eq!(lines[6], " 3  w  w  w  w  w  w  w  w  3");
        view.white_at_bottom = false;
        let text = view.render(g, &pos, None);
        assert!(text.starts_with("    h  g  f  e  d  c  b  a\n 1  .  ."));
    }
}
