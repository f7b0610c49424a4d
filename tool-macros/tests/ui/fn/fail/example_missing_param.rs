use tool_core::prelude::*;

/// Search for something.
#[tool(example(limit = 5), example(query = "rust"))]
fn search(
    /// Keywords.
    query: String,
    /// At most this many.
    limit: Option<u32>,
    /// Where to look.
    #[param(default = 1)]
    page: u32,
    /// How to sort.
    order: String,
) -> String {
    format!("{query} {limit:?} {page} {order}")
}

fn main() {}
