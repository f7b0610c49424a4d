//! The quickstart's tools served over MCP on standard input and output, for an MCP client
//! (Claude Desktop, an IDE, the MCP inspector) to start as a child process:
//!
//! ```text
//! cargo run -p tool-examples --bin mcp_server
//! ```

use tool_core::mcp::McpServer;
use tool_core::prelude::*;

#[path = "tools.rs"]
mod tools;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::builder(ToolCatalog::global()?.clone()).state(tools::sample_store()).build();
    // Standard output carries the protocol: nothing else may be printed there.
    McpServer::new(executor)?.serve_stdio().await?;
    Ok(())
}
