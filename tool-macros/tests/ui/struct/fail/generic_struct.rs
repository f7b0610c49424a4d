use tool_core::prelude::*;

/// Search for something.
#[tool]
struct Search<T> {
    /// Keywords.
    query: T,
}

fn main() {}
