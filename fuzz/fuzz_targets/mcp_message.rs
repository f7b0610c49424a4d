//! Arbitrary bytes as messages to the MCP server, after `initialize`: each input is written to
//! a fresh session (newlines in it split it into several messages), then a ping. The server
//! must never panic, must answer the ping within five seconds (no hang, no session lost to a
//! bad message), every reply must be a JSON-RPC message, and the session must end when the
//! client leaves.

#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_core::mcp::McpServer;
use tool_core::prelude::*;

/// Echo a text, a number of times.
#[tool(name = "echo")]
fn echo(
    /// The text.
    text: String,
    /// How many times.
    times: Option<u8>,
    /// Words to add.
    extra: Vec<String>,
) -> String {
    let mut out = text.repeat(usize::from(times.unwrap_or(1)));
    for word in extra {
        out.push(' ');
        out.push_str(&word);
    }
    out
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap())
}

fn server() -> McpServer {
    static SERVER: OnceLock<McpServer> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let catalog = ToolCatalog::builder().add_declared::<echo>().build().unwrap();
            McpServer::builder(Executor::new(catalog)).page_size(1).build().unwrap()
        })
        .clone()
}

async fn session(body: &[u8]) {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let server = server();
    let serving = tokio::spawn(async move {
        if let Ok(running) = server.serve(ours).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(theirs);
    let mut lines = BufReader::new(read).lines();
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}});
    let ping = json!({"jsonrpc": "2.0", "id": "fuzz-ping", "method": "ping"});
    let mut sent =
        format!("{init}\n{}\n", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).into_bytes();
    sent.extend_from_slice(body);
    sent.extend_from_slice(format!("\n{ping}\n").as_bytes());
    write.write_all(&sent).await.unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(line) = lines.next_line().await.expect("the server's output is text") {
            let reply: Value = serde_json::from_str(&line).expect("every reply is JSON");
            assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
            if reply["id"] == "fuzz-ping" {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(answered, Ok(true), "the ping after the input was answered");
    // The client leaves; the session ends and frees what it held.
    drop((lines, write));
    let ended = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(matches!(ended, Ok(Ok(()))), "the session ends when the client leaves");
}

fuzz_target!(|data: &[u8]| {
    runtime().block_on(session(data));
});
