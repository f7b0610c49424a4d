use tool_core::prelude::*;

/// Search for something.
#[tool]
fn search(
    #[param(rename = "q", rename = "query_text")]
    query: String,
) -> String {
    query
}

fn main() {}
