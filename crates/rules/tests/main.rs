//! The integration tests of damspel-rules, in one binary: each module is one file of tests,
//! built and linked once instead of once per file (run one with `cargo test -p
//! damspel-rules --test rules NAME::`).

mod properties;
mod variant_files;
