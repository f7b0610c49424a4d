use tool_core::prelude::*;

/// Ping.
#[tool(create = "connect")]
fn ping() -> String {
    "pong".to_owned()
}

fn main() {}
