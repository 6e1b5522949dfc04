//! The integration tests of damspel-conformance, in one binary: each module is one file of tests,
//! built and linked once instead of once per file (run one with `cargo test -p
//! damspel-conformance --test conformance NAME::`).

mod capture_cost;
mod common;
mod game_rules;
mod kish_oracle;
mod legal_moves;
mod pdn_round_trip;
mod perft;
mod perft_table;
mod pydraughts_oracle;
mod random_games;
mod reference_generator;
mod scenarios;
