use tool_core::prelude::*;

/// Hash a text.
#[tool(inline)]
async fn hash(text: String) -> String {
    text
}

fn main() {}
