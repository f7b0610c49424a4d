//! MCP both ways over streamable HTTP on 127.0.0.1, in one process: a catalog served with
//! `McpServer::http` and imported back with `McpImport::http`, so every call crosses rmcp's
//! real HTTP transports. Lenient extraction before sending, progress, cancellation and time
//! limits reaching the server, the list changing at run time, the bearer token and the
//! `Origin` check.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tool_core::mcp::{McpHttpServer, McpImport, McpImportError, McpServer};
use tool_core::prelude::*;
use tool_core::{CallFailure, CallScope, Progress};

#[path = "../src/mcp/tools.rs"]
mod tools;

use tools::{add_note, count_words, fail_note, wait_note};

#[path = "../src/mcp/hold.rs"]
mod holding;

use holding::{hold, STARTED, STOPPED};

fn notes() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<add_note>()
        .add_declared::<fail_note>()
        .add_declared::<count_words>()
        .add_declared::<wait_note>()
        .build()
        .unwrap()
}

async fn serve(catalog: ToolCatalog) -> (McpServer, McpHttpServer) {
    let server = McpServer::new(Executor::new(catalog)).unwrap();
    let running = server.clone().http().start().await.unwrap();
    (server, running)
}

async fn import(url: &str, prefix: &str) -> (McpImport, Executor) {
    let imported = McpImport::http(url).prefix(prefix).connect().await.unwrap();
    let catalog = imported.add_to(ToolCatalog::builder()).build().unwrap();
    (imported, Executor::new(catalog))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_catalog_lists_every_tool_under_its_prefix_with_the_remote_schema() {
    let (_server, running) = serve(notes()).await;
    assert!(running.url().starts_with("http://127.0.0.1:"), "{}", running.url());
    let (imported, executor) = import(&running.url(), "remote.").await;
    let names: Vec<&str> = executor.catalog().names().collect();
    assert_eq!(names, ["remote.notes.add", "remote.notes.count", "remote.notes.fail", "remote.notes.wait"]);
    let add = executor.catalog().definition("remote.notes.add").unwrap();
    assert_eq!(add.description, "Add a note.");
    let parameters: Vec<(&str, bool)> = add.parameters.iter().map(|p| (p.name.as_str(), p.required)).collect();
    assert_eq!(parameters, [("text", true), ("priority", false)]);
    assert_eq!(add.source.file, format!("mcp:{}", running.url()));
    assert!(imported.skipped().is_empty());
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_extracted_here_by_the_remote_schema_and_their_results_become_records() {
    let (_server, running) = serve(notes()).await;
    let (_imported, executor) = import(&running.url(), "remote.").await;

    // The text "2" is converted here, by the remote schema, before anything is sent.
    let record = executor
        .execute(ToolCallRequest::new("remote.notes.add", "c1", r#"{"text": "buy milk", "priority": "2"}"#))
        .await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "buy milk (priority 2)");
    let warnings: Vec<(String, String)> =
        record.warnings().iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect();
    assert_eq!(warnings, [("/priority".to_owned(), "string_to_integer".to_owned())]);
    assert_eq!(record.request.arguments, Some(json!({"text": "buy milk", "priority": 2})));

    // Refused here: nothing is sent, and the message is ours.
    let record = executor.execute(ToolCallRequest::new("remote.notes.add", "c2", r#"{"priority": 2}"#)).await;
    assert_eq!(record.failure, Some(CallFailure::InvalidArguments));
    assert_eq!(
        record.model_text(),
        "The arguments for `remote.notes.add` were not accepted:\n- `text`: required, expected a string; it was missing.\nSend the corrected arguments to `remote.notes.add` again."
    );

    // The server's `isError` result is a failed record with its text.
    let record = executor.execute(ToolCallRequest::new("remote.notes.fail", "c3", "{}")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.model_text(), "the disk is full");
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("mcp_tool_error"));

    // Structured content comes back as the server sent it.
    let record = executor.execute(ToolCallRequest::new("remote.notes.count", "c4", r#"{"text": "a b c"}"#)).await;
    assert_eq!(record.content.structured, Some(json!({"result": {"words": 3}})));
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reported_by_a_remote_tool_reaches_the_callers_scope_in_order() {
    let (_server, running) = serve(notes()).await;
    for legacy in [false, true] {
        check_progress_reaches_the_callers_scope(McpImport::http(running.url()).legacy_only(legacy)).await;
    }
    running.shutdown().await;
}

/// On 2026-07-28 and on a 2025-11-25 session: a call made after other requests (the list, the
/// subscription, another call), so rmcp's progress token for it is none the import could guess.
async fn check_progress_reaches_the_callers_scope(import: tool_core::mcp::McpImportBuilder) {
    let imported = import.connect().await.unwrap();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    let warm = executor.execute(ToolCallRequest::new("notes.wait", "p0", r#"{"steps": 0}"#)).await;
    assert_eq!(warm.content.text, "waited 0 steps");
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let scope = CallScope::new().on_progress(move |p| sink.lock().unwrap().push(p));
    let record = executor.execute_in(ToolCallRequest::new("notes.wait", "p1", r#"{"steps": 3}"#), scope).await;
    assert_eq!(record.content.text, "waited 3 steps");
    // Notifications may trail the result by a moment.
    for _ in 0..100 {
        if seen.lock().unwrap().len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let seen: Vec<(f64, Option<f64>, Option<String>)> =
        seen.lock().unwrap().iter().map(|p| (p.progress, p.total, p.message.clone())).collect();
    assert_eq!(
        seen,
        [
            (1.0, Some(3.0), Some("step 1".to_owned())),
            (2.0, Some(3.0), Some("step 2".to_owned())),
            (3.0, Some(3.0), Some("step 3".to_owned()))
        ]
    );
    imported.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_or_timing_out_an_imported_call_stops_the_remote_tool() {
    let (_server, running) = serve(ToolCatalog::builder().add_declared::<hold>().build().unwrap()).await;
    let (imported, _) = import(&running.url(), "").await;

    let cancel = CancellationToken::new();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    let call = executor.execute_in(ToolCallRequest::new("hold", "h1", "{}"), CallScope::new().cancel_on(&cancel));
    let record = tokio::join!(call, async {
        STARTED.notified().await;
        cancel.cancel();
    })
    .0;
    assert_eq!(record.status, CallStatus::Cancelled);
    tokio::time::timeout(Duration::from_secs(5), STOPPED.notified()).await.expect("the server stopped the tool");

    let executor = Executor::builder(imported.add_to(ToolCatalog::builder()).build().unwrap())
        .timeout(Duration::from_millis(200))
        .build();
    let record = executor.execute(ToolCallRequest::new("hold", "h2", "{}")).await;
    assert_eq!(record.status, CallStatus::TimedOut);
    tokio::time::timeout(Duration::from_secs(5), STOPPED.notified()).await.expect("the server stopped the tool");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacing_the_served_set_tells_importers_which_read_the_list_again() {
    let (server, running) = serve(notes()).await;
    let (imported, _) = import(&running.url(), "").await;
    let mut changes = imported.changes();
    changes.mark_unchanged();

    let fewer = ToolCatalog::builder().add_declared::<add_note>().build().unwrap();
    server.replace(Executor::new(fewer)).await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), changes.changed()).await.expect("told of the change").unwrap();
    let names: Vec<String> = imported.tools().iter().map(|t| t.definition().name.clone()).collect();
    assert_eq!(names, ["notes.add"]);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_tools_served_again_keep_their_schemas_and_results_through_two_hops() {
    let (_first, origin) = serve(notes()).await;
    let (_hop, relay) = import(&origin.url(), "").await;
    let (_second, gateway) = serve(relay.catalog().clone()).await;
    let (_far, executor) = import(&gateway.url(), "far.").await;

    let near = relay.catalog().definition("notes.count").unwrap();
    let far = executor.catalog().definition("far.notes.count").unwrap();
    assert_eq!((&far.input_schema, &far.output_schema), (&near.input_schema, &near.output_schema));
    assert_eq!(far.annotations, near.annotations);

    // Sloppy here, converted here; the structured output is not wrapped twice.
    let record =
        executor.execute(ToolCallRequest::new("far.notes.add", "1", r#"{"text": "x", "priority": "3"}"#)).await;
    assert_eq!(record.content.text, "x (priority 3)");
    let record = executor.execute(ToolCallRequest::new("far.notes.count", "2", r#"{"text": "a b"}"#)).await;
    assert_eq!(record.content.structured, Some(json!({"result": {"words": 2}})));
    let record = executor.execute(ToolCallRequest::new("far.notes.fail", "3", "{}")).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Failed, "the disk is full"));
    gateway.shutdown().await;
    origin.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_server_answers_each_request_on_its_own() {
    let server = McpServer::new(Executor::new(notes())).unwrap();
    let running = server.http().stateless(true).start().await.unwrap();
    let (imported, executor) = import(&running.url(), "").await;
    assert_eq!(imported.tools().len(), 4);
    let record = executor.execute(ToolCallRequest::new("notes.add", "1", r#"{"text": "tea", "priority": "2"}"#)).await;
    assert_eq!((record.status, record.content.text.as_str()), (CallStatus::Success, "tea (priority 2)"));
    running.shutdown().await;
}

async fn post_initialize(url: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(tool_tests::mcp_initialize(1, "raw").to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_is_required_when_configured() {
    let server = McpServer::new(Executor::new(notes())).unwrap();
    let running = server.http().bearer_token("s3cret-token").start().await.unwrap();
    let url = running.url();

    assert_eq!(post_initialize(&url, &[]).await, (401, "a bearer token is required".to_owned()));
    assert_eq!(post_initialize(&url, &[("authorization", "Bearer wrong")]).await.0, 401);
    assert_eq!(post_initialize(&url, &[("authorization", "Bearer s3cret-token")]).await.0, 200);

    let refused = McpImport::http(&url).connect().await.expect_err("refused without the token");
    assert!(matches!(refused, McpImportError::Connect { .. }), "{refused}");
    assert_eq!(
        refused.to_string(),
        format!(
            "cannot connect to the MCP server `{url}`: the server answered 401: it wants authorization \
             (`WWW-Authenticate: Bearer`); without `McpImportBuilder::oauth`, the import sends only the \
             token given to `McpImportBuilder::bearer_token`"
        )
    );
    let wrong = McpImport::http(&url).bearer_token("wrong").connect().await.expect_err("refused with a wrong token");
    assert_eq!(wrong.to_string(), refused.to_string());
    let imported = McpImport::http(&url).bearer_token("s3cret-token").connect().await.unwrap();
    assert_eq!(imported.tools().len(), 4);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_origin_is_refused_unless_allowed() {
    let server = McpServer::new(Executor::new(notes())).unwrap();
    let running = server.http().allow_origin("https://app.example.com:443").start().await.unwrap();
    let url = running.url();
    assert_eq!(post_initialize(&url, &[("origin", "http://evil.example")]).await.0, 403);
    assert_eq!(post_initialize(&url, &[("origin", "https://app.example.com")]).await.0, 200);
    // Clients that are not browsers send no Origin.
    assert_eq!(post_initialize(&url, &[]).await.0, 200);
    // A page of another site reaching a local server by DNS rebinding names its own host.
    assert_eq!(post_initialize(&url, &[("host", "attacker.example")]).await.0, 403);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_of_this_machine_are_served_and_pages_of_other_sites_refused() {
    let (_server, running) = serve(notes()).await;
    let url = running.url();
    // The MCP Inspector's web UI, a local web app, on any port and either scheme.
    for origin in ["http://localhost:6274", "http://127.0.0.1:3000", "http://[::1]:8080", "https://localhost"] {
        assert_eq!(post_initialize(&url, &[("origin", origin)]).await.0, 200, "{origin}");
    }
    let refused = (403, "Forbidden: Origin header is not allowed".to_owned());
    for origin in ["http://evil.example", "http://localhost.evil.example", "http://127.0.0.1.nip.io:3000", "null"] {
        assert_eq!(post_initialize(&url, &[("origin", origin)]).await, refused, "{origin}");
    }
    // A loopback Origin does not open the Host check: a rebound name is still refused.
    let rebound = [("origin", "http://localhost:6274"), ("host", "attacker.example")];
    assert_eq!(post_initialize(&url, &rebound).await.0, 403);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_can_refuse_loopback_origins_and_still_allow_its_own() {
    let server = McpServer::new(Executor::new(notes())).unwrap();
    let running =
        server.http().refuse_loopback_origins(true).allow_origin("http://localhost:6274").start().await.unwrap();
    let url = running.url();
    assert_eq!(post_initialize(&url, &[("origin", "http://localhost:3000")]).await.0, 403);
    assert_eq!(post_initialize(&url, &[("origin", "http://127.0.0.1:6274")]).await.0, 403);
    assert_eq!(post_initialize(&url, &[("origin", "http://localhost:6274")]).await.0, 200);
    assert_eq!(post_initialize(&url, &[]).await.0, 200);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_answers_requests_with_structured_json() {
    let (_server, running) = serve(notes()).await;
    let (status, body) = post_initialize(&running.url(), &[]).await;
    assert_eq!(status, 200);
    // An event stream: a priming event without data, then the answer.
    let data = body.lines().filter_map(|line| line.strip_prefix("data: ")).find(|d| !d.is_empty()).unwrap_or(&body);
    let message: Value = serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(message["result"]["serverInfo"]["name"], "tool-core");
    assert_eq!(message["result"]["capabilities"]["tools"]["listChanged"], true);
    running.shutdown().await;
}

/// A server whose every call fails with a JSON-RPC error that says too much.
#[derive(Clone)]
struct Indiscreet;

const INDISCREET: &str = "pool: connect postgres://admin:hunter2@10.1.2.3:5432/prod: Connection refused (os error 111)";

impl rmcp::ServerHandler for Indiscreet {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(rmcp::model::ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        let schema = tool_tests::no_parameters();
        let tool = rmcp::model::Tool::new("lookup", "Look something up.", schema);
        Ok(rmcp::model::ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        _request: rmcp::model::CallToolRequestParams,
        _context: rmcp::service::RequestContext<rmcp::service::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        Err(rmcp::ErrorData::internal_error(INDISCREET, None))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_json_rpc_error_reaches_the_record_and_not_the_model() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = StreamableHttpService::new(
        || Ok(Indiscreet),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().route_service("/mcp", service);
    let serving = tokio::spawn(async move { axum::serve(listener, router).await });
    let (_imported, executor) = import(&format!("http://{address}/mcp"), "").await;

    let record = executor.execute(ToolCallRequest::new("lookup", "1", "{}")).await;
    assert_eq!(record.status, CallStatus::Failed);
    let text = record.model_text();
    assert!(text.ends_with("refused the call of `lookup` (JSON-RPC error -32603)."), "{text}");
    assert!(!text.contains("hunter2") && !text.contains("10.1.2.3"), "{text}");
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("mcp_error"));
    assert_eq!(error.internal_detail(), Some(INDISCREET));

    let exposing = Executor::builder(executor.catalog().clone()).expose_error_details(true).build();
    let record = exposing.execute(ToolCallRequest::new("lookup", "2", "{}")).await;
    assert!(record.model_text().ends_with(&format!("(JSON-RPC error -32603).\nDetail: {INDISCREET}")));
    serving.abort();
}
