//! What this machine can hold: the largest hash table and the most search threads a user may
//! ask for.

use damspel_engine::{HASH_MB_RANGE, MAX_THREADS};

/// Used when the machine's memory cannot be read (other systems than Linux).
const UNKNOWN_MEMORY_MAX_HASH_MB: usize = 4096;

/// Physical memory in MiB, if known.
fn memory_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// The largest hash table (MiB) a user may ask for: half the machine's memory, within the
/// engine's range (4096 MiB when the memory cannot be read). A table the allocator grants but
/// the machine cannot back would be filled by the search until the system kills the process.
pub fn max_hash_mb() -> usize {
    let half = memory_mb().map_or(UNKNOWN_MEMORY_MAX_HASH_MB, |m| m / 2);
    half.clamp(*HASH_MB_RANGE.start(), *HASH_MB_RANGE.end())
}

/// Checks a hash size a user asked for: one line saying what is allowed.
pub fn check_hash_mb(mb: usize) -> anyhow::Result<usize> {
    let max = max_hash_mb();
    if !(1..=max).contains(&mb) {
        anyhow::bail!(
            "--hash must be from 1 to {max} MiB on this machine (half its memory), not {mb}"
        );
    }
    Ok(mb)
}

/// The most search threads a user may ask for: four per core (more add nothing to the search
/// and, hundreds on a few cores, starve the program's other threads: the Hub's answers), at most
/// the engine's 256.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).clamp(1, MAX_THREADS)
}

/// Checks a thread count a user asked for: one line saying what is allowed.
pub fn check_threads(threads: usize) -> anyhow::Result<usize> {
    let max = max_threads();
    if !(1..=max).contains(&threads) {
        anyhow::bail!(
            "--threads must be from 1 to {max} on this machine (four per core), not {threads}"
        );
    }
    Ok(threads)
}
