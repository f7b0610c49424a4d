//! Tools that take arguments with many keys in each place a model can put them, and the
//! arguments themselves: for the `hostile_keys` benchmark and example.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tool_core::prelude::*;

/// Echo a text.
#[tool]
pub fn echo(
    /// The text.
    text: String,
) -> usize {
    text.len()
}

/// The nested struct of `configure`.
#[derive(Deserialize, JsonSchema)]
pub struct Options {
    /// A name.
    pub name: String,
}

/// Take options.
#[tool]
pub fn configure(
    /// The options.
    options: Options,
) -> usize {
    options.name.len()
}

/// Take anything.
#[tool]
pub fn store(
    /// Any JSON.
    data: Value,
) -> usize {
    data.as_object().map_or(0, Map::len)
}

/// Take counts.
#[tool]
pub fn tally(
    /// Counts by name.
    counts: HashMap<String, i64>,
) -> usize {
    counts.len()
}

/// `{first, "key_0": 0, ...}`: `n` distinct keys after `first` (itself `"k": v` pairs, or empty).
pub fn keys(first: &str, n: usize) -> String {
    let mut out = format!("{{{first}");
    for i in 0..n {
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&format!("\"key_{i}\":{i}"));
    }
    out.push('}');
    out
}
