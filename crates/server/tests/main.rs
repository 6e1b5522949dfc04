//! The integration tests of damspel-server, in one binary: each module is one file of tests,
//! built and linked once instead of once per file (run one with `cargo test -p
//! damspel-server --test server NAME::`).

mod api;
mod caps;
mod common;
mod durability;
mod friend;
mod fuzz;
mod i18n;
mod levels;
mod load;
mod offload;
mod pdn_import;
mod restart;
mod review;
mod transport;
mod tree;
mod tree_round_trip;
mod trust;
mod version;
