//! Test support for the conformance tests: the published reference data, and an independent,
//! deliberately simple reference move generator.

pub mod data;
pub mod material;
pub mod reference;
pub mod scenario;
pub mod worst_table;
