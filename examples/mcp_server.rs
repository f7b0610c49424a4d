//! The quickstart's tools served over MCP.
//!
//! On standard input and output, for an MCP client (Claude Desktop, an IDE, the MCP inspector)
//! to start as a child process:
//!
//! ```text
//! cargo run -p tool-examples --features mcp --bin mcp_server
//! ```
//!
//! Over streamable HTTP (`--http ADDRESS`, loopback unless told otherwise; `--token` requires a
//! bearer token), for hosts on other processes or machines:
//!
//! ```text
//! cargo run -p tool-examples --features mcp --bin mcp_server -- --http 127.0.0.1:8765 --token s3cret
//! ```

use tool_core::mcp::McpServer;
use tool_core::prelude::*;

#[path = "tools.rs"]
mod tools;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let executor = Executor::builder(ToolCatalog::global()?.clone()).state(tools::sample_store()).build();
    let server = McpServer::new(executor)?;
    match option("--http") {
        // Standard output carries the protocol: nothing else may be printed there.
        None => server.serve_stdio().await?,
        Some(address) => {
            let mut http = server.http().bind(address.parse()?);
            if let Some(token) = option("--token") {
                http = http.bearer_token(token);
            }
            let running = http.start().await?;
            eprintln!("serving the quickstart's tools at {}", running.url());
            tokio::signal::ctrl_c().await?;
            running.shutdown().await;
        }
    }
    Ok(())
}
