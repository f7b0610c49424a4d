use tool_core::prelude::*;

/// Hash a text.
#[tool(inline)]
struct Hash {
    /// The text.
    text: String,
}

impl ToolRun for Hash {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        self.text
    }
}

fn main() {}
