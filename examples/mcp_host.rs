//! A host that imports the tools of an MCP server running as another process (the
//! `mcp_server` example, started over stdio the way an MCP client starts it), under the prefix
//! `remote.`, and runs a model's sloppy calls through its own executor:
//!
//! ```text
//! cargo run -p tool-examples --features mcp --bin mcp_host
//! ```
//!
//! With a URL argument (and a bearer token, if the server wants one) it imports from a
//! streamable HTTP server instead (start one with
//! `cargo run -p tool-examples --features mcp --bin mcp_server -- --http 127.0.0.1:8765 --token s3cret`):
//!
//! ```text
//! cargo run -p tool-examples --features mcp --bin mcp_host -- http://127.0.0.1:8765/mcp s3cret
//! ```

use tool_core::mcp::McpImport;
use tool_core::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let import = match args.first() {
        Some(url) => match args.get(1) {
            Some(token) => McpImport::http(url).bearer_token(token),
            None => McpImport::http(url),
        },
        None => McpImport::command(env!("CARGO")).args([
            "run",
            "-q",
            "-p",
            "tool-examples",
            "--features",
            "mcp",
            "--bin",
            "mcp_server",
        ]),
    };
    let remote = import.prefix("remote.").connect().await?;
    let executor = Executor::new(remote.add_to(ToolCatalog::builder()).build()?);

    println!("== Imported ==");
    for definition in executor.catalog().definitions() {
        let parameters: Vec<&str> = definition.parameters.iter().map(|p| p.name.as_str()).collect();
        println!(
            "{}({})  {}",
            definition.name,
            parameters.join(", "),
            definition.description.lines().next().unwrap_or("")
        );
    }

    // What a model might send: numbers as text, a scalar where a list belongs, a wrong room.
    let calls = vec![
        ToolCallRequest::new(
            "remote.set_reminder",
            "1",
            r#"{"text": "stand up", "minutes": "20", "priority": "HIGH"}"#,
        ),
        ToolCallRequest::new("remote.memory.search", "2", r#"{"query": "rust", "limit": "2"}"#),
        ToolCallRequest::new("remote.check_availability", "3", r#"{"room": "Orion", "time": "15:00-16:00"}"#),
    ];
    println!("\n== Records ==");
    for record in executor.execute_batch(calls).await {
        println!("\n{} -> {:?}", record.request.tool_name, record.status);
        for warning in record.warnings() {
            println!("  warning {}: {} ({})", warning.pointer(), warning.action(), warning.rule());
        }
        println!("  {}", record.model_text());
    }
    remote.close().await;
    Ok(())
}
