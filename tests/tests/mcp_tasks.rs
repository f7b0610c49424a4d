//! Tasks (the MCP tasks extension, SEP-2663) on the server: a `#[tool(task)]` call answered
//! with a task to a client of protocol 2026-07-28 that declared the extension, polled with
//! rmcp's own client, cancelled, answered through `tasks/update`, owned by its principal, and
//! served by any replica sharing the store (in memory and in Redis), including after the
//! replica running it is gone.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig, DetailedTask,
    ElicitationCapability, FormElicitationCapability, GetTaskParams, ProtocolVersion, TaskPayload, TaskStatus,
    UpdateTaskParams, TASKS_EXTENSION_ID,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{json, Value};
use tool_core::mcp::McpServer;
use tool_core::policy::ApprovalRule;
use tool_core::prelude::*;
use tool_core::state::{MemoryStore, SharedStore};
use tool_core::TaskSupport;

use crate::mcp_rounds::refusal;

/// Works a fifth of a second, then says what it computed.
#[tool(name = "tasks.compute", task)]
async fn compute(n: u32) -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    format!("{n} squared is {}", n * n)
}

/// How many calls of `tasks.wait` saw their cancellation.
static SAW_CANCEL: AtomicUsize = AtomicUsize::new(0);

/// Notes, when the call's future is dropped, whether it was dropped because it was cancelled.
struct Seen<'a>(&'a ToolContext);

impl Drop for Seen<'_> {
    fn drop(&mut self) {
        if self.0.is_cancelled() {
            SAW_CANCEL.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Waits until it is cancelled.
#[tool(name = "tasks.wait", task)]
async fn wait(ctx: &ToolContext) -> String {
    let _seen = Seen(ctx);
    ctx.cancellation().cancelled().await;
    "cancelled".to_owned()
}

/// Lets `tasks.steps` finish its second step.
static STEP_TWO: AtomicBool = AtomicBool::new(false);

/// Reports a step, waits to be let go, and ends.
#[tool(name = "tasks.steps", task)]
async fn steps(ctx: &ToolContext) -> String {
    ctx.report_progress(1.0, Some(2.0), Some("copying the files"));
    while !STEP_TWO.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    "copied".to_owned()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Person {
    name: String,
}

/// Asks whom to greet.
#[tool(name = "tasks.greet", task)]
async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    match ctx.elicit::<Person>("Whom should I greet?").await? {
        tool_core::ask::Elicitation::Accepted { value, .. } => Ok(format!("Hello, {}!", value.name)),
        _ => Ok("nobody to greet".to_owned()),
    }
}

/// Deletes a note: needs a person's approval.
#[tool(name = "tasks.delete", task, annotations(destructive))]
async fn delete(id: u32) -> String {
    format!("deleted note {id}")
}

/// Holds until it is cancelled; running it twice does no harm.
#[tool(name = "tasks.hold", task, annotations(idempotent))]
async fn hold(ctx: &ToolContext) -> String {
    ctx.cancellation().cancelled().await;
    "released".to_owned()
}

/// Whom `tasks.welcome` welcomed, once for each time it ran past its question.
pub(crate) static WELCOMED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Asks whom to welcome in the request's rounds, then welcomes them as a task.
#[tool(name = "tasks.welcome", task(required, asks_first))]
async fn welcome(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = match ctx.elicit_keyed::<Person>("user_name", "Whom should I welcome?").await? {
        tool_core::ask::Elicitation::Accepted { value, .. } => value.name,
        _ => "nobody".to_owned(),
    };
    ctx.continue_as_task().await;
    WELCOMED.lock().unwrap().push(name.clone());
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(format!("Welcome, {name}!"))
}

/// Runs only as a task.
#[tool(name = "tasks.only", task = "required")]
fn only() -> String {
    "ran".to_owned()
}

pub(crate) fn executor(store: SharedStore) -> Executor {
    let catalog = ToolCatalog::builder()
        .add_declared::<compute>()
        .add_declared::<wait>()
        .add_declared::<steps>()
        .add_declared::<greet>()
        .add_declared::<delete>()
        .add_declared::<only>()
        .add_declared::<hold>()
        .add_declared::<welcome>()
        .build()
        .unwrap();
    Executor::builder(catalog).store(store).require_approval(ApprovalRule::destructive()).build()
}

/// A server on `store` that checks its tasks every 20 ms.
pub(crate) fn server(store: SharedStore) -> McpServer {
    McpServer::builder(executor(store)).task_poll_interval(Duration::from_millis(20)).build().unwrap()
}

/// A server on `store` whose running tasks beat every third of `lease`.
pub(crate) fn leased(store: SharedStore, lease: Duration) -> McpServer {
    McpServer::builder(executor(store)).task_poll_interval(Duration::from_millis(20)).task_lease(lease).build().unwrap()
}

/// A client of protocol 2026-07-28 that takes forms, and declares the tasks extension when
/// told to.
#[derive(Clone)]
pub(crate) struct Tasking {
    pub(crate) extension: bool,
}

impl rmcp::ClientHandler for Tasking {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        if self.extension {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        }
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info
    }
}

pub(crate) type Client = RunningService<RoleClient, Tasking>;

pub(crate) fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
}

/// A client of `server` in this process.
pub(crate) async fn client_of(server: McpServer, extension: bool) -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = Tasking { extension }.serve_with_lifecycle(theirs, lifecycle()).await.unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    client
}

pub(crate) fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.as_object().cloned().unwrap())
}

/// Calls `name` and returns the id of the task it was answered with.
pub(crate) async fn start(client: &Client, name: &str, arguments: Value) -> String {
    match client.call_tool_once(params(name, arguments)).await.unwrap() {
        CallToolResponse::Task(created) => {
            let created = serde_json::to_value(&created).unwrap();
            assert_eq!(created["resultType"], "task");
            assert_eq!(created["status"], "working");
            assert_eq!(created["pollIntervalMs"], 20);
            assert_eq!(created["ttlMs"], 3_600_000);
            created["taskId"].as_str().unwrap().to_owned()
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

pub(crate) async fn get(client: &Client, id: &str) -> DetailedTask {
    client.get_task(GetTaskParams::new(id)).await.unwrap().task
}

/// Polls the task until `done` says it is what the test waits for (at most five seconds).
pub(crate) async fn poll_until(client: &Client, id: &str, done: impl Fn(&DetailedTask) -> bool) -> DetailedTask {
    for _ in 0..500 {
        let task = get(client, id).await;
        if done(&task) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never got there: {:?}", get(client, id).await)
}

pub(crate) async fn ended(client: &Client, id: &str) -> DetailedTask {
    poll_until(client, id, |task| task.status().is_terminal()).await
}

/// The text of a completed task's result.
pub(crate) fn result_text(task: &DetailedTask) -> String {
    match &task.payload {
        TaskPayload::Completed { result } => result["content"][0]["text"].as_str().unwrap().to_owned(),
        other => panic!("expected a completed task, got {other:?}"),
    }
}

#[tokio::test]
async fn a_client_with_the_extension_gets_a_task_and_polls_it_to_its_result() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&records);
    let server = McpServer::builder(executor(Arc::new(MemoryStore::new())))
        .task_poll_interval(Duration::from_millis(20))
        .on_record(move |record| seen.lock().unwrap().push((record.request.tool_name.clone(), record.status)))
        .build()
        .unwrap();
    let client = client_of(server, true).await;
    let id = start(&client, "tasks.compute", json!({"n": 7})).await;
    assert_eq!(id.len(), 32, "{id}");
    assert_eq!(get(&client, &id).await.status(), TaskStatus::Working);
    let task = ended(&client, &id).await;
    assert_eq!(task.status(), TaskStatus::Completed);
    assert_eq!(result_text(&task), "7 squared is 49");
    let TaskPayload::Completed { result } = &task.payload else { unreachable!() };
    assert_eq!(result["isError"], false);
    // The call's record reached the observer once, when the task ended.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(*records.lock().unwrap(), [("tasks.compute".to_owned(), CallStatus::Success)]);
    // A task the server never made is unknown.
    let (code, message) = refusal(client.get_task(GetTaskParams::new("0123")).await.unwrap_err());
    assert_eq!((code, message.as_str()), (-32602, "unknown task: 0123"));
}

#[tokio::test]
async fn a_task_cancelled_mid_run_ends_cancelled_and_its_tool_sees_the_cancellation() {
    let client = client_of(server(Arc::new(MemoryStore::new())), true).await;
    let before = SAW_CANCEL.load(Ordering::SeqCst);
    let id = start(&client, "tasks.wait", json!({})).await;
    assert_eq!(get(&client, &id).await.status(), TaskStatus::Working);
    client.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    let task = ended(&client, &id).await;
    assert_eq!(task.status(), TaskStatus::Cancelled);
    assert_eq!(SAW_CANCEL.load(Ordering::SeqCst) - before, 1);
    // Cancelling an ended task changes nothing.
    client.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    assert_eq!(get(&client, &id).await.status(), TaskStatus::Cancelled);
}

#[tokio::test]
async fn a_client_without_the_extension_gets_the_result_when_the_call_ends() {
    let client = client_of(server(Arc::new(MemoryStore::new())), false).await;
    match client.call_tool_once(params("tasks.compute", json!({"n": 3}))).await.unwrap() {
        CallToolResponse::Complete(result) => {
            assert_eq!(serde_json::to_value(&result).unwrap()["content"][0]["text"], "3 squared is 9");
        }
        other => panic!("expected the result, got {other:?}"),
    }
    // The tasks methods are refused to it, with the capability it lacks.
    let (code, _) = refusal(client.get_task(GetTaskParams::new("0123")).await.unwrap_err());
    assert_eq!(code, -32021);
    // A tool that runs only as a task is refused to it, the same way.
    let error = client.call_tool_once(params("tasks.only", json!({}))).await.unwrap_err();
    let ServiceError::McpError(error) = error else { panic!("expected a JSON-RPC error") };
    assert_eq!(error.code.0, -32021);
    assert_eq!(error.data, Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION_ID: {}}}})));
}

#[tokio::test]
async fn progress_is_the_status_message_of_the_task() {
    let client = client_of(server(Arc::new(MemoryStore::new())), true).await;
    let id = start(&client, "tasks.steps", json!({})).await;
    let task = poll_until(&client, &id, |task| task.task.status_message.is_some()).await;
    assert_eq!(task.task.status_message.as_deref(), Some("copying the files"));
    assert_eq!(task.status(), TaskStatus::Working);
    STEP_TWO.store(true, Ordering::SeqCst);
    assert_eq!(result_text(&ended(&client, &id).await), "copied");
}

/// The one open question of an `input_required` task: its key and what it asks.
pub(crate) fn question(task: &DetailedTask) -> (String, Value) {
    let TaskPayload::InputRequired { input_requests } = &task.payload else { panic!("expected input_required") };
    assert_eq!(input_requests.len(), 1, "{input_requests:?}");
    let (key, request) = input_requests.iter().next().unwrap();
    (key.clone(), serde_json::to_value(request).unwrap())
}

#[tokio::test]
async fn a_question_makes_the_task_input_required_until_tasks_update_answers_it() {
    let client = client_of(server(Arc::new(MemoryStore::new())), true).await;
    let id = start(&client, "tasks.greet", json!({})).await;
    let task = poll_until(&client, &id, |task| task.status() == TaskStatus::InputRequired).await;
    let (key, request) = question(&task);
    assert_eq!(key, "elicitation_0");
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Whom should I greet?");
    // Answers to questions the task does not have are ignored.
    let stray = BTreeMap::from([("elicitation_9".to_owned(), json!({"action": "accept", "content": {"name": "Bo"}}))]);
    client.update_task(UpdateTaskParams::new(&id, stray)).await.unwrap();
    assert_eq!(get(&client, &id).await.status(), TaskStatus::InputRequired);
    // An answer that is no form's result is refused, and the question stays open.
    let wrong = BTreeMap::from([(key.clone(), json!({"name": "Ada"}))]);
    let (code, message) = refusal(client.update_task(UpdateTaskParams::new(&id, wrong)).await.unwrap_err());
    assert_eq!(code, -32602);
    assert!(
        message.starts_with("inputResponses.elicitation_0 is not the elicitation result its request asked for: "),
        "{message}"
    );
    assert_eq!(get(&client, &id).await.status(), TaskStatus::InputRequired);
    let answer = BTreeMap::from([(key, json!({"action": "accept", "content": {"name": "Ada"}}))]);
    client.update_task(UpdateTaskParams::new(&id, answer)).await.unwrap();
    assert_ne!(get(&client, &id).await.status(), TaskStatus::InputRequired);
    assert_eq!(result_text(&ended(&client, &id).await), "Hello, Ada!");
}

#[tokio::test]
async fn a_call_waiting_for_approval_asks_it_through_the_task() {
    let client = client_of(server(Arc::new(MemoryStore::new())), true).await;
    let id = start(&client, "tasks.delete", json!({"id": 4})).await;
    let task = poll_until(&client, &id, |task| task.status() == TaskStatus::InputRequired).await;
    let (key, request) = question(&task);
    let message = request["params"]["message"].as_str().unwrap();
    assert!(message.starts_with("Allow the tool `tasks.delete` to run with these arguments?"), "{message}");
    let answer = BTreeMap::from([(key, json!({"action": "accept", "content": {"approve": true}}))]);
    client.update_task(UpdateTaskParams::new(&id, answer)).await.unwrap();
    assert_eq!(result_text(&ended(&client, &id).await), "deleted note 4");

    // Denied: the task completes with the denial for the model.
    let id = start(&client, "tasks.delete", json!({"id": 5})).await;
    let task = poll_until(&client, &id, |task| task.status() == TaskStatus::InputRequired).await;
    let (key, _) = question(&task);
    let answer =
        BTreeMap::from([(key, json!({"action": "accept", "content": {"approve": false, "reason": "keep it"}}))]);
    client.update_task(UpdateTaskParams::new(&id, answer)).await.unwrap();
    let task = ended(&client, &id).await;
    let TaskPayload::Completed { result } = &task.payload else { panic!("expected completed, got {task:?}") };
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("keep it"), "{text}");
}

/// A client over HTTP whose requests carry the header `x-user: user`.
async fn client_as(url: &str, user: &str) -> Client {
    let headers = HashMap::from([("x-user".parse().unwrap(), user.parse().unwrap())]);
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    Tasking { extension: true }
        .serve_with_lifecycle(StreamableHttpClientTransport::from_config(config), lifecycle())
        .await
        .unwrap()
}

#[tokio::test]
async fn another_principal_cannot_see_or_cancel_the_task() {
    let server = McpServer::builder(executor(Arc::new(MemoryStore::new())))
        .principal_from(|parts| parts.headers.get("x-user")?.to_str().ok().map(str::to_owned))
        .build()
        .unwrap();
    let running = server.http().bind("127.0.0.1:0".parse().unwrap()).start().await.unwrap();
    let ada = client_as(&running.url(), "ada").await;
    let bo = client_as(&running.url(), "bo").await;
    let id = start_any(&ada, "tasks.wait").await;
    let (code, message) = refusal(bo.get_task(GetTaskParams::new(&id)).await.unwrap_err());
    assert_eq!((code, message), (-32602, format!("unknown task: {id}")));
    let (code, _) = refusal(bo.cancel_task(CancelTaskParams::new(&id)).await.unwrap_err());
    assert_eq!(code, -32602);
    assert_eq!(get(&ada, &id).await.status(), TaskStatus::Working);
    ada.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    assert_eq!(ended(&ada, &id).await.status(), TaskStatus::Cancelled);
    running.shutdown().await;
}

/// Calls `name` with no arguments and returns the task's id, whatever its poll interval.
async fn start_any(client: &Client, name: &str) -> String {
    match client.call_tool_once(params(name, json!({}))).await.unwrap() {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn check_a_task_created_on_one_replica_is_read_and_cancelled_on_another(store: SharedStore) {
    let a = client_of(server(Arc::clone(&store)), true).await;
    let b = client_of(server(Arc::clone(&store)), true).await;
    let id = start(&a, "tasks.compute", json!({"n": 12})).await;
    assert_eq!(result_text(&ended(&b, &id).await), "12 squared is 144");

    let before = SAW_CANCEL.load(Ordering::SeqCst);
    let id = start(&a, "tasks.wait", json!({})).await;
    assert_eq!(get(&b, &id).await.status(), TaskStatus::Working);
    // B flags it in the store; A, running it, reads the flag and cancels the call.
    b.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    assert_eq!(ended(&b, &id).await.status(), TaskStatus::Cancelled);
    assert_eq!(get(&a, &id).await.status(), TaskStatus::Cancelled);
    assert!(SAW_CANCEL.load(Ordering::SeqCst) > before);

    // A question asked on A is answered through B.
    let id = start(&a, "tasks.greet", json!({})).await;
    let task = poll_until(&b, &id, |task| task.status() == TaskStatus::InputRequired).await;
    let (key, _) = question(&task);
    let answer = BTreeMap::from([(key, json!({"action": "accept", "content": {"name": "Cy"}}))]);
    b.update_task(UpdateTaskParams::new(&id, answer)).await.unwrap();
    assert_eq!(result_text(&ended(&b, &id).await), "Hello, Cy!");
}

async fn check_a_task_whose_replica_is_gone_fails_once_its_lease_lapses(store: SharedStore) {
    // Replica A runs on a runtime of its own, shut down under its task as a crash would.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let lease = Duration::from_millis(300);
    let a = leased(Arc::clone(&store), lease);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    runtime.spawn(async move {
        let running = a.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let client_a = Tasking { extension: true }.serve_with_lifecycle(theirs, lifecycle()).await.unwrap();
    let id = start(&client_a, "tasks.wait", json!({})).await;
    runtime.shutdown_background();

    let b = client_of(server(Arc::clone(&store)), true).await;
    assert_eq!(get(&b, &id).await.status(), TaskStatus::Working);
    tokio::time::sleep(lease + Duration::from_millis(100)).await;
    let task = get(&b, &id).await;
    let TaskPayload::Failed { error } = &task.payload else { panic!("expected failed, got {task:?}") };
    assert_eq!(error["code"], -32603);
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("the server running this task stopped: its heartbeat has been silent for "),
        "{message}"
    );
    assert!(message.ends_with("(its lease is 300 ms), so the call's result is lost; call the tool again"), "{message}");
    // It stays failed, for every replica.
    assert_eq!(get(&b, &id).await, task);
}

#[tokio::test]
async fn a_task_created_on_one_replica_is_read_and_cancelled_on_another() {
    check_a_task_created_on_one_replica_is_read_and_cancelled_on_another(Arc::new(MemoryStore::new())).await;
}

#[tokio::test]
async fn a_task_whose_replica_is_gone_fails_once_its_lease_lapses() {
    check_a_task_whose_replica_is_gone_fails_once_its_lease_lapses(Arc::new(MemoryStore::new())).await;
}

tool_tests::redis_tests!(
    redis_a_task_created_on_one_replica_is_read_and_cancelled_on_another => check_a_task_created_on_one_replica_is_read_and_cancelled_on_another,
    redis_a_task_whose_replica_is_gone_fails_once_its_lease_lapses => check_a_task_whose_replica_is_gone_fails_once_its_lease_lapses,
);

/// A runtime-built tool that says what it got.
fn echo(name: &str, tag: &str, task: TaskSupport) -> DynamicTool {
    DynamicTool::builder(name)
        .description("Says what it got.")
        .tag(tag)
        .task(task)
        .handler(|arguments, _| async move { format!("got {}", Value::Object(arguments)) })
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_hosts_rule_and_a_runtime_tools_flag_answer_with_tasks_too() {
    let catalog = ToolCatalog::builder()
        .add_tool(echo("echo.flagged", "quick", TaskSupport::Optional))
        .add_tool(echo("echo.slow", "slow", TaskSupport::Never))
        .add_tool(echo("echo.quick", "quick", TaskSupport::Never))
        .build()
        .unwrap();
    let server =
        McpServer::builder(Executor::new(catalog)).tasks_for(|definition| definition.has_tag("slow")).build().unwrap();
    let client = client_of(server, true).await;
    for name in ["echo.flagged", "echo.slow"] {
        let id = start_any(&client, name).await;
        assert_eq!(result_text(&ended(&client, &id).await), "got {}", "{name}");
    }
    match client.call_tool_once(params("echo.quick", json!({}))).await.unwrap() {
        CallToolResponse::Complete(result) => {
            assert_eq!(serde_json::to_value(&result).unwrap()["content"][0]["text"], "got {}");
        }
        other => panic!("expected the result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_server_without_task_tools_does_not_offer_the_extension() {
    let catalog = ToolCatalog::builder().add_tool(echo("echo.quick", "quick", TaskSupport::Never)).build().unwrap();
    let client = client_of(McpServer::new(Executor::new(catalog)).unwrap(), true).await;
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(!capabilities.supports_tasks(), "{capabilities:?}");
    let (code, _) = refusal(client.get_task(GetTaskParams::new("0123")).await.unwrap_err());
    assert_eq!(code, -32601);
    // A server with one declares it.
    let client = client_of(server(Arc::new(MemoryStore::new())), true).await;
    assert!(client.peer_info().unwrap().capabilities.supports_tasks());
}

#[tokio::test]
async fn a_task_running_longer_than_its_lease_stays_alive_by_its_heartbeat() {
    let store: SharedStore = Arc::new(MemoryStore::new());
    let a = client_of(leased(Arc::clone(&store), Duration::from_millis(60)), true).await;
    let b = client_of(server(store), true).await;
    // The call takes 200 ms, more than three leases: every poll on the other replica sees it alive.
    let id = start(&a, "tasks.compute", json!({"n": 5})).await;
    let task = poll_until(&b, &id, |task| {
        assert_ne!(task.status(), TaskStatus::Failed, "{task:?}");
        task.status().is_terminal()
    })
    .await;
    assert_eq!(result_text(&task), "5 squared is 25");
}

#[tokio::test]
async fn beyond_its_most_running_tasks_a_server_answers_when_the_call_ends_or_refuses() {
    let server = McpServer::builder(executor(Arc::new(MemoryStore::new())))
        .task_poll_interval(Duration::from_millis(20))
        .max_running_tasks(1)
        .build()
        .unwrap();
    let client = client_of(server, true).await;
    let waiting = start_any(&client, "tasks.wait").await;
    match client.call_tool_once(params("tasks.compute", json!({"n": 2}))).await.unwrap() {
        CallToolResponse::Complete(result) => {
            assert_eq!(serde_json::to_value(&result).unwrap()["content"][0]["text"], "2 squared is 4");
        }
        other => panic!("expected the result, got {other:?}"),
    }
    let (code, message) = refusal(client.call_tool_once(params("tasks.only", json!({}))).await.unwrap_err());
    assert_eq!(code, -32603);
    assert_eq!(
        message,
        "this server runs its most tasks at once (1), and `tasks.only` runs only as a task; call it again later"
    );
    client.cancel_task(CancelTaskParams::new(&waiting)).await.unwrap();
    assert_eq!(ended(&client, &waiting).await.status(), TaskStatus::Cancelled);
    // Its place is free again.
    let id = start_any(&client, "tasks.only").await;
    assert_eq!(result_text(&ended(&client, &id).await), "ran");
}
