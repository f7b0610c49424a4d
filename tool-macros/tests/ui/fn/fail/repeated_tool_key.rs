use tool_core::prelude::*;

/// Search for something.
#[tool(name = "search", name = "find")]
fn search(query: String) -> String {
    query
}

fn main() {}
