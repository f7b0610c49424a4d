use tool_core::prelude::*;

/// Search for something.
#[tool(nmae = "search")]
fn search(query: String) -> String {
    query
}

fn main() {}
