//! A remote `tools/call` driven to its end on protocol 2026-07-28: the server may answer that it
//! needs input first (`InputRequiredResult`, SEP-2322), answered with the host's handlers and
//! retried, or that it runs the call as a task (`CreateTaskResult`, SEP-2663), polled until it
//! ends and cancelled when the call is dropped (its time limit, its cancellation).

use std::time::Duration;

// Sampling: see the note in the parent module.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, CancelledNotification,
    CancelledNotificationParam, ClientNotification, ClientRequest, CreateTaskResult, GetTaskParams, InputRequest,
    InputRequests, InputResponses, ProgressToken, ServerResult, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::{json, Map, Value};

use crate::model::ToolError;

use super::super::redact::Redactor;
use super::super::trace;
use super::failure::{challenge, lost, lost_call, Challenge};
use crate::ask::{ElicitationHandler, SamplingHandler};
use tracing::Instrument;

/// What a remote call's rounds and task need of the import: its server, its live session, its
/// bounds and the host's handlers (handed down, so that this module needs nothing of its
/// parent's).
pub(super) struct Remote<'a> {
    pub(super) server: String,
    pub(super) peer: &'a Peer<RoleClient>,
    pub(super) lost: &'a tokio_util::sync::CancellationToken,
    pub(super) redactor: &'a Redactor,
    pub(super) max_input_rounds: usize,
    pub(super) max_task_polls: usize,
    pub(super) sampling: Option<&'a SamplingHandler>,
    pub(super) elicitation: Option<&'a ElicitationHandler>,
    /// Routes the progress of a request by its token, when the caller wants progress.
    pub(super) progress: Option<&'a Route<'a>>,
    /// Where a refusal of the token (a `401`, or a `403` naming a scope) is noted, for an OAuth
    /// client to answer.
    pub(super) challenged: &'a std::sync::Mutex<Option<Challenge>>,
}

/// Routes the progress reported under a request's token to the call, until the returned guard
/// drops.
pub(super) type Route<'a> = dyn Fn(ProgressToken) -> Box<dyn Send> + Send + Sync + 'a;

/// Sends one `tools/call` request and waits for the answer. The progress the server reports
/// meanwhile is routed by the token rmcp gave the request (it sets its own on every request,
/// over any the caller set), and dropping this future cancels the request at the server.
async fn send(remote: &Remote<'_>, params: CallToolRequestParams) -> Result<CallToolResponse, ServiceError> {
    let span = trace::client_span("tools/call", &params.name, &remote.server);
    #[cfg(feature = "otel")]
    let params = {
        let mut params = params;
        trace::inject(&span, &mut params);
        params
    };
    let answered = send_in_span(remote, params).instrument(span.clone()).await;
    match &answered {
        Err(ServiceError::McpError(error)) => trace::failed(&span, &error.code.0.to_string()),
        Err(ServiceError::Timeout { .. }) => trace::failed(&span, "timeout"),
        Err(ServiceError::Cancelled { .. }) => trace::failed(&span, "cancelled"),
        Err(_) => trace::failed(&span, "transport_error"),
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => trace::failed(&span, "tool_error"),
        Ok(_) => {}
    }
    answered
}

/// [`send`], in the request's span.
async fn send_in_span(remote: &Remote<'_>, params: CallToolRequestParams) -> Result<CallToolResponse, ServiceError> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = remote.peer.send_request_with_option(request, PeerRequestOptions::no_options()).await?;
    let _route = remote.progress.map(|route| route(handle.progress_token.clone()));
    let mut abandoned = Abandoned { peer: remote.peer.clone(), id: Some(handle.id.clone()) };
    let answer = handle.await_response().await;
    abandoned.id = None;
    match answer? {
        ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
        ServerResult::InputRequiredResult(asked) => Ok(CallToolResponse::InputRequired(asked)),
        ServerResult::CreateTaskResult(created) => Ok(CallToolResponse::Task(created)),
        // A server that answers `{}`: a result with no content.
        ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(CallToolResult::default())),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Cancels a request at the server when its caller stops waiting for it.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let peer = self.peer.clone();
        let params = CancelledNotificationParam::new(Some(id), Some("request abandoned by the caller".to_owned()));
        runtime.spawn(async move {
            let _ = peer
                .send_notification(ClientNotification::CancelledNotification(CancelledNotification::new(params)))
                .await;
        });
    }
}

/// The wait before the first `tasks/get` when the server suggests none, doubled after each
/// poll that finds the task still working.
const POLL_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever the server suggests.
const POLL_MAX: Duration = Duration::from_secs(5);
/// How long a `tasks/cancel` sent for a dropped call may take before it is given up.
const CANCEL_PATIENCE: Duration = Duration::from_secs(5);

/// What came of one remote call: the server's `CallToolResult` as JSON, and what it took.
pub(super) struct Answered {
    pub(super) result: Value,
    /// Rounds of input the server asked for (in the call or in its task).
    pub(super) input_rounds: usize,
    /// The task the call ran as, and the polls it took.
    pub(super) task: Option<(String, usize)>,
}

impl Answered {
    /// What the host's record keeps of the rounds and the task, beside the output.
    pub(super) fn metadata(&self) -> Map<String, Value> {
        let mut metadata = Map::new();
        if self.input_rounds > 0 {
            metadata.insert("mcp_input_rounds".to_owned(), json!(self.input_rounds));
        }
        if let Some((id, polls)) = &self.task {
            metadata.insert("mcp_task".to_owned(), json!({"taskId": id, "polls": polls}));
        }
        metadata
    }
}

/// Sends `params` and follows the server's answers until the call's result: rounds of input
/// (at most `McpImportBuilder::max_input_rounds`), a task (at most
/// `McpImportBuilder::max_task_polls` polls).
pub(super) async fn drive(
    remote: &Remote<'_>,
    name: &str,
    mut params: CallToolRequestParams,
) -> Result<Answered, ToolError> {
    let server = remote.server.clone();
    let mut rounds = 0;
    loop {
        let outcome = tokio::select! {
            outcome = send(remote, params.clone()) => outcome,
            () = remote.lost.cancelled() => return Err(lost(&server, name, "it stopped answering")),
        };
        match outcome.map_err(|error| failed(remote, name, &error))? {
            CallToolResponse::Complete(result) => {
                let result = serde_json::to_value(result).unwrap_or(Value::Null);
                return Ok(Answered { result, input_rounds: rounds, task: None });
            }
            CallToolResponse::InputRequired(asked) => {
                rounds += 1;
                check_rounds(remote, name, rounds)?;
                let requests = asked.input_requests.unwrap_or_default();
                if requests.is_empty() && asked.request_state.is_none() {
                    return Err(ToolError::new(format!(
                        "The MCP server `{server}` answered the call of `{name}` with `input_required` but asked for \
                         nothing and gave no `requestState`."
                    ))
                    .with_code("mcp_bad_result"));
                }
                if requests.is_empty() {
                    // Only state: the server sheds load and wants the call again, later.
                    tokio::time::sleep(POLL_FIRST).await;
                }
                let responses = answer(remote, name, requests).await?;
                // The answers and the state go with this retry only; a state the server did
                // not send is not sent back.
                params.input_responses = (!responses.is_empty()).then_some(responses);
                params.request_state = asked.request_state;
            }
            // Not `#[non_exhaustive]`-proof on its own: rmcp's other answers are tasks.
            CallToolResponse::Task(created) => return follow(remote, name, created, rounds).await,
            _ => {
                return Err(ToolError::new(format!(
                    "The MCP server `{server}` answered the call of `{name}` with a result this side does not know."
                ))
                .with_code("mcp_bad_result"))
            }
        }
    }
}

fn check_rounds(remote: &Remote<'_>, name: &str, rounds: usize) -> Result<(), ToolError> {
    let max = remote.max_input_rounds;
    if rounds <= max {
        return Ok(());
    }
    Err(ToolError::new(format!(
        "The MCP server `{}` still asked for input after {max} rounds of the call of `{name}` \
         (`McpImportBuilder::max_input_rounds`); the call was given up.",
        remote.server.clone()
    ))
    .with_code("mcp_input_rounds"))
}

/// A request that failed: the server's refusal, or the session lost.
fn failed(remote: &Remote<'_>, name: &str, error: &ServiceError) -> ToolError {
    if let Some(refused) = challenge(error) {
        // The server refused this request's token, not the connection: other calls on it go
        // on, and the token a client gets in answer is sent on it too.
        *remote.challenged.lock().unwrap_or_else(|e| e.into_inner()) = Some(refused);
    } else if !matches!(error, ServiceError::McpError(_)) {
        remote.lost.cancel();
    }
    lost_call(&remote.server, name, error, remote.redactor)
}

/// The host's answers to the server's input requests, keyed as they were asked. A request the
/// host has no handler for fails the call, unretried: the server may ask only for what the
/// client declared (sampling with `on_sample`, elicitation with `on_elicit`), and there is no
/// answer that says no to a model's message. `roots/list` is answered with no roots: the
/// import shares no directories with servers.
async fn answer(remote: &Remote<'_>, name: &str, requests: InputRequests) -> Result<InputResponses, ToolError> {
    let server = remote.server.clone();
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let (method, answered) = match request {
            #[allow(deprecated)]
            InputRequest::CreateMessage(request) => {
                let Some(handler) = remote.sampling else {
                    return Err(unanswerable(&server, name, &key, "sampling/createMessage", "on_sample", "sampling"));
                };
                let answered = super::super::ask::answer_sampling(handler, request.params).await;
                ("sampling/createMessage", answered.map(|r| serde_json::to_value(r).unwrap_or(Value::Null)))
            }
            InputRequest::Elicitation(request) => {
                let Some(handler) = remote.elicitation else {
                    return Err(unanswerable(&server, name, &key, "elicitation/create", "on_elicit", "elicitation"));
                };
                let answered = super::super::ask::answer_elicitation(handler, request.params).await;
                ("elicitation/create", answered.map(|r| serde_json::to_value(r).unwrap_or(Value::Null)))
            }
            InputRequest::ListRoots(_) => {
                // Roots are deprecated from 2026-07-28 on (SEP-2577) but still asked for.
                ("roots/list", Ok(json!({"roots": []})))
            }
            _ => {
                return Err(ToolError::new(format!(
                    "The MCP server `{server}` asked for an input this side does not know (input `{key}`) during the \
                     call of `{name}`; the call was not retried."
                ))
                .with_code("mcp_input_unanswerable"))
            }
        };
        let answer = answered.map_err(|error| {
            ToolError::new(format!(
                "The host did not answer the `{method}` the MCP server `{server}` sent during the call of `{name}` \
                 (input `{key}`); the call was not retried."
            ))
            .with_code("mcp_input_failed")
            .with_internal_detail(error.message.to_string())
        })?;
        responses.insert(key, answer);
    }
    Ok(responses)
}

fn unanswerable(server: &str, name: &str, key: &str, method: &str, setting: &str, capability: &str) -> ToolError {
    ToolError::new(format!(
        "The MCP server `{server}` sent `{method}` (input `{key}`) during the call of `{name}`, but this host \
         answers none (no `McpImportBuilder::{setting}`, so the `{capability}` capability was not declared); the \
         call was not retried."
    ))
    .with_code("mcp_input_unanswerable")
}

/// Cancels the task when the call ends before it does: dropped on a time-out or a
/// cancellation, or given up after too many polls.
struct TaskGuard {
    peer: Peer<RoleClient>,
    id: Option<String>,
}

impl TaskGuard {
    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let cancelled = tokio::time::timeout(CANCEL_PATIENCE, peer.cancel_task(CancelTaskParams::new(id.clone())));
            if !matches!(cancelled.await, Ok(Ok(()))) {
                tracing::warn!(target: "tools", task = %id, "the MCP server did not acknowledge `tasks/cancel`");
            }
        });
    }
}

/// Polls the task the call became until it ends, answering the input it asks for on the way.
async fn follow(
    remote: &Remote<'_>,
    name: &str,
    created: CreateTaskResult,
    mut rounds: usize,
) -> Result<Answered, ToolError> {
    let server = remote.server.clone();
    let id = created.task.task_id.clone();
    let mut guard = TaskGuard { peer: remote.peer.clone(), id: Some(id.clone()) };
    let suggested = |ms: Option<u64>| ms.map(|ms| Duration::from_millis(ms).min(POLL_MAX));
    let mut wait = suggested(created.task.poll_interval_ms).unwrap_or(POLL_FIRST);
    let mut polls = 0;
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = remote.lost.cancelled() => return Err(lost(&server, name, "it stopped answering")),
        }
        if polls == remote.max_task_polls {
            return Err(ToolError::new(format!(
                "The task `{id}` of the MCP server `{server}` for the call of `{name}` was still running after {polls} \
                 polls (`McpImportBuilder::max_task_polls`); it was cancelled."
            ))
            .with_code("mcp_task_polls"));
        }
        polls += 1;
        let polled = tokio::select! {
            polled = remote.peer.get_task(GetTaskParams::new(id.clone())) => polled,
            () = remote.lost.cancelled() => return Err(lost(&server, name, "it stopped answering")),
        };
        let task = polled.map_err(|error| failed(remote, name, &error))?.task;
        // The server's suggestion when it gives one, else a backoff of our own.
        wait = suggested(task.task.poll_interval_ms).unwrap_or((wait * 2).min(POLL_MAX));
        match task.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { input_requests } => {
                rounds += 1;
                check_rounds(remote, name, rounds)?;
                let responses = answer(remote, name, input_requests).await?;
                let update = UpdateTaskParams::new(id.clone(), responses);
                remote.peer.update_task(update).await.map_err(|error| failed(remote, name, &error))?;
                wait = POLL_FIRST;
            }
            TaskPayload::Completed { result } => {
                guard.disarm();
                return Ok(Answered { result: Value::Object(result), input_rounds: rounds, task: Some((id, polls)) });
            }
            TaskPayload::Failed { error } => {
                guard.disarm();
                let code = error.get("code").and_then(Value::as_i64).unwrap_or_default();
                let message = error.get("message").and_then(Value::as_str).unwrap_or_default();
                return Err(ToolError::new(format!(
                    "The task `{id}` of the MCP server `{server}` for the call of `{name}` failed (JSON-RPC error {code})."
                ))
                .with_code("mcp_error")
                .with_internal_detail(remote.redactor.clean(message)));
            }
            TaskPayload::Cancelled => {
                guard.disarm();
                return Err(ToolError::new(format!(
                    "The MCP server `{server}` cancelled the task `{id}` of the call of `{name}`."
                ))
                .with_code("mcp_task_cancelled"));
            }
            _ => {}
        }
    }
}
