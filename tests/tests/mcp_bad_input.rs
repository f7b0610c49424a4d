//! What a client sends never brings the MCP server down: malformed JSON-RPC, wrong types in
//! `params`, unknown methods, unknown tools, huge and deeply nested arguments each get an error
//! (or an `isError` result), and the next request is still served.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};
use tool_core::mcp::McpServer;
use tool_core::prelude::*;

/// Echo a text.
#[tool(name = "echo")]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

/// Whether `line` is a request the server answers (it has an `id`).
fn line_has_id(line: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|v| v.get("id").is_some() && v.get("method").is_some())
}

struct Raw {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    write: WriteHalf<DuplexStream>,
}

impl Raw {
    /// A session begun with `initialize`.
    async fn start() -> Raw {
        let mut raw = Raw::connect().await;
        let init = tool_tests::mcp_initialize(0, "raw");
        raw.send(&init.to_string()).await;
        let reply = raw.reply().await;
        assert_eq!(reply["id"], 0, "{reply}");
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()).await;
        raw
    }

    /// A connection to a fresh server, nothing sent yet.
    async fn connect() -> Raw {
        let catalog = ToolCatalog::builder().add_declared::<echo>().build().unwrap();
        let server = McpServer::new(Executor::new(catalog)).unwrap();
        let (ours, theirs) = tokio::io::duplex(1 << 22);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(ours).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(theirs);
        Raw { lines: BufReader::new(read).lines(), write }
    }

    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn reply(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a reply within 10 s")
            .unwrap()
            .expect("the server is still there");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends `line`, then a ping: the replies until the ping's, and whether the ping came back.
    async fn send_then_ping(&mut self, line: &str, ping: u64) -> Vec<Value> {
        self.send(line).await;
        self.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}).to_string()).await;
        let mut replies = Vec::new();
        let mut pinged = false;
        // The ping's reply may come first when the call is still being read: until both came.
        while !pinged || replies.is_empty() {
            let reply = self.reply().await;
            if reply["id"] == ping {
                assert_eq!(reply["result"], json!({}), "{reply}");
                pinged = true;
                if line_has_id(line) {
                    continue;
                }
                return replies;
            }
            replies.push(reply);
        }
        replies
    }
}

#[tokio::test]
async fn every_bad_message_gets_an_error_and_the_next_request_is_served() {
    let mut raw = Raw::start().await;
    let cases: Vec<(String, Option<i64>)> = vec![
        // Not JSON at all, and JSON cut off.
        ("this is not json".to_owned(), None),
        (r#"{"jsonrpc": "2.0", "id": 11, "method": "#.to_owned(), None),
        // An unknown method.
        (json!({"jsonrpc": "2.0", "id": 12, "method": "tools/frobnicate"}).to_string(), Some(-32601)),
        // Wrong types in params.
        (json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": 5}}).to_string(), Some(-32602)),
    ];
    for (i, (line, code)) in cases.iter().enumerate() {
        let replies = raw.send_then_ping(line, 100 + i as u64).await;
        if let Some(code) = code {
            assert_eq!(replies.len(), 1, "{line}: {replies:?}");
            assert_eq!(replies[0]["error"]["code"], *code, "{line}: {replies:?}");
        }
    }
    // A cursor that is not text is read as no cursor (rmcp's reading): the first page.
    let replies = raw
        .send_then_ping(
            &json!({"jsonrpc": "2.0", "id": 15, "method": "tools/list", "params": {"cursor": 7}}).to_string(),
            150,
        )
        .await;
    assert_eq!(replies[0]["result"]["tools"][0]["name"], "echo", "{replies:?}");
    // A megabyte of arguments is answered as a call.
    let huge = "x".repeat(1 << 20);
    let call = json!({"jsonrpc": "2.0", "id": 200, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": huge}}});
    raw.send(&call.to_string()).await;
    let reply = raw.reply().await;
    assert_eq!(
        (reply["id"].clone(), reply["result"]["content"][0]["text"].as_str().map(str::len)),
        (json!(200), Some(1 << 20))
    );
    // Arguments nested 10,000 deep cannot even be read as JSON-RPC: the server goes on.
    let deep = format!(
        r#"{{"jsonrpc": "2.0", "id": 201, "method": "tools/call", "params": {{"name": "echo", "arguments": {{"text": {}1{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    raw.send_then_ping(&deep, 202).await;
    // An unknown tool is a result the model can read, not a protocol error.
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 300, "method": "tools/call", "params": {"name": "ehco", "arguments": {}}})
            .to_string(),
    )
    .await;
    let reply = raw.reply().await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    // An empty object is no request at all: nothing to answer, and the server goes on.
    assert!(raw.send_then_ping("{}", 400).await.len() <= 1);
}

#[tokio::test]
async fn a_call_before_initialize_gets_an_error_and_the_session_can_still_begin() {
    let mut raw = Raw::connect().await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}});
    raw.send(&call.to_string()).await;
    let reply = raw.reply().await;
    // Without `initialize`, a request must carry the protocol's per-request metadata
    // (2026-07-28); this one does not, so it is invalid, and nothing ran.
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");

    let init = tool_tests::mcp_initialize(2, "raw");
    raw.send(&init.to_string()).await;
    assert_eq!(raw.reply().await["result"]["serverInfo"]["name"], "tool-core");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}});
    raw.send(&call.to_string()).await;
    assert_eq!(raw.reply().await["result"]["content"], json!([{"type": "text", "text": "hi"}]));
}

#[tokio::test]
async fn three_hundred_thousand_keys_are_refused_by_the_limit_and_the_server_goes_on() {
    let mut raw = Raw::start().await;
    let mut arguments = serde_json::Map::new();
    arguments.insert("text".to_owned(), json!("hi"));
    for i in 0..300_000 {
        arguments.insert(format!("k{i}"), json!(0));
    }
    let call = json!({"jsonrpc": "2.0", "id": 500, "method": "tools/call", "params": {"name": "echo", "arguments": arguments}});
    let replies = raw.send_then_ping(&call.to_string(), 501).await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["id"], 500);
    assert_eq!(replies[0]["result"]["isError"], true);
    assert_eq!(
        replies[0]["result"]["content"][0]["text"],
        "The arguments for `echo` were not accepted:\n- arguments: expected an object of at most 10000 keys; got an \
         object of more than 10000 keys (an object of the arguments has more than 10000 keys, the limit \
         (`max_keys_per_object`; the host raises it with `CatalogBuilder::max_keys_per_object`)).\nSend the \
         corrected arguments to `echo` again."
    );
}
