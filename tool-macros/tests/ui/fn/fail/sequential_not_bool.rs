use tool_core::prelude::*;

/// Search for something.
#[tool(sequential = "yes")]
fn search(
    /// Keywords.
    query: String,
) -> String {
    query
}

fn main() {}
