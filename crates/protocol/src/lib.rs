//! Engine protocols: text in, typed messages out, and back. No I/O and no threads here: the
//! command line runs the loops over stdin/stdout and sockets.

pub mod dxp;
pub mod hub;
