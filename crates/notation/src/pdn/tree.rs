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
    /// Where each variation was written: after how many of the line's items that follow this
    /// move (comments, NAGs: `32-28 {c} (...)` is 1). Missing: 0, straight after the move.
    #[serde(skip)]
    pub variation_places: Vec<usize>,
}

impl MoveNode {
    /// The variations written after `n` of the items that follow the move (and, for the last
    /// `n` of a line, `last`, every variation placed further).
    pub fn variations_at(&self, n: usize, last: bool) -> impl Iterator<Item = &Line> {
        self.variations
            .iter()
            .enumerate()
            .filter_map(move |(i, v)| {
                let place = self.variation_places.get(i).copied().unwrap_or(0);
                (place == n || (last && place > n)).then_some(v)
            })
    }
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
        // The last move, its variations written in the places they were read.
        let mut last: Option<(&MoveNode, usize)> = None;
        let items = &self.items;
        for (i, item) in items.iter().enumerate() {
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
                    last = Some((m, 0));
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
            if let Some((m, n)) = &mut last {
                if !matches!(item, Item::Move(_)) {
                    *n += 1;
                }
                let end = !matches!(
                    items.get(i + 1),
                    Some(Item::Comment { .. } | Item::Nag { .. })
                );
                for v in m.variations_at(*n, end) {
                    write_variation(v, out);
                }
                if end {
                    last = None;
                }
            }
        }
    }
}

/// ` (line)`.
fn write_variation(v: &Line, out: &mut String) {
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
