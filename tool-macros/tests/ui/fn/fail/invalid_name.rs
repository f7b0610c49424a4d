use tool_core::prelude::*;

/// Search for something.
#[tool(name = "bad name!")]
fn search(query: String) -> String {
    query
}

fn main() {}
