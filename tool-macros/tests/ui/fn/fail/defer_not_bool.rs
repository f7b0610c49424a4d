use tool_core::prelude::*;

/// Search for something.
#[tool(defer = "later")]
fn search(
    /// Keywords.
    query: String,
) -> String {
    query
}

fn main() {}
