//! Keys of the arguments object: which declared parameter a key names, read without
//! allocating, and the warning for a key no parameter declares.
//!
//! The parts: matching a key to the declared names, exactly, but for case and separators, or
//! by likeness for "did you mean" (`names.rs`), and the single pass's key reader (`seed.rs`).

mod names;
mod seed;

pub use names::closest_key;
pub(crate) use names::{folded_name, parameter_named, unknown_key, unknown_parameter, Key};
pub(crate) use seed::KeySeed;
