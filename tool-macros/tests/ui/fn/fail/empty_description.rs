use tool_core::prelude::*;

#[tool(description = "  ")]
fn search(query: String) -> String {
    query
}

fn main() {}
