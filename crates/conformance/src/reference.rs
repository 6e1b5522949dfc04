//! Placeholder: the reference generator is being written.
