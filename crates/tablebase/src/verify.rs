//! Checking a built set two ways:
//! - every slot re-derived from its successors' stored values (the rules crate's moves, the
//!   position rules: no move loses, one piece each draws where the variant says so). A set that
//!   passes is right: by induction on the true distance, a consistent labelling with distances
//!   is the minimax one;
//! - a sample of positions searched by a plain minimax without tables, to the table's distance:
//!   a win in d is forced within d plies and not within d - 2, a loss likewise, and a draw is
//!   neither won nor lost within the search depth.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use damspel_rules::{Bits, Duplicates, Position, Rules};
use rayon::prelude::*;

use crate::index::Indexer;
use crate::material::Material;
use crate::solve::{combine, drawn_by_material, Known};
use crate::store::read_table;
use crate::value::{decided, decode, Value, DRAW, INVALID};
use crate::Error;

/// Mismatches listed at most.
const MAX_LISTED: usize = 20;

/// What `verify` found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    pub tables: usize,
    /// Slots re-derived from their successors.
    pub positions: u64,
    /// Positions checked against the plain search.
    pub searched: u64,
    /// Disagreements (the first few).
    pub errors: Vec<String>,
    /// Whether any disagreement was found (also beyond the listed ones).
    pub failed: bool,
}

/// The outcome a plain minimax proves within `depth` plies: Some(true) won, Some(false) lost,
/// None neither (a draw, or longer than the depth).
pub fn search<B: Bits>(rules: &Rules<B>, pos: &Position<B>, depth: u32) -> Option<bool> {
    let moves = rules.moves(pos);
    if moves.is_empty() {
        return Some(false);
    }
    if drawn_by_material(rules, pos) || depth == 0 {
        return None;
    }
    let mut all_won = true;
    for mv in &moves {
        match search(rules, &pos.play(mv), depth - 1) {
            Some(false) => return Some(true),
            Some(true) => {}
            None => all_won = false,
        }
    }
    if all_won {
        Some(false)
    } else {
        None
    }
}

/// Whether the plain search agrees with a stored code (positions deeper than `depth` plies
/// are not checked: Ok(false)).
fn agrees<B: Bits>(
    rules: &Rules<B>,
    pos: &Position<B>,
    code: u16,
    depth: u32,
) -> Result<bool, String> {
    let Some((value, d)) = decode(code) else {
        return Ok(false);
    };
    match value {
        Value::Draw => {
            if search(rules, pos, depth).is_some() {
                return Err(format!("stored draw, but decided within {depth} plies"));
            }
        }
        Value::Win | Value::Loss => {
            if d > depth {
                return Ok(false);
            }
            let want = value == Value::Win;
            if search(rules, pos, d) != Some(want) {
                return Err(format!(
                    "stored {} in {d}, not found by a {d}-ply search",
                    value.name()
                ));
            }
            if d >= 2 && search(rules, pos, d - 2) == Some(want) {
                return Err(format!(
                    "stored {} in {d}, but a {}-ply search proves it",
                    value.name(),
                    d - 2
                ));
            }
        }
    }
    Ok(true)
}

/// Verifies the set up to `pieces` in `dir`: every slot, and `samples` positions of each table
/// against a search of at most `depth` plies. Stops early when `stop` is raised.
pub fn verify<B: Bits>(
    rules: &Rules<B>,
    dir: &Path,
    pieces: u8,
    samples: usize,
    depth: u32,
    threads: usize,
    stop: &AtomicBool,
) -> Result<VerifyReport, Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::Threads(e.to_string()))?;
    let mut known = Known::default();
    let mut report = VerifyReport::default();
    let all = Material::all_up_to(pieces);
    let mut tables = Vec::new();
    for &m in &all {
        let (_, codes) = read_table(dir, rules, m)?;
        let codes = Arc::new(codes);
        known.insert(Indexer::new(rules, m), codes.clone());
        tables.push((m, codes));
    }
    let errors = Mutex::new(Vec::new());
    let note = |msg: String| {
        let mut e = errors.lock().unwrap_or_else(|e| e.into_inner());
        e.push(msg);
    };
    for (material, codes) in &tables {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let indexer = Indexer::new(rules, *material);
        let bad = pool.install(|| {
            (0..codes.len())
                .into_par_iter()
                .filter(|&slot| {
                    if stop.load(Ordering::Relaxed) {
                        return false;
                    }
                    let stored = codes[slot];
                    let derived = match indexer.position(rules, slot as u64) {
                        None => Ok(INVALID),
                        Some(pos) => derive(rules, &pos, &known),
                    };
                    match derived {
                        Ok(d) if d == stored => false,
                        Ok(d) => {
                            note(format!(
                                "{material} slot {slot}: stored {stored}, successors give {d}"
                            ));
                            true
                        }
                        Err(e) => {
                            note(format!("{material} slot {slot}: {e}"));
                            true
                        }
                    }
                })
                .count()
        });
        report.positions += codes.len() as u64;
        report.tables += 1;
        if bad > 0 {
            report.failed = true;
        }
        // Samples spread over the table by a fixed odd stride: reproducible, no generator.
        let n = codes.len() as u64;
        let wanted = (samples as u64).min(n);
        let stride = (n / wanted.max(1)).max(1) | 1;
        let mut slot = 0x9E37u64 % n.max(1);
        let mut taken = 0;
        let mut tries = 0;
        while taken < wanted && tries < n && !stop.load(Ordering::Relaxed) {
            tries += 1;
            slot = (slot + stride) % n;
            if codes[slot as usize] == INVALID {
                continue;
            }
            let Some(pos) = indexer.position(rules, slot) else {
                continue;
            };
            match agrees(rules, &pos, codes[slot as usize], depth) {
                Ok(true) => {
                    taken += 1;
                    report.searched += 1;
                }
                Ok(false) => {}
                Err(e) => {
                    report.failed = true;
                    note(format!("{material} slot {slot}: {e}"));
                    taken += 1;
                    report.searched += 1;
                }
            }
        }
    }
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    errors.sort();
    errors.truncate(MAX_LISTED);
    report.errors = errors;
    Ok(report)
}

/// A position's code from its successors' stored codes.
fn derive<B: Bits>(rules: &Rules<B>, pos: &Position<B>, known: &Known) -> Result<u16, Error> {
    let mut moves = Vec::new();
    rules.legal_moves(pos, &mut moves, Duplicates::Merge);
    if moves.is_empty() {
        return Ok(decided(0));
    }
    if drawn_by_material(rules, pos) {
        return Ok(DRAW);
    }
    let codes = moves
        .iter()
        .map(|mv| known.code(&pos.play(mv)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(combine(codes))
}
