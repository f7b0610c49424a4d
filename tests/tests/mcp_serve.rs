//! A catalog served over MCP (the `mcp` feature), called by rmcp's own client over an
//! in-process pipe: the list a page at a time, calls through lenient extraction, and every
//! failure as an `isError` result the model can read.

use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use rmcp::service::{RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tool_core::mcp::McpServer;
use tool_core::prelude::*;
use tool_core::CallFailure;

#[path = "../src/mcp/tools.rs"]
mod tools;

use tools::{add_note, count_words, fail_note};

#[path = "../src/mcp/hold.rs"]
mod holding;

use holding::{hold, STARTED, STOPPED};

async fn client(page: usize) -> RunningService<RoleClient, ()> {
    let catalog = ToolCatalog::builder()
        .add_declared::<add_note>()
        .add_declared::<fail_note>()
        .add_declared::<count_words>()
        .build()
        .unwrap();
    client_of(catalog, page).await
}

async fn client_of(catalog: ToolCatalog, page: usize) -> RunningService<RoleClient, ()> {
    client_of_server(McpServer::builder(Executor::new(catalog)).page_size(page).build().unwrap()).await
}

async fn client_of_server(server: McpServer) -> RunningService<RoleClient, ()> {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(theirs).await.unwrap()
}

async fn call(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap()
}

#[tokio::test]
async fn the_list_comes_a_page_at_a_time_with_the_mcp_export_of_each_tool() {
    let client = client(2).await;
    let first = client.list_tools(None).await.unwrap();
    let names: Vec<&str> = first.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["notes.add", "notes.count"]);
    assert_eq!(first.next_cursor.as_deref(), Some("2"));
    let second =
        client.list_tools(Some(PaginatedRequestParams::default().with_cursor(Some("2".into())))).await.unwrap();
    let names: Vec<&str> = second.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!((names, second.next_cursor), (vec!["notes.fail"], None));

    let all = client.list_all_tools().await.unwrap();
    let add = serde_json::to_value(&all[0]).unwrap();
    assert_eq!(add["description"], "Add a note.");
    assert_eq!(add["inputSchema"]["required"], json!(["text"]));
    assert_eq!(add["inputSchema"]["properties"]["priority"]["description"], "How urgent, 1 to 3.");
    let count = serde_json::to_value(&all[1]).unwrap();
    assert_eq!(count["outputSchema"]["type"], "object");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_goes_through_lenient_extraction_and_the_executor() {
    let client = client(100).await;
    let result = call(&client, "notes.add", json!({"text": "buy milk", "priority": "2"})).await;
    assert_eq!(result["content"], json!([{"type": "text", "text": "buy milk (priority 2)"}]));
    assert_ne!(result["isError"], true);

    // `Json<Value>` declares no object root: the export wraps its output schema as `result`,
    // and the content with it, whatever the value.
    let result = call(&client, "notes.count", json!({"text": "one two three"})).await;
    assert_eq!(result["structuredContent"], json!({"result": {"words": 3}}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_failure_is_an_error_result_with_the_message_for_the_model() {
    let client = client(100).await;
    let unknown = call(&client, "notes.ad", json!({})).await;
    assert_eq!(unknown["isError"], true);
    assert_eq!(
        unknown["content"][0]["text"],
        "There is no tool named `notes.ad`. The closest existing tools are: `notes.add`, `notes.fail`, `notes.count`. Call one of them instead."
    );

    let refused = call(&client, "notes.add", json!({"priority": 2})).await;
    assert_eq!(refused["isError"], true);
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("The arguments for `notes.add` were not accepted:"), "{text}");
    assert!(text.contains("`text`: required"), "{text}");

    let failed = call(&client, "notes.fail", json!({})).await;
    assert_eq!(
        (failed["isError"].clone(), failed["content"][0]["text"].clone()),
        (json!(true), json!("the disk is full"))
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_the_client_cancels_is_stopped_on_the_server() {
    let catalog = ToolCatalog::builder().add_declared::<hold>().build().unwrap();
    let (records, mut recorded) = tokio::sync::mpsc::unbounded_channel();
    let server = McpServer::builder(Executor::new(catalog))
        .on_record(move |record| {
            let _ = records.send((record.request.tool_name.clone(), record.status, record.failure.clone()));
        })
        .build()
        .unwrap();
    let client = client_of_server(server).await;
    let call = client.call_tool(CallToolRequestParams::new("hold"));
    // rmcp's client sends `notifications/cancelled` when the call is dropped.
    tokio::select! {
        result = call => panic!("the call returned before it was cancelled: {result:?}"),
        () = STARTED.notified() => {}
    }
    let seen = tokio::time::timeout(std::time::Duration::from_secs(10), STOPPED.notified()).await;
    assert!(seen.is_ok(), "the tool kept running after the client cancelled the call");
    // The server's own record of the call says so.
    let record = tokio::time::timeout(std::time::Duration::from_secs(10), recorded.recv()).await.unwrap();
    assert_eq!(record, Some(("hold".to_owned(), CallStatus::Cancelled, Some(CallFailure::Cancelled))));
    client.cancel().await.unwrap();
}

/// A tally kept per conversation: over MCP, per session.
#[derive(Default)]
pub struct Tally {
    total: u64,
}

#[tool]
impl Tally {
    /// Add to the tally; returns it.
    #[tool]
    fn add(&mut self, by: u64) -> u64 {
        self.total += by;
        self.total
    }
}

#[tokio::test]
async fn each_mcp_session_is_a_conversation_of_its_own_for_stateful_tools() {
    let catalog = ToolCatalog::builder().add_declared::<Tally_add>().build().unwrap();
    let server = McpServer::new(Executor::new(catalog)).unwrap();
    let first = client_of_server(server.clone()).await;
    let second = client_of_server(server).await;
    // A `u64` is structured output, wrapped as `result` (its schema is not an object).
    let total = |result: Value| result["structuredContent"]["result"].clone();
    assert_eq!(total(call(&first, "tally.add", json!({"by": 2})).await), 2);
    assert_eq!(total(call(&first, "tally.add", json!({"by": "3"})).await), 5);
    assert_eq!(total(call(&second, "tally.add", json!({"by": 10})).await), 10);
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

/// Panics with what a careless tool might: a path and an OS error.
#[tool(name = "leaky.panic")]
fn leaky_panic() -> String {
    panic!("cannot open /srv/app/secrets.toml: Permission denied (os error 13)")
}

/// Returns `bytes` bytes of text.
#[tool(name = "leaky.flood")]
fn leaky_flood(bytes: usize) -> String {
    "a".repeat(bytes)
}

/// Returns a structured result of `items` numbers, with its output schema.
#[tool(name = "leaky.rows")]
fn leaky_rows(items: usize) -> Json<Vec<u32>> {
    Json(vec![7; items])
}

#[tokio::test]
async fn an_mcp_client_reads_no_panic_message_and_no_more_than_the_output_limit() {
    let catalog = ToolCatalog::builder()
        .add_declared::<leaky_panic>()
        .add_declared::<leaky_flood>()
        .add_declared::<leaky_rows>()
        .build()
        .unwrap();
    let (records, mut recorded) = tokio::sync::mpsc::unbounded_channel();
    let executor = Executor::builder(catalog).max_output_bytes(4096).build();
    let server = McpServer::builder(executor)
        .on_record(move |record| {
            let _ = records.send(record.clone());
        })
        .build()
        .unwrap();
    let client = client_of_server(server).await;

    let panicked = call(&client, "leaky.panic", json!({})).await;
    assert_eq!(panicked["isError"], true);
    assert_eq!(panicked["content"], json!([{"type": "text", "text": "The tool failed unexpectedly."}]));
    let record = recorded.recv().await.unwrap();
    assert_eq!(
        record.failure,
        Some(CallFailure::Panicked {
            message: "cannot open /srv/app/secrets.toml: Permission denied (os error 13)".into()
        })
    );

    let flooded = call(&client, "leaky.flood", json!({"bytes": 1_000_000})).await;
    assert_ne!(flooded["isError"], true);
    let text = flooded["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, format!("{}\n[output cut at 4096 bytes of 1000000]", "a".repeat(4096)));
    let record = recorded.recv().await.unwrap();
    assert_eq!(record.output_cut.map(|cut| (cut.limit, cut.text_bytes)), Some((4096, 1_000_000)));

    // A structured result over the limit is not sent: the cut text stands for it.
    let rows = call(&client, "leaky.rows", json!({"items": 10_000})).await;
    assert_eq!(rows.get("structuredContent"), None);
    let text = rows["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("[7,7,7,"), "{}", &text[..20]);
    assert!(
        text.ends_with("\n[output cut at 4096 bytes of 20001; structured result dropped: over 4096 bytes]"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

/// Reports what it does through the client's log, at two levels.
#[tool(name = "notes.reindex")]
async fn reindex(ctx: &ToolContext) -> Result<String, ToolError> {
    ctx.log(LogLevel::Debug, "reading the index")?;
    ctx.log(LogLevel::Warning, serde_json::json!({"skipped": 2, "why": "unreadable"}))?;
    Ok("reindexed".to_owned())
}

/// An MCP client that keeps the log messages it receives.
#[derive(Clone, Default)]
struct LogKeeper(std::sync::Arc<std::sync::Mutex<Vec<Value>>>);

impl rmcp::ClientHandler for LogKeeper {
    #[allow(deprecated)] // MCP logging: deprecated from protocol 2026-07-28, served until removed
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(serde_json::to_value(params).unwrap());
    }
}

#[tokio::test]
#[allow(deprecated)] // MCP logging: deprecated from protocol 2026-07-28, served until removed
async fn a_tools_log_reaches_the_client_at_the_level_it_set_before_the_result() {
    let catalog = ToolCatalog::builder().add_declared::<reindex>().build().unwrap();
    let server = McpServer::new(Executor::new(catalog)).unwrap();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let keeper = LogKeeper::default();
    let client = keeper.clone().serve(theirs).await.unwrap();
    let info = serde_json::to_value(client.peer_info().unwrap()).unwrap();
    assert_eq!(info["capabilities"]["logging"], json!({}), "{info}");

    // Before the client sets a level, every level comes, in the order the tool logged.
    let result = client.call_tool(CallToolRequestParams::new("notes.reindex")).await.unwrap();
    assert_eq!(serde_json::to_value(&result).unwrap()["content"][0]["text"], "reindexed");
    assert_eq!(
        *keeper.0.lock().unwrap(),
        [
            json!({"level": "debug", "logger": "notes.reindex", "data": "reading the index"}),
            json!({"level": "warning", "logger": "notes.reindex", "data": {"skipped": 2, "why": "unreadable"}}),
        ]
    );

    keeper.0.lock().unwrap().clear();
    client.set_level(rmcp::model::SetLevelRequestParams::new(rmcp::model::LoggingLevel::Info)).await.unwrap();
    client.call_tool(CallToolRequestParams::new("notes.reindex")).await.unwrap();
    assert_eq!(
        *keeper.0.lock().unwrap(),
        [json!({"level": "warning", "logger": "notes.reindex", "data": {"skipped": 2, "why": "unreadable"}})]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_2026_07_28_client_reads_a_complete_result_and_an_older_one_the_result_it_knows() {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    let catalog = ToolCatalog::builder().add_declared::<count_words>().build().unwrap();
    let server = McpServer::new(Executor::new(catalog)).unwrap();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let serving = server.clone();
    tokio::spawn(async move {
        let running = serving.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let newer = ().serve_with_lifecycle(theirs, lifecycle).await.unwrap();
    assert_eq!(newer.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    let result = call(&newer, "notes.count", json!({"text": "one two three"})).await;
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["isError"], false, "{result}");

    let older = client_of_server(server).await;
    let result = call(&older, "notes.count", json!({"text": "one two three"})).await;
    assert_eq!(result.get("resultType"), None, "{result}");
    assert_eq!(result["isError"], false, "{result}");
}
