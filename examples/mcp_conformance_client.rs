//! A client built on `McpImport`, for the client scenarios of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`). The suite starts a test server for each scenario, runs
//! this binary with the server's URL as its last argument and the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`, and checks what the server saw:
//!
//! ```text
//! cargo build -p tool-examples --features mcp --bin mcp_conformance_client
//! npx -y -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 \
//!     conformance client --command target/debug/mcp_conformance_client --suite all \
//!     --spec-version 2026-07-28 --expected-failures tests/mcp-conformance/client-baseline-2026-07-28.yml
//! ```
//!
//! Each scenario is what a host does: import the server's tools (`initialize`, then
//! `tools/list`), run the scenario's tool through an executor, and close the session. The exit
//! status says whether the host got what it expected.

use std::process::ExitCode;

use serde_json::{json, Value};
use tool_core::ask::ElicitationAnswer;
use tool_core::mcp::McpImport;
use tool_core::prelude::*;

#[tokio::main]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp_conformance_client <server-url>");
        return ExitCode::FAILURE;
    };
    match run(&scenario, &url).await {
        Ok(said) => {
            println!("{scenario}: {said}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The scenario's tool and its arguments, or `None` for a scenario that only connects and lists.
fn scenario_call(scenario: &str) -> Result<Option<(&'static str, Value)>, String> {
    Ok(match scenario {
        "initialize" => None,
        "tools_call" => Some(("add_numbers", json!({"a": 5, "b": 3}))),
        // The server closes the call's event stream before answering; the answer comes on the
        // stream the client reopens after the `retry` delay, with `Last-Event-ID`.
        "sse-retry" => Some(("test_reconnection", json!({}))),
        // The tool asks the client for a form; the answer must carry the form's defaults.
        "elicitation-sep1034-client-defaults" => Some(("test_client_elicitation_defaults", json!({}))),
        // The servers of the auth scenarios want an OAuth token before anything else.
        auth if auth.starts_with("auth/") => Some(("test-tool", json!({}))),
        other => return Err(format!("no such scenario `{other}` (MCP_CONFORMANCE_SCENARIO)")),
    })
}

async fn run(scenario: &str, url: &str) -> Result<String, String> {
    let call = scenario_call(scenario)?;
    // This host's user accepts every form as offered, changing nothing: the import fills in the
    // defaults the form declares, as MCP asks of clients.
    let import = McpImport::http(url)
        .on_elicit(|_form| async { Ok(ElicitationAnswer::Accept(serde_json::Map::new())) })
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    let listed: Vec<String> = import.tools().iter().map(|tool| tool.definition().name.clone()).collect();
    let outcome = match call {
        None => Ok(format!("imported {} tool(s)", listed.len())),
        Some((name, arguments)) => call_tool(&import, name, &arguments).await,
    };
    import.close().await;
    outcome
}

/// Runs `name` through an executor over the imported tools, as a host runs a model's call.
async fn call_tool(import: &McpImport, name: &str, arguments: &Value) -> Result<String, String> {
    let catalog = import.add_to(ToolCatalog::builder()).build().map_err(|e| e.to_string())?;
    let executor = Executor::new(catalog);
    let record = executor.execute(ToolCallRequest::new(name, "1", arguments.to_string())).await;
    match record.status {
        CallStatus::Success => Ok(format!("{name} -> {}", record.model_text())),
        status => Err(format!("{name} -> {status:?}: {}", record.model_text())),
    }
}
