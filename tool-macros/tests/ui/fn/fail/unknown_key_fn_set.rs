use tool_core::prelude::*;

// `creat` is one edit from `create`, a key of impl blocks only: a function's error lists and
// suggests a function's keys.
/// Search for something.
#[tool(creat = "connect")]
fn search(query: String) -> String {
    query
}

fn main() {}
