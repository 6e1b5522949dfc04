//! Legal move generation. Captures take precedence over every other move; the majority rule is
//! applied by the sinks; the Bahrain restriction (D21) is the one post-generation filter.

mod capture;
mod quiet;
mod sink;

use crate::bitboard::Bits;
use crate::mv::{Move, MoveDetail};
use crate::position::Position;
use crate::rules::Rules;

pub use sink::Duplicates;
use sink::{CountSink, DetailSink, ListSink};

impl<B: Bits> Rules<B> {
    /// Fills `list` with the legal moves of the side to move.
    pub fn legal_moves(&self, pos: &Position<B>, list: &mut Vec<Move<B>>, duplicates: Duplicates) {
        list.clear();
        let mut sink = ListSink {
            list,
            best: 0,
            merge: duplicates == Duplicates::Merge,
        };
        if capture::has_capture(self, pos) {
            capture::generate_captures(self, pos, &mut sink);
        } else {
            quiet::generate_quiet(self, pos, &mut sink);
            if self.bahrain {
                self.bahrain_filter(pos, list);
            }
        }
    }

    /// The legal moves, de-duplicated, in a new list.
    pub fn moves(&self, pos: &Position<B>) -> Vec<Move<B>> {
        let mut list = Vec::new();
        self.legal_moves(pos, &mut list, Duplicates::Merge);
        list
    }

    /// The legal moves with their routes. With `Duplicates::Merge`, each move keeps the first
    /// route found.
    pub fn legal_moves_detailed(
        &self,
        pos: &Position<B>,
        duplicates: Duplicates,
    ) -> Vec<MoveDetail<B>> {
        let mut sink = DetailSink {
            list: Vec::new(),
            best: 0,
            merge: duplicates == Duplicates::Merge,
        };
        if capture::has_capture(self, pos) {
            capture::generate_captures(self, pos, &mut sink);
            sink.list
        } else {
            quiet::generate_quiet(self, pos, &mut sink);
            let mut list = sink.list;
            if self.bahrain {
                let mut moves: Vec<Move<B>> = list.iter().map(|d| d.mv).collect();
                self.bahrain_filter(pos, &mut moves);
                list.retain(|d| moves.contains(&d.mv));
            }
            list
        }
    }

    /// Number of legal moves, without listing quiet moves.
    pub fn count_moves(&self, pos: &Position<B>, duplicates: Duplicates) -> u64 {
        if capture::has_capture(self, pos) {
            match duplicates {
                Duplicates::Keep => {
                    let mut sink = CountSink::default();
                    capture::generate_captures(self, pos, &mut sink);
                    sink.count
                }
                Duplicates::Merge => {
                    let mut list = Vec::new();
                    let mut sink = ListSink {
                        list: &mut list,
                        best: 0,
                        merge: true,
                    };
                    capture::generate_captures(self, pos, &mut sink);
                    list.len() as u64
                }
            }
        } else if self.bahrain {
            let mut list = Vec::new();
            self.legal_moves(pos, &mut list, duplicates);
            list.len() as u64
        } else {
            quiet::count_quiet(self, pos)
        }
    }

    /// Number of non-capturing moves of the side to move, as if it had no capture (mobility).
    pub fn quiet_move_count(&self, pos: &Position<B>) -> u32 {
        quiet::count_quiet(self, pos) as u32
    }

    /// Whether the side to move must capture.
    pub fn has_capture(&self, pos: &Position<B>) -> bool {
        capture::has_capture(self, pos)
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self, pos: &Position<B>) -> bool {
        // The Bahrain filter never removes every move (it is lifted instead).
        capture::has_capture(self, pos) || quiet::count_quiet(self, pos) > 0
    }

    /// D21, the Bahrain restriction (rule book 1.29): when some of the mover's men are threatened,
    /// a quiet move of an unthreatened man may not make that man threaten an enemy piece; lifted
    /// when it would leave no move.
    fn bahrain_filter(&self, pos: &Position<B>, moves: &mut Vec<Move<B>>) {
        let us = pos.side;
        let theirs = pos.with_side_to_move(!us);
        let mut threats = Vec::new();
        let mut sink = ListSink {
            list: &mut threats,
            best: 0,
            merge: true,
        };
        capture::generate_captures(self, &theirs, &mut sink);
        let threatened = threats.iter().fold(B::ZERO, |acc, m| acc | m.captured) & pos.men(us);
        if threatened.is_empty() {
            return;
        }
        let allowed: Vec<Move<B>> = moves
            .iter()
            .copied()
            .filter(|m| {
                if pos.kings.has(m.from) || threatened.has(m.from) {
                    return true;
                }
                let after = pos.play(m).with_side_to_move(us);
                !capture::piece_can_capture(self, &after, m.to)
            })
            .collect();
        if !allowed.is_empty() {
            *moves = allowed;
        }
    }
}
