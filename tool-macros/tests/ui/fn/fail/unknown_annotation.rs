use tool_core::prelude::*;

/// Search for something.
#[tool(annotations(read_only, readonly_hint = true))]
fn search(query: String) -> String {
    query
}

fn main() {}
