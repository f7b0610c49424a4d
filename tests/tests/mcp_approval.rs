//! Approval over MCP: a served call that needs a person's approval is asked of the client's
//! user through elicitation (approved, denied with a reason, declined, dismissed, unanswered,
//! refused), or, when nobody can be asked, ends with its pending state as a clear tool result
//! that the host's record observer keeps for a later resume.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tool_tests::approval_tools::{pay, transfer};

use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, FormElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService};
use rmcp::{ErrorData, ServiceExt};
use serde_json::{json, Map, Value};
use tool_core::mcp::McpServer;
use tool_core::policy::{ApprovalRule, Decision};
use tool_core::prelude::*;
use tool_core::{Approval, CatalogBuilder, DynamicTool, ExecutionRecord, Executor};

/// Delete a file.
#[tool(annotations(destructive))]
fn delete_file(
    /// The path.
    path: String,
) -> String {
    format!("deleted {path}")
}

/// A tool with an output schema, whose calls wait for approval.
fn refund() -> DynamicTool {
    DynamicTool::builder("refund")
        .description("Refund an order.")
        .input_schema(json!({
            "type": "object",
            "properties": {"order": {"type": "string"}},
            "required": ["order"]
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {"refunded": {"type": "string"}},
            "required": ["refunded"]
        }))
        .approval(Approval::Always)
        .handler(|args: Map<String, Value>, _ctx: ToolContext| async move {
            ToolOutput::structured(json!({"refunded": args["order"]}))
        })
        .build()
        .unwrap()
}

fn catalog() -> ToolCatalog {
    CatalogBuilder::new()
        .add_declared::<delete_file>()
        .add_tool(transfer())
        .add_tool(pay())
        .add_tool(refund())
        .build()
        .unwrap()
}

/// How the client's user answers a request for approval.
#[derive(Clone)]
enum Answer {
    Form(ElicitResult),
    Refuse(ErrorData),
    Never,
}

/// An MCP client that declares form elicitation and answers as told, keeping what it was
/// asked and what it was told to cancel.
#[derive(Clone)]
struct Asked {
    answer: Answer,
    asked: Arc<Mutex<Vec<Value>>>,
    cancelled: Arc<Mutex<Vec<Value>>>,
}

impl Asked {
    fn new(answer: Answer) -> Asked {
        Asked { answer, asked: Arc::default(), cancelled: Arc::default() }
    }

    fn accepting(content: Value) -> Asked {
        Asked::new(Answer::Form(ElicitResult::new(ElicitationAction::Accept).with_content(content)))
    }

    fn asked(&self) -> Vec<Value> {
        self.asked.lock().unwrap().clone()
    }
}

impl rmcp::ClientHandler for Asked {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(serde_json::to_value(&request).unwrap());
        match &self.answer {
            Answer::Form(answer) => Ok(answer.clone()),
            Answer::Refuse(error) => Err(error.clone()),
            Answer::Never => std::future::pending().await,
        }
    }

    async fn on_cancelled(&self, params: CancelledNotificationParam, _context: NotificationContext<RoleClient>) {
        self.cancelled.lock().unwrap().push(serde_json::to_value(&params).unwrap());
    }
}

/// The records the host's observer was handed.
type Records = Arc<Mutex<Vec<ExecutionRecord>>>;

async fn serve_with<C: rmcp::ClientHandler>(server: McpServer, client: C) -> RunningService<RoleClient, C> {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    client.serve(theirs).await.unwrap()
}

/// Serves `executor` to `client`, its records kept.
async fn serve<C: rmcp::ClientHandler>(executor: Executor, client: C) -> (RunningService<RoleClient, C>, Records) {
    let records = Records::default();
    let kept = Arc::clone(&records);
    let server = McpServer::builder(executor)
        .on_record(move |record| kept.lock().unwrap().push(record.clone()))
        .build()
        .unwrap();
    (serve_with(server, client).await, records)
}

async fn call<C: rmcp::ClientHandler>(client: &RunningService<RoleClient, C>, name: &str, arguments: Value) -> Value {
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.as_object().unwrap().clone());
    serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap()
}

/// The request for approval the client gets for `message`.
fn approval_form(message: &str) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": "Run the call as shown.",
                    "default": false
                },
                "reason": {
                    "type": "string",
                    "title": "Reason",
                    "description": "Why not, for the model (optional).",
                    "maxLength": 500
                }
            },
            "required": ["approve"]
        }
    })
}

const TRANSFER_ASKED: &str = "Allow the tool `transfer` to run with these arguments?\n{\n  \"amount\": 10,\n  \"to\": \"Ada\"\n}\nIt needs approval: the tool asks for approval of every call.";

fn text(result: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": result}], "isError": is_error})
}

fn decisions(record: &ExecutionRecord) -> Value {
    serde_json::to_value(&record.decisions).unwrap()
}

#[tokio::test]
async fn the_user_approves_through_elicitation_and_the_call_runs() {
    let asked = Asked::accepting(json!({"approve": true}));
    let (client, records) = serve(Executor::new(catalog()), asked.clone()).await;
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert_eq!(result, text("sent 10 to Ada (approved: true)", false));
    assert_eq!(asked.asked(), vec![approval_form(TRANSFER_ASKED)]);
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.pending, None);
    assert_eq!(
        decisions(&record),
        json!([
            {"stage": "approval", "by": "approval", "outcome": "pending", "message": "the tool asks for approval of every call"},
            {"stage": "approval", "by": "person", "outcome": "approved"}
        ])
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_user_denies_with_a_reason_the_model_reads() {
    let asked = Asked::accepting(json!({"approve": false, "reason": "  Ada was paid yesterday. "}));
    let (client, records) = serve(Executor::new(catalog()), asked.clone()).await;
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert_eq!(result, text("This call of `transfer` was denied: Ada was paid yesterday.", true));
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.status, CallStatus::Denied);
    assert_eq!(
        serde_json::to_value(&record.failure).unwrap(),
        json!({"kind": "denied", "reason": "Ada was paid yesterday."})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unticked_declined_and_dismissed_requests_deny_with_fixed_reasons() {
    let cases = [
        (
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": false})),
            "This call of `transfer` was denied: the user of the MCP client did not approve it",
        ),
        (
            ElicitResult::new(ElicitationAction::Decline),
            "This call of `transfer` was denied: the user of the MCP client declined it",
        ),
        (
            ElicitResult::new(ElicitationAction::Cancel),
            "This call of `transfer` was denied: the user of the MCP client dismissed the request for approval \
             without answering",
        ),
    ];
    for (answer, said) in cases {
        let (client, records) = serve(Executor::new(catalog()), Asked::new(Answer::Form(answer))).await;
        assert_eq!(call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await, text(said, true));
        assert_eq!(records.lock().unwrap()[0].status, CallStatus::Denied);
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_client_without_elicitation_gets_the_pending_call_as_an_error_result() {
    let (client, records) = serve(Executor::new(catalog()), ()).await;
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    let record = records.lock().unwrap()[0].clone();
    // The call's id is the JSON-RPC id of the `tools/call` (`initialize` was 0).
    let call_id = record.request.call_id.clone();
    assert_eq!(call_id, "1");
    assert_eq!(
        result,
        json!({
            "content": [{
                "type": "text",
                "text": "`transfer` waits for a person's approval and has not run (the tool asks for approval of every call)."
            }],
            "structuredContent": {
                "status": "pending",
                "tool": "transfer",
                "call_id": call_id,
                "arguments": {"amount": 10, "to": "Ada"},
                "reasons": [{"kind": "declared"}]
            },
            "isError": true
        })
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_observer_gets_the_pending_call_and_the_host_resumes_it() {
    // The server's executor and the host's share the store the call waits in.
    let store: tool_core::state::SharedStore = Arc::new(tool_core::state::MemoryStore::new());
    let (client, records) = serve(Executor::builder(catalog()).store(Arc::clone(&store)).build(), ()).await;
    call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.status, CallStatus::Pending);
    let pending = *record.pending.clone().unwrap();
    let stored = serde_json::to_value(&pending).unwrap();
    assert_eq!(
        stored,
        json!({
            "id": pending.id,
            "expires_at_ms": pending.expires_at_ms,
            "request": {
                "tool_name": "transfer",
                "call_id": record.request.call_id,
                "raw_arguments": r#"{"amount":10,"to":"Ada"}"#,
                "conversation_id": record.request.conversation_id
            },
            "arguments": {"amount": 10, "to": "Ada"},
            "reasons": [{"kind": "declared"}]
        })
    );
    client.cancel().await.unwrap();

    // Later, in the host: the stored call approved, run on an executor of the same tools over
    // the same store; once.
    let pending: tool_core::policy::PendingCall = serde_json::from_value(stored).unwrap();
    let host = Executor::builder(catalog()).store(store).build();
    let resumed = host.resume(pending.clone(), Decision::Approve).await;
    assert_eq!(resumed.status, CallStatus::Success);
    assert_eq!(resumed.content.text, "sent 10 to Ada (approved: true)");
    let again = host.resume(pending.clone(), Decision::Approve).await;
    assert_eq!(
        again.failure,
        Some(tool_core::CallFailure::NotPending { id: pending.id, reason: tool_core::NotPendingReason::Resumed })
    );
}

#[tokio::test]
async fn a_tool_with_an_output_schema_gets_no_pending_structured_content() {
    let (client, _records) = serve(Executor::new(catalog()), ()).await;
    let result = call(&client, "refund", json!({"order": "A-1"})).await;
    assert_eq!(
        result,
        text(
            "`refund` waits for a person's approval and has not run (the tool asks for approval of every call).",
            true
        )
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_destructive_rule_of_the_executor_is_asked_about() {
    let executor = Executor::builder(catalog()).require_approval(ApprovalRule::destructive()).build();
    let asked = Asked::accepting(json!({"approve": true}));
    let (client, _records) = serve(executor.clone(), asked.clone()).await;
    let result = call(&client, "delete_file", json!({"path": "/tmp/a"})).await;
    assert_eq!(result, text("deleted /tmp/a", false));
    assert_eq!(
        asked.asked(),
        vec![approval_form(
            "Allow the tool `delete_file` to run with these arguments?\n{\n  \"path\": \"/tmp/a\"\n}\nIt needs approval: rule destructive."
        )]
    );
    client.cancel().await.unwrap();

    // Without the rule, the destructive tool runs unasked.
    let asked = Asked::accepting(json!({"approve": false}));
    let (client, _records) = serve(Executor::new(catalog()), asked.clone()).await;
    assert_eq!(call(&client, "delete_file", json!({"path": "/tmp/a"})).await, text("deleted /tmp/a", false));
    assert_eq!(asked.asked(), Vec::<Value>::new());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_that_asks_from_its_arguments_is_approved_over_elicitation() {
    let asked = Asked::accepting(json!({"approve": true}));
    let (client, records) = serve(Executor::new(catalog()), asked.clone()).await;
    assert_eq!(call(&client, "pay", json!({"amount": 10})).await, text("paid 10", false));
    assert_eq!(asked.asked(), Vec::<Value>::new());
    assert_eq!(call(&client, "pay", json!({"amount": 5000})).await, text("paid 5000", false));
    assert_eq!(
        asked.asked(),
        vec![approval_form(
            "Allow the tool `pay` to run with these arguments?\n{\n  \"amount\": 5000\n}\nIt needs approval: a payment of 5000 is over 1000."
        )]
    );
    assert_eq!(
        decisions(&records.lock().unwrap()[1]),
        json!([
            {"stage": "approval", "by": "approval", "outcome": "pending", "message": "a payment of 5000 is over 1000"},
            {"stage": "approval", "by": "person", "outcome": "approved"}
        ])
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_hosts_approver_answers_instead_of_the_clients_user() {
    let executor = Executor::builder(catalog())
        .on_approval(
            |pending| async move { Decision::deny(format!("the host keeps {} for itself", pending.tool_name())) },
        )
        .build();
    let asked = Asked::accepting(json!({"approve": true}));
    let (client, _records) = serve(executor, asked.clone()).await;
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert_eq!(result, text("This call of `transfer` was denied: the host keeps transfer for itself", true));
    assert_eq!(asked.asked(), Vec::<Value>::new());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn with_elicitation_approval_off_the_call_ends_pending() {
    let asked = Asked::accepting(json!({"approve": true}));
    let server = McpServer::builder(Executor::new(catalog())).ask_approval_by_elicitation(false).build().unwrap();
    let client = serve_with(server, asked.clone()).await;
    let result = call(&client, "pay", json!({"amount": 5000})).await;
    let call_id = result["structuredContent"]["call_id"].clone();
    assert_eq!(
        result,
        json!({
            "content": [{
                "type": "text",
                "text": "`pay` waits for a person's approval and has not run (a payment of 5000 is over 1000)."
            }],
            "structuredContent": {
                "status": "pending",
                "tool": "pay",
                "call_id": call_id,
                "arguments": {"amount": 5000},
                "reasons": [{"kind": "asked", "message": "a payment of 5000 is over 1000"}]
            },
            "isError": true
        })
    );
    assert!(call_id.as_str().is_some_and(|id| !id.is_empty()), "{call_id}");
    assert_eq!(asked.asked(), Vec::<Value>::new());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_user_who_never_answers_is_cut_off_by_the_calls_time_limit() {
    let executor = Executor::builder(catalog()).timeout(Duration::from_millis(300)).build();
    let asked = Asked::new(Answer::Never);
    let (client, records) = serve(executor, asked.clone()).await;
    let started = std::time::Instant::now();
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(
        result,
        text(
            "This call of `transfer` was denied: nobody answered the request for approval within the call's time \
             limit (300 ms)",
            true
        )
    );
    assert_eq!(records.lock().unwrap()[0].status, CallStatus::Denied);
    // The question is withdrawn at the client.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancelled = asked.cancelled.lock().unwrap().clone();
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["reason"], "request timeout");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_refuses_the_request_denies_the_call_saying_so() {
    let asked = Asked::new(Answer::Refuse(ErrorData::internal_error("no screen to show it on", None)));
    let (client, _records) = serve(Executor::new(catalog()), asked).await;
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert_eq!(
        result,
        text(
            "This call of `transfer` was denied: approval could not be asked: The MCP client refused to ask its \
             user (JSON-RPC error -32603: no screen to show it on).",
            true
        )
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_cancelled_while_it_waits_for_approval_withdraws_the_question() {
    let asked = Asked::new(Answer::Never);
    let (client, records) = serve(Executor::new(catalog()), asked.clone()).await;
    let params = CallToolRequestParams::new("transfer")
        .with_arguments(json!({"amount": 10, "to": "Ada"}).as_object().unwrap().clone());
    // rmcp's client sends `notifications/cancelled` when the call is dropped.
    let call = client.call_tool(params);
    tokio::select! {
        _ = call => panic!("the call ended before it was cancelled"),
        () = async {
            while asked.asked().is_empty() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        } => {}
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while (records.lock().unwrap().is_empty() || asked.cancelled.lock().unwrap().is_empty())
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.status, CallStatus::Cancelled);
    assert_eq!(record.content.text, "The call was cancelled while it waited for approval.");
    let cancelled = asked.cancelled.lock().unwrap().clone();
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["reason"], "the call that asked ended");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn long_arguments_are_shown_cut_to_their_bound() {
    let asked = Asked::accepting(json!({"approve": false, "reason": "r".repeat(600)}));
    let (client, _records) = serve(Executor::new(catalog()), asked.clone()).await;
    let to = "x".repeat(5000);
    let result = call(&client, "transfer", json!({"amount": 10, "to": to})).await;
    // The arguments as indented JSON are 5,030 bytes: the first 4,000 are shown.
    let shown = format!("{{\n  \"amount\": 10,\n  \"to\": \"{}", "x".repeat(3973));
    let message = format!(
        "Allow the tool `transfer` to run with these arguments?\n{shown}\n[cut at 4000 bytes of 5030]\nIt needs \
         approval: the tool asks for approval of every call."
    );
    assert_eq!(asked.asked(), vec![approval_form(&message)]);
    // The user's reason reaches the model cut to 500 characters.
    let said = format!("This call of `transfer` was denied: {}…", "r".repeat(500));
    assert_eq!(result, text(&said, true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_streamable_http_the_request_for_approval_goes_on_the_calls_stream() {
    use rmcp::transport::StreamableHttpClientTransport;
    let records = Records::default();
    let kept = Arc::clone(&records);
    let server = McpServer::builder(Executor::new(catalog()))
        .on_record(move |r| kept.lock().unwrap().push(r.clone()))
        .build()
        .unwrap();
    let running = server.http().start().await.unwrap();
    let asked = Asked::accepting(json!({"approve": false, "reason": "not over HTTP"}));
    let client = asked.clone().serve(StreamableHttpClientTransport::from_uri(running.url())).await.unwrap();
    let result = call(&client, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert_eq!(result, text("This call of `transfer` was denied: not over HTTP", true));
    assert_eq!(asked.asked(), vec![approval_form(TRANSFER_ASKED)]);
    assert_eq!(records.lock().unwrap()[0].status, CallStatus::Denied);

    // A client without elicitation over HTTP gets the pending result.
    let plain = ().serve(StreamableHttpClientTransport::from_uri(running.url())).await.unwrap();
    let result = call(&plain, "transfer", json!({"amount": 10, "to": "Ada"})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["status"], "pending");
    assert_eq!(records.lock().unwrap()[1].status, CallStatus::Pending);
    client.cancel().await.unwrap();
    plain.cancel().await.unwrap();
    running.shutdown().await;
}
