use tool_core::prelude::*;

/// Search for something.
#[tool(example(query = String::new(), limit = json!({"a" 1})), example = "rust")]
fn search(
    /// Keywords.
    query: String,
    /// At most this many.
    limit: Option<u32>,
) -> String {
    format!("{query} {limit:?}")
}

fn main() {}
