use tool_core::prelude::*;

/// Hash a text.
#[tool(blocking)]
async fn hash(text: String) -> String {
    text
}

fn main() {}
