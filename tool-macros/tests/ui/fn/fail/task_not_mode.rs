use tool_core::prelude::*;

/// Compute something slowly.
#[tool(task = 3)]
fn compute(seconds: u64) -> String {
    seconds.to_string()
}

/// Compute something else slowly.
#[tool(task = "sometimes")]
fn compute_more(seconds: u64) -> String {
    seconds.to_string()
}

/// Ask first, then compute.
#[tool(task(sometimes, asks_first))]
fn compute_after_asking(seconds: u64) -> String {
    seconds.to_string()
}

fn main() {}
