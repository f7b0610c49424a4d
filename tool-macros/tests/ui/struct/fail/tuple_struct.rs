use tool_core::prelude::*;

/// Search for something.
#[tool]
struct Search(String);

fn main() {}
