use tool_core::prelude::*;

/// Search for something.
#[tool(name = "search_the_memory_store_for_fragments_that_match_a_query_very_carefully")]
fn search(query: String) -> String {
    query
}

fn main() {}
