use tool_core::prelude::*;

/// A priority.
#[tool]
enum Priority {
    Low,
    High,
}

fn main() {}
