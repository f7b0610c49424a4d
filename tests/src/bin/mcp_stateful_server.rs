//! A stateful tool served on standard input and output, for the test that a stdio session's
//! end runs the cleanup of its instances (`tests/tests/mcp_conversations.rs`).
//!
//! `mcp_stateful_server FILE` appends `cleaned CONVERSATION TOTAL` to FILE for each cleanup.

use std::io::Write;

use tool_core::mcp::McpServer;
use tool_core::prelude::*;

/// A tally kept per conversation, which logs its cleanup.
pub struct Tally {
    conversation: String,
    log: String,
    total: u64,
}

impl Tally {
    async fn open(ctx: &ToolContext) -> Result<Tally, ToolError> {
        let conversation = ctx.request().conversation_id.clone().unwrap_or_default();
        let log = ctx.environment().value("log").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        Ok(Tally { conversation, log, total: 0 })
    }

    async fn close(&mut self) {
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&self.log).expect("the log file");
        writeln!(file, "cleaned {} {}", self.conversation, self.total).expect("a line of the log");
    }
}

#[tool(create = "open", cleanup = "close")]
impl Tally {
    /// Add to the tally; returns it.
    #[tool]
    fn add(&mut self, by: u64) -> u64 {
        self.total += by;
        self.total
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let log = std::env::args().nth(1).ok_or("usage: mcp_stateful_server LOG_FILE")?;
    let catalog = ToolCatalog::builder().add_declared::<Tally_add>().build()?;
    let executor = Executor::builder(catalog).value("log", log).build();
    McpServer::new(executor)?.serve_stdio().await?;
    Ok(())
}
