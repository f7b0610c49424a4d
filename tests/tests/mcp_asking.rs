//! A served tool asks the MCP client that made its call (`sampling/createMessage`,
//! `elicitation/create`), answered by rmcp's own client in process and by a raw HTTP client
//! on the call's own stream; and an importing host answers a remote server's tools.

#![allow(deprecated)] // MCP sampling: deprecated from protocol 2026-07-28, served until removed

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, ListToolsResult, PaginatedRequestParams, ProtocolVersion, Role,
    SamplingMessage as McpMessage, ServerConfig,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use tool_core::ask::{Elicitation, ElicitationAnswer, ElicitationRequest, SamplingRequest, SamplingResponse};
use tool_core::mcp::{McpImport, McpServer};
use tool_core::prelude::*;

/// Asks the client's model to name a colour.
#[tool(name = "colour.name")]
async fn name_colour(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = SamplingRequest::new("Name a colour.", 20).system_prompt("One word.").temperature(0.5);
    let response = ctx.sample(request).await?;
    Ok(format!("{} said {} ({:?})", response.model, response.text_content(), response.stop_reason))
}

/// A person to greet.
#[derive(Deserialize, JsonSchema)]
struct Person {
    /// Their name.
    #[schemars(extend("default" = "Ada"))]
    name: String,
    /// Their age in years.
    age: u8,
}

/// Asks the user who to greet.
#[tool(name = "greet")]
async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Person>("Who should I greet?").await? {
        Elicitation::Accepted { value, warnings } => {
            let rules: Vec<&str> = warnings.iter().map(|w| w.rule()).collect();
            format!("Hello {} ({}); warnings: {rules:?}", value.name, value.age)
        }
        Elicitation::Declined => "declined".to_owned(),
        Elicitation::Cancelled => "cancelled".to_owned(),
    })
}

/// Lists the client's roots.
#[tool(name = "roots.list")]
pub(crate) async fn list_roots(ctx: &ToolContext) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    Ok(roots.iter().map(|root| format!("{} ({:?})", root.uri, root.name)).collect::<Vec<_>>().join("; "))
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<name_colour>()
        .add_declared::<greet>()
        .add_declared::<list_roots>()
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tool_lists_the_roots_of_the_client_that_made_the_call() {
    let answering = Answering::new(None);
    let asked = Arc::clone(&answering.asked);
    let client = serve(Executor::new(catalog()), answering).await;
    let result = call(&client, "roots.list").await;
    assert_eq!(result["content"][0]["text"], r#"file:///work/notes (Some("notes")); file:///tmp (None)"#, "{result}");
    assert_eq!(*asked.lock().unwrap(), [json!("roots/list")]);
    // Without the capability, the tool is told nobody lists them.
    let client = serve(Executor::new(catalog()), ()).await;
    let result = call(&client, "roots.list").await;
    assert_eq!(
        result["content"][0]["text"],
        "`roots.list` has nobody to list its roots: over MCP the client that made the call must declare the `roots` capability; otherwise the host answers with `CallScope::on_roots`"
    );
}

/// An MCP client that answers sampling and elicitation as told, keeping what it was asked
/// (also the 2026-07-28 client of `mcp_rounds`).
#[derive(Clone)]
pub(crate) struct Answering {
    pub(crate) asked: Arc<Mutex<Vec<Value>>>,
    form: Option<ElicitResult>,
}

impl Answering {
    pub(crate) fn new(form: Option<ElicitResult>) -> Answering {
        Answering { asked: Arc::default(), form }
    }
}

impl rmcp::ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.sampling = Some(Default::default());
        capabilities.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        capabilities.roots = Some(Default::default());
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.lock().unwrap().push(serde_json::to_value(&params).unwrap());
        Ok(CreateMessageResult::new(
            McpMessage::new(Role::Assistant, rmcp::model::SamplingMessageContentBlock::text("Blue.")),
            "test-model".into(),
        )
        .with_stop_reason("endTurn"))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        self.asked.lock().unwrap().push(json!("roots/list"));
        let mut root = rmcp::model::Root::new("file:///work/notes");
        root.name = Some("notes".to_owned());
        Ok(rmcp::model::ListRootsResult::new(vec![root, rmcp::model::Root::new("file:///tmp")]))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(serde_json::to_value(&request).unwrap());
        match &self.form {
            Some(answer) => Ok(answer.clone()),
            // A user who never answers.
            None => std::future::pending().await,
        }
    }
}

async fn serve<C: rmcp::ClientHandler>(executor: Executor, client: C) -> RunningService<RoleClient, C> {
    let server = McpServer::new(executor).unwrap();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    client.serve(theirs).await.unwrap()
}

async fn call<C: rmcp::ClientHandler>(client: &RunningService<RoleClient, C>, name: &str) -> Value {
    serde_json::to_value(client.call_tool(CallToolRequestParams::new(name.to_owned())).await.unwrap()).unwrap()
}

#[tokio::test]
async fn a_tool_samples_the_model_of_the_client_that_made_the_call() {
    let answering = Answering::new(None);
    let client = serve(Executor::new(catalog()), answering.clone()).await;
    let result = call(&client, "colour.name").await;
    assert_eq!(result["content"][0]["text"], "test-model said Blue. (Some(\"endTurn\"))");
    assert_eq!(
        answering.asked.lock().unwrap()[0],
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}],
            "systemPrompt": "One word.",
            "temperature": 0.5,
            "maxTokens": 20
        })
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_asks_the_user_of_the_client_and_reads_the_answer_as_arguments() {
    let accepted = ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada", "age": "36"}));
    let answering = Answering::new(Some(accepted));
    let client = serve(Executor::new(catalog()), answering.clone()).await;
    let result = call(&client, "greet").await;
    assert_eq!(result["content"][0]["text"], "Hello Ada (36); warnings: [\"string_to_integer\"]");
    assert_eq!(
        answering.asked.lock().unwrap()[0],
        json!({
            "mode": "form",
            "message": "Who should I greet?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Their name.", "default": "Ada"},
                    "age": {"type": "integer", "description": "Their age in years.", "minimum": 0, "maximum": 255}
                },
                "required": ["name", "age"],
                "description": "A person to greet."
            }
        })
    );
    client.cancel().await.unwrap();

    for (action, said) in [(ElicitationAction::Decline, "declined"), (ElicitationAction::Cancel, "cancelled")] {
        let client = serve(Executor::new(catalog()), Answering::new(Some(ElicitResult::new(action)))).await;
        assert_eq!(call(&client, "greet").await["content"][0]["text"], said);
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_client_without_the_capability_is_not_asked_and_the_tool_says_so() {
    let client = serve(Executor::new(catalog()), ()).await;
    let result = call(&client, "colour.name").await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "`colour.name` has no model to ask: over MCP the client that made the call must declare the `sampling` capability; otherwise the host answers with `CallScope::on_sample` or `ExecutorBuilder::on_sample`"
    );
    let result = call(&client, "greet").await;
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"].as_str().unwrap().starts_with("`greet` has nobody to ask"), "{result}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_never_answers_does_not_hold_the_call_past_its_time_limit() {
    let executor = Executor::builder(catalog()).timeout(Duration::from_millis(200)).build();
    let client = serve(executor, Answering::new(None)).await;
    let started = std::time::Instant::now();
    let result = call(&client, "greet").await;
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], "The tool did not finish within 200 ms; it was stopped.");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    client.cancel().await.unwrap();
}

/// Reads a streamed HTTP response's SSE events until `wanted` says one is the one.
async fn next_event(response: &mut reqwest::Response, buffer: &mut String, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            for line in event.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    if let Ok(message) = serde_json::from_str::<Value>(data.trim()) {
                        if wanted(&message) {
                            return message;
                        }
                    }
                }
            }
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await.unwrap().unwrap().unwrap();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_streamable_http_the_question_comes_on_the_calls_own_stream() {
    let server = McpServer::new(Executor::new(catalog())).unwrap();
    let running = server.http().start().await.unwrap();
    let url = running.url();
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
        }
        request.send()
    };
    let mut initialize = tool_tests::mcp_initialize(1, "raw");
    initialize["params"]["capabilities"] = json!({"elicitation": {}});
    let response = post(initialize, None).await.unwrap();
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let _ = response.text().await.unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(initialized, Some(session.clone())).await.unwrap();

    let mut call = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet", "arguments": {}}}),
        Some(session.clone()),
    )
    .await
    .unwrap();
    let mut buffer = String::new();
    let question = next_event(&mut call, &mut buffer, |m| m.get("method").is_some()).await;
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Who should I greet?");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Bo", "age": 7}}});
    let _ = post(answer, Some(session)).await.unwrap().text().await;
    let result = next_event(&mut call, &mut buffer, |m| m["id"] == 2).await;
    assert_eq!(result["result"]["content"][0]["text"], "Hello Bo (7); warnings: []");
    running.shutdown().await;
}

/// Our server as a server of protocol 2025-11-25 at most, whose tools ask the client with
/// requests of their own on the call's stream (2026-07-28 has none: its servers ask with
/// `InputRequiredResult`, see `mcp_rounds`).
#[derive(Clone)]
struct Legacy(McpServer);

impl rmcp::ServerHandler for Legacy {
    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.0.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.0.call_tool(request, context).await
    }
}

/// `server` on 127.0.0.1 as a 2025-11-25 server; its URL, and what stops it.
async fn serve_legacy(server: McpServer) -> (String, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["127.0.0.1".to_owned()])
        .with_legacy_session_mode(true)
        .with_cancellation_token(stop.child_token());
    let handler = Legacy(server);
    let service =
        StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(LocalSessionManager::default()), config);
    let router = axum::Router::new().route_service("/mcp", service);
    let shutdown = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, router).with_graceful_shutdown(async move { shutdown.cancelled().await }).await.unwrap();
    });
    (format!("http://{address}/mcp"), stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_importing_host_answers_a_remote_tools_questions_and_fills_in_the_forms_defaults() {
    // A server that does not speak 2026-07-28 lists only older revisions in its answer to
    // `server/discover`: the import connects again with `initialize`.
    let (url, stop) = serve_legacy(McpServer::new(Executor::new(catalog())).unwrap()).await;
    the_importing_host_answers(&url, "2025-11-25").await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_importing_host_answers_our_servers_questions_in_rounds_on_2026_07_28() {
    // Both sides speak 2026-07-28: the questions come as `InputRequiredResult` rounds.
    let running = McpServer::new(Executor::new(catalog())).unwrap().http().start().await.unwrap();
    the_importing_host_answers(&running.url(), "2026-07-28").await;
    running.shutdown().await;
}

/// An importing host with handlers calls `url`'s asking tools, spoken to in `version`.
async fn the_importing_host_answers(url: &str, version: &str) {
    let url = url.to_owned();
    let forms: Arc<Mutex<Vec<ElicitationRequest>>> = Arc::default();
    let kept = Arc::clone(&forms);
    let samples: Arc<Mutex<Vec<SamplingRequest>>> = Arc::default();
    let sampled = Arc::clone(&samples);
    let imported = McpImport::http(&url)
        .prefix("remote.")
        .on_sample(move |request| {
            sampled.lock().unwrap().push(request);
            async { Ok(SamplingResponse::text("Teal.", "host-model").with_stop_reason("endTurn")) }
        })
        .on_elicit(move |request| {
            kept.lock().unwrap().push(request);
            // The user changed the age only: the form's default stands for the name.
            async { Ok(ElicitationAnswer::Accept(Map::from_iter([("age".to_owned(), json!(7))]))) }
        })
        .connect()
        .await
        .unwrap();
    assert_eq!(imported.protocol_version().as_deref(), Some(version));
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());

    let record = executor.execute(ToolCallRequest::new("remote.greet", "1", "{}")).await;
    assert_eq!(record.model_text(), "Hello Ada (7); warnings: []");
    let form = forms.lock().unwrap().remove(0);
    assert_eq!(form.message, "Who should I greet?");
    assert_eq!(form.requested_schema["properties"]["name"]["default"], "Ada");

    let record = executor.execute(ToolCallRequest::new("remote.colour.name", "2", "{}")).await;
    assert_eq!(record.model_text(), "host-model said Teal. (Some(\"endTurn\"))");
    let request = samples.lock().unwrap().remove(0);
    assert_eq!(request, SamplingRequest::new("Name a colour.", 20).system_prompt("One word.").temperature(0.5));

    // Without handlers the capabilities are not declared, and the remote tool says so.
    let plain = McpImport::http(&url).connect().await.unwrap();
    let executor = Executor::new(plain.add_to(ToolCatalog::builder()).build().unwrap());
    let record = executor.execute(ToolCallRequest::new("colour.name", "3", "{}")).await;
    assert_eq!(record.status, CallStatus::Failed);
    match version {
        // The tool's own error, in its result.
        "2025-11-25" => {
            assert!(record.model_text().starts_with("`colour.name` has no model to ask"), "{}", record.model_text())
        }
        // The request lacked the capability the tool needed: -32021 (SEP-2575).
        _ => assert_eq!(
            record.model_text(),
            format!("The MCP server `{url}` refused the call of `colour.name` (JSON-RPC error -32021).")
        ),
    }
}
