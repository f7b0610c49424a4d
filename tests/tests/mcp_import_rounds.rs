//! `McpImport` against a real rmcp server speaking protocol 2026-07-28, over streamable HTTP on
//! 127.0.0.1: a tool that asks for input with `InputRequiredResult` (SEP-2322: one round, two
//! rounds, a form and a model's message in one round, roots, a server that never stops asking,
//! a host without handlers), and calls the server runs as tasks (SEP-2663: polled to their
//! result, cancelled with `tasks/cancel` when the call times out).

#![allow(deprecated)] // MCP sampling: deprecated from protocol 2026-07-28, served until removed

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock as McpBlock,
    CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Task, TaskPayload, TaskStatus, Tool as McpTool, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ErrorData;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tool_core::ask::{ElicitationAnswer, SamplingResponse};
use tool_core::mcp::McpImport;
use tool_core::prelude::*;
use tool_core::{CallFailure, CallScope, Progress};

/// What the server saw: each `tools/call` (its name, `inputResponses` and `requestState`), the
/// polls of each task, and the tasks cancelled.
#[derive(Default)]
struct Seen {
    calls: Mutex<Vec<Value>>,
    polls: Mutex<HashMap<String, usize>>,
    cancelled: Mutex<Vec<String>>,
    /// The `inputResponses` of `tasks/update`, by task.
    updates: Mutex<HashMap<String, Value>>,
}

/// A 2026-07-28 server whose tools ask for input and run as tasks.
#[derive(Clone)]
struct Asking {
    seen: Arc<Seen>,
}

fn input(request: Value) -> InputRequest {
    serde_json::from_value(request).unwrap()
}

fn form(message: &str, properties: Value) -> InputRequest {
    input(json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": {"type": "object", "properties": properties}}
    }))
}

fn sampling(text: &str) -> InputRequest {
    input(json!({
        "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": 20}
    }))
}

fn ask(requests: Vec<(&str, InputRequest)>, state: Option<&str>) -> CallToolResponse {
    let requests: InputRequests = requests.into_iter().map(|(key, request)| (key.to_owned(), request)).collect();
    InputRequiredResult::new(Some(requests), state.map(str::to_owned)).into()
}

fn text(text: String) -> CallToolResponse {
    CallToolResult::success(vec![McpBlock::text(text)]).into()
}

fn task(id: &str, status: TaskStatus) -> Task {
    Task::new(id, status, "2026-07-28T10:00:00Z", "2026-07-28T10:00:00Z").with_poll_interval_ms(20)
}

impl ServerHandler for Asking {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build());
        info.server_info = Implementation::new("asking", "1.0.0");
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = tool_tests::no_parameters();
        let tools = ["confirm", "two_rounds", "both", "roots", "endless", "report", "forever", "survey", "steps"];
        Ok(ListToolsResult::with_all_items(
            tools.iter().map(|name| McpTool::new(*name, format!("The tool {name}."), Arc::clone(&schema))).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "steps" {
            let token =
                context.meta.get_progress_token().ok_or(ErrorData::invalid_params("no progress token", None))?;
            for step in 1..=2 {
                let param = ProgressNotificationParam::new(token.clone(), f64::from(step)).with_total(2.0);
                context
                    .peer
                    .notify_progress(param)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            }
            return Ok(text("2 steps".to_owned()));
        }
        self.seen.calls.lock().unwrap().push(json!({
            "name": request.name,
            "inputResponses": request.input_responses,
            "requestState": request.request_state,
        }));
        let answers = request.input_responses.unwrap_or_default();
        let state = request.request_state.as_deref();
        Ok(match (request.name.as_ref(), state) {
            ("confirm", None) => {
                ask(vec![("confirm", form("Confirm the transfer?", json!({"ok": {"type": "boolean"}})))], Some("s1"))
            }
            ("confirm", Some("s1")) => text(format!("confirmed: {}", answers["confirm"]["content"])),
            ("two_rounds", None) => {
                ask(vec![("name", form("Your name?", json!({"name": {"type": "string"}})))], Some("round-1"))
            }
            ("two_rounds", Some("round-1")) => {
                let name = answers["name"]["content"]["name"].as_str().unwrap_or("nobody").to_owned();
                ask(vec![("colour", sampling("Name a colour."))], Some(&format!("round-2:{name}")))
            }
            ("two_rounds", Some(state)) => {
                let name = state.trim_start_matches("round-2:");
                text(format!("{name} likes {} ({})", answers["colour"]["content"]["text"], answers["colour"]["model"]))
            }
            ("both", None) if answers.is_empty() => ask(
                vec![("form", form("Your age?", json!({"age": {"type": "integer"}}))), ("model", sampling("A word."))],
                None,
            ),
            ("both", None) => {
                text(format!("age {} and {}", answers["form"]["content"]["age"], answers["model"]["content"]["text"]))
            }
            ("roots", None) if answers.is_empty() => ask(vec![("dirs", input(json!({"method": "roots/list"})))], None),
            ("roots", None) => text(format!("roots: {}", answers["dirs"])),
            ("endless", _) => {
                let round = state.map_or(1, |s| s.parse::<u32>().unwrap() + 1);
                ask(vec![("more", form("Once more?", json!({})))], Some(&round.to_string()))
            }
            ("report", _) => CreateTaskResult::new(task("task-report", TaskStatus::Working)).into(),
            ("forever", _) => CreateTaskResult::new(task("task-forever", TaskStatus::Working)).into(),
            ("survey", _) => CreateTaskResult::new(task("task-survey", TaskStatus::Working)).into(),
            (name, state) => return Err(ErrorData::invalid_params(format!("no tool {name} in state {state:?}"), None)),
        })
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let id = request.task_id;
        let polls = {
            let mut polls = self.seen.polls.lock().unwrap();
            let count = polls.entry(id.clone()).or_default();
            *count += 1;
            *count
        };
        let cancelled = self.seen.cancelled.lock().unwrap().contains(&id);
        let updated = self.seen.updates.lock().unwrap().get(&id).cloned();
        let payload = match id.as_str() {
            _ if cancelled => TaskPayload::Cancelled,
            "task-survey" => match updated {
                None => TaskPayload::InputRequired {
                    input_requests: [("age".to_owned(), form("Your age?", json!({"age": {"type": "integer"}})))].into(),
                },
                Some(answers) => {
                    let text = format!("surveyed: {}", answers["age"]["content"]["age"]);
                    let Value::Object(result) = json!({"content": [{"type": "text", "text": text}]}) else {
                        unreachable!()
                    };
                    TaskPayload::Completed { result }
                }
            },
            "task-report" if polls >= 3 => {
                let Value::Object(result) =
                    json!({"content": [{"type": "text", "text": format!("report ready after {polls} polls")}]})
                else {
                    unreachable!()
                };
                TaskPayload::Completed { result }
            }
            _ => TaskPayload::Working,
        };
        Ok(GetTaskResult::new(DetailedTask::new(task(&id, TaskStatus::Working), payload)))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let answers = serde_json::to_value(&request.input_responses).unwrap();
        self.seen.updates.lock().unwrap().insert(request.task_id, answers);
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.seen.cancelled.lock().unwrap().push(request.task_id);
        Ok(())
    }
}

/// The server, on 127.0.0.1.
struct Server {
    url: String,
    seen: Arc<Seen>,
    stop: CancellationToken,
}

impl Server {
    async fn start() -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let seen = Arc::new(Seen::default());
        let stop = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(["127.0.0.1".to_owned()])
            .with_cancellation_token(stop.child_token());
        let handler = Asking { seen: Arc::clone(&seen) };
        let service =
            StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(LocalSessionManager::default()), config);
        let router = axum::Router::new().route_service("/mcp", service);
        let shutdown = stop.clone();
        tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled().await })
                .await
                .unwrap();
        });
        Server { url: format!("http://{address}/mcp"), seen, stop }
    }

    /// The calls the server saw of `name`: their `inputResponses` and `requestState`.
    fn calls_of(&self, name: &str) -> Vec<Value> {
        let calls = self.seen.calls.lock().unwrap();
        calls
            .iter()
            .filter(|call| call["name"] == name)
            .map(|call| json!({"inputResponses": call["inputResponses"], "requestState": call["requestState"]}))
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A host whose user answers every form with `form` and whose model says "Teal.".
async fn host(url: &str, form: Value) -> (McpImport, Executor) {
    let Value::Object(form) = form else { panic!("a form's answer is an object") };
    let import = McpImport::http(url)
        .on_elicit(move |_request| {
            let form = form.clone();
            async move { Ok(ElicitationAnswer::Accept(form)) }
        })
        .on_sample(|_request| async { Ok(SamplingResponse::text("Teal.", "host-model").with_stop_reason("endTurn")) })
        .max_input_rounds(3)
        .connect()
        .await
        .unwrap();
    let executor = Executor::new(import.add_to(ToolCatalog::builder()).build().unwrap());
    (import, executor)
}

fn failure_code(record: &ExecutionRecord) -> Option<&str> {
    match &record.failure {
        Some(CallFailure::ToolError { error }) => error.code(),
        _ => None,
    }
}

fn metadata(record: &ExecutionRecord) -> Value {
    Value::Object(record.content.metadata.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_tool_that_asks_for_input_gets_the_hosts_answers_and_the_state_back() {
    let server = Server::start().await;
    let (import, executor) = host(&server.url, json!({"ok": true, "name": "Ada", "age": 36})).await;
    assert_eq!(import.protocol_version().as_deref(), Some("2026-07-28"));

    // One round: the answer and the state go back with a new call.
    let record = executor.execute(ToolCallRequest::new("confirm", "1", "{}")).await;
    assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    assert_eq!(record.model_text(), r#"confirmed: {"ok":true,"name":"Ada","age":36}"#);
    assert_eq!(metadata(&record), json!({"mcp_input_rounds": 1}));
    assert_eq!(
        server.calls_of("confirm"),
        [
            json!({"inputResponses": null, "requestState": null}),
            json!({
                "inputResponses": {"confirm": {"action": "accept", "content": {"age": 36, "name": "Ada", "ok": true}}},
                "requestState": "s1"
            }),
        ]
    );

    // Two rounds: a form, then the host's model; each retry carries only its own round.
    let record = executor.execute(ToolCallRequest::new("two_rounds", "2", "{}")).await;
    assert_eq!(record.model_text(), r#"Ada likes "Teal." ("host-model")"#);
    assert_eq!(metadata(&record), json!({"mcp_input_rounds": 2}));
    let calls = server.calls_of("two_rounds");
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[2]["requestState"], "round-2:Ada");
    assert_eq!(
        calls[2]["inputResponses"],
        json!({"colour": {"role": "assistant", "content": {"type": "text", "text": "Teal."}, "model": "host-model", "stopReason": "endTurn"}})
    );

    // A form and a model's message in one round, without a state: none goes back.
    let record = executor.execute(ToolCallRequest::new("both", "3", "{}")).await;
    assert_eq!(record.model_text(), r#"age 36 and "Teal.""#);
    assert_eq!(server.calls_of("both")[1]["requestState"], Value::Null);

    // The import shares no directories: roots are answered with none.
    let record = executor.execute(ToolCallRequest::new("roots", "4", "{}")).await;
    assert_eq!(record.model_text(), r#"roots: {"roots":[]}"#);
    import.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_asking_or_asks_a_host_without_handlers_fails_the_call_unretried() {
    let server = Server::start().await;
    let (import, executor) = host(&server.url, json!({})).await;
    let record = executor.execute(ToolCallRequest::new("endless", "1", "{}")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(failure_code(&record), Some("mcp_input_rounds"));
    assert_eq!(
        record.model_text(),
        format!(
            "The MCP server `{}` still asked for input after 3 rounds of the call of `endless` \
             (`McpImportBuilder::max_input_rounds`); the call was given up.",
            server.url
        )
    );
    assert_eq!(server.calls_of("endless").len(), 4);
    import.close().await;

    // Without handlers neither capability is declared: a server asking anyway is not answered.
    let plain = McpImport::http(&server.url).connect().await.unwrap();
    let executor = Executor::new(plain.add_to(ToolCatalog::builder()).build().unwrap());
    let record = executor.execute(ToolCallRequest::new("confirm", "2", "{}")).await;
    assert_eq!(failure_code(&record), Some("mcp_input_unanswerable"));
    assert_eq!(
        record.model_text(),
        format!(
            "The MCP server `{}` sent `elicitation/create` (input `confirm`) during the call of `confirm`, but this \
             host answers none (no `McpImportBuilder::on_elicit`, so the `elicitation` capability was not declared); \
             the call was not retried.",
            server.url
        )
    );
    let record = executor.execute(ToolCallRequest::new("two_rounds", "3", "{}")).await;
    assert_eq!(failure_code(&record), Some("mcp_input_unanswerable"));
    assert_eq!(server.calls_of("confirm").len(), 1);
    plain.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_the_server_runs_as_a_task_is_polled_to_its_result() {
    let server = Server::start().await;
    let (import, executor) = host(&server.url, json!({"age": 36})).await;
    let record = executor.execute(ToolCallRequest::new("report", "1", "{}")).await;
    assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    assert_eq!(record.model_text(), "report ready after 3 polls");
    assert_eq!(metadata(&record), json!({"mcp_task": {"taskId": "task-report", "polls": 3}}));
    assert_eq!(server.seen.polls.lock().unwrap()["task-report"], 3);

    // A task that asks for input gets the host's answer with `tasks/update`.
    let record = executor.execute(ToolCallRequest::new("survey", "2", "{}")).await;
    assert_eq!(record.model_text(), "surveyed: 36");
    assert_eq!(metadata(&record), json!({"mcp_input_rounds": 1, "mcp_task": {"taskId": "task-survey", "polls": 2}}));
    assert_eq!(
        server.seen.updates.lock().unwrap()["task-survey"],
        json!({"age": {"action": "accept", "content": {"age": 36}}})
    );
    // A task that ends is not cancelled.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(server.seen.cancelled.lock().unwrap().is_empty());
    import.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_backed_call_that_times_out_cancels_its_task() {
    let server = Server::start().await;
    let (import, _) = host(&server.url, json!({})).await;
    let catalog = import.add_to(ToolCatalog::builder()).build().unwrap();
    let executor = Executor::builder(catalog).timeout(Duration::from_millis(400)).build();
    let record = executor.execute(ToolCallRequest::new("forever", "1", "{}")).await;
    assert_eq!(record.status, CallStatus::TimedOut);
    let cancelled = async {
        while server.seen.cancelled.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), cancelled).await.expect("the server was sent `tasks/cancel`");
    assert_eq!(*server.seen.cancelled.lock().unwrap(), ["task-forever"]);
    assert!(server.seen.polls.lock().unwrap()["task-forever"] >= 2);

    // A task given up after its polls is cancelled too.
    let bounded = McpImport::http(&server.url).max_task_polls(2).connect().await.unwrap();
    let executor = Executor::new(bounded.add_to(ToolCatalog::builder()).build().unwrap());
    server.seen.cancelled.lock().unwrap().clear();
    server.seen.polls.lock().unwrap().clear();
    let record = executor.execute(ToolCallRequest::new("forever", "2", "{}")).await;
    assert_eq!(failure_code(&record), Some("mcp_task_polls"));
    assert_eq!(
        record.model_text(),
        format!(
            "The task `task-forever` of the MCP server `{}` for the call of `forever` was still running after 2 polls \
             (`McpImportBuilder::max_task_polls`); it was cancelled.",
            server.url
        )
    );
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.seen.cancelled.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server was sent `tasks/cancel`");
    assert_eq!(server.seen.polls.lock().unwrap()["task-forever"], 2);
    bounded.close().await;
    import.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_of_a_remote_call_on_2026_07_28_reaches_the_callers_scope() {
    let server = Server::start().await;
    let (import, executor) = host(&server.url, json!({})).await;
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let scope = CallScope::new().on_progress(move |p| sink.lock().unwrap().push(p));
    let record = executor.execute_in(ToolCallRequest::new("steps", "1", "{}"), scope).await;
    assert_eq!(record.model_text(), "2 steps");
    for _ in 0..100 {
        if seen.lock().unwrap().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // rmcp hands notifications to the client's handler each on its own task: their order is
    // not kept.
    let mut seen: Vec<(f64, Option<f64>)> = seen.lock().unwrap().iter().map(|p| (p.progress, p.total)).collect();
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(seen, [(1.0, Some(2.0)), (2.0, Some(2.0))]);
    import.close().await;
}
