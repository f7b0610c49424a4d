use tool_core::prelude::*;

/// Search for something.
#[tool]
fn search(
    query: String,
    #[param(rename = "query")]
    text: String,
) -> String {
    format!("{query} {text}")
}

fn main() {}
