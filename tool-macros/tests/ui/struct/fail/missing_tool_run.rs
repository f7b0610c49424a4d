use tool_core::prelude::*;

/// Search for something.
#[tool]
struct Search {
    /// Keywords.
    query: String,
}

fn main() {}
