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

/// Memory this process may use, in bytes: the machine's available memory (`MemAvailable`),
/// or less where a control group caps the process (a Slurm job's `--mem`, a container's
/// limit), since past that cap the system kills it. None where neither can be read.
pub fn usable_memory_bytes() -> Option<u64> {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| meminfo_available(&t));
    let capped = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .into_iter()
        .flat_map(|t| cgroup_limit_files(&t))
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|t| cgroup_limit(&t))
        .min();
    match (available, capped) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The files that hold the memory limits of this process's control groups, from
/// /proc/self/cgroup: `memory.max` (cgroup v2, a line `0::PATH`) and `memory.limit_in_bytes`
/// (v1, a line `N:memory:PATH`), at its group and every group above it up to the root of the
/// mount (a limit binds the groups below it: Slurm caps the job, its steps inherit; a
/// container sees its own group as the root).
fn cgroup_limit_files(self_cgroup: &str) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for line in self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        let mounts: &[(&str, &str)] = if controllers.is_empty() {
            &[
                ("/sys/fs/cgroup", "memory.max"),
                ("/sys/fs/cgroup/unified", "memory.max"),
            ]
        } else if controllers.split(',').any(|c| c == "memory") {
            &[("/sys/fs/cgroup/memory", "memory.limit_in_bytes")]
        } else {
            continue;
        };
        for (mount, file) in mounts {
            let mut group = Some(std::path::Path::new(path));
            while let Some(g) = group {
                files.push(std::path::Path::new(mount).join(g).join(file));
                group = g.parent();
            }
        }
    }
    files
}

/// A limit file's bytes; None for `max` (no limit).
fn cgroup_limit(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_limits_are_read_from_meminfo_and_control_groups() {
        let meminfo =
            "MemTotal:       24684100 kB\nMemFree:         1 kB\nMemAvailable:   23362848 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(23_362_848 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
        let v2 = cgroup_limit_files("0::/system.slice/slurmstepd.scope/job_7\n");
        assert!(v2.contains(&std::path::PathBuf::from(
            "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/memory.max"
        )));
        let v1 = cgroup_limit_files("4:memory:/slurm/uid_0/job_7\n3:cpuset:/\n");
        let v1: Vec<String> = v1.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            v1,
            [
                "/sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/slurm/uid_0/memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/slurm/memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            ]
        );
        assert_eq!(cgroup_limit("2147483648\n"), Some(2 << 30));
        assert_eq!(cgroup_limit("max\n"), None);
    }
}
