use tool_core::prelude::*;

/// Search for something.
#[tool(name = search, tags("a"))]
fn search(query: String) -> String {
    query
}

fn main() {}
