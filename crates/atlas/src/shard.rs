//! `--shard I/N`: which pairs a shard plays. Pair p belongs to shard `p % N + 1` (round robin),
//! so every shard gets a fair share of every variant, and raising `--games` later adds pairs to
//! every shard alike.

use std::fmt;
use std::str::FromStr;

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// Most shards a run may be split into.
pub const MAX_SHARDS: u32 = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad shard `{text}`: {reason} (write I/N with 1 <= I <= N, e.g. 3/8)")]
pub struct ShardError {
    pub text: String,
    pub reason: &'static str,
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    pub fn new(index: u32, count: u32) -> Option<Shard> {
        ((1..=MAX_SHARDS).contains(&count) && (1..=count).contains(&index))
            .then_some(Shard { index, count })
    }

    pub fn index(self) -> u32 {
        self.index
    }

    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether this shard plays pair `pair` (0-based).
    pub fn contains(self, pair: u64) -> bool {
        pair % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let fail = |reason| ShardError {
            text: text.to_string(),
            reason,
        };
        let (i, n) = text.trim().split_once('/').ok_or_else(|| fail("no `/`"))?;
        let number = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| fail("I and N must be whole numbers"))
        };
        let (i, n) = (number(i)?, number(n)?);
        if n == 0 || n > MAX_SHARDS {
            return Err(fail("N must be from 1 to 1000000"));
        }
        Shard::new(i, n).ok_or_else(|| fail("I must be from 1 to N"))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_pairs() {
        let shards: Vec<Shard> = (1..=8).map(|i| format!("{i}/8").parse().unwrap()).collect();
        for pair in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.contains(pair)).count(), 1);
        }
        assert!(Shard::WHOLE.contains(12345));
    }
}
