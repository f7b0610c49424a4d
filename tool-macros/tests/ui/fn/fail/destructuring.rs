use tool_core::prelude::*;

/// Add two numbers.
#[tool]
fn add((a, b): (u32, u32)) -> u32 {
    a + b
}

fn main() {}
