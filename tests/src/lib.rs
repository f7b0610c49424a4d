//! Helpers shared by the integration tests.

pub mod approval_tools;
pub mod dialect_tools;
pub mod external;
pub mod generated;
pub mod nginx;
pub mod oauth_server;
pub mod open_models;
pub mod python;
pub mod redis_server;
pub mod source;
pub mod trigrams;

use serde_json::Value;
use tool_core::prelude::*;

/// A runtime-built tool with this schema and a handler that returns nothing, for tests that
/// only look at its definition.
pub fn dynamic(name: impl Into<String>, description: impl Into<String>, schema: Value) -> DynamicTool {
    DynamicTool::builder(name)
        .description(description)
        .input_schema(schema)
        .handler(|_, _| async { ToolOutput::text("") })
        .build()
        .expect("a valid tool name")
}

/// The catalog of the `#[tool]`s declared in one source file (pass `file!()`): the tools a test
/// file declares, where `ToolCatalog::global()` would also hold those of every other test
/// module linked into the same binary.
pub fn declared_in(file: &str) -> ToolCatalog {
    ToolCatalog::builder().add_all_declared().retain(|definition| definition.source.file == file).build().unwrap()
}

/// Every export dialect, strict and not.
pub const DIALECTS: &[tool_core::providers::Dialect] = tool_core::providers::Dialect::ALL;

/// A raw MCP `initialize` request with this JSON-RPC `id`, from a client named `client`.
pub fn mcp_initialize(id: u64, client: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}})
}

/// POSTs the JSON-RPC message `body` to the streamable HTTP endpoint `url` as a client of
/// protocol `version` that takes JSON or an event stream (outside any session).
pub async fn mcp_post(
    client: &reqwest::Client,
    url: &str,
    version: &str,
    body: &Value,
) -> reqwest::Result<reqwest::Response> {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version)
        .body(body.to_string())
        .send()
        .await
}

/// The input schema of a tool without parameters, as the rmcp servers of the tests list it
/// (`rmcp::model::Tool::new` takes it shared).
pub fn no_parameters() -> std::sync::Arc<serde_json::Map<String, Value>> {
    let mut schema = serde_json::Map::new();
    schema.insert("type".to_owned(), Value::from("object"));
    schema.insert("properties".to_owned(), Value::Object(serde_json::Map::new()));
    std::sync::Arc::new(schema)
}
