//! What the benchmarks and their measuring examples share.

pub mod hostile;
