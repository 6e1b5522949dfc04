//! Reading one game of PDN text: its tags and the move texts of its main line.

/// One game read from PDN text: its tags and its move texts (not yet checked against the rules).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnRead {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    pub result: Option<String>,
}

impl PdnRead {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The most bytes read for one game: a thousand-move game with comments is a few tens of KiB.
pub const MAX_GAME_LEN: usize = 1 << 20;
/// The most moves (plies) read for one game, far above any game played under a draw rule.
pub const MAX_MOVES: usize = 10_000;
/// The longest move text: a capture of 64 pieces written in full on a 16-wide board is about 260
/// bytes; nothing longer is a move.
pub const MAX_MOVE_LEN: usize = 300;

/// What is wrong with a PDN text, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad PDN at character {}: {reason}", offset + 1)]
pub struct PdnError {
    pub kind: PdnErrorKind,
    pub offset: usize,
    pub reason: String,
}

/// The kind of a [`PdnError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdnErrorKind {
    /// Not PDN: an unclosed tag, comment or variation, a token that is not a move, ...
    Syntax,
    /// The game goes on past [`MAX_GAME_LEN`] bytes.
    TooLong,
    /// More than [`MAX_MOVES`] moves.
    TooManyMoves,
    /// A token longer than [`MAX_MOVE_LEN`].
    TokenTooLong,
}

const RESULTS: [&str; 9] = [
    "1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*", "½-½",
];

fn syntax(offset: usize, reason: impl Into<String>) -> PdnError {
    PdnError {
        kind: PdnErrorKind::Syntax,
        offset,
        reason: reason.into(),
    }
}

/// Reads the first game of a PDN text: tags, then move text (move numbers, comments `{}`,
/// variations `()`, NAGs `$n`, move strength marks and `%` line comments are skipped). The game
/// ends at its result, or where the tags of a next game begin. One pass, no recursion: the cost
/// is linear in the bytes of the game, which are at most [`MAX_GAME_LEN`].
pub fn read_game(text: &str) -> Result<PdnRead, PdnError> {
    let mut game = PdnRead::default();
    // Only the first game is read; beyond the cap, it is refused rather than scanned.
    let end = if text.len() > MAX_GAME_LEN {
        text.floor_char_boundary(MAX_GAME_LEN)
    } else {
        text.len()
    };
    let body = &text[..end];
    let too_long = |what: &str| PdnError {
        kind: PdnErrorKind::TooLong,
        offset: end,
        reason: format!("{what} goes on past {MAX_GAME_LEN} bytes, the most read for one game"),
    };
    let cut = end < text.len();
    let mut i = 0;
    let mut depth = 0usize;
    let mut in_moves = false;
    while let Some(c) = body[i..].chars().next() {
        match c {
            '[' if depth == 0 && !in_moves => {
                i = read_tag(body, i, &mut game).map_err(|e| {
                    if cut && e.reason == UNCLOSED_TAG {
                        too_long("a tag")
                    } else {
                        e
                    }
                })?;
                continue;
            }
            // The tags of the next game: this one had no result.
            '[' if depth == 0 => break,
            '{' => match body[i..].find('}') {
                Some(close) => i += close,
                None if cut => return Err(too_long("a comment")),
                None => return Err(syntax(i, "a comment is not closed with }")),
            },
            '%' => {
                i += body[i..].find('\n').unwrap_or(body.len() - i);
                continue;
            }
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| syntax(i, "a variation closes without opening"))?;
            }
            c if c.is_whitespace() => {}
            _ => {
                let len = body[i..]
                    .find(|c: char| c.is_whitespace() || matches!(c, '{' | '(' | ')'))
                    .unwrap_or(body.len() - i);
                if len > MAX_MOVE_LEN {
                    return Err(PdnError {
                        kind: PdnErrorKind::TokenTooLong,
                        offset: i,
                        reason: format!(
                            "a token of {len} bytes; a move has at most {MAX_MOVE_LEN}"
                        ),
                    });
                }
                if i + len == body.len() && cut {
                    return Err(too_long("the game"));
                }
                let token = &body[i..i + len];
                i += len;
                if depth == 0 {
                    in_moves = true;
                    if read_token(&mut game, token, i - len)? {
                        return Ok(game);
                    }
                }
                continue;
            }
        }
        i += c.len_utf8();
    }
    if cut && i >= body.len() {
        return Err(too_long("the game"));
    }
    if depth > 0 {
        return Err(syntax(body.len(), "a variation is not closed"));
    }
    Ok(game)
}

/// Reads one token of the main line at `at`: a move number, a NAG, a move (added to the game)
/// or the result. Returns true at the result, which ends the game.
fn read_token(game: &mut PdnRead, token: &str, at: usize) -> Result<bool, PdnError> {
    // Move numbers may be glued to the move: "1.d3-d4", "12...32-28".
    let mut t = token;
    if let Some(dot) = t.rfind('.') {
        if t[..dot]
            .trim_end_matches('.')
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            t = &t[dot + 1..];
        }
    }
    let t = t.trim_end_matches(['!', '?']);
    if t.is_empty() || t.starts_with('$') {
        return Ok(false);
    }
    if RESULTS.contains(&t) {
        game.result = Some(t.to_string());
        return Ok(true);
    }
    if !t
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'x' | b'X' | b':'))
    {
        return Err(syntax(at, format!("`{token}` is not a move")));
    }
    if game.moves.len() == MAX_MOVES {
        return Err(PdnError {
            kind: PdnErrorKind::TooManyMoves,
            offset: at,
            reason: format!("more than {MAX_MOVES} moves"),
        });
    }
    game.moves.push(t.to_string());
    Ok(false)
}

const UNCLOSED_TAG: &str = "a tag is not closed with ]";

/// Reads the tag `[Name "value"]` that starts at `at` (the value's `\"` and `\\` escapes undone)
/// and returns the offset after it.
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
        Some(_) => return Err(syntax(at, "a tag value must be in double quotes")),
    }
    game.tags.push((name.to_string(), value));
    Ok(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_moves_and_skips_the_rest() {
        let g = read_game(
            "[Event \"x\"]\n[FEN \"W:W31-50:B1-20\"]\n\n1. 32-28 {good} 19-23 (2. 28x19) 2. 28x19 $1 14x23! 1-0",
        )
        .unwrap();
        assert_eq!(g.tag("fen"), Some("W:W31-50:B1-20"));
        assert_eq!(g.moves, ["32-28", "19-23", "28x19", "14x23"]);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        assert!(read_game("[Event \"x\"").is_err());
        assert!(read_game("1. 32-28 {open").is_err());
        assert!(read_game("1. 32-28 (19-23").is_err());
        assert!(read_game("1. 32-28 é4").is_err());
    }
}
