//! Seeds derived from the run's master seed: every opening and game gets its own, computed from
//! its key alone, so it does not matter which shard or thread plays it.

/// SplitMix64's finaliser: a bijective scramble of 64 bits.
pub fn scramble(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seed for the part `part` of whatever `seed` names.
pub fn mix(seed: u64, part: u64) -> u64 {
    scramble(seed ^ scramble(part))
}

/// FNV-1a of a text (variant ids), stable across platforms and Rust versions (unlike `Hash`).
pub fn text(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The seed of a variant's openings.
pub fn variant(master: u64, id: &str) -> u64 {
    mix(master, text(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // FNV-1a test vector: "a" -> 0xaf63dc4c8601ec8c (Fowler, Noll, Vo reference table).
        assert_eq!(text("a"), 0xaf63_dc4c_8601_ec8c);
        // SplitMix64 from state 0 gives 0xe220a8397b1dcdaf as its first output (Vigna's
        // reference implementation).
        assert_eq!(scramble(0), 0xe220_a839_7b1d_cdaf);
    }
}
