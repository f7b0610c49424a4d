use tool_core::prelude::*;

/// Search for something.
#[tool]
fn search(
    #[param(descripton = "Keywords.")]
    query: String,
) -> String {
    query
}

fn main() {}
