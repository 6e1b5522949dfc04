//! The move text of a game as a tree: the main line, with each move's variations (lines that
//! replace it), comments, NAGs, move strength marks and PDN 3.0 setup commands, in the order
//! written. Depth is bounded by the reader (`MAX_DEPTH`), so walking it recursively is safe.

use serde::Serialize;

/// A line of play: the main line, or a variation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Line {
    pub items: Vec<Item>,
}

/// One element of a line, in the order written: a comment before a move is the item before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Item {
    Move(MoveNode),
    /// `{text}`, the braces removed.
    Comment {
        text: String,
    },
    /// `/FEN "..."/`: the position is set to this FEN from here on (PDN 3.0 setup command).
    Setup {
        fen: String,
    },
    /// A NAG (`$3`) with no move before it to belong to.
    Nag {
        nag: String,
    },
}

/// A move as written, with what is attached to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoveNode {
    /// The move number written before it (`12.`, `12...`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// The move text, normalised: blanks inside it removed (`28 x17` is `28x17`), separators put
    /// between squares written without one (`c3d4` is `c3-d4`).
    pub text: String,
    /// Move strength marks (`!`, `?!`, `(!)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strength: Option<String>,
    /// NAGs (`$1`) in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<String>,
    /// Variations: lines played instead of this move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<Line>,
}

impl Line {
    /// The moves of this line, without its variations.
    pub fn moves(&self) -> impl Iterator<Item = &MoveNode> {
        self.items.iter().filter_map(|item| match item {
            Item::Move(m) => Some(m),
            _ => None,
        })
    }

    /// Writes the line as PDN move text (read back, it gives the same tree).
    pub fn write(&self, out: &mut String) {
        for item in &self.items {
            if !out.is_empty() && !out.ends_with([' ', '\n', '(']) {
                out.push(' ');
            }
            match item {
                Item::Move(m) => {
                    if let Some(n) = &m.number {
                        out.push_str(n);
                        out.push(' ');
                    }
                    out.push_str(&m.text);
                    if let Some(s) = &m.strength {
                        out.push_str(s);
                    }
                    for nag in &m.nags {
                        out.push(' ');
                        out.push_str(nag);
                    }
                    for v in &m.variations {
                        let mut text = String::new();
                        v.write(&mut text);
                        // `(?)` and `(!)` read as a strength mark, not a variation of one.
                        out.push_str(if text.starts_with(['!', '?']) {
                            " ( "
                        } else {
                            " ("
                        });
                        out.push_str(&text);
                        out.push(')');
                    }
                }
                Item::Comment { text } => {
                    out.push('{');
                    out.push_str(text);
                    out.push('}');
                }
                Item::Setup { fen } => {
                    out.push_str("/FEN \"");
                    out.push_str(fen);
                    out.push_str("\"/");
                }
                Item::Nag { nag } => out.push_str(nag),
            }
        }
    }
}
