use tool_core::prelude::*;

/// List items.
#[tool]
fn list(
    /// How many.
    #[param(range(minimum = 1, max = 10))]
    limit: u32,
) -> String {
    limit.to_string()
}

fn main() {}
