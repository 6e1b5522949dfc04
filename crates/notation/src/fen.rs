//! PDN 3.0 FEN: `W:W31-50:B1-20`, `B:WK4,a1:Bd5`. Reads any valid form (ranges, `K` prefixes,
//! either list order, an optional trailing dot, the `:H`/`:F` counters some programs append);
//! writes one canonical form (squares in numbering order, runs of three or more written as ranges).

use std::fmt;

use damspel_rules::{Bits, Color, Geometry, Piece, Position, Setup, Square, Squares};

/// The longest FEN read, in bytes. The longest canonical FEN of any board (every square taken,
/// colours alternating, so no ranges) is under 700 bytes; 4 KiB leaves room for blanks, a PDN
/// tag and move counters, and a pasted megabyte is refused before any work.
pub const MAX_FEN_LEN: usize = 4096;

/// What is wrong with a FEN, and where (byte offset into the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError {
    pub kind: FenErrorKind,
    pub offset: usize,
    pub reason: String,
}

/// The kind of a [`FenError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenErrorKind {
    /// Not a FEN: a bad field, list or square.
    Syntax,
    /// Longer than [`MAX_FEN_LEN`].
    TooLong,
    /// The lists name more pieces than the board has squares (ranges that repeat or overlap),
    /// found before a range is expanded.
    TooManyPieces,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad FEN at character {}: {}",
            self.offset + 1,
            self.reason
        )
    }
}

impl std::error::Error for FenError {}

fn err(offset: usize, reason: impl Into<String>) -> FenError {
    FenError {
        kind: FenErrorKind::Syntax,
        offset,
        reason: reason.into(),
    }
}

fn color_of(c: u8) -> Option<Color> {
    match c {
        b'W' | b'w' => Some(Color::White),
        b'B' | b'b' => Some(Color::Black),
        _ => None,
    }
}

/// Reads a FEN into an unchecked setup (check it with `Position::from_setup`).
pub fn parse_fen(geometry: &Geometry, text: &str) -> Result<Setup, FenError> {
    if text.len() > MAX_FEN_LEN {
        return Err(FenError {
            kind: FenErrorKind::TooLong,
            offset: MAX_FEN_LEN,
            reason: format!(
                "the FEN has {} bytes; a FEN may have at most {MAX_FEN_LEN}",
                text.len()
            ),
        });
    }
    // Offsets are reported against the text as given.
    let lead = text.len() - text.trim_start().len();
    let mut body = text.trim();
    let mut base = lead;
    // A FEN pasted with its PDN tag: [FEN "W:W31-50:B1-20"].
    if let Some(inner) = body.strip_prefix("[FEN").and_then(|b| b.strip_suffix(']')) {
        let trimmed = inner.trim();
        base += 4 + (inner.len() - inner.trim_start().len());
        body = trimmed;
    }
    if body.len() >= 2 && body.starts_with('"') && body.ends_with('"') {
        body = &body[1..body.len() - 1];
        base += 1;
    }
    let body = body.strip_suffix('.').unwrap_or(body);
    if body.is_empty() {
        return Err(err(base, "empty FEN; expected e.g. W:W31-50:B1-20"));
    }
    if !body.is_ascii() {
        let at = body
            .char_indices()
            .find(|(_, c)| !c.is_ascii())
            .map_or(0, |(i, _)| i);
        return Err(err(base + at, "unexpected non-ASCII character"));
    }
    let mut setup = Setup::default();
    let mut fields = Vec::new();
    let mut start = 0;
    for (i, c) in body.char_indices() {
        if c == ':' {
            fields.push((start, &body[start..i]));
            start = i + 1;
        }
    }
    fields.push((start, &body[start..]));

    let (_, side) = fields[0];
    setup.side_to_move = match side.trim() {
        "W" | "w" => Some(Color::White),
        "B" | "b" => Some(Color::Black),
        "?" => None,
        other => {
            return Err(err(
                base,
                format!("the side to move must be W, B or ?, not `{other}`"),
            ))
        }
    };
    let mut seen = [false; 2];
    for &(offset, field) in &fields[1..] {
        let at = base + offset;
        let field_trimmed = field.trim();
        let Some(&first) = field_trimmed.as_bytes().first() else {
            return Err(err(at, "empty field between ':'"));
        };
        if let Some(color) = color_of(first) {
            if seen[color.index()] {
                return Err(err(at, format!("the {color} pieces are listed twice")));
            }
            seen[color.index()] = true;
            parse_list(geometry, color, &field_trimmed[1..], at + 1, &mut setup)?;
        } else if (first == b'H' || first == b'F')
            && field_trimmed.len() > 1
            && field_trimmed[1..].bytes().all(|b| b.is_ascii_digit())
        {
            // Move counters appended by pydraughts and others: not part of the position.
        } else {
            return Err(err(
                at,
                format!(
                    "expected W or B before a piece list, found `{}`",
                    first as char
                ),
            ));
        }
    }
    if !seen[0] && !seen[1] {
        return Err(err(base + body.len(), "no piece list (:W... or :B...)"));
    }
    Ok(setup)
}

fn parse_list(
    geometry: &Geometry,
    color: Color,
    list: &str,
    offset: usize,
    setup: &mut Setup,
) -> Result<(), FenError> {
    if list.trim().is_empty() {
        return Ok(());
    }
    let mut at = offset;
    for item in list.split(',') {
        let trimmed = item.trim();
        let item_at = at + (item.len() - item.trim_start().len());
        at += item.len() + 1;
        if trimmed.is_empty() {
            return Err(err(item_at, "empty square in the list"));
        }
        // `K` marks a king. A lower-case `k` does too, unless the board has a k-file and the
        // item is a square name (`k2` on a board 11 files wide).
        let (king, squares) = match trimmed.strip_prefix(['K', 'k']) {
            Some(rest) if !(trimmed.starts_with('k') && geometry.parse_square(trimmed).is_ok()) => {
                (true, rest)
            }
            _ => (false, trimmed),
        };
        let piece = Piece { color, king };
        let square_at = item_at + usize::from(king);
        if let Some((a, b)) = squares.split_once('-') {
            let from = parse_square(geometry, a, square_at)?;
            let to = parse_square(geometry, b, square_at + a.len() + 1)?;
            // Numbered ranges also read on a dark board written algebraically (Russian,
            // Brazilian): Damspel's older exports wrote `W:W21-32:B1-12` for them.
            let numbers = [a, b]
                .iter()
                .all(|t| t.trim().bytes().all(|c| c.is_ascii_digit()));
            if !(geometry.numeric_names() || (geometry.squares_kind() == Squares::Dark && numbers))
            {
                return Err(err(item_at, "ranges are only allowed with numeric squares"));
            }
            let (lo, hi) = (geometry.number(from), geometry.number(to));
            if lo > hi {
                return Err(err(item_at, format!("the range {a}-{b} runs backwards")));
            }
            room(geometry, setup, hi - lo + 1, item_at)?;
            for n in lo..=hi {
                setup
                    .pieces
                    .push((geometry.numbered(n).expect("inside a valid range"), piece));
            }
        } else {
            let sq = parse_square(geometry, squares, square_at)?;
            room(geometry, setup, 1, item_at)?;
            setup.pieces.push((sq, piece));
        }
    }
    Ok(())
}

/// Refuses `more` pieces when the lists would then name more pieces than the board has squares,
/// so that repeated ranges cannot grow the setup beyond the board.
fn room(geometry: &Geometry, setup: &Setup, more: usize, at: usize) -> Result<(), FenError> {
    let total = setup.pieces.len() + more;
    if total > geometry.len() {
        return Err(FenError {
            kind: FenErrorKind::TooManyPieces,
            offset: at,
            reason: format!(
                "the lists name at least {total} pieces, more than the {} squares of the board \
                 (squares or ranges repeat or overlap)",
                geometry.len()
            ),
        });
    }
    Ok(())
}

fn parse_square(geometry: &Geometry, text: &str, at: usize) -> Result<Square, FenError> {
    geometry
        .parse_square(text)
        .map_err(|e| err(at, e.to_string()))
}

/// The canonical FEN of a position.
pub fn write_fen<B: Bits>(geometry: &Geometry, pos: &Position<B>) -> String {
    let mut out = String::new();
    out.push(pos.side_to_move().letter());
    for color in Color::BOTH {
        out.push(':');
        out.push(color.letter());
        let squares: Vec<(usize, bool)> = geometry
            .all_squares()
            .iter()
            .filter_map(|&sq| {
                pos.piece_at(sq)
                    .filter(|p| p.color == color)
                    .map(|p| (geometry.number(sq), p.king))
            })
            .collect();
        let mut items = Vec::new();
        let mut i = 0;
        while i < squares.len() {
            let (n, king) = squares[i];
            let mut j = i;
            if geometry.numeric_names() {
                while j + 1 < squares.len() && squares[j + 1] == (squares[j].0 + 1, king) {
                    j += 1;
                }
            }
            let name = |n: usize| geometry.name(geometry.numbered(n).expect("a board square"));
            let k = if king { "K" } else { "" };
            if j >= i + 2 {
                items.push(format!("{k}{}-{}", name(n), name(squares[j].0)));
                i = j + 1;
            } else {
                items.push(format!("{k}{}", name(n)));
                i += 1;
            }
        }
        out.push_str(&items.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_rules::Squares;

    #[test]
    fn reads_ranges_kings_and_both_orders() {
        let g = Geometry::new(10, 10, Squares::Dark).unwrap();
        let s = parse_fen(&g, "B:B1-3,K10:WK50,49.").unwrap();
        assert_eq!(s.side_to_move, Some(Color::Black));
        assert_eq!(s.pieces.len(), 6);
        let s2 = parse_fen(&g, "W:W31-50:B1-20:H0:F1").unwrap();
        assert_eq!(s2.pieces.len(), 40);
    }

    #[test]
    fn reads_a_fen_pasted_with_its_pdn_tag() {
        let g = Geometry::new(10, 10, Squares::Dark).unwrap();
        let tagged = parse_fen(&g, r#"[FEN "W:W31-50:B1-20"]"#).unwrap();
        assert_eq!(tagged.pieces.len(), 40);
        // Offsets still point into the text as given: `51` starts at offset 9.
        let e = parse_fen(&g, r#"[FEN "W:W51:B1"]"#).unwrap_err();
        assert_eq!(e.offset, 9, "{e}");
        assert!(parse_fen(&g, r#"[FEN "W:W31"#).is_err());
    }

    #[test]
    fn reports_where() {
        let g = Geometry::new(10, 10, Squares::Dark).unwrap();
        let e = parse_fen(&g, "W:W31,51:B1").unwrap_err();
        assert_eq!(e.offset, 6, "{e}");
        assert!(parse_fen(&g, "X:W31").is_err());
        assert!(parse_fen(&g, "W:W31:W32").is_err());
        assert!(parse_fen(&g, "W:W20-10").is_err());
        assert!(parse_fen(&g, "").is_err());
        let a = Geometry::new(8, 8, Squares::All).unwrap();
        assert!(parse_fen(&a, "W:Wa1-a3").is_err());
        assert!(parse_fen(&a, "W:Wa1,Kh8:Bz9").is_err());
    }
}
