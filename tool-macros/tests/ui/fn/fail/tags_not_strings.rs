use tool_core::prelude::*;

/// Search for something.
#[tool(tags(memory, search))]
fn search(query: String) -> String {
    query
}

fn main() {}
