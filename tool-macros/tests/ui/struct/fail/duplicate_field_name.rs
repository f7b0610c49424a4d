use tool_core::prelude::*;

/// Search for something.
#[tool]
struct Search {
    /// Keywords.
    query: String,
    /// More keywords.
    #[param(rename = "query")]
    extra: String,
}

impl ToolRun for Search {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        format!("{} {}", self.query, self.extra)
    }
}

fn main() {}
