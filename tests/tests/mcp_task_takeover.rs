//! Tasks that outlive their replica, and calls that become tasks after their rounds: a task
//! whose replica stopped while it waited for an answer (approval, a question) or while its
//! idempotent tool ran is run again from the top by the replica asked next, with the answers
//! given so far, at most `MAX_TASK_RUNS` times; a `#[tool(task(asks_first))]` call asks in its
//! request's rounds and becomes a task where it calls `continue_as_task` (SEP-2663's
//! composition of rounds and tasks).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolResponse, CancelTaskParams, TaskPayload, TaskStatus, UpdateTaskParams};
use rmcp::service::ClientServiceExt;
use serde_json::{json, Value};
use tool_core::mcp::McpServer;
use tool_core::state::{MemoryStore, SharedStore};
use tool_core::{CallStatus, ExecutionRecord};

use crate::mcp_tasks::{
    client_of, ended, executor, get, leased, lifecycle, params, poll_until, question, result_text, start, Client,
    Tasking, WELCOMED,
};

const LEASE: Duration = Duration::from_millis(300);

/// A replica on a runtime of its own, and a client of it: shutting the runtime down stops the
/// replica under its tasks, as a crash would.
async fn doomed(store: &SharedStore) -> (tokio::runtime::Runtime, Client) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = leased(Arc::clone(store), LEASE);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    runtime.spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = Tasking { extension: true }.serve_with_lifecycle(theirs, lifecycle()).await.unwrap();
    (runtime, client)
}

/// A replica on `store` that keeps the record of every call it ends, and a client of it.
async fn observed(store: &SharedStore) -> (Client, Arc<Mutex<Vec<ExecutionRecord>>>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&records);
    let server = McpServer::builder(executor(Arc::clone(store)))
        .task_poll_interval(Duration::from_millis(20))
        .task_lease(LEASE)
        .on_record(move |record| kept.lock().unwrap().push(record.clone()))
        .build()
        .unwrap();
    (client_of(server, true).await, records)
}

fn waiting(task: &rmcp::model::DetailedTask) -> bool {
    task.status() == TaskStatus::InputRequired
}

fn approve(key: String) -> BTreeMap<String, Value> {
    BTreeMap::from([(key, json!({"action": "accept", "content": {"approve": true}}))])
}

async fn check_a_replica_restarted_while_a_task_waits_for_approval_leaves_it_to_another(store: SharedStore) {
    let (runtime, a) = doomed(&store).await;
    let id = start(&a, "tasks.delete", json!({"id": 7})).await;
    let asked = question(&poll_until(&a, &id, waiting).await);
    assert!(asked.1["params"]["message"].as_str().unwrap().starts_with("Allow the tool `tasks.delete` to run"));
    runtime.shutdown_background();

    let (b, records) = observed(&store).await;
    // Within its lease the task is as the stopped replica left it, and nothing runs it.
    assert_eq!(question(&get(&b, &id).await), asked);
    tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
    // Then the replica asked runs the call again from the top: the same question is open.
    let task = get(&b, &id).await;
    assert_eq!(question(&task), asked);
    b.update_task(UpdateTaskParams::new(&id, approve(asked.0))).await.unwrap();
    assert_eq!(result_text(&ended(&b, &id).await), "deleted note 7");
    // One record for the call: the run that ended it.
    let records = records.lock().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].request.tool_name.as_str(), records[0].status), ("tasks.delete", CallStatus::Success));
}

async fn check_an_answer_given_while_the_replica_was_down_is_used_by_the_next(store: SharedStore) {
    let (runtime, a) = doomed(&store).await;
    let id = start(&a, "tasks.delete", json!({"id": 8})).await;
    let (key, _) = question(&poll_until(&a, &id, waiting).await);
    runtime.shutdown_background();

    let (b, _) = observed(&store).await;
    // Answered through another replica before the lease lapsed: kept for whoever runs the call.
    b.update_task(UpdateTaskParams::new(&id, approve(key))).await.unwrap();
    tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
    // The call runs again and its approval is answered at once: no question is asked again.
    let task = poll_until(&b, &id, |task| task.status() != TaskStatus::InputRequired).await;
    assert_ne!(task.status(), TaskStatus::Failed, "{task:?}");
    assert_eq!(result_text(&ended(&b, &id).await), "deleted note 8");
}

#[tokio::test]
async fn a_replica_restarted_while_a_task_waits_for_approval_leaves_it_to_another() {
    check_a_replica_restarted_while_a_task_waits_for_approval_leaves_it_to_another(Arc::new(MemoryStore::new())).await;
}

#[tokio::test]
async fn an_answer_given_while_the_replica_was_down_is_used_by_the_next() {
    check_an_answer_given_while_the_replica_was_down_is_used_by_the_next(Arc::new(MemoryStore::new())).await;
}

tool_tests::redis_tests!(
    redis_a_replica_restarted_while_a_task_waits_for_approval_leaves_it_to_another => check_a_replica_restarted_while_a_task_waits_for_approval_leaves_it_to_another,
    redis_an_answer_given_while_the_replica_was_down_is_used_by_the_next => check_an_answer_given_while_the_replica_was_down_is_used_by_the_next,
);

#[tokio::test]
async fn an_idempotent_tools_task_runs_again_at_most_three_times_in_all() {
    let store: SharedStore = Arc::new(MemoryStore::new());
    let (first, client) = doomed(&store).await;
    let id = start(&client, "tasks.hold", json!({})).await;
    first.shutdown_background();
    // Two replicas take the task over in turn, and each stops under it.
    for _ in 0..2 {
        let (runtime, client) = doomed(&store).await;
        tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        assert_eq!(get(&client, &id).await.status(), TaskStatus::Working);
        // Its heartbeat is this replica's now.
        tokio::time::sleep(LEASE).await;
        assert_eq!(get(&client, &id).await.status(), TaskStatus::Working);
        runtime.shutdown_background();
    }
    // The third start was the last.
    let (b, _) = observed(&store).await;
    tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
    let task = get(&b, &id).await;
    let TaskPayload::Failed { error } = &task.payload else { panic!("expected failed, got {task:?}") };
    let message = error["message"].as_str().unwrap();
    assert!(
        message.ends_with(
            "(its lease is 300 ms) (the call was started 3 times, the most a task's call is), so the call's result is lost; call the tool again"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn an_idempotent_tools_task_taken_over_is_cancelled_on_the_replica_that_runs_it() {
    let store: SharedStore = Arc::new(MemoryStore::new());
    let (runtime, a) = doomed(&store).await;
    let id = start(&a, "tasks.hold", json!({})).await;
    runtime.shutdown_background();
    let (b, records) = observed(&store).await;
    tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
    assert_eq!(get(&b, &id).await.status(), TaskStatus::Working);
    b.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    assert_eq!(ended(&b, &id).await.status(), TaskStatus::Cancelled);
    assert_eq!(records.lock().unwrap()[0].status, CallStatus::Cancelled);
}

#[tokio::test]
async fn a_call_that_asks_first_takes_its_answer_in_rounds_then_becomes_a_task() {
    let store: SharedStore = Arc::new(MemoryStore::new());
    let (client, records) = observed(&store).await;
    // Round 1: the question, in the request's rounds; no task yet.
    let CallToolResponse::InputRequired(asked) =
        client.call_tool_once(params("tasks.welcome", json!({}))).await.unwrap()
    else {
        panic!("expected the question in a round")
    };
    let asked = serde_json::to_value(&asked).unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert!(asked.get("taskId").is_none());
    assert_eq!(asked["inputRequests"]["user_name"]["params"]["message"], "Whom should I welcome?");
    let state = asked["requestState"].as_str().unwrap().to_owned();
    // Round 2: answered, the call becomes a task where the tool says so.
    let answers = BTreeMap::from([("user_name".to_owned(), json!({"action": "accept", "content": {"name": "Alice"}}))]);
    let retry = params("tasks.welcome", json!({})).with_input_responses(answers).with_request_state(state);
    let CallToolResponse::Task(created) = client.call_tool_once(retry).await.unwrap() else {
        panic!("expected a task on the round with the answer")
    };
    let created = serde_json::to_value(&created).unwrap();
    assert_eq!((created["resultType"].as_str(), created["status"].as_str()), (Some("task"), Some("working")));
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none(), "{created}");
    let id = created["taskId"].as_str().unwrap();
    // The task runs the call again with the round's answer: it never asks, and it welcomes once.
    let task = ended(&client, id).await;
    assert_eq!(result_text(&task), "Welcome, Alice!");
    assert_eq!(WELCOMED.lock().unwrap().iter().filter(|name| *name == "Alice").count(), 1);
    let records = records.lock().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].status, CallStatus::Success);
}

#[tokio::test]
async fn a_call_that_asks_first_is_a_task_at_once_for_a_client_without_rounds() {
    // A 2025-11-25 client is asked in its session: the call is a task from its request on,
    // its question asked through the task, and `continue_as_task` returns at once.
    let server = leased(Arc::new(MemoryStore::new()), LEASE);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let legacy = rmcp::service::ClientLifecycleMode::Discover {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2025_11_25],
    };
    let client = Tasking { extension: true }.serve_with_lifecycle(theirs, legacy).await.unwrap();
    let id = start(&client, "tasks.welcome", json!({})).await;
    let (key, request) = question(&poll_until(&client, &id, waiting).await);
    assert_eq!((key.as_str(), request["params"]["message"].as_str()), ("user_name", Some("Whom should I welcome?")));
    let answer = BTreeMap::from([(key, json!({"action": "accept", "content": {"name": "Bo"}}))]);
    client.update_task(UpdateTaskParams::new(&id, answer)).await.unwrap();
    assert_eq!(result_text(&ended(&client, &id).await), "Welcome, Bo!");
}

/// A count kept in the store, per conversation.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Count {
    total: u64,
}

#[tool_core::tool(shared_state)]
impl Count {
    /// Add to the count; returns the new total.
    #[tool]
    fn add(&mut self, by: u64) -> u64 {
        self.total += by;
        self.total
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateful_tools_task_gives_the_conversation_handle_its_call_started() {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    let catalog = tool_core::ToolCatalog::builder().add_declared::<Count_add>().build().unwrap();
    let executor = tool_core::Executor::builder(catalog).store(Arc::new(MemoryStore::new())).build();
    let server = McpServer::builder(executor)
        .tasks_for(|definition| definition.name == "count.add")
        .task_poll_interval(Duration::from_millis(20))
        .build()
        .unwrap();
    let running = server.http().start().await.unwrap();
    let transport =
        StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(running.url()));
    let client = Tasking { extension: true }.serve_with_lifecycle(transport, lifecycle()).await.unwrap();
    let task = ended(&client, &start(&client, "count.add", json!({"by": 2})).await).await;
    let TaskPayload::Completed { result } = &task.payload else { panic!("expected completed, got {task:?}") };
    assert_eq!(result["structuredContent"], json!({"result": 2}));
    let handle = result["_meta"]["tool-core/conversation"].as_str().expect("the handle in _meta").to_owned();
    let given = result["content"][1]["text"].as_str().unwrap();
    assert!(
        given.starts_with(&format!(
            "This call started a conversation. To go on with it, pass \"conversation\": \"{handle}\""
        )),
        "{given}"
    );
    // The handle goes on with the same tally, in another task.
    let task = ended(&client, &start(&client, "count.add", json!({"by": 3, "conversation": handle})).await).await;
    let TaskPayload::Completed { result } = &task.payload else { panic!("expected completed, got {task:?}") };
    assert_eq!(result["structuredContent"], json!({"result": 5}));
    assert!(result.get("_meta").is_none_or(|meta| meta.get("tool-core/conversation").is_none()), "{result:?}");
    client.cancel().await.unwrap();
    running.shutdown().await;
}
