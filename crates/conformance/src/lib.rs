//! Test support for the conformance tests: the published reference data, an independent,
//! deliberately simple reference move generator, and the capture benchmark's table of the
//! worst positions known (`worst_table`).

pub mod data;
pub mod material;
pub mod reference;
pub mod scenario;
pub mod worst_table;
