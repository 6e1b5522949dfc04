//! The Hub protocol (Scan 3.1 / Hub 2.1): being written.
