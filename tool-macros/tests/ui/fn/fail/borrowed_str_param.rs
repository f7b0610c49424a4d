use tool_core::prelude::*;

/// Search for something.
#[tool]
fn search(query: &str) -> String {
    query.to_owned()
}

fn main() {}
