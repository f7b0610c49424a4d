//! A few tools served over MCP on standard input and output, for the interop tests that drive
//! it with the official Python SDK's client (`tests/tests/mcp_python.rs`).

use serde_json::{json, Value};
use tool_core::mcp::McpServer;
use tool_core::prelude::*;

/// Add a note.
#[tool(name = "notes.add")]
fn add_note(
    /// The note.
    text: String,
    /// How urgent, 1 to 3.
    priority: Option<u32>,
) -> String {
    format!("{text} (priority {})", priority.unwrap_or(1))
}

/// Always fails.
#[tool(name = "notes.fail")]
fn fail_note() -> Result<String, ToolError> {
    Err(ToolError::new("the disk is full"))
}

/// Count words.
#[tool(name = "notes.count")]
fn count_words(
    /// The text.
    text: String,
) -> Json<Value> {
    Json(json!({"words": text.split_whitespace().count()}))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::new(ToolCatalog::global()?.clone());
    McpServer::new(executor)?.page_size(2).serve_stdio().await?;
    Ok(())
}
