//! A reviewed game written back as PDN, as CheckerBoard and lidraughts annotate: every move keeps
//! what the game had (tags, comments, variations) and gains a comment with the evaluation after
//! it; a marked move gets its NAG ($6 ?!, $2 ?, $4 ??), a comment naming the mark and the better
//! move, and the engine's line as a variation.

use damspel_notation::pdn::{Item, Line, MoveNode, PdnRead};

use crate::run::Review;

/// The game with the review's annotations; `annotator` is written as the Annotator tag (kept if
/// the game has one).
pub fn annotate(game: &PdnRead, review: &Review, annotator: &str) -> PdnRead {
    let mut out = game.clone();
    if out.tag("Annotator").is_none() {
        out.tags.push(("Annotator".into(), annotator.into()));
    }
    let mut items = Vec::with_capacity(game.tree.items.len() * 2);
    let mut plies = review.plies.iter();
    for item in &game.tree.items {
        let Item::Move(node) = item else {
            items.push(item.clone());
            continue;
        };
        let Some(ply) = plies.next() else {
            items.push(item.clone());
            continue;
        };
        let mut node = node.clone();
        let mut comment = ply.after.text();
        if let Some(mark) = ply.mark {
            if !node.nags.iter().any(|n| n == mark.nag()) {
                node.nags.push(mark.nag().to_string());
            }
            if let Some(best) = &ply.best {
                comment = format!(
                    "{} {}; {} was better ({})",
                    capitalised(mark.name()),
                    ply.after.text(),
                    best,
                    ply.before.text()
                );
            }
            if !ply.line.is_empty() {
                node.variations.push(variation(&ply.number, &ply.line));
            }
        }
        items.push(Item::Move(node));
        items.push(Item::Comment {
            text: format!(" {comment} "),
        });
    }
    out.tree = Line { items };
    out
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// The engine's line in place of the move, numbered from it.
fn variation(number: &str, line: &[String]) -> Line {
    let items = line
        .iter()
        .enumerate()
        .map(|(i, text)| {
            Item::Move(MoveNode {
                number: (i == 0).then(|| number.to_string()),
                text: text.clone(),
                ..MoveNode::default()
            })
        })
        .collect();
    Line { items }
}
