//! Building tables: a whole set in dependency order, or one slice (one signature) from the
//! files of its dependencies, as a cluster job does.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_rules::{Bits, Rules};

use crate::index::Indexer;
use crate::material::Material;
use crate::memory::{check_indexable, indexable};
use crate::solve::{solve, Known, Progress};
use crate::store::{read_table, table_path, write_table};
use crate::Error;

/// What building one signature did.
#[derive(Clone, Debug)]
pub struct Built {
    pub material: Material,
    /// Slots of the table (both sides to move, invalid slots included).
    pub positions: u64,
    /// Size of the file.
    pub bytes: u64,
    /// Time spent (zero when the file was already there and reused).
    pub time: Duration,
    pub reused: bool,
    /// Why a file already there was not kept but built again (damaged, of another format
    /// version, built for other rules data); None when there was none, or it was kept.
    pub replaced: Option<String>,
}

/// Why a table file found in the folder is not kept, to be said as it is built again; None
/// when there is no file.
fn not_kept(e: &Error) -> Option<String> {
    match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => None,
        Error::VariantChanged { .. } => Some("it was built for other rules data".into()),
        Error::Version { found, .. } => Some(format!(
            "it is of format version {found}, this program's is {}",
            crate::VERSION
        )),
        Error::Corrupt { reason, .. } => Some(format!("it was damaged ({reason})")),
        other => Some(other.to_string()),
    }
}

/// The signatures up to `pieces`, in dependency waves (see `Material::waves`).
pub fn plan(pieces: u8) -> Vec<Vec<Material>> {
    Material::waves(pieces)
}

/// The order `build` takes the signatures up to `pieces` in, and for each step the tables it
/// holds decompressed while solving it: those built before it that it or a later step depends
/// on. A table no later step needs is dropped, so memory peaks at the largest step's working
/// set, not at the sum of the set (Turkish with 5 pieces: 0.5 GB held at its last table
/// instead of 22 GB).
pub fn schedule(pieces: u8) -> Vec<(Material, Vec<Material>)> {
    let order: Vec<Material> = plan(pieces).into_iter().flatten().collect();
    // The last step that depends on each signature (none: no later step needs it).
    let mut last_use: HashMap<Material, usize> = HashMap::new();
    for (step, material) in order.iter().enumerate() {
        for dep in material.successors() {
            last_use.insert(dep, step);
        }
    }
    order
        .iter()
        .enumerate()
        .map(|(step, &material)| {
            let held = order[..step]
                .iter()
                .copied()
                .filter(|m| last_use.get(m).is_some_and(|&last| last >= step))
                .collect();
            (material, held)
        })
        .collect()
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::Threads(e.to_string()))
}

/// Builds every table up to `pieces` into `dir` (keeping the ones already there and valid),
/// on `threads` threads. `progress` is called from the worker threads; returning false stops
/// the build (the tables finished so far stay). A set with a table past 2^32 slots is refused
/// before anything is built. Only the tables `schedule` names are held at each step.
pub fn build<B: Bits>(
    rules: &Rules<B>,
    pieces: u8,
    dir: &Path,
    threads: usize,
    progress: &(dyn Fn(Progress) -> bool + Sync),
) -> Result<Vec<Built>, Error> {
    check_indexable(rules, pieces)?;
    let pool = pool(threads)?;
    let mut known = Known::default();
    let mut out = Vec::new();
    for (material, held) in schedule(pieces) {
        known.retain(|m| held.contains(m));
        let built = match read_table(dir, rules, material) {
            Ok((_, codes)) => {
                known.insert(Indexer::new(rules, material), Arc::new(codes));
                Built {
                    material,
                    positions: Indexer::new(rules, material).len(),
                    bytes: file_len(dir, rules, material),
                    time: Duration::ZERO,
                    reused: true,
                    replaced: None,
                }
            }
            Err(why) => {
                let replaced = not_kept(&why);
                let start = Instant::now();
                let codes = pool.install(|| solve(rules, material, &known, progress))?;
                write_table(dir, rules, material, &codes)?;
                known.insert(Indexer::new(rules, material), Arc::new(codes));
                Built {
                    material,
                    positions: Indexer::new(rules, material).len(),
                    bytes: file_len(dir, rules, material),
                    time: start.elapsed(),
                    reused: false,
                    replaced,
                }
            }
        };
        out.push(built);
    }
    Ok(out)
}

/// Builds the table of one signature from the files of the signatures it depends on, which
/// must be in `dir` already (earlier waves of `plan`).
pub fn build_slice<B: Bits>(
    rules: &Rules<B>,
    material: Material,
    dir: &Path,
    threads: usize,
    progress: &(dyn Fn(Progress) -> bool + Sync),
) -> Result<Built, Error> {
    indexable(rules, material)?;
    let pool = pool(threads)?;
    let mut known = Known::default();
    for dep in material.successors() {
        let (_, codes) = read_table(dir, rules, dep).map_err(|e| Error::Dependency {
            material,
            needs: dep,
            cause: Box::new(e),
        })?;
        known.insert(Indexer::new(rules, dep), Arc::new(codes));
    }
    let start = Instant::now();
    let codes = pool.install(|| solve(rules, material, &known, progress))?;
    write_table(dir, rules, material, &codes)?;
    Ok(Built {
        material,
        positions: codes.len() as u64,
        bytes: file_len(dir, rules, material),
        time: start.elapsed(),
        reused: false,
        replaced: None,
    })
}

fn file_len<B: Bits>(dir: &Path, rules: &Rules<B>, material: Material) -> u64 {
    std::fs::metadata(table_path(dir, rules.variant(), material)).map_or(0, |m| m.len())
}
