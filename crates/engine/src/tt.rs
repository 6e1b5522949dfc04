//! The transposition table: lock-free, shared by all search threads. Each slot is two atomics,
//! the key XOR the data and the data, so a torn write is detected as a miss instead of trusted.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::score::Score;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The score is at least this (a fail-high).
    Lower,
    /// The score is at most this (a fail-low).
    Upper,
}

/// What a slot remembers about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub score: Score,
    pub depth: i32,
    pub bound: Bound,
    /// The best move: a tag of its captured set, its from and its to square.
    pub best: Option<(u8, u8, u8)>,
    pub age: u8,
}

impl Entry {
    fn pack(&self) -> u64 {
        let score = (self.score.0 as i16 as u16) as u64;
        let depth = (self.depth.clamp(-1, 254) + 1) as u64;
        let bound = match self.bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let (has, index, from, to) = match self.best {
            Some((i, f, t)) => (1u64, i as u64, f as u64, t as u64),
            None => (0, 0, 0, 0),
        };
        score
            | depth << 16
            | bound << 24
            | has << 26
            | index << 27
            | from << 35
            | to << 43
            | (self.age as u64) << 51
    }

    fn unpack(data: u64) -> Entry {
        let bound = match (data >> 24) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        let best = ((data >> 26) & 1 == 1).then_some((
            ((data >> 27) & 0xff) as u8,
            ((data >> 35) & 0xff) as u8,
            ((data >> 43) & 0xff) as u8,
        ));
        Entry {
            score: Score((data & 0xffff) as u16 as i16 as i32),
            depth: ((data >> 16) & 0xff) as i32 - 1,
            bound,
            best,
            age: ((data >> 51) & 0x3f) as u8,
        }
    }
}

/// Buckets of `WAYS` slots, each slot two words: the key XOR the data, and the data. A new
/// entry replaces the shallowest or oldest slot of its bucket. A bucket is one cache line, so
/// a probe costs one memory access.
pub struct Table {
    /// `WORDS` words per bucket; the first bucket starts at `base`, on a cache line.
    words: Box<[AtomicU64]>,
    base: usize,
    /// Buckets - 1 (a power of two minus one).
    mask: usize,
    age: std::sync::atomic::AtomicU8,
}

const WAYS: usize = 4;
const WORDS: usize = 2 * WAYS;
const LINE: usize = 64;

/// The table sizes a caller may ask for, in MiB (1 MiB to 64 GiB). Whether the machine can
/// hold a size is only known when it is allocated: see [`Table::new`].
pub const HASH_MB_RANGE: std::ops::RangeInclusive<usize> = 1..=65_536;

/// A table that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error("a hash table of {0} MiB is outside the range 1 to 65536 MiB")]
    OutOfRange(usize),
    #[error("cannot allocate a hash table of {0} MiB: not enough memory")]
    NoMemory(usize),
}

/// Zeroed words, allocated as zeroed memory: the system hands over untouched pages, so even a
/// large table costs no time to make (pages are filled as the search writes to them).
fn zeroed_words(count: usize) -> Option<Box<[AtomicU64]>> {
    bytemuck::allocation::try_zeroed_slice_box(count).ok()
}

impl Table {
    /// A table of about `megabytes` MiB (the largest power of two of buckets that fits), or an
    /// error when the size is out of [`HASH_MB_RANGE`] or the memory cannot be had. Never aborts.
    pub fn new(megabytes: usize) -> Result<Table, TableError> {
        if !HASH_MB_RANGE.contains(&megabytes) {
            return Err(TableError::OutOfRange(megabytes));
        }
        let wanted = ((megabytes << 20) / LINE).max(1);
        // A power of two, at most the size asked for.
        let buckets = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        Table::with_buckets(buckets).ok_or(TableError::NoMemory(megabytes))
    }

    /// One bucket: what is left when not even a MiB can be had.
    pub fn tiny() -> Table {
        Table {
            words: (0..2 * WORDS).map(|_| AtomicU64::new(0)).collect(),
            base: 0,
            mask: 0,
            age: std::sync::atomic::AtomicU8::new(0),
        }
    }

    fn with_buckets(buckets: usize) -> Option<Table> {
        // One bucket more than needed, to start the first on a cache line.
        let words = zeroed_words((buckets + 1) * WORDS)?;
        let misalign = (words.as_ptr() as usize) % LINE;
        let base = ((LINE - misalign) % LINE) / std::mem::size_of::<AtomicU64>();
        Some(Table {
            words,
            base,
            mask: buckets - 1,
            age: std::sync::atomic::AtomicU8::new(0),
        })
    }

    /// Size in MiB (the power of two actually allocated).
    pub fn megabytes(&self) -> usize {
        ((self.mask + 1) * LINE) >> 20
    }

    /// Forgets every entry. With the table to itself, it takes fresh zeroed memory (no time);
    /// otherwise, or if that fails, it writes zeros over every slot.
    pub fn clear(shared: &mut std::sync::Arc<Table>) {
        if let Some(table) = std::sync::Arc::get_mut(shared) {
            // Free the old memory first: the new takes its place.
            let buckets = table.mask + 1;
            table.words = Box::new([]);
            if let Some(fresh) = Table::with_buckets(buckets) {
                *table = fresh;
                return;
            }
            *table = Table::tiny();
            if let Some(fresh) = Table::with_buckets(buckets) {
                *table = fresh;
            }
            return;
        }
        for word in shared.words.iter() {
            word.store(0, Ordering::Relaxed);
        }
    }

    /// Marks the start of a new search: older entries become replaceable first.
    pub fn next_age(&self) {
        let age = self.age.load(Ordering::Relaxed);
        self.age.store((age + 1) & 0x3f, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &[AtomicU64; WORDS] {
        let start = self.base + ((key as usize) & self.mask) * WORDS;
        self.words[start..start + WORDS]
            .try_into()
            .expect("a bucket is WORDS words")
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        for slot in self.bucket(key).chunks_exact(2) {
            let (check, data) = (&slot[0], &slot[1]);
            let data = data.load(Ordering::Relaxed);
            if data != 0 && check.load(Ordering::Relaxed) ^ data == key {
                return Some(Entry::unpack(data));
            }
        }
        None
    }

    pub fn store(&self, key: u64, mut entry: Entry) {
        entry.age = self.age.load(Ordering::Relaxed);
        let current_age = entry.age;
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        for (i, slot) in bucket.chunks_exact(2).enumerate() {
            let data = slot[1].load(Ordering::Relaxed);
            if data == 0 || slot[0].load(Ordering::Relaxed) ^ data == key {
                victim = i;
                if data != 0 {
                    // Keep a deeper result of the same position unless this one is exact.
                    let old = Entry::unpack(data);
                    if old.depth > entry.depth + 2
                        && entry.bound != Bound::Exact
                        && old.age == current_age
                    {
                        return;
                    }
                    if entry.best.is_none() {
                        entry.best = old.best;
                    }
                }
                break;
            }
            let old = Entry::unpack(data);
            let stale = if old.age == current_age { 0 } else { 256 };
            let value = old.depth - stale;
            if value < victim_value {
                victim_value = value;
                victim = i;
            }
        }
        let data = entry.pack();
        bucket[2 * victim + 1].store(data, Ordering::Relaxed);
        bucket[2 * victim].store(key ^ data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let e = Entry {
            score: Score(-1234),
            depth: 17,
            bound: Bound::Lower,
            best: Some((3, 45, 127)),
            age: 5,
        };
        assert_eq!(Entry::unpack(e.pack()), e);
        let t = Table::new(1).unwrap();
        t.store(42, e);
        let got = t.probe(42).unwrap();
        assert_eq!((got.score, got.depth, got.best), (e.score, e.depth, e.best));
        assert!(t.probe(43).is_none());
    }

    #[test]
    fn sizes_out_of_range_or_memory_are_errors_not_aborts() {
        assert_eq!(Table::new(0).err(), Some(TableError::OutOfRange(0)));
        assert_eq!(
            Table::new(usize::MAX).err(),
            Some(TableError::OutOfRange(usize::MAX))
        );
        assert_eq!(
            Table::new(65_537).err(),
            Some(TableError::OutOfRange(65_537))
        );
        assert_eq!(Table::new(3).unwrap().megabytes(), 2);
        assert_eq!(Table::new(64).unwrap().megabytes(), 64);
    }
}
