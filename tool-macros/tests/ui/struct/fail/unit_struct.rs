use tool_core::prelude::*;

/// Ping the server.
#[tool]
struct Ping;

impl ToolRun for Ping {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        "pong".to_owned()
    }
}

fn main() {}
