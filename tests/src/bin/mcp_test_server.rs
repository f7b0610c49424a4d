//! A few tools served over MCP, for the tests that run a server in its own process: the
//! official Python SDK's client (`tests/tests/mcp_python.rs`), imports of a child process and
//! the three-process test (`tests/tests/mcp_processes.rs`).
//!
//! `mcp_test_server` serves on standard input and output; `mcp_test_server --http ADDRESS`
//! serves streamable HTTP at `http://ADDRESS/mcp` and prints that URL on its first line.

use std::io::Write;

use tool_core::mcp::McpServer;
use tool_core::prelude::*;
use tool_core::Environment;

#[path = "../mcp/tools.rs"]
mod tools;

/// End this server's process at once, as a crash would.
#[tool(name = "server.exit")]
fn exit_server() -> String {
    std::process::exit(3)
}

/// The name of this server, from its command line.
#[tool(name = "server.name")]
fn server_name(env: &Environment) -> String {
    env.value("name").and_then(|v| v.as_str()).unwrap_or("unnamed").to_owned()
}

/// How many `notes.wait` calls are running now.
#[tool(name = "server.waiting")]
fn server_waiting() -> String {
    tools::WAITING.load(std::sync::atomic::Ordering::SeqCst).to_string()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let executor = Executor::builder(ToolCatalog::global()?.clone())
        .value("name", option("--name").unwrap_or_else(|| "unnamed".to_owned()))
        .build();
    let server = McpServer::builder(executor).page_size(2).build()?;
    match option("--http") {
        None => server.serve_stdio().await?,
        Some(address) => {
            let running = server.http().bind(address.parse()?).start().await?;
            println!("{}", running.url());
            std::io::stdout().flush()?;
            std::future::pending::<()>().await;
        }
    }
    Ok(())
}
