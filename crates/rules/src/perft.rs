//! Perft: the number of leaf nodes of the legal-move tree at exactly a given depth. Positions
//! without a legal move before that depth contribute nothing (dctl's convention). Draw rules are
//! never applied.
//!
//! In the "paths" convention (`Duplicates::Keep`) every capture sequence is a move of its own;
//! sequences that make the same move lead to the same position, so each distinct move is
//! searched once and its count multiplied by its number of sequences.

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
    counted: Vec<Vec<(Move<B>, u64)>>,
}

/// One row of `divide`: a distinct legal move, its number of capture sequences (1 unless the
/// convention counts sequences and several make this move), and the leaf count below it, all its
/// sequences included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divided<B: Bits> {
    pub mv: Move<B>,
    pub sequences: u64,
    pub nodes: u64,
}

impl<'a, B: Bits> Perft<'a, B> {
    pub fn new(rules: &'a Rules<B>, duplicates: Duplicates) -> Self {
        Perft {
            rules,
            duplicates,
            lists: Vec::new(),
            counted: Vec::new(),
        }
    }

    /// Leaf count at exactly `depth`.
    pub fn count(&mut self, pos: &Position<B>, depth: u32) -> u64 {
        if self.lists.len() < depth as usize {
            self.lists
                .resize_with(depth as usize, || Vec::with_capacity(64));
            self.counted
                .resize_with(depth as usize, || Vec::with_capacity(64));
        }
        self.count_at(pos, depth)
    }

    /// The distinct moves with their numbers of sequences in this convention.
    fn moves(&self, pos: &Position<B>, list: &mut Vec<(Move<B>, u64)>) {
        match self.duplicates {
            Duplicates::Keep => self.rules.legal_moves_counted(pos, list),
            Duplicates::Merge => {
                let mut moves = Vec::new();
                self.rules.legal_moves(pos, &mut moves, Duplicates::Merge);
                list.clear();
                list.extend(moves.into_iter().map(|m| (m, 1)));
            }
        }
    }

    fn count_at(&mut self, pos: &Position<B>, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.rules.count_moves(pos, self.duplicates),
            _ if self.duplicates == Duplicates::Merge => {
                // The common case, without the counts.
                let mut list = std::mem::take(&mut self.lists[depth as usize - 1]);
                self.rules.legal_moves(pos, &mut list, Duplicates::Merge);
                let mut nodes = 0;
                for mv in &list {
                    nodes += self.count_at(&pos.play(mv), depth - 1);
                }
                self.lists[depth as usize - 1] = list;
                nodes
            }
            _ => {
                let mut list = std::mem::take(&mut self.counted[depth as usize - 1]);
                self.rules.legal_moves_counted(pos, &mut list);
                let mut nodes: u64 = 0;
                for &(mv, sequences) in &list {
                    let below = self.count_at(&pos.play(&mv), depth - 1);
                    nodes = nodes.saturating_add(below.saturating_mul(sequences));
                }
                self.counted[depth as usize - 1] = list;
                nodes
            }
        }
    }

    /// Leaf count below each distinct legal move at the root.
    pub fn divide(&mut self, pos: &Position<B>, depth: u32) -> Vec<Divided<B>> {
        let mut list = Vec::new();
        self.moves(pos, &mut list);
        list.into_iter()
            .map(|(mv, sequences)| {
                let below = if depth <= 1 {
                    1
                } else {
                    self.count(&pos.play(&mv), depth - 1)
                };
                Divided {
                    mv,
                    sequences,
                    nodes: below.saturating_mul(sequences),
                }
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
