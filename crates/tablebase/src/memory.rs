//! What a build needs before it starts: every table of it indexable (at most 2^32 slots) and
//! an estimate of its peak memory, so that a set beyond the machine is refused at once with
//! the figure instead of being killed hours in, when it reaches its largest table.

use damspel_rules::{Bits, Duplicates, Rules, Setup};

use crate::build::{plan, schedule};
use crate::index::Indexer;
use crate::material::Material;
use crate::solve::drawn_by_material;
use crate::Error;

/// Bytes `solve` holds per slot at its peak, edges aside: the forward pass's code, exits and
/// degree (10), then the retrograde arrays side by side (codes 2, exits 6, open moves 2, edge
/// starts 8, predecessor starts 8, their fill 8, longest loss 2) and the buckets' share.
const BYTES_PER_SLOT: u64 = 40;
/// Bytes per in-signature edge: the edge (4, its growing vector up to twice that) and its
/// reverse (4).
const BYTES_PER_EDGE: u64 = 12;
/// Slots whose moves are generated to estimate a table's edges.
const SAMPLES: u64 = 2048;

/// The largest table of a set, and the estimated peak memory of building the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// The signature at whose build the memory peaks.
    pub material: Material,
    /// Its slots.
    pub slots: u64,
    /// Estimated peak bytes: its build plus the tables held decompressed beside it.
    pub bytes: u64,
}

/// Estimated peak bytes of solving one signature: its slots and its in-signature edges,
/// counted on a spread sample of its slots (the moves that stay in the signature: quiet, no
/// promotion), as `solve` stores them.
pub fn solve_bytes<B: Bits>(rules: &Rules<B>, material: Material) -> u64 {
    let indexer = Indexer::new(rules, material);
    let slots = indexer.len();
    let samples = SAMPLES.min(slots).max(1);
    let mut edges = 0u64;
    let mut moves = Vec::new();
    let mut scratch = Setup::default();
    for i in 0..samples {
        // Spread over the table; u128 so that slots * i cannot overflow.
        let slot = (slots as u128 * i as u128 / samples as u128) as u64;
        let Some(pos) = indexer.position_with(rules, slot, &mut scratch) else {
            continue;
        };
        if drawn_by_material(rules, &pos) {
            continue;
        }
        rules.legal_moves(&pos, &mut moves, Duplicates::Merge);
        edges += moves
            .iter()
            .filter(|m| !m.is_capture() && !m.promotes())
            .count() as u64;
    }
    let edges_per_slot = edges as f64 / samples as f64;
    let bytes = slots as f64 * (BYTES_PER_SLOT as f64 + BYTES_PER_EDGE as f64 * edges_per_slot);
    bytes.min(u64::MAX as f64) as u64
}

/// The slots of a signature's table, or `Error::TooLarge` past what `solve` indexes (2^32).
pub fn indexable<B: Bits>(rules: &Rules<B>, material: Material) -> Result<u64, Error> {
    let slots = Indexer::new(rules, material).len();
    if slots > u32::MAX as u64 {
        return Err(Error::TooLarge { material, slots });
    }
    Ok(slots)
}

/// Every table of the set up to `pieces` indexable: checked before the first is built, not
/// when the build reaches the one too large, hours later.
pub fn check_indexable<B: Bits>(rules: &Rules<B>, pieces: u8) -> Result<(), Error> {
    for material in plan(pieces).into_iter().flatten() {
        indexable(rules, material)?;
    }
    Ok(())
}

/// Checks a whole set up to `pieces` before it is built: every table indexable (else
/// `Error::TooLarge`), and the peak memory: at each step of `schedule`, solving its signature
/// beside the tables `build` holds then (2 bytes a slot: the earlier tables it or a later step
/// depends on); the largest step is the peak. None for a set of no table (under 2 pieces).
pub fn set_needs<B: Bits>(rules: &Rules<B>, pieces: u8) -> Result<Option<Needs>, Error> {
    check_indexable(rules, pieces)?;
    let mut worst: Option<Needs> = None;
    for (material, held) in schedule(pieces) {
        let slots = Indexer::new(rules, material).len();
        let bytes = held
            .iter()
            .map(|&m| Indexer::new(rules, m).len().saturating_mul(2))
            .fold(solve_bytes(rules, material), u64::saturating_add);
        if worst.is_none_or(|w| bytes > w.bytes) {
            worst = Some(Needs {
                material,
                slots,
                bytes,
            });
        }
    }
    Ok(worst)
}

/// Checks one slice before it is built: indexable, and its peak memory with its
/// dependencies' tables held decompressed beside it.
pub fn slice_needs<B: Bits>(rules: &Rules<B>, material: Material) -> Result<Needs, Error> {
    let slots = indexable(rules, material)?;
    let held = material
        .successors()
        .iter()
        .map(|&dep| Indexer::new(rules, dep).len().saturating_mul(2))
        .fold(0u64, u64::saturating_add);
    Ok(Needs {
        material,
        slots,
        bytes: solve_bytes(rules, material).saturating_add(held),
    })
}
