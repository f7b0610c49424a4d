use tool_core::prelude::*;

/// Hash a text.
#[tool(blocking, inline)]
fn hash(text: String) -> String {
    text
}

fn main() {}
