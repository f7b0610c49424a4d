//! Stateful tools served over MCP keep their state per conversation and never leak it: two
//! servers over two executors never share an instance; a session that closes (an in-process
//! client that leaves, an HTTP client that sends `DELETE`, a server that shuts down) ends its
//! conversation and the cleanup runs once; a request outside any session names its conversation
//! by a handle a call gave (SEP-2567), or by a header the host names. Real rmcp clients, over an in-process pipe and over
//! streamable HTTP on 127.0.0.1.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tool_core::mcp::{McpImport, McpServer, McpServerError};
use tool_core::prelude::*;

/// The conversations whose tally was cleaned up, once per cleanup.
static CLEANED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// A tally kept per conversation, which says whose it is.
pub struct Tally {
    conversation: String,
    total: u64,
}

impl Tally {
    async fn open(ctx: &ToolContext) -> Result<Tally, ToolError> {
        Ok(Tally { conversation: ctx.request().conversation_id.clone().unwrap_or_default(), total: 0 })
    }

    async fn close(&mut self) {
        CLEANED.lock().unwrap().push(self.conversation.clone());
    }
}

#[tool(create = "open", cleanup = "close")]
impl Tally {
    /// Add to the tally; returns it and the conversation it belongs to.
    #[tool]
    fn add(&mut self, by: u64) -> String {
        self.total += by;
        format!("{} in {}", self.total, self.conversation)
    }
}

fn executor() -> Executor {
    Executor::new(ToolCatalog::builder().add_declared::<Tally_add>().build().unwrap())
}

fn cleanups(conversation: &str) -> usize {
    CLEANED.lock().unwrap().iter().filter(|c| *c == conversation).count()
}

/// Waits (at most 10 s) until `conversation` was cleaned up; how often it was.
async fn cleaned(conversation: &str) -> usize {
    for _ in 0..1000 {
        if cleanups(conversation) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // A second cleanup would come right after the first.
    tokio::time::sleep(Duration::from_millis(50)).await;
    cleanups(conversation)
}

type Client = RunningService<RoleClient, ()>;

async fn in_process(server: McpServer) -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(theirs).await.unwrap()
}

async fn over_http(url: &str, headers: &[(&'static str, &str)]) -> Client {
    let headers: HashMap<_, _> =
        headers.iter().map(|(name, value)| (name.parse().unwrap(), value.parse().unwrap())).collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap()
}

/// Calls `tally.add`: the result's text and whether it is an error.
async fn add(client: &Client, by: u64) -> (String, bool) {
    let params =
        CallToolRequestParams::new("tally.add").with_arguments(json!({ "by": by }).as_object().unwrap().clone());
    let result = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    (text, result["isError"] == Value::Bool(true))
}

/// The conversation a successful `tally.add` ran in.
fn conversation_of(text: &str) -> String {
    text.split_once(" in ").unwrap().1.to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_process_session_that_closes_ends_its_conversation_and_the_cleanup_runs_once() {
    let executor = executor();
    let client = in_process(McpServer::new(executor.clone()).unwrap()).await;
    let (first, _) = add(&client, 2).await;
    let conversation = conversation_of(&first);
    assert!(conversation.starts_with("mcp-session-"), "{first}");
    assert_eq!(add(&client, 3).await, (format!("5 in {conversation}"), false));
    assert_eq!(executor.conversations().live(), 1);
    client.cancel().await.unwrap();
    assert_eq!(cleaned(&conversation).await, 1);
    assert_eq!(executor.conversations().live(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_session_ends_its_conversation_on_delete_and_the_others_at_shutdown() {
    let executor = executor();
    let running = McpServer::new(executor.clone()).unwrap().http().start().await.unwrap();
    let leaving = over_http(&running.url(), &[]).await;
    let staying = over_http(&running.url(), &[]).await;
    let (text, _) = add(&leaving, 2).await;
    let left = conversation_of(&text);
    assert_eq!(add(&leaving, 3).await, (format!("5 in {left}"), false));
    let (text, _) = add(&staying, 10).await;
    let stayed = conversation_of(&text);
    assert_ne!(left, stayed);
    assert_eq!(executor.conversations().live(), 2);
    // rmcp's client sends `DELETE` with its session id when it closes.
    leaving.cancel().await.unwrap();
    assert_eq!(cleaned(&left).await, 1);
    assert_eq!((cleanups(&stayed), executor.conversations().live()), (0, 1));
    // A shutdown ends the sessions still open.
    running.shutdown().await;
    assert_eq!(cleaned(&stayed).await, 1);
    assert_eq!(executor.conversations().live(), 0);
    drop(staying);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_over_two_executors_never_share_an_instance_for_the_same_conversation() {
    let (one, two) = (executor(), executor());
    let first = McpServer::new(one.clone()).unwrap().http().conversation_header("x-conversation-id");
    let second = McpServer::new(two.clone()).unwrap().http().conversation_header("x-conversation-id");
    let (first, second) = (first.start().await.unwrap(), second.start().await.unwrap());
    let alice_one = over_http(&first.url(), &[("x-conversation-id", "alice-two-servers")]).await;
    let alice_two = over_http(&second.url(), &[("x-conversation-id", "alice-two-servers")]).await;
    assert_eq!(add(&alice_one, 2).await, ("2 in alice-two-servers".to_owned(), false));
    assert_eq!(add(&alice_two, 10).await, ("10 in alice-two-servers".to_owned(), false));
    assert_eq!(add(&alice_one, 3).await, ("5 in alice-two-servers".to_owned(), false));
    assert_eq!((one.conversations().live(), two.conversations().live()), (1, 1));
    // Ending it on one executor leaves the other's alone.
    assert_eq!(one.conversations().end("alice-two-servers").await, 1);
    assert_eq!(add(&alice_two, 1).await, ("11 in alice-two-servers".to_owned(), false));
    alice_one.cancel().await.unwrap();
    alice_two.cancel().await.unwrap();
    first.shutdown().await;
    second.shutdown().await;
}

/// Calls `tally.add` with `arguments`: the result's texts, its `_meta` handle and whether it
/// is an error.
async fn add_with(client: &Client, arguments: Value) -> (Vec<String>, Option<String>, bool) {
    let params = CallToolRequestParams::new("tally.add").with_arguments(arguments.as_object().unwrap().clone());
    let result = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    let texts = result["content"].as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap().to_owned()).collect();
    let handle = result["_meta"]["tool-core/conversation"].as_str().map(str::to_owned);
    (texts, handle, result["isError"] == Value::Bool(true))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_server_names_conversations_by_handles_its_calls_give() {
    let executor = executor();
    let running = McpServer::new(executor.clone()).unwrap().http().stateless(true).start().await.unwrap();
    let client = over_http(&running.url(), &[]).await;
    // Outside any session the stateful tool takes a handle.
    let tools = client.list_all_tools().await.unwrap();
    let schema = serde_json::to_value(&tools[0].input_schema).unwrap();
    assert_eq!(
        schema["properties"]["conversation"],
        json!({
            "type": "string",
            "description": "The handle of the conversation to continue, as an earlier call's result gave it. Leave it out to start a new conversation.",
            "pattern": "^conv_[0-9a-f]{32}$"
        })
    );
    // A call without one starts a conversation and gives its handle.
    let (texts, handle, failed) = add_with(&client, json!({"by": 2})).await;
    let handle = handle.unwrap();
    assert!(!failed);
    assert_eq!(texts[0], format!("2 in {handle}"));
    assert_eq!(
        texts[1],
        format!("This call started a conversation. To go on with it, pass \"conversation\": \"{handle}\" in the arguments of later calls (the handle lasts 1440 min after its last use).")
    );
    assert!(handle.starts_with("conv_") && handle.len() == 37, "{handle}");
    // Passing it goes on with the same tally, and gives nothing more.
    let (texts, given, _) = add_with(&client, json!({"by": 3, "conversation": handle})).await;
    assert_eq!((texts, given), (vec![format!("5 in {handle}")], None));
    // Another call without it starts another conversation.
    let (texts, other, _) = add_with(&client, json!({"by": 1})).await;
    assert_eq!(texts[0], format!("1 in {}", other.unwrap()));
    // A handle it never gave, or not text, is refused for the model to correct.
    let made_up = format!("conv_{}", "0".repeat(32));
    let (texts, _, failed) = add_with(&client, json!({"by": 1, "conversation": made_up})).await;
    assert!(failed);
    assert_eq!(
        texts,
        [format!("The conversation handle `{made_up}` of this call of `tally.add` is unknown or has expired (a handle lasts 1440 min after its last use). Leave `conversation` out to start a new conversation.")]
    );
    let (texts, _, failed) = add_with(&client, json!({"by": 1, "conversation": 7})).await;
    assert!(failed);
    assert_eq!(
        texts,
        ["`conversation` of `tally.add` must be the text of a conversation handle, not 7. Leave it out to start a new conversation."]
    );
    assert_eq!(executor.conversations().live(), 2);
    client.cancel().await.unwrap();
    running.shutdown().await;

    let invalid = McpServer::new(executor).unwrap().http().conversation_header("x conversation").start().await;
    assert_eq!(
        invalid.err().map(|e| e.to_string()).as_deref(),
        Some("`x conversation` is not a valid HTTP header name for the conversation header: use letters, digits and `-`, such as `x-conversation-id`")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handle_expires_after_its_time_and_a_tool_may_not_take_the_handles_argument() {
    let server = McpServer::builder(executor()).handle_ttl(Duration::from_millis(50)).build().unwrap();
    let running = server.http().stateless(true).start().await.unwrap();
    let client = over_http(&running.url(), &[]).await;
    let (_, handle, _) = add_with(&client, json!({"by": 2})).await;
    let handle = handle.unwrap();
    tokio::time::sleep(Duration::from_millis(120)).await;
    let (texts, _, failed) = add_with(&client, json!({"by": 1, "conversation": handle})).await;
    assert!(failed);
    assert_eq!(
        texts,
        [format!("The conversation handle `{handle}` of this call of `tally.add` is unknown or has expired (a handle lasts 50 ms after its last use). Leave `conversation` out to start a new conversation.")]
    );
    client.cancel().await.unwrap();
    running.shutdown().await;

    let taken = McpServer::builder(executor()).conversation_argument("by").build();
    assert!(matches!(taken, Err(McpServerError::HandleArgumentTaken { .. })));
    assert_eq!(
        taken.err().unwrap().to_string(),
        "`tally.add` has a parameter `by`, the argument that carries conversation handles; name another with `McpServerBuilder::conversation_argument`"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_server_keys_conversations_by_the_header_the_host_names() {
    let executor = executor();
    let server = McpServer::new(executor.clone()).unwrap();
    let running = server.http().stateless(true).conversation_header("X-Conversation-Id").start().await.unwrap();
    let bob = over_http(&running.url(), &[("x-conversation-id", "bob-stateless")]).await;
    // Every request of a stateless server is served alone, yet the state is kept.
    assert_eq!(add(&bob, 2).await, ("2 in bob-stateless".to_owned(), false));
    assert_eq!(add(&bob, 3).await, ("5 in bob-stateless".to_owned(), false));
    // Another client sending the same id reaches the same conversation; another id does not.
    let bob_again = over_http(&running.url(), &[("x-conversation-id", "bob-stateless")]).await;
    assert_eq!(add(&bob_again, 1).await, ("6 in bob-stateless".to_owned(), false));
    let carol = over_http(&running.url(), &[("x-conversation-id", "carol-stateless")]).await;
    assert_eq!(add(&carol, 7).await, ("7 in carol-stateless".to_owned(), false));
    // Without the header a stateful tool cannot run, and says why.
    let nobody = over_http(&running.url(), &[]).await;
    assert_eq!(
        add(&nobody, 1).await,
        (
            "The tool `tally.add` keeps state for each conversation, and this call has none: the request has no `x-conversation-id` header, which names the conversation on this server.".to_owned(),
            true
        )
    );
    let long = "x".repeat(300);
    let too_long = over_http(&running.url(), &[("x-conversation-id", &long)]).await;
    assert_eq!(
        add(&too_long, 1).await,
        (
            "The tool `tally.add` keeps state for each conversation, and this call has none: its `x-conversation-id` header is 300 bytes long, and a conversation id may be at most 256.".to_owned(),
            true
        )
    );
    assert_eq!(executor.conversations().live(), 2);
    // These conversations are not sessions: the host ends them.
    for client in [bob, bob_again, carol, nobody, too_long] {
        client.cancel().await.unwrap();
    }
    assert_eq!(executor.conversations().end("bob-stateless").await, 1);
    assert_eq!(cleanups("bob-stateless"), 1);
    running.shutdown().await;
    assert_eq!(executor.conversations().live(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_server_given_a_stateful_tool_by_replace_gives_its_calls_handles() {
    // A server that starts without stateful tools may be given some later; on a stateless
    // server their calls then start conversations named by handles.
    let empty = Executor::new(ToolCatalog::builder().build().unwrap());
    let server = McpServer::new(empty).unwrap();
    let running = server.clone().http().stateless(true).start().await.unwrap();
    let executor = executor();
    server.replace(executor.clone()).await.unwrap();
    let client = over_http(&running.url(), &[]).await;
    let (texts, handle, failed) = add_with(&client, json!({"by": 1})).await;
    assert!(!failed);
    assert_eq!(texts[0], format!("1 in {}", handle.unwrap()));
    assert_eq!(executor.conversations().live(), 1);
    client.cancel().await.unwrap();
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_ends_the_conversation_when_its_client_leaves() {
    let log = std::env::temp_dir().join(format!("mcp_stateful_server-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let server = env!("CARGO_BIN_EXE_mcp_stateful_server");
    // On 2026-07-28 (no sessions) our server does not end a stdio client's conversation when it
    // leaves yet: this is the conversation of a 2025-11-25 session.
    let imported = McpImport::command(server).arg(&log).legacy_only(true).connect().await.unwrap();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    for by in [2, 3] {
        let record = executor.execute(ToolCallRequest::new("tally.add", "1", format!(r#"{{"by": {by}}}"#))).await;
        assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    }
    assert!(!log.exists(), "cleaned up before the session ended");
    // The client closes the child's standard input and waits for it to exit.
    imported.close().await;
    let lines = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).unwrap();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("cleaned mcp-session-") && lines[0].ends_with(" 5"), "{lines:?}");
}
