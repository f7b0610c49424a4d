use tool_core::prelude::*;

#[tool]
fn search(query: String) -> String {
    query
}

fn main() {}
