//! MCP with rmcp (the official Rust SDK), behind the `mcp` feature: any catalog served as an
//! MCP server. `tools/list` is the MCP export of the catalog, a page at a time; `tools/call`
//! goes through lenient extraction and the executor, so a client's sloppy arguments are
//! recovered as in-process calls are, and every failure (unknown tool, refused arguments, a
//! tool error, a panic, a time-out, a cancellation) is an `isError` result carrying the message
//! written for the model, never a JSON-RPC error the model cannot read.

mod serve;

pub use serve::{McpServer, McpServerError};
