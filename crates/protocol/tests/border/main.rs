//! The protocols' parsers against hostile and valid input (one test binary, to keep CI's link
//! time down): Hub lines, positions, moves and conversations (`hub`), DXP frames, messages and
//! moves (`dxp`).
//!
//! A few hundred cases per property in CI; `PROPTEST_CASES=100000 cargo test -p
//! damspel-protocol --test border` for a long run.

mod dxp;
mod hub;

use proptest::test_runner::Config;

/// `cases` per property by default (CI); `PROPTEST_CASES=100000` for a long run.
fn config(cases: u32) -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..Config::default()
    }
}

/// SplitMix64, seeded by proptest.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}
