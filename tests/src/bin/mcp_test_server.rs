//! A few tools served over MCP on standard input and output, for the interop tests that drive
//! it with the official Python SDK's client (`tests/tests/mcp_python.rs`).

use tool_core::mcp::McpServer;
use tool_core::prelude::*;

#[path = "../mcp/tools.rs"]
mod tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::new(ToolCatalog::global()?.clone());
    McpServer::new(executor)?.page_size(2).serve_stdio().await?;
    Ok(())
}
