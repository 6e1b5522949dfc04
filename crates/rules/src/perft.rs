//! Perft: the number of leaf nodes of the legal-move tree at exactly a given depth. Positions
//! without a legal move before that depth contribute nothing (dctl's convention). Draw rules are
//! never applied.

use crate::bitboard::Bits;
use crate::movegen::Duplicates;
use crate::mv::Move;
use crate::position::Position;
use crate::rules::Rules;

/// Perft with one move list per ply, reused across the tree.
pub struct Perft<'a, B: Bits> {
    rules: &'a Rules<B>,
    duplicates: Duplicates,
    lists: Vec<Vec<Move<B>>>,
}

impl<'a, B: Bits> Perft<'a, B> {
    pub fn new(rules: &'a Rules<B>, duplicates: Duplicates) -> Self {
        Perft {
            rules,
            duplicates,
            lists: Vec::new(),
        }
    }

    /// Leaf count at exactly `depth`.
    pub fn count(&mut self, pos: &Position<B>, depth: u32) -> u64 {
        if self.lists.len() < depth as usize {
            self.lists
                .resize_with(depth as usize, || Vec::with_capacity(64));
        }
        self.count_at(pos, depth)
    }

    fn count_at(&mut self, pos: &Position<B>, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.rules.count_moves(pos, self.duplicates),
            _ => {
                let mut list = std::mem::take(&mut self.lists[depth as usize - 1]);
                self.rules.legal_moves(pos, &mut list, self.duplicates);
                let mut nodes = 0;
                for mv in &list {
                    nodes += self.count_at(&pos.play(mv), depth - 1);
                }
                self.lists[depth as usize - 1] = list;
                nodes
            }
        }
    }

    /// Leaf count below each legal move at the root.
    pub fn divide(&mut self, pos: &Position<B>, depth: u32) -> Vec<(Move<B>, u64)> {
        let mut list = Vec::new();
        self.rules.legal_moves(pos, &mut list, self.duplicates);
        list.into_iter()
            .map(|mv| {
                let nodes = if depth <= 1 {
                    1
                } else {
                    self.count(&pos.play(&mv), depth - 1)
                };
                (mv, nodes)
            })
            .collect()
    }
}

/// Leaf count at exactly `depth`.
pub fn perft<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    depth: u32,
    duplicates: Duplicates,
) -> u64 {
    Perft::new(rules, duplicates).count(pos, depth)
}
