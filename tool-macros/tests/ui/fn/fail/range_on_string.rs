use tool_core::prelude::*;

/// Search for something.
#[tool]
fn search(
    /// Keywords.
    #[param(range(min = 1, max = 10))]
    query: String,
) -> String {
    query
}

fn main() {}
