//! A game's moves as a tree: the main line (each node's first child) and its variations (the
//! other children), with comments and NAGs. Nodes live in an arena whose indices are the ids
//! the API shows; node 0 is the start position. A child is always created after its parent, so
//! a parent's id is below its children's (what the stored form checks and relies on).

use serde::{Deserialize, Serialize};

/// Most nodes a game may have (moves of all its lines). An annotated master game has a few
/// hundred; this bounds what one game costs to show, store and load.
pub const MAX_NODES: usize = 20_000;
/// The deepest nesting of variations: the PDN reader's, so that every game exports to a PDN
/// that can be imported again.
pub const MAX_NESTING: usize = damspel_notation::pdn::MAX_DEPTH;

/// Longest comment, in bytes.
pub const MAX_COMMENT: usize = 4000;

/// Most NAGs on one move.
pub const MAX_NAGS: usize = 8;

#[derive(Clone, Debug)]
pub struct Node<M> {
    /// The parent's id (the root's is 0, itself).
    pub parent: usize,
    /// None only for the root.
    pub mv: Option<M>,
    /// The main continuation first, then the variations in order.
    pub children: Vec<usize>,
    /// A comment after the move (for the root: before the first move).
    pub comment: Option<String>,
    /// A comment written before the move (PDN `( {why} 12. ...)`), kept where it was.
    pub pre: Option<String>,
    /// NAGs (`$2`) and move strength marks (`?!`) as written.
    pub nags: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Tree<M> {
    nodes: Vec<Node<M>>,
}

impl<M: Clone> Default for Tree<M> {
    fn default() -> Self {
        Tree::new()
    }
}

impl<M: Clone> Tree<M> {
    pub fn new() -> Tree<M> {
        Tree {
            nodes: vec![Node {
                parent: 0,
                mv: None,
                children: Vec::new(),
                comment: None,
                pre: None,
                nags: Vec::new(),
            }],
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn get(&self, id: usize) -> Option<&Node<M>> {
        self.nodes.get(id)
    }

    pub fn node(&self, id: usize) -> &Node<M> {
        &self.nodes[id]
    }

    pub fn node_mut(&mut self, id: usize) -> &mut Node<M> {
        &mut self.nodes[id]
    }

    pub fn nodes(&self) -> &[Node<M>] {
        &self.nodes
    }

    /// Adds a move after `parent`, as its last child (the main continuation if it is the
    /// first).
    pub fn add(&mut self, parent: usize, mv: M) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent,
            mv: Some(mv),
            children: Vec::new(),
            comment: None,
            pre: None,
            nags: Vec::new(),
        });
        self.nodes[parent].children.push(id);
        id
    }

    /// The nodes from the root to `id`, both included.
    pub fn path(&self, mut id: usize) -> Vec<usize> {
        let mut path = vec![id];
        while id != 0 {
            id = self.nodes[id].parent;
            path.push(id);
        }
        path.reverse();
        path
    }

    /// The first-child line after `id` (what redo steps through).
    pub fn continuation(&self, mut id: usize) -> Vec<usize> {
        let mut line = Vec::new();
        while let Some(&next) = self.nodes[id].children.first() {
            line.push(next);
            id = next;
        }
        line
    }

    /// The last node of the main line.
    pub fn main_end(&self) -> usize {
        self.continuation(0).last().copied().unwrap_or(0)
    }

    /// Whether `id` is on the main line.
    pub fn is_main(&self, mut id: usize) -> bool {
        while id != 0 {
            let parent = self.nodes[id].parent;
            if self.nodes[parent].children.first() != Some(&id) {
                return false;
            }
            id = parent;
        }
        true
    }

    /// How deep the variation of `id` is nested (0: the main line), as PDN writes it: one level
    /// per node on its path that is not its parent's first child.
    pub fn nesting(&self, mut id: usize) -> usize {
        let mut depth = 0;
        while id != 0 {
            let parent = self.nodes[id].parent;
            depth += usize::from(self.nodes[parent].children.first() != Some(&id));
            id = parent;
        }
        depth
    }

    /// The deepest nesting of any node (parents come before their children in the arena).
    fn deepest(&self) -> usize {
        let mut depth = vec![0; self.nodes.len()];
        for i in 1..self.nodes.len() {
            let parent = self.nodes[i].parent;
            depth[i] = depth[parent] + usize::from(self.nodes[parent].children.first() != Some(&i));
        }
        depth.into_iter().max().unwrap_or(0)
    }

    /// Moves the line through `id` one step up: the nearest variation on its path (counting
    /// `id`) takes the place of the line before it, becoming the main continuation if it was
    /// the first variation.
    pub fn promote(&mut self, mut id: usize) -> Result<(), String> {
        while id != 0 {
            let parent = self.nodes[id].parent;
            let siblings = &mut self.nodes[parent].children;
            let at = siblings.iter().position(|&c| c == id).unwrap_or(0);
            if at > 0 {
                siblings.swap(at - 1, at);
                // The line it takes the place of goes one level deeper: refused past the
                // deepest nesting PDN can be read back with.
                if at == 1 && self.deepest() > MAX_NESTING {
                    self.nodes[parent].children.swap(0, 1);
                    return Err(format!(
                        "promoting this line would nest variations more than {MAX_NESTING} \
                         deep, which its PDN could not be read back with"
                    ));
                }
                return Ok(());
            }
            id = parent;
        }
        Err("this move is already on the main line".into())
    }

    /// Deletes `id` and every move after it. Ids change (the arena is compacted): returns the
    /// new id of `keep` (or of the deleted node's parent, if `keep` was deleted).
    pub fn delete(&mut self, id: usize, keep: usize) -> Result<usize, String> {
        if id == 0 || id >= self.nodes.len() {
            return Err(format!("no move {id} to delete"));
        }
        let parent = self.nodes[id].parent;
        self.nodes[parent].children.retain(|&c| c != id);
        // Every node still reachable from the root, in id order (so parents stay first).
        let mut alive = vec![false; self.nodes.len()];
        alive[0] = true;
        for i in 1..self.nodes.len() {
            alive[i] = i != id && alive[self.nodes[i].parent];
        }
        let mut new_id = vec![usize::MAX; self.nodes.len()];
        let mut next = 0;
        for (i, a) in alive.iter().enumerate() {
            if *a {
                new_id[i] = next;
                next += 1;
            }
        }
        let old = std::mem::take(&mut self.nodes);
        for (i, mut node) in old.into_iter().enumerate() {
            if alive[i] {
                node.parent = new_id[node.parent];
                node.children = node.children.iter().map(|&c| new_id[c]).collect();
                self.nodes.push(node);
            }
        }
        let keep = if alive[keep] { keep } else { parent };
        Ok(new_id[keep])
    }

    /// The stored form: the nodes in id order (the root left out), with their places among
    /// their siblings.
    pub fn stored(&self, cursor: usize, text: impl Fn(&M) -> String) -> StoredTree {
        StoredTree {
            cursor,
            comment: self.nodes[0].comment.clone(),
            nodes: self.nodes[1..]
                .iter()
                .enumerate()
                .map(|(i, n)| StoredNode {
                    parent: n.parent,
                    at: self.nodes[n.parent]
                        .children
                        .iter()
                        .position(|&c| c == i + 1)
                        .unwrap_or(0),
                    mv: n.mv.as_ref().map(&text).unwrap_or_default(),
                    comment: n.comment.clone(),
                    pre: n.pre.clone(),
                    nags: n.nags.clone(),
                })
                .collect(),
        }
    }

    /// Puts each node's children in their stored order (after loading them in id order).
    pub fn order_children(&mut self, places: &[usize]) {
        for i in 0..self.nodes.len() {
            let mut children = std::mem::take(&mut self.nodes[i].children);
            children.sort_by_key(|&c| places.get(c - 1).copied().unwrap_or(usize::MAX));
            self.nodes[i].children = children;
        }
    }
}

/// A tree as stored in the database (JSON).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredTree {
    pub cursor: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    pub nodes: Vec<StoredNode>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredNode {
    /// The parent's id (below this node's own, which is its index + 1).
    #[serde(rename = "p")]
    pub parent: usize,
    /// Its place among its parent's children (0: the main continuation).
    #[serde(rename = "a", default)]
    pub at: usize,
    /// The move as a full path.
    #[serde(rename = "m")]
    pub mv: String,
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(rename = "b", default, skip_serializing_if = "Option::is_none")]
    pub pre: Option<String>,
    #[serde(rename = "n", default, skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<String>,
}

/// A comment as a user or a file gives it: bounded, and without the `}` that would end it in
/// PDN.
pub fn check_comment(text: &str) -> Result<Option<String>, String> {
    if text.len() > MAX_COMMENT {
        return Err(format!("a comment may have at most {MAX_COMMENT} bytes"));
    }
    if text.contains('}') {
        return Err("a comment may not contain `}` (it ends a PDN comment)".into());
    }
    let t = text.trim();
    Ok((!t.is_empty()).then(|| t.to_string()))
}

/// A NAG (`$0`..`$255`) or a move strength mark (`!`, `?`, `!!`, `??`, `!?`, `?!`, `(!)`...).
pub fn check_nag(text: &str) -> Result<String, String> {
    let ok = match text.strip_prefix('$') {
        // Written as the number it is: `$014` is `$14`.
        Some(n) if n.bytes().all(|b| b.is_ascii_digit()) => match n.parse::<u8>() {
            Ok(n) => return Ok(format!("${n}")),
            Err(_) => false,
        },
        Some(_) => false,
        None => {
            let inner = text
                .strip_prefix('(')
                .and_then(|t| t.strip_suffix(')'))
                .unwrap_or(text);
            (1..=2).contains(&inner.len()) && inner.chars().all(|c| c == '!' || c == '?')
        }
    };
    if ok {
        Ok(text.to_string())
    } else {
        // Quoted short: a 500 KB token was echoed whole.
        Err(format!(
            "`{}` is not a NAG ($0 to $255) or a move mark (!, ?, !!, ??, !?, ?!)",
            damspel_rules::quoted(text)
        ))
    }
}

/// Whether a mark checked by `check_nag` is a strength mark (`!?`), not a NAG (`$3`).
pub fn is_strength_mark(mark: &str) -> bool {
    !mark.starts_with('$')
}

/// A move's marks as a user gives them (each checked by `check_nag`), in the order PDN writes
/// them: its one strength mark first (written against the move, `9-13!?`), then the NAGs. Two
/// strength marks would read back as one (`!` `?` as `!?`), and a mark after a NAG as part of it.
pub fn order_nags(list: &[String]) -> Result<Vec<String>, String> {
    let (marks, nags): (Vec<String>, Vec<String>) = list
        .iter()
        .map(|t| check_nag(t))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .partition(|t| is_strength_mark(t));
    if marks.len() > 1 {
        return Err(format!(
            "a move has one strength mark, not {}",
            marks.join(" and ")
        ));
    }
    Ok(marks.into_iter().chain(nags).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promote_and_delete_keep_parents_first() {
        let mut t: Tree<&str> = Tree::new();
        let a = t.add(0, "a");
        let b = t.add(a, "b");
        let c = t.add(a, "c"); // a variation of b
        let d = t.add(c, "d");
        assert!(t.is_main(b) && !t.is_main(d));
        t.promote(d).unwrap();
        assert_eq!(t.node(a).children, vec![c, b]);
        assert!(t.is_main(d));
        assert!(t.promote(d).is_err());
        // Deleting c (and d) keeps b, renumbered.
        let kept = t.delete(c, d).unwrap();
        assert_eq!(kept, a);
        assert_eq!(t.len(), 3);
        assert_eq!(t.node(a).children, vec![2]);
        assert_eq!(t.node(2).mv, Some("b"));
    }

    /// A promotion that would push a line past the deepest nesting PDN reads is refused, and
    /// leaves the tree as it was.
    #[test]
    fn a_promotion_never_nests_past_what_pdn_reads() {
        let mut t: Tree<&str> = Tree::new();
        let a = t.add(0, "a");
        let mut x = a;
        for _ in 0..MAX_NESTING {
            t.add(x, "first");
            x = t.add(x, "second");
        }
        assert_eq!(t.nesting(x), MAX_NESTING);
        let b = t.add(0, "b");
        let err = t.promote(b).unwrap_err();
        assert!(err.contains("64"), "{err}");
        assert_eq!(t.node(0).children, vec![a, b]);
        assert_eq!(t.nesting(x), MAX_NESTING);
    }

    #[test]
    fn nags_and_comments_are_checked() {
        assert!(check_nag("$14").is_ok());
        // The PDN standard's NAG is `$` and a number from 0 to 255.
        assert_eq!(check_nag("$0255").unwrap(), "$255");
        assert_eq!(check_nag("$0").unwrap(), "$0");
        assert!(check_nag("$").is_err());
        assert!(check_nag("$+1").is_err());
        assert!(check_nag("?!").is_ok());
        assert!(check_nag("$256").is_err());
        assert!(check_nag("x").is_err());
        assert!(check_comment("a } b").is_err());
        assert_eq!(check_comment("  ").unwrap(), None);
    }

    #[test]
    fn a_moves_strength_mark_comes_first_and_alone() {
        let list = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        // PDN writes the mark against the move (`9-13!? $14`); `$14!?` reads as one bad NAG.
        assert_eq!(
            order_nags(&list(&["$14", "!?", "$3"])).unwrap(),
            list(&["!?", "$14", "$3"])
        );
        assert_eq!(order_nags(&list(&["$014"])).unwrap(), list(&["$14"]));
        // `!` and `?` would read back as the one mark `!?`.
        assert!(order_nags(&list(&["!", "?"])).is_err());
        assert!(order_nags(&list(&["$1", "x"])).is_err());
    }
}
