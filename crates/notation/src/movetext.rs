//! Move text (PDN 3.0): `32-28`, `28x19`, `d3-d4`, `d4xd6`. A capture is written with only its
//! begin and end squares unless another legal move shares them; then with every landing square.
//! Reading accepts `x` or `:` between squares, `-` for captures too, and intermediate squares
//! anywhere on the route, and says why a text is not a legal move.

use std::fmt;

use damspel_rules::{
    quoted, Bits, Duplicates, Geometry, Move, MoveDetail, Position, RouteFilter, Rules, Square,
    Until,
};

/// Why a move text was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveTextError {
    /// The text is not move syntax; `offset` is the byte where it goes wrong.
    Syntax { offset: usize, reason: String },
    /// Well formed, but no legal move matches.
    Illegal { text: String, hint: String },
    /// Several legal moves match; they are listed with their full paths.
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
    /// Listing the legal moves was given up (`parse_move_until`).
    Stopped { text: String },
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveTextError::Syntax { offset, reason } => {
                write!(f, "bad move text at character {}: {reason}", offset + 1)
            }
            MoveTextError::Illegal { text, hint } => {
                write!(f, "`{text}` is not a legal move: {hint}")
            }
            MoveTextError::Ambiguous { text, candidates } => write!(
                f,
                "`{text}` is ambiguous: it could be {}; write the full path",
                candidates.join(" or ")
            ),
            MoveTextError::Stopped { text } => write!(
                f,
                "`{text}` was not read: listing the legal moves took too long and was given up"
            ),
        }
    }
}

impl std::error::Error for MoveTextError {}

/// A parsed but not yet matched move text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveText {
    pub squares: Vec<Square>,
    /// Written with a capture separator (`x` or `:`).
    pub capture: bool,
}

/// Splits move text into squares.
pub fn parse_move_text(geometry: &Geometry, text: &str) -> Result<MoveText, MoveTextError> {
    let syntax = |offset: usize, reason: String| MoveTextError::Syntax { offset, reason };
    let trimmed = text.trim();
    let lead = text.len() - text.trim_start().len();
    if trimmed.is_empty() {
        return Err(syntax(lead, "empty move".into()));
    }
    if let Some((i, c)) = trimmed
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '-' | 'x' | 'X' | ':')))
    {
        return Err(syntax(lead + i, format!("unexpected character `{c}`")));
    }
    let mut squares = Vec::new();
    let mut separators = Vec::new();
    let mut start = 0;
    let bytes = trimmed.as_bytes();
    let is_sep = |i: usize| {
        let b = bytes[i];
        // An 'x' separates only between two square names (it is never part of one).
        matches!(b, b'-' | b':') || ((b == b'x' || b == b'X') && i > 0)
    };
    let mut i = 0;
    while i <= bytes.len() {
        if i == bytes.len() || is_sep(i) {
            let part = &trimmed[start..i];
            if part.is_empty() {
                return Err(syntax(
                    lead + start,
                    "expected a square between separators".into(),
                ));
            }
            let sq = geometry
                .parse_square(part)
                .map_err(|e| syntax(lead + start, e.to_string()))?;
            squares.push(sq);
            if i < bytes.len() {
                separators.push(bytes[i]);
            }
            start = i + 1;
        }
        i += 1;
    }
    if squares.len() < 2 {
        return Err(syntax(
            lead + trimmed.len(),
            "a move needs at least two squares, like 32-28 or d3-d4".into(),
        ));
    }
    let capture = separators.iter().any(|&b| b != b'-');
    if capture && separators.contains(&b'-') {
        return Err(syntax(lead, "mixes `-` with capture separators".into()));
    }
    if !capture && squares.len() > 2 {
        return Err(syntax(
            lead,
            "a quiet move has two squares; write captures with x".into(),
        ));
    }
    Ok(MoveText { squares, capture })
}

/// Finds the legal move a text names.
pub fn parse_move<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
) -> Result<Move<B>, MoveTextError> {
    parse_move_until(rules, pos, text, Until::NEVER)
}

/// `parse_move`, given up (`MoveTextError::Stopped`) when `until` is reached: the legal moves of
/// a position built to be slow can take long to list.
pub fn parse_move_until<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
    until: Until,
) -> Result<Move<B>, MoveTextError> {
    // Bad syntax is told before the (perhaps long) listing.
    let geometry = &rules.variant().geometry;
    if let Err(e) = parse_move_text(geometry, text) {
        short_form(geometry, text).ok_or(e)?;
    }
    let legal = rules
        .legal_moves_detailed_until(pos, Duplicates::Merge, until)
        .map_err(|_| MoveTextError::Stopped { text: quoted(text) })?;
    parse_move_among(rules, pos, text, legal, until)
}

/// `parse_move_until` among `legal`, the legal moves of `pos` as `legal_moves_detailed` lists
/// them (merged), for a caller that has listed them already.
pub fn parse_move_among<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    text: &str,
    mut legal: Vec<MoveDetail<B>>,
    until: Until,
) -> Result<Move<B>, MoveTextError> {
    let geometry = &rules.variant().geometry;
    let parsed = match parse_move_text(geometry, text) {
        Ok(parsed) => parsed,
        Err(e) => {
            let Some((file, to)) = short_form(geometry, text) else {
                return Err(e);
            };
            sort_for_reading(geometry, &mut legal);
            return short_move(geometry, text, file, to, &legal);
        }
    };
    let stopped = |_| MoveTextError::Stopped { text: quoted(text) };
    sort_for_reading(geometry, &mut legal);
    let (from, to) = (
        parsed.squares[0],
        *parsed.squares.last().expect("two squares"),
    );
    let inner = &parsed.squares[1..parsed.squares.len() - 1];
    let same_ends: Vec<&MoveDetail<B>> = legal
        .iter()
        .filter(|d| d.mv.from() == from && d.mv.to() == to)
        .collect();
    // The moves with these ends that have a route the filter keeps. Routes are matched during
    // the generator's walk: a capture can have millions of them.
    let routed = |filter: RouteFilter| -> Result<Vec<&MoveDetail<B>>, MoveTextError> {
        let moves: Vec<Move<B>> = rules
            .capture_routes_until(pos, filter, until)
            .map_err(stopped)?
            .into_iter()
            .map(|d| d.mv)
            .collect();
        Ok(same_ends
            .iter()
            .copied()
            .filter(|d| moves.contains(&d.mv))
            .collect())
    };
    let mut matching: Vec<&MoveDetail<B>> = Vec::new();
    if inner.is_empty() {
        matching = same_ends.clone();
        // `f5xa5` is also the full path of a capture in one leg: when exactly one of the moves
        // with these ends has such a route, the text names it.
        if matching.len() > 1 {
            let one_leg = routed(RouteFilter::Landings(&[]))?;
            if one_leg.len() == 1 {
                matching = one_leg;
            }
        }
    } else if !same_ends.is_empty() {
        // A full path names one route exactly; otherwise the squares given must be landing
        // squares of a route, in order, or else squares it passes over.
        for filter in [
            RouteFilter::Landings(inner),
            RouteFilter::LandingsInOrder(inner),
            RouteFilter::PassedInOrder(inner),
        ] {
            matching = routed(filter)?;
            if !matching.is_empty() {
                break;
            }
        }
    }
    if parsed.capture && matching.len() == 1 && !matching[0].mv.is_capture() {
        return Err(MoveTextError::Illegal {
            text: quoted(text),
            hint: format!(
                "it is not a capture; write it {}",
                format_detail(geometry, matching[0], &legal)
            ),
        });
    }
    match matching.len() {
        1 => Ok(matching[0].mv),
        0 => {
            let hint = if !same_ends.is_empty() {
                "no legal capture passes through the squares given".to_string()
            } else {
                let from_here: Vec<String> = legal
                    .iter()
                    .filter(|d| d.mv.from() == from)
                    .map(|d| format_detail(geometry, d, &legal))
                    .collect();
                if from_here.is_empty() {
                    let all: Vec<String> = legal
                        .iter()
                        .map(|d| format_detail(geometry, d, &legal))
                        .collect();
                    if all.is_empty() {
                        "there is no legal move".to_string()
                    } else {
                        format!(
                            "no legal move starts on {}; legal moves: {}",
                            geometry.name(from),
                            all.join(" ")
                        )
                    }
                } else {
                    format!(
                        "legal moves from {}: {}",
                        geometry.name(from),
                        from_here.join(" ")
                    )
                }
            };
            Err(MoveTextError::Illegal {
                text: quoted(text),
                hint,
            })
        }
        _ => Err(MoveTextError::Ambiguous {
            text: quoted(text),
            candidates: matching.iter().map(|d| full_path(geometry, d)).collect(),
        }),
    }
}

/// Russian short notation, which Russian archives are written in (the 1998 world championship:
/// `1. cd4 fg5 2. bc3 gf6`): the file a move starts on and the square it ends on, captures
/// alike. Not PDN, and no PDN move is three characters: read only where PDN cannot be.
fn short_form(geometry: &Geometry, text: &str) -> Option<(u8, Square)> {
    let b = text.as_bytes();
    if b.len() != 3 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_lowercase() {
        return None;
    }
    let file = b[0] - b'a';
    let to = geometry.parse_square(&text[1..]).ok()?;
    (file < geometry.width() && !geometry.numeric_names()).then_some((file, to))
}

/// The legal move that starts on `file` and ends on `to`.
fn short_move<B: Bits>(
    geometry: &Geometry,
    text: &str,
    file: u8,
    to: Square,
    legal: &[MoveDetail<B>],
) -> Result<Move<B>, MoveTextError> {
    let matching: Vec<&MoveDetail<B>> = legal
        .iter()
        .filter(|d| d.mv.to() == to && geometry.coords(d.mv.from()).0 == file)
        .collect();
    match matching.len() {
        1 => Ok(matching[0].mv),
        0 => Err(MoveTextError::Illegal {
            text: quoted(text),
            hint: format!(
                "read as short notation, no legal move goes from the {}-file to {}",
                (b'a' + file) as char,
                geometry.name(to)
            ),
        }),
        _ => Err(MoveTextError::Ambiguous {
            text: quoted(text),
            candidates: matching.iter().map(|d| full_path(geometry, d)).collect(),
        }),
    }
}

/// Puts moves in reading order: by start square, end square, then route, in the board's
/// numbering (FMJD numbers on dark-squares boards, a1, b1, ... on all-squares boards).
pub fn sort_for_reading<B: Bits>(geometry: &Geometry, moves: &mut [MoveDetail<B>]) {
    moves.sort_by_cached_key(|d| {
        let numbers = |squares: &[Square]| -> Vec<usize> {
            squares.iter().map(|&s| geometry.number(s)).collect()
        };
        (
            geometry.number(d.mv.from()),
            geometry.number(d.mv.to()),
            numbers(&d.path),
            numbers(&d.captures),
        )
    });
}

/// A move written with every landing square.
pub fn full_path<B: Bits>(geometry: &Geometry, detail: &MoveDetail<B>) -> String {
    let sep = if detail.mv.is_capture() { "x" } else { "-" };
    let mut parts = vec![geometry.name(detail.mv.from())];
    parts.extend(detail.path.iter().map(|&s| geometry.name(s)));
    parts.join(sep)
}

/// A move written by its begin and end squares (`32-28`, `28x19`).
fn ends<B: Bits>(geometry: &Geometry, mv: &Move<B>) -> String {
    let sep = if mv.is_capture() { "x" } else { "-" };
    format!(
        "{}{sep}{}",
        geometry.name(mv.from()),
        geometry.name(mv.to())
    )
}

/// A move in PDN notation among the legal moves `legal`: begin and end squares, or the full
/// path when another legal move has the same begin and end.
pub fn format_detail<B: Bits>(
    geometry: &Geometry,
    detail: &MoveDetail<B>,
    legal: &[MoveDetail<B>],
) -> String {
    let ambiguous = legal.iter().any(|d| {
        d.mv != detail.mv && d.mv.from() == detail.mv.from() && d.mv.to() == detail.mv.to()
    });
    if ambiguous {
        full_path(geometry, detail)
    } else {
        ends(geometry, &detail.mv)
    }
}

/// Every move of `legal` in PDN notation, in order: [`format_detail`] of each, in time linear
/// in the number of moves (a position can have tens of thousands of distinct captures).
pub fn format_all<B: Bits>(geometry: &Geometry, legal: &[MoveDetail<B>]) -> Vec<String> {
    let mut sharing: std::collections::HashMap<(Square, Square), usize> =
        std::collections::HashMap::with_capacity(legal.len());
    for d in legal {
        *sharing.entry((d.mv.from(), d.mv.to())).or_default() += 1;
    }
    legal
        .iter()
        .map(|d| {
            // Distinct moves in `legal`: another with the same ends makes this one ambiguous.
            if sharing[&(d.mv.from(), d.mv.to())] > 1 {
                full_path(geometry, d)
            } else {
                ends(geometry, &d.mv)
            }
        })
        .collect()
}

/// A legal move in PDN notation from the distinct legal moves of its position, `legal`, when
/// its begin and end squares name it: None when another move of `legal` has the same ends, so
/// that only its full path names it ([`format_move`] finds that). Lists no moves: for callers
/// that have them already (a search's root), in positions whose listing can take long.
pub fn format_among<B: Bits>(
    geometry: &Geometry,
    mv: &Move<B>,
    legal: &[Move<B>],
) -> Option<String> {
    let ambiguous = legal
        .iter()
        .any(|m| m != mv && m.from() == mv.from() && m.to() == mv.to());
    (!ambiguous && legal.contains(mv)).then(|| ends(geometry, mv))
}

/// A legal move in PDN notation, in position `pos`.
pub fn format_move<B: Bits>(rules: &Rules<B>, pos: &Position<B>, mv: &Move<B>) -> String {
    let legal = rules.legal_moves_detailed(pos, Duplicates::Merge);
    let geometry = &rules.variant().geometry;
    match legal.iter().find(|d| d.mv == *mv) {
        Some(detail) => format_detail(geometry, detail, &legal),
        None => ends(geometry, mv),
    }
}
