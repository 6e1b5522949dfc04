//! Endgame tables in the search: the root's move decided by the tables where they know the
//! position, and exact values inside the search as mate-style scores.

use damspel_rules::{Bits, Color, Duplicates, Move, Position, Rules};
use damspel_tablebase::{Probe, Tablebase, Value};

use super::PvLine;
use crate::score::Score;

/// The longest forced result a score holds.
const MAX_PLIES: u32 = 900;

/// The most plies of a table line shown as a principal variation.
const PV_PLIES: usize = 48;

/// The tables an engine probes, with the most pieces any of them holds (a cheap test before
/// a probe).
pub(super) struct Tables<B: Bits> {
    pub tb: std::sync::Arc<Tablebase<B>>,
    pub pieces: u32,
}

impl<B: Bits> Tables<B> {
    pub fn new(tb: std::sync::Arc<Tablebase<B>>) -> Tables<B> {
        let pieces = tb
            .materials()
            .iter()
            .map(|m| u32::from(m.total()))
            .max()
            .unwrap_or(0);
        Tables { tb, pieces }
    }

    /// The table's value of `pos`, `ply` plies from the root, as a search score: a win
    /// `d` plies from `pos` scores like a forced win found by the search, so shorter wins score
    /// higher. Move-count rules are left to the search's own draw test along its path.
    pub fn score(&self, pos: &Position<B>, ply: usize) -> Option<Score> {
        let pieces = pos.pieces(Color::White).count() + pos.pieces(Color::Black).count();
        if pieces > self.pieces {
            return None;
        }
        self.tb.probe(pos).map(|p| to_score(&p, ply as u32))
    }

    /// What the tables decide at the root: the move to play with its lines (best first), the
    /// drawing moves the search must choose among, or nothing (the position is not in the
    /// tables, or every move draws).
    pub fn root(&self, rules: &Rules<B>, root: &Position<B>) -> Root<B> {
        let Some(probe) = self.tb.probe(root) else {
            return Root::Search;
        };
        let mut moves = Vec::new();
        rules.legal_moves(root, &mut moves, Duplicates::Merge);
        let mut scored = Vec::with_capacity(moves.len());
        for mv in moves {
            let Some(after) = self.tb.probe(&root.play(&mv)) else {
                return Root::Search;
            };
            scored.push((mv, to_score(&after, 1).flip()));
        }
        if scored.is_empty() {
            return Root::Search;
        }
        if probe.value == Value::Draw {
            let drawing: Vec<Move<B>> = scored
                .iter()
                .filter(|(_, s)| *s == Score::DRAW)
                .map(|(m, _)| *m)
                .collect();
            return if drawing.len() == scored.len() {
                Root::Search
            } else {
                Root::Draw(drawing)
            };
        }
        // The fastest win (cursed or not: no other win is shorter, so none fits a limit the
        // fastest misses), or the longest resistance; the first in move order on a tie.
        scored.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
        let lines = scored
            .into_iter()
            .map(|(mv, score)| {
                let mut pv = vec![mv];
                self.line(rules, &root.play(&mv), &mut pv);
                PvLine { score, pv }
            })
            .collect();
        Root::Decided(lines)
    }

    /// Extends `pv` with the table's best play from `pos` (fastest win, longest resistance).
    fn line(&self, rules: &Rules<B>, pos: &Position<B>, pv: &mut Vec<Move<B>>) {
        let mut pos = *pos;
        let mut moves = Vec::new();
        while pv.len() < PV_PLIES {
            match self.tb.probe(&pos) {
                Some(p) if p.value != Value::Draw => {}
                _ => return,
            }
            rules.legal_moves(&pos, &mut moves, Duplicates::Merge);
            let best = moves
                .iter()
                .filter_map(|mv| {
                    let after = self.tb.probe(&pos.play(mv))?;
                    Some((*mv, to_score(&after, 1).flip()))
                })
                .max_by_key(|(_, s)| *s);
            let Some((mv, _)) = best else { return };
            pv.push(mv);
            pos = pos.play(&mv);
        }
    }
}

/// The root as the tables see it.
pub(super) enum Root<B: Bits> {
    /// Not in the tables, or nothing to choose: the ordinary search.
    Search,
    /// A drawn position: the search chooses among these drawing moves.
    Draw(Vec<Move<B>>),
    /// A won or lost position: every root move with its exact score, best first.
    Decided(Vec<PvLine<B>>),
}

/// A probe of a position `ply` plies from the root as a score for its side to move.
fn to_score(p: &Probe, ply: u32) -> Score {
    // Scores keep forced results within 1,000 plies of the end of the range.
    let plies = (ply + p.distance).min(MAX_PLIES);
    match p.value {
        Value::Win => Score::win_in(plies),
        Value::Loss => Score::loss_in(plies),
        Value::Draw => Score::DRAW,
    }
}
