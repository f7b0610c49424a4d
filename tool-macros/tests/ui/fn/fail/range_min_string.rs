use tool_core::prelude::*;

/// List items.
#[tool]
fn list(
    /// How many.
    #[param(range(min = "a"))]
    limit: u32,
) -> String {
    limit.to_string()
}

fn main() {}
