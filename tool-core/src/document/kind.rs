//! Where a tool comes from.

use crate::model::ToolDefinition;

/// Where a tool comes from: `declared` (`#[tool]`, with a source line), `mcp` (imported from
/// an MCP server), `rest` (a REST registry or OpenAPI document), or `dynamic` (built in code).
pub fn tool_kind(tool: &ToolDefinition) -> &'static str {
    let file = tool.source.file.as_str();
    if tool.source.line > 0 {
        "declared"
    } else if file.starts_with("mcp:") {
        "mcp"
    } else if file == "(runtime)" {
        "dynamic"
    } else {
        "rest"
    }
}
