use tool_core::prelude::*;

/// Search for something.
#[tool(example(qeury = "rust"), example(query = "rust", size = 5), example(query = "rust", limit = 5))]
fn search(
    /// Keywords.
    query: String,
    /// At most this many.
    #[param(rename = "max_results")]
    limit: Option<u32>,
) -> String {
    format!("{query} {limit:?}")
}

/// Take no arguments.
#[tool(example(verbose = true))]
fn ping() -> String {
    "pong".to_owned()
}

fn main() {}
