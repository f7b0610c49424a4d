use tool_core::prelude::*;

/// Search for something.
#[tool(strict = 3, inline = "yes", annotations(read_only = 1))]
fn search(
    /// Keywords.
    #[param(case_sensitive = "no")]
    query: String,
) -> String {
    query
}

fn main() {}
