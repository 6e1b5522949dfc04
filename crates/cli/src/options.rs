//! The ranges of the command line's numeric options, as clap value parsers: a value outside
//! its range is a usage error of one line naming the range. The ranges are in each option's
//! help too.

use clap::builder::{RangedU64ValueParser, TypedValueParser};

/// The shortest and longest time per move, in seconds: a millisecond to a day.
pub const SECONDS: (f64, f64) = (0.001, 86_400.0);

/// Search depth in plies (the engine's deepest iteration).
pub fn depth() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(1..=damspel_engine::MAX_DEPTH as u64)
}

/// Search threads.
pub fn threads() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=damspel_engine::MAX_THREADS as u64)
}

/// Hash table size in MiB (the machine may allow less: see `crate::machine`).
pub fn hash() -> RangedU64ValueParser<usize> {
    let range = damspel_engine::HASH_MB_RANGE;
    RangedU64ValueParser::new().range(*range.start() as u64..=*range.end() as u64)
}

/// A count from `min` to `max`.
pub fn count(min: u64, max: u64) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(min..=max)
}

/// Seconds per move: a number in [`SECONDS`] (not NaN, not infinite, not negative).
pub fn seconds() -> impl TypedValueParser<Value = f64> {
    clap::builder::StringValueParser::new().try_map(|text| {
        let (min, max) = SECONDS;
        match text.trim().parse::<f64>() {
            Ok(t) if (min..=max).contains(&t) => Ok(t),
            _ => Err(format!(
                "`{text}` is not a number of seconds from {min} to {max}"
            )),
        }
    })
}

/// A real number from `min` to `max`.
pub fn real(min: f64, max: f64) -> impl TypedValueParser<Value = f64> {
    clap::builder::StringValueParser::new().try_map(move |text| match text.trim().parse::<f64>() {
        Ok(x) if (min..=max).contains(&x) => Ok(x),
        _ => Err(format!("`{text}` is not a number from {min} to {max}")),
    })
}
