//! Questions asked in rounds (MCP 2026-07-28, SEP-2322): a served tool's `elicit`, `sample` and
//! approval, asked of a client without server-to-client requests through `InputRequiredResult`
//! and a sealed `requestState`, answered by rmcp's own client in process, across replicas.

#![allow(deprecated)] // MCP sampling: deprecated from protocol 2026-07-28, served until removed

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitResult, ElicitationAction, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, ServiceError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tool_core::ask::{Elicitation, SamplingRequest};
use tool_core::mcp::McpServer;
use tool_core::policy::ApprovalRule;
use tool_core::prelude::*;
use tool_core::state::{MemoryStore, SharedStore};

use crate::mcp_asking::Answering;

/// A person to greet.
#[derive(Deserialize, JsonSchema)]
struct Person {
    /// Their name.
    name: String,
}

/// How many times `rounds.greet_counted` began, across rounds.
static BEGAN: AtomicUsize = AtomicUsize::new(0);

/// Asks the user's name, then the model's greeting for them.
#[tool(name = "rounds.greet")]
async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    greeting(ctx).await
}

/// The same, counting how often it began (one test calls it, so that the count is its own).
#[tool(name = "rounds.greet_counted")]
async fn greet_counted(ctx: &ToolContext) -> Result<String, ToolError> {
    BEGAN.fetch_add(1, Ordering::SeqCst);
    greeting(ctx).await
}

async fn greeting(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = match ctx.elicit::<Person>("Who should I greet?").await? {
        Elicitation::Accepted { value, .. } => value.name,
        Elicitation::Declined => return Ok("declined".to_owned()),
        Elicitation::Cancelled => return Ok("cancelled".to_owned()),
    };
    let greeting = ctx.sample(SamplingRequest::new(format!("Greet {name}."), 20)).await?;
    Ok(format!("{name}: {}", greeting.text_content()))
}

/// Deletes a note: needs a person's approval.
#[tool(name = "rounds.delete", annotations(destructive))]
async fn delete(ctx: &ToolContext, id: u32) -> Result<String, ToolError> {
    Ok(format!("deleted {id} (approved: {})", ctx.approved()))
}

fn executor(store: SharedStore) -> Executor {
    let catalog = ToolCatalog::builder()
        .add_declared::<greet>()
        .add_declared::<greet_counted>()
        .add_declared::<delete>()
        .add_declared::<crate::mcp_asking::list_roots>()
        .build()
        .unwrap();
    Executor::builder(catalog).store(store).require_approval(ApprovalRule::destructive()).build()
}

/// A client of `server` on protocol 2026-07-28.
async fn client_of(server: McpServer, form: Value) -> (RunningService<RoleClient, Answering>, Arc<Mutex<Vec<Value>>>) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let answering = Answering::new(Some(ElicitResult::new(ElicitationAction::Accept).with_content(form)));
    let asked = Arc::clone(&answering.asked);
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = answering.serve_with_lifecycle(theirs, lifecycle).await.unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    (client, asked)
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.as_object().cloned().unwrap())
}

/// One round: the `InputRequiredResult`, or the test fails saying what came instead.
async fn round(client: &RunningService<RoleClient, Answering>, params: CallToolRequestParams) -> InputRequiredResult {
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::InputRequired(asked) => asked,
        other => panic!("expected input_required, got {other:?}"),
    }
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    serde_json::to_value(result).unwrap()["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

/// What the server refused a round with.
pub(crate) fn refusal(error: ServiceError) -> (i32, String) {
    match error {
        ServiceError::McpError(error) => (error.code.0, error.message.to_string()),
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

#[tokio::test]
async fn a_tool_that_asks_twice_takes_two_rounds_and_runs_again_from_the_top_each_time() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, asked) = client_of(server, json!({"name": "Ada"})).await;
    let before = BEGAN.load(Ordering::SeqCst);
    let result = client.call_tool(params("rounds.greet_counted", json!({}))).await.unwrap();
    assert_eq!(text(&result), "Ada: Blue.");
    assert_eq!(result.is_error, Some(false));
    // Round one asked the form, round two the model, round three completed.
    assert_eq!(BEGAN.load(Ordering::SeqCst) - before, 3);
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0]["message"], "Who should I greet?");
    assert_eq!(asked[1]["messages"][0]["content"]["text"], "Greet Ada.");
}

#[tokio::test]
async fn the_first_round_names_each_question_and_seals_its_state() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, _) = client_of(server, json!({"name": "Ada"})).await;
    let asked = round(&client, params("rounds.greet", json!({}))).await;
    let asked = serde_json::to_value(&asked).unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(asked["inputRequests"]["elicitation_0"]["method"], "elicitation/create");
    assert_eq!(asked["inputRequests"]["elicitation_0"]["params"]["message"], "Who should I greet?");
    let state = asked["requestState"].as_str().unwrap();
    assert!(state.starts_with("rs2."), "{state}");
}

#[tokio::test]
async fn a_state_opens_once_and_a_tampered_or_foreign_one_never() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, _) = client_of(server, json!({"name": "Ada"})).await;
    let first = round(&client, params("rounds.greet", json!({}))).await;
    let state = first.request_state.clone().unwrap();
    let answers = std::collections::BTreeMap::from([(
        "elicitation_0".to_owned(),
        json!({"action": "accept", "content": {"name": "Ada"}}),
    )]);
    let retry = params("rounds.greet", json!({})).with_input_responses(answers.clone()).with_request_state(&state);
    // The answer is taken: the next round asks the model.
    let second = serde_json::to_value(round(&client, retry.clone()).await).unwrap();
    assert_eq!(second["inputRequests"]["sampling_1"]["method"], "sampling/createMessage");
    // The same state again: replayed.
    let replayed = refusal(client.call_tool_once(retry).await.unwrap_err());
    assert_eq!(
        replayed,
        (-32602, "the requestState of this call cannot be used: it was already used, or it expired".to_owned())
    );
    // A changed state, or one given for other arguments of the call.
    let tampered = format!("{state}x");
    let forged = params("rounds.greet", json!({})).with_input_responses(answers.clone()).with_request_state(tampered);
    let other = params("rounds.greet", json!({"extra": 1})).with_input_responses(answers).with_request_state(&state);
    for retry in [forged, other] {
        assert_eq!(
            refusal(client.call_tool_once(retry).await.unwrap_err()),
            (
                -32602,
                "the requestState of this call cannot be used: it is not one this server gave for this call (its integrity check failed)"
                    .to_owned()
            )
        );
    }
}

#[tokio::test]
async fn a_state_expires_after_its_time_to_live() {
    let server = McpServer::builder(executor(Arc::new(MemoryStore::new())))
        .input_state_ttl(Duration::from_millis(1))
        .build()
        .unwrap();
    let (client, _) = client_of(server, json!({"name": "Ada"})).await;
    let first = round(&client, params("rounds.greet", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let retry = params("rounds.greet", json!({})).with_request_state(first.request_state.unwrap());
    assert_eq!(
        refusal(client.call_tool_once(retry).await.unwrap_err()),
        (
            -32602,
            "the requestState of this call cannot be used: it expired (a round's questions must be answered within 1 ms)"
                .to_owned()
        )
    );
}

#[tokio::test]
async fn an_answer_that_is_not_its_questions_kind_is_refused_naming_its_key() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, _) = client_of(server, json!({"name": "Ada"})).await;
    let first = round(&client, params("rounds.greet", json!({}))).await;
    let answers = std::collections::BTreeMap::from([("elicitation_0".to_owned(), json!(42))]);
    let retry = params("rounds.greet", json!({}))
        .with_input_responses(answers)
        .with_request_state(first.request_state.unwrap());
    let (code, message) = refusal(client.call_tool_once(retry).await.unwrap_err());
    assert_eq!(code, -32602);
    assert!(
        message.starts_with("inputResponses.elicitation_0 is not the elicitation result its request asked for: "),
        "{message}"
    );
}

#[tokio::test]
async fn approval_is_asked_in_a_round_and_the_call_runs_once_approved() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, asked) = client_of(server.clone(), json!({"approve": true})).await;
    let result = client.call_tool(params("rounds.delete", json!({"id": 7}))).await.unwrap();
    assert_eq!(text(&result), "deleted 7 (approved: true)");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0]["message"],
        "Allow the tool `rounds.delete` to run with these arguments?\n{\n  \"id\": 7\n}\nIt needs approval: rule destructive."
    );

    let (denying, _) = client_of(server, json!({"approve": false, "reason": "keep it"})).await;
    let result = denying.call_tool(params("rounds.delete", json!({"id": 7}))).await.unwrap();
    assert_eq!(text(&result), "This call of `rounds.delete` was denied: keep it");
    assert_eq!(result.is_error, Some(true));
}

#[tokio::test]
async fn approval_is_never_answered_without_a_state_the_server_sealed() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, _) = client_of(server, json!({})).await;
    // A client that answers the approval's question unasked is asked it anyway.
    let answers = std::collections::BTreeMap::from([(
        "elicitation_0".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    )]);
    let asked = round(&client, params("rounds.delete", json!({"id": 7})).with_input_responses(answers)).await;
    let asked = serde_json::to_value(asked).unwrap();
    assert_eq!(asked["inputRequests"]["elicitation_0"]["method"], "elicitation/create", "{asked}");
}

/// Two replicas: each round of one call lands on the other one. With the same keys and a
/// shared store the call completes, and a state redeemed on one is refused on the other.
async fn check_rounds_move_between_replicas(store: SharedStore) {
    let keys = [("k1", vec![7u8; 32])];
    let replica =
        || McpServer::builder(executor(Arc::clone(&store))).request_state_keys("k1", keys.clone()).build().unwrap();
    let (a, _) = client_of(replica(), json!({"name": "Ada"})).await;
    let (b, _) = client_of(replica(), json!({"name": "Ada"})).await;
    let first = round(&a, params("rounds.greet", json!({}))).await;
    let answers = std::collections::BTreeMap::from([(
        "elicitation_0".to_owned(),
        json!({"action": "accept", "content": {"name": "Ada"}}),
    )]);
    let state = first.request_state.unwrap();
    let retry = params("rounds.greet", json!({})).with_input_responses(answers).with_request_state(&state);
    let second = round(&b, retry.clone()).await;
    assert!(second.input_requests.unwrap().contains_key("sampling_1"));
    let replayed = refusal(a.call_tool_once(retry).await.unwrap_err());
    assert_eq!(replayed.1, "the requestState of this call cannot be used: it was already used, or it expired");
    let answers = std::collections::BTreeMap::from([(
        "sampling_1".to_owned(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Hi!"}, "model": "m"}),
    )]);
    let last = params("rounds.greet", json!({}))
        .with_input_responses(answers)
        .with_request_state(second.request_state.unwrap());
    match a.call_tool_once(last).await.unwrap() {
        CallToolResponse::Complete(result) => assert_eq!(text(&result), "Ada: Hi!"),
        other => panic!("expected a complete result, got {other:?}"),
    }
}

#[tokio::test]
async fn rounds_move_between_replicas_sharing_keys_and_a_store() {
    check_rounds_move_between_replicas(Arc::new(MemoryStore::new())).await;
}

tool_tests::redis_tests!(rounds_move_between_replicas_sharing_keys_and_redis => check_rounds_move_between_replicas);

#[tokio::test]
async fn a_replica_with_other_keys_refuses_the_state_and_bad_keys_are_refused_at_build() {
    let store: SharedStore = Arc::new(MemoryStore::new());
    let a = McpServer::builder(executor(Arc::clone(&store))).request_state_keys("k1", [("k1", [1u8; 32])]);
    let b = McpServer::builder(executor(Arc::clone(&store))).request_state_keys("k2", [("k2", [2u8; 32])]);
    let (a, _) = client_of(a.build().unwrap(), json!({})).await;
    let (b, _) = client_of(b.build().unwrap(), json!({})).await;
    let first = round(&a, params("rounds.greet", json!({}))).await;
    let retry = params("rounds.greet", json!({})).with_request_state(first.request_state.unwrap());
    let (code, message) = refusal(b.call_tool_once(retry).await.unwrap_err());
    assert_eq!(code, -32602);
    assert!(message.ends_with("(its integrity check failed)"), "{message}");

    let short = McpServer::builder(executor(store)).request_state_keys("k1", [("k1", [1u8; 8])]).build();
    assert_eq!(
        short.err().unwrap().to_string(),
        "the keys for `requestState` cannot be used: request state signing key is too short: expected at least 32 bytes, got 8 (give at least one key of 32 bytes or more, and name one of them active)"
    );
}

#[tokio::test]
async fn a_call_past_its_rounds_is_told_it_cannot_ask_more() {
    let server = McpServer::builder(executor(Arc::new(MemoryStore::new()))).max_input_rounds(1).build().unwrap();
    let (client, _) = client_of(server, json!({"name": "Ada"})).await;
    let result = client.call_tool(params("rounds.greet", json!({}))).await.unwrap();
    assert_eq!(text(&result), "The call asked the MCP client in more rounds than the server allows (1).");
    assert_eq!(result.is_error, Some(true));
}

/// A tally kept in the store, per conversation.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    total: u64,
}

#[tool(shared_state)]
impl Tally {
    /// Add to the tally; returns the new total.
    #[tool]
    fn add(&mut self, by: u64) -> u64 {
        self.total += by;
        self.total
    }
}

/// A 2026-07-28 client over streamable HTTP.
async fn client_over_http(url: &str) -> RunningService<RoleClient, ()> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    let transport = StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(url));
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    ().serve_with_lifecycle(transport, lifecycle).await.unwrap()
}

/// Calls `tally.add`: the result as JSON.
async fn tally(client: &RunningService<RoleClient, ()>, arguments: Value) -> Value {
    let params = params("tally.add", arguments);
    serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap()
}

/// Two replicas over one store: a 2026-07-28 client gets a handle from one, and a call with it
/// on the other goes on with the same conversation.
async fn check_a_handle_given_by_one_replica_works_on_another(store: SharedStore) {
    let replica = || {
        let catalog = ToolCatalog::builder().add_declared::<Tally_add>().build().unwrap();
        McpServer::new(Executor::builder(catalog).store(Arc::clone(&store)).build()).unwrap()
    };
    let (a, b) = (replica().http().start().await.unwrap(), replica().http().start().await.unwrap());
    let (on_a, on_b) = (client_over_http(&a.url()).await, client_over_http(&b.url()).await);
    let first = tally(&on_a, json!({"by": 2})).await;
    assert_eq!(first["structuredContent"], json!({"result": 2}), "{first}");
    let handle = first["_meta"]["tool-core/conversation"].as_str().unwrap().to_owned();
    let next = tally(&on_b, json!({"by": 3, "conversation": handle})).await;
    assert_eq!(next["structuredContent"], json!({"result": 5}), "{next}");
    assert_eq!(next["content"].as_array().unwrap().len(), 1, "{next}");
    let fresh = tally(&on_b, json!({"by": 1})).await;
    assert_eq!(fresh["structuredContent"], json!({"result": 1}), "{fresh}");
    on_a.cancel().await.unwrap();
    on_b.cancel().await.unwrap();
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handle_given_by_one_replica_works_on_another() {
    check_a_handle_given_by_one_replica_works_on_another(Arc::new(MemoryStore::new())).await;
}

tool_tests::redis_tests!(a_handle_given_by_one_redis_replica_works_on_another => check_a_handle_given_by_one_replica_works_on_another);

#[tokio::test]
async fn the_clients_roots_are_asked_in_a_round() {
    let server = McpServer::new(executor(Arc::new(MemoryStore::new()))).unwrap();
    let (client, asked) = client_of(server, json!({})).await;
    let first = serde_json::to_value(round(&client, params("roots.list", json!({}))).await).unwrap();
    assert_eq!(first["inputRequests"]["roots_0"], json!({"method": "roots/list"}), "{first}");
    let result = client.call_tool(params("roots.list", json!({}))).await.unwrap();
    assert_eq!(text(&result), r#"file:///work/notes (Some("notes")); file:///tmp (None)"#);
    assert_eq!(*asked.lock().unwrap(), [json!("roots/list")]);
}

/// Says hello; keeps no state.
#[tool(name = "hello")]
fn hello() -> String {
    "hello".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_handles_on_every_tool_a_rate_limit_per_conversation_follows_the_handle() {
    use tool_core::policy::RateLimit;
    let catalog = ToolCatalog::builder().add_declared::<Tally_add>().add_declared::<hello>().build().unwrap();
    let executor = Executor::builder(catalog)
        .store(Arc::new(MemoryStore::new()))
        .rate_limit(RateLimit::per_conversation(2, Duration::from_secs(60)))
        .build();
    let server = McpServer::builder(executor).handles_on_every_tool(true).build().unwrap();
    let running = server.http().start().await.unwrap();
    let client = client_over_http(&running.url()).await;
    let tools = client.list_all_tools().await.unwrap();
    let hello_tool = tools.iter().find(|tool| tool.name == "hello").unwrap();
    assert!(hello_tool.input_schema["properties"].get("conversation").is_some());
    let started = tally(&client, json!({"by": 1})).await;
    let handle = started["_meta"]["tool-core/conversation"].as_str().unwrap().to_owned();
    // A tool that keeps no state starts no conversation, and goes on with one it is given.
    let call = |arguments: Value| {
        let client = &client;
        async move { serde_json::to_value(client.call_tool(params("hello", arguments)).await.unwrap()).unwrap() }
    };
    let alone = call(json!({})).await;
    assert_eq!((alone["isError"].clone(), alone["_meta"].get("tool-core/conversation")), (json!(false), None));
    let within = call(json!({"conversation": handle})).await;
    assert_eq!(within["isError"], false, "{within}");
    // The conversation's third call is over its limit of two, whichever tool makes it.
    let over = call(json!({"conversation": handle})).await;
    assert_eq!(over["isError"], true, "{over}");
    let text = over["content"][0]["text"].as_str().unwrap();
    // The wait depends on when the test runs within the limit's period.
    let prefix = "`hello` was not run: its rate limit (2 calls per minute per conversation) is reached. Try again in ";
    assert!(text.starts_with(prefix) && text.ends_with(" s."), "{text}");
    // Outside it, calls still run.
    assert_eq!(call(json!({})).await["isError"], false);
    client.cancel().await.unwrap();
    running.shutdown().await;
}

#[tokio::test]
async fn a_call_asked_in_rounds_takes_one_place_in_its_rate_limit() {
    use tool_core::policy::RateLimit;
    let catalog = ToolCatalog::builder().add_declared::<greet>().build().unwrap();
    let executor = Executor::builder(catalog)
        .store(Arc::new(MemoryStore::new()))
        .rate_limit(RateLimit::per_tool(1, Duration::from_secs(60)))
        .build();
    let (client, _) = client_of(McpServer::new(executor).unwrap(), json!({"name": "Ada"})).await;
    // Three rounds, one place: the limit of one call a minute lets it finish.
    let result = client.call_tool(params("rounds.greet", json!({}))).await.unwrap();
    assert_eq!(text(&result), "Ada: Blue.");
    // The next call has no place left.
    let refused = client.call_tool(params("rounds.greet", json!({}))).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused)
            .starts_with("`rounds.greet` was not run: its rate limit (1 call per minute per tool) is reached."),
        "{}",
        text(&refused)
    );
}
