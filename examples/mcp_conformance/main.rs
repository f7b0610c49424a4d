//! The tools, and the other MCP primitives, that the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) calls by name, served over streamable HTTP. Each is an
//! ordinary `#[tool]` fn, written as a host would write it.
//!
//! ```text
//! cargo run -p tool-examples --features mcp --bin mcp_conformance -- 127.0.0.1:8765
//! npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 conformance server \
//!     --url http://127.0.0.1:8765/mcp --suite all --spec-version 2026-07-28 \
//!     --expected-failures tests/mcp-conformance/server-baseline-2026-07-28.yml
//! ```
//!
//! The modules group the tools by what they exercise: `basics` (text, errors, logging,
//! progress), `content` (images, audio, embedded resources, mixed results), `ask` (sampling
//! and elicitation), `schema` (a JSON Schema 2020-12 input schema, built at run time),
//! `headers` (arguments mirrored into HTTP headers), `stateless` (the
//! diagnostics of protocol 2026-07-28: a tool needing a client capability, tools changing the
//! lists), `rounds` (questions asked in rounds), `tasks` (long calls answered with tasks);
//! `primitives` holds the resources, prompts and completions.

use tool_core::mcp::McpServer;
use tool_core::prelude::*;

mod ask;
mod basics;
mod content;
mod headers;
mod primitives;
mod rounds;
mod schema;
mod stateless;
mod tasks;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8765".to_owned());
    let catalog = ToolCatalog::global()?.to_builder().add_tool(schema::json_schema_2020_12_tool()?).build()?;
    let executor = Executor::new(catalog);
    let primitives = primitives::all()?;
    let server = McpServer::builder(executor.clone()).primitives(primitives.clone()).build()?;
    stateless::serving(server.clone(), executor, primitives);
    let running = server.http().bind(address.parse()?).start().await?;
    eprintln!("serving the conformance suite's tools at {}", running.url());
    tokio::signal::ctrl_c().await?;
    running.shutdown().await;
    Ok(())
}
