//! The integration tests of damspel-notation, in one binary: each module is one file of tests,
//! built and linked once instead of once per file (run one with `cargo test -p
//! damspel-notation --test notation NAME::`).

mod common;
mod corpus;
mod malformed;
mod pdn;
mod pdn_export;
mod pdn_file;
mod pdn_lenient;
mod pdn_variant;
mod properties;
mod slow_positions;
