//! Checks `Rules::moves` on the positions of the table against three other walks: the counting
//! walk (`legal_moves_counted`, `count_moves(.., Keep)`; no targeting), the enumerating walk
//! (`legal_moves(.., Duplicates::Keep)`: every sequence, first occurrences) where it finishes in
//! time, and the independent reference generator (`damspel_conformance::reference`) where its
//! list of sequences fits in memory.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use damspel_conformance::reference::{reference_moves_within, square_of, Bounds, RefBoard};
use damspel_rules::{Bits, Duplicates, Move, Position, Rules};

use crate::count::{in_child, Key};
use crate::measure::{time_moves, Watchdog};

pub struct Limits {
    /// Cap of `moves()` and of the enumerating walk.
    pub walk: Duration,
    /// Cap of the counting child.
    pub count: Duration,
    /// The enumerating walk is tried up to this many sequences (its list is kept in memory).
    pub keep_sequences: u64,
    /// The reference generator gives up past this many sequences (before the majority rule:
    /// it holds them all) or after `walk`.
    pub reference_sequences: usize,
}

fn key<B: Bits>(m: &Move<B>) -> Key {
    (m.from().0, m.to().0, m.captured().to_u128(), m.promotes())
}

fn set_diff(a: &BTreeSet<Key>, b: &BTreeSet<Key>) -> usize {
    a.difference(b).count()
}

/// The outcome of the checks of one position: one line per walk compared, and whether any
/// disagreed with `moves()`.
pub struct Verdict {
    pub lines: Vec<String>,
    pub mismatch: bool,
}

pub fn check<B: Bits>(
    watchdog: &Watchdog,
    rules: &Rules<B>,
    pos: &Position<B>,
    variant_id: &str,
    fen: &str,
    limits: &Limits,
) -> Verdict {
    let mut lines = Vec::new();
    let mut mismatch = false;
    let mut list = Vec::new();
    let t = time_moves(watchdog, rules, pos, &mut list, limits.walk);
    if !t.complete {
        lines.push(format!(
            "moves(): not done in {:?}, nothing checked",
            limits.walk
        ));
        return Verdict {
            lines,
            mismatch: false,
        };
    }
    let merged: Vec<Key> = list.iter().map(key).collect();
    let merged_set: BTreeSet<Key> = merged.iter().copied().collect();
    lines.push(format!(
        "moves(): {} moves in {:.3} ms",
        merged.len(),
        t.seconds * 1e3
    ));
    if merged_set.len() != merged.len() {
        mismatch = true;
        lines.push(format!(
            "MISMATCH moves() lists {} moves, {} distinct",
            merged.len(),
            merged_set.len()
        ));
    }

    // The counting walk.
    let counted = in_child(variant_id, fen, limits.count);
    let sequences = match &counted {
        None => {
            lines.push(format!("counting walk: not done in {:?}", limits.count));
            None
        }
        Some(c) => {
            let set: BTreeSet<Key> = c.moves.keys().copied().collect();
            let sum: u64 = c.moves.values().sum();
            let ok = set == merged_set && sum == c.sequences;
            mismatch |= !ok;
            lines.push(format!(
                "{} counting walk: {} moves, {} sequences (moves' counts add up to {sum}; \
                 count_moves took {:.3} s); {} only in moves(), {} only counted",
                if ok { "ok" } else { "MISMATCH" },
                set.len(),
                c.sequences,
                c.seconds,
                set_diff(&merged_set, &set),
                set_diff(&set, &merged_set),
            ));
            Some(c.sequences)
        }
    };

    // The enumerating walk.
    let mut keep_counts: Option<BTreeMap<Key, u64>> = None;
    if sequences.is_some_and(|s| s <= limits.keep_sequences) {
        let mut keep = Vec::new();
        let started = Instant::now();
        let done = watchdog.run(limits.walk, |stop| {
            rules.legal_moves_until(pos, &mut keep, Duplicates::Keep, stop)
        });
        if done.is_ok() {
            let seconds = started.elapsed().as_secs_f64();
            let mut firsts = Vec::new();
            let mut counts: BTreeMap<Key, u64> = BTreeMap::new();
            for m in &keep {
                let k = key(m);
                let n = counts.entry(k).or_insert(0);
                if *n == 0 {
                    firsts.push(k);
                }
                *n += 1;
            }
            let set: BTreeSet<Key> = firsts.iter().copied().collect();
            let same_set = set == merged_set;
            let same_count = Some(keep.len() as u64) == sequences;
            let same_multiplicity = counted
                .as_ref()
                .is_none_or(|c| c.moves.iter().all(|(k, &n)| counts.get(k) == Some(&n)));
            let ok = same_set && same_count && same_multiplicity;
            mismatch |= !ok;
            lines.push(format!(
                "{} enumerating walk: {} sequences, {} moves in {seconds:.2} s; {} only in \
                 moves(), {} only enumerated; per-move counts {}; {}",
                if ok { "ok" } else { "MISMATCH" },
                keep.len(),
                set.len(),
                set_diff(&merged_set, &set),
                set_diff(&set, &merged_set),
                if same_multiplicity {
                    "agree with the counting walk"
                } else {
                    "DIFFER from the counting walk"
                },
                if firsts == merged {
                    "same order as moves()"
                } else {
                    "in another order than moves() (not an error)"
                },
            ));
            keep_counts = Some(counts);
        } else {
            lines.push(format!("enumerating walk: not done in {:?}", limits.walk));
        }
    } else {
        lines.push(format!(
            "enumerating walk: skipped (over {} sequences, or not counted)",
            limits.keep_sequences
        ));
    }

    // The reference generator, within bounds: its memory grows with every sequence it finds.
    let variant = rules.variant();
    let started = Instant::now();
    let board = RefBoard::from_position(variant, pos);
    let bounds = Bounds {
        sequences: limits.reference_sequences,
        deadline: Some(started + limits.walk),
    };
    if let Ok(reference) = reference_moves_within(variant, &board, bounds) {
        let mut counts: BTreeMap<Key, u64> = BTreeMap::new();
        for s in reference {
            let k = (
                square_of(variant, s.from).0,
                square_of(variant, s.to()).0,
                s.captured_mask(variant),
                s.promotes,
            );
            *counts.entry(k).or_insert(0) += 1;
        }
        let seconds = started.elapsed().as_secs_f64();
        let set: BTreeSet<Key> = counts.keys().copied().collect();
        let total: u64 = counts.values().sum();
        let same_set = set == merged_set;
        let same_keep = keep_counts.as_ref().is_none_or(|k| *k == counts);
        let same_count = sequences.is_none_or(|s| s == total);
        let ok = same_set && same_keep && same_count;
        mismatch |= !ok;
        lines.push(format!(
            "{} reference generator: {total} sequences, {} moves in {seconds:.2} s; {} only in \
             moves(), {} only in the reference; per-move counts {}",
            if ok { "ok" } else { "MISMATCH" },
            set.len(),
            set_diff(&merged_set, &set),
            set_diff(&set, &merged_set),
            if same_keep && same_count {
                "agree"
            } else {
                "DIFFER"
            },
        ));
    } else {
        lines.push(format!(
            "reference generator: given up (over {} sequences before the majority rule, or \
             not done in {:?})",
            limits.reference_sequences, limits.walk
        ));
    }
    Verdict { lines, mismatch }
}
