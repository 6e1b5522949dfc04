//! The integration tests of damspel-engine, in one binary: each module is one file of tests,
//! built and linked once instead of once per file (run one with `cargo test -p
//! damspel-engine --test engine NAME::`).

mod level;
mod limits;
mod search;
