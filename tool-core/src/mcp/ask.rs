//! Asking across MCP: a served tool's [`ToolContext::sample`](crate::ToolContext::sample) and
//! [`ToolContext::elicit`](crate::ToolContext::elicit) sent to the client that made the call
//! (`sampling/createMessage`, `elicitation/create`), and an importing host's handlers
//! answering the same requests of a remote server.

// MCP's sampling (`sampling/createMessage`) is deprecated from protocol 2026-07-28 on
// (SEP-2577), which also forbids server-to-client requests, but clients of earlier versions
// use it: served until the protocol removes it. rmcp marks its items deprecated.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    ProtocolVersion, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, Peer, PeerRequestOptions, RequestContext, RoleServer, ServiceError};
use rmcp::ErrorData;
use serde_json::{json, Map, Value};

use crate::ask::{
    ElicitationAnswer, ElicitationHandler, ElicitationRequest, ModelPreferences, SamplingContent, SamplingHandler,
    SamplingMessage, SamplingRequest, SamplingResponse, SamplingRole,
};
use crate::executor::CallScope;
use crate::model::ToolError;

/// `scope` with the client of `context` answering the call's sampling and elicitation
/// requests, each when the client declared the capability at initialize. The requests go out
/// as part of the call (on its stream, over streamable HTTP).
pub(super) fn scope_asking_client(context: &RequestContext<RoleServer>, mut scope: CallScope) -> CallScope {
    if !takes_requests(context) {
        return scope;
    }
    let capabilities = context.client_capabilities().unwrap_or_default();
    if capabilities.sampling.is_some() {
        let (peer, origin) = (context.peer.clone(), context.id.clone());
        scope = scope.on_sample(move |request| {
            let (peer, origin) = (peer.clone(), origin.clone());
            async move { sample_client(&peer, origin, request).await }
        });
    }
    if takes_forms(&capabilities) {
        let (peer, origin) = (context.peer.clone(), context.id.clone());
        scope = scope.on_elicit(move |request| {
            let (peer, origin) = (peer.clone(), origin.clone());
            async move { elicit_client(&peer, origin, request, None).await }
        });
    }
    if capabilities.roots.is_some() {
        let (peer, origin) = (context.peer.clone(), context.id.clone());
        scope = scope.on_roots(move || {
            let (peer, origin) = (peer.clone(), origin.clone());
            async move {
                let request = ServerRequest::ListRootsRequest(Default::default());
                match send(&peer, origin, request, None)
                    .await
                    .map_err(|e| failed("list its roots", "roots_failed", e))?
                {
                    ClientResult::ListRootsResult(result) => {
                        read_roots(&serde_json::to_value(result).unwrap_or_default())
                    }
                    _ => Err(ToolError::new("The MCP client answered the roots request with another kind of result.")
                        .with_code("roots_failed")),
                }
            }
        });
    }
    scope
}

/// A `ListRootsResult`, as JSON, read as our roots.
pub(super) fn read_roots(result: &Value) -> Result<Vec<crate::ask::Root>, ToolError> {
    serde_json::from_value(result.get("roots").cloned().unwrap_or(Value::Array(Vec::new()))).map_err(|e| {
        ToolError::new(format!("The MCP client's roots are not a list of roots: {e}.")).with_code("roots_failed")
    })
}

/// Whether the client of `context` may be sent requests during the call. Protocol 2026-07-28
/// has no server-to-client requests: its calls are answered, like those of clients without
/// the capability, by the host's handlers or not at all.
pub(super) fn takes_requests(context: &RequestContext<RoleServer>) -> bool {
    !context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// Whether the client of `context` may be sent a form during this call: its protocol has
/// server-to-client requests and it declared form elicitation.
pub(super) fn client_takes_forms(context: &RequestContext<RoleServer>) -> bool {
    takes_requests(context) && takes_forms(&context.client_capabilities().unwrap_or_default())
}

/// Whether the client fills in forms: it declared `elicitation` with `form`, or with neither
/// mode (clients of versions before modes, which had only forms).
pub(super) fn takes_forms(capabilities: &ClientCapabilities) -> bool {
    capabilities.elicitation.as_ref().is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// Sends `request` to the client as part of the call `origin`, and waits for the answer, at
/// most `limit` when given. A request left unanswered (the wait is over, or the call ended and
/// dropped it) is cancelled at the client (`notifications/cancelled`), so that its user is not
/// left with a question nobody waits for.
async fn send(
    peer: &Peer<RoleServer>,
    origin: rmcp::model::RequestId,
    mut request: ServerRequest,
    limit: Option<Duration>,
) -> Result<ClientResult, ServiceError> {
    use rmcp::model::GetExtensions;
    // rmcp marks a request sent from the handler's task itself; a tool may ask from a task of
    // its own, so the call's id is set here.
    request.extensions_mut().insert(OriginatingRequestId(origin));
    let options = limit.map_or_else(PeerRequestOptions::no_options, PeerRequestOptions::with_timeout);
    let handle = peer.send_request_with_option(request, options).await?;
    let mut unanswered = Unanswered { peer: peer.clone(), id: Some(handle.id.clone()) };
    let answer = handle.await_response().await;
    // Answered, or timed out (rmcp cancelled it then): nothing to cancel.
    unanswered.id = None;
    answer
}

/// A request sent to the client and not yet answered: cancelled at the client when dropped.
struct Unanswered {
    peer: Peer<RoleServer>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = Some("the call that asked ended".to_owned());
            let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), reason)).await;
        });
    }
}

/// What went wrong asking the client, for the tool.
fn failed(asking: &str, code: &str, error: ServiceError) -> ToolError {
    let message = match error {
        ServiceError::McpError(error) => {
            format!("The MCP client refused to {asking} (JSON-RPC error {}: {}).", error.code.0, error.message)
        }
        ServiceError::TransportClosed => {
            format!("The MCP client left before it answered the request to {asking}.")
        }
        other => format!("The request to {asking} failed: {other}."),
    };
    ToolError::new(message).with_code(code)
}

async fn sample_client(
    peer: &Peer<RoleServer>,
    origin: rmcp::model::RequestId,
    request: SamplingRequest,
) -> Result<SamplingResponse, ToolError> {
    let asking = "sample its model";
    let params: CreateMessageRequestParams = serde_json::from_value(sampling_params(&request)).map_err(|e| {
        ToolError::new(format!("The sampling request is not valid for MCP: {e}.")).with_code("sampling_failed")
    })?;
    let answer = send(peer, origin, ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params)), None)
        .await
        .map_err(|e| failed(asking, "sampling_failed", e))?;
    match answer {
        ClientResult::CreateMessageResult(result) => {
            Ok(sampling_response(&serde_json::to_value(*result).unwrap_or_default()))
        }
        _ => Err(ToolError::new("The MCP client answered the sampling request with another kind of result.")
            .with_code("sampling_failed")),
    }
}

/// Asks the client's user with the form of `request`, waiting at most `limit` when given.
pub(super) async fn elicit_client(
    peer: &Peer<RoleServer>,
    origin: rmcp::model::RequestId,
    request: ElicitationRequest,
    limit: Option<Duration>,
) -> Result<ElicitationAnswer, ToolError> {
    let params = elicitation_params(&request)?;
    let answer = send(peer, origin, ServerRequest::ElicitRequest(ElicitRequest::new(params)), limit)
        .await
        .map_err(|e| failed("ask its user", "elicitation_failed", e))?;
    match answer {
        ClientResult::ElicitResult(result) => elicitation_answer(result),
        _ => Err(ToolError::new("The MCP client answered the elicitation request with another kind of result.")
            .with_code("elicitation_failed")),
    }
}

/// MCP's `elicitation/create` params for `request` (form mode). rmcp carries the form as a
/// typed schema: one it would read differently (a keyword it has no place for) is refused
/// here, naming the field, rather than sent changed.
pub(super) fn elicitation_params(request: &ElicitationRequest) -> Result<ElicitRequestParams, ToolError> {
    let invalid =
        |why: String| ToolError::new(format!("The form cannot be sent over MCP: {why}.")).with_code("invalid_form");
    let schema: ElicitationSchema =
        serde_json::from_value(request.requested_schema.clone()).map_err(|e| invalid(e.to_string()))?;
    let carried = serde_json::to_value(&schema).unwrap_or_default();
    let fields = |schema: &Value| schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    for (name, field) in fields(&request.requested_schema) {
        if fields(&carried).get(&name) != Some(&field) {
            return Err(invalid(format!("rmcp cannot carry the field `{name}` as it is ({field})")));
        }
    }
    serde_json::from_value(json!({"mode": "form", "message": request.message, "requestedSchema": carried}))
        .map_err(|e| invalid(e.to_string()))
}

/// What the user did, as the tool reads it.
pub(super) fn elicitation_answer(result: ElicitResult) -> Result<ElicitationAnswer, ToolError> {
    Ok(match result.action {
        ElicitationAction::Accept => match result.content {
            None | Some(Value::Null) => ElicitationAnswer::Accept(Map::new()),
            Some(Value::Object(content)) => ElicitationAnswer::Accept(content),
            Some(other) => {
                return Err(ToolError::new(format!(
                    "The MCP client accepted the form but sent {} as its content, not an object of fields.",
                    crate::model::truncate(&other.to_string())
                ))
                .with_code("invalid_elicitation_answer"))
            }
        },
        ElicitationAction::Decline => ElicitationAnswer::Decline,
        _ => ElicitationAnswer::Cancel,
    })
}

fn role_name(role: SamplingRole) -> &'static str {
    match role {
        SamplingRole::User => "user",
        SamplingRole::Assistant => "assistant",
    }
}

fn content_json(content: &SamplingContent) -> Value {
    match content {
        SamplingContent::Text { text } => json!({"type": "text", "text": text}),
        SamplingContent::Image { data, mime_type } => json!({"type": "image", "data": data, "mimeType": mime_type}),
        SamplingContent::Audio { data, mime_type } => json!({"type": "audio", "data": data, "mimeType": mime_type}),
    }
}

/// MCP's `sampling/createMessage` params for `request`.
pub(super) fn sampling_params(request: &SamplingRequest) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| json!({"role": role_name(m.role), "content": content_json(&m.content)}))
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
    if let Some(prompt) = &request.system_prompt {
        params["systemPrompt"] = prompt.clone().into();
    }
    if let Some(temperature) = request.temperature {
        params["temperature"] = json!(temperature);
    }
    if !request.stop_sequences.is_empty() {
        params["stopSequences"] = json!(request.stop_sequences);
    }
    if let Some(preferences) = &request.model_preferences {
        let mut object = json!({});
        if !preferences.hints.is_empty() {
            object["hints"] = preferences.hints.iter().map(|name| json!({"name": name})).collect();
        }
        for (key, value) in [
            ("costPriority", preferences.cost_priority),
            ("speedPriority", preferences.speed_priority),
            ("intelligencePriority", preferences.intelligence_priority),
        ] {
            if let Some(value) = value {
                object[key] = json!(value);
            }
        }
        params["modelPreferences"] = object;
    }
    params
}

/// The blocks of a message's `content`: one block or a list; blocks of kinds we do not have
/// (a tool use) are left out.
fn read_content(content: Option<&Value>) -> Vec<SamplingContent> {
    let blocks = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    let text = |block: &Value, key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    blocks
        .into_iter()
        .filter_map(|block| match block.get("type").and_then(Value::as_str) {
            Some("text") => Some(SamplingContent::Text { text: text(block, "text") }),
            Some("image") => {
                Some(SamplingContent::Image { data: text(block, "data"), mime_type: text(block, "mimeType") })
            }
            Some("audio") => {
                Some(SamplingContent::Audio { data: text(block, "data"), mime_type: text(block, "mimeType") })
            }
            _ => None,
        })
        .collect()
}

fn read_role(value: Option<&Value>) -> SamplingRole {
    match value.and_then(Value::as_str) {
        Some("user") => SamplingRole::User,
        _ => SamplingRole::Assistant,
    }
}

/// A `CreateMessageResult`, as JSON, read as our response.
pub(super) fn sampling_response(result: &Value) -> SamplingResponse {
    SamplingResponse {
        role: read_role(result.get("role")),
        content: read_content(result.get("content")),
        model: result.get("model").and_then(Value::as_str).unwrap_or_default().to_owned(),
        stop_reason: result.get("stopReason").and_then(Value::as_str).map(str::to_owned),
    }
}

/// A server's `sampling/createMessage` params read as our request: a message of several
/// blocks becomes several messages of its role.
fn sampling_request(params: &CreateMessageRequestParams) -> SamplingRequest {
    let params = serde_json::to_value(params).unwrap_or_default();
    let mut messages = Vec::new();
    for message in params.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = read_role(message.get("role"));
        for content in read_content(message.get("content")) {
            messages.push(SamplingMessage { role, content });
        }
    }
    let max_tokens = params.get("maxTokens").and_then(Value::as_u64).unwrap_or_default();
    let mut request = SamplingRequest::conversation(messages, u32::try_from(max_tokens).unwrap_or(u32::MAX));
    request.system_prompt = params.get("systemPrompt").and_then(Value::as_str).map(str::to_owned);
    request.temperature = params.get("temperature").and_then(Value::as_f64).map(|t| t as f32);
    request.stop_sequences = params
        .get("stopSequences")
        .and_then(Value::as_array)
        .map(|stops| stops.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    request.model_preferences = params.get("modelPreferences").map(|preferences| {
        let priority = |key: &str| preferences.get(key).and_then(Value::as_f64).map(|p| p as f32);
        ModelPreferences {
            hints: preferences
                .get("hints")
                .and_then(Value::as_array)
                .map(|hints| {
                    hints.iter().filter_map(|h| h.get("name").and_then(Value::as_str)).map(str::to_owned).collect()
                })
                .unwrap_or_default(),
            cost_priority: priority("costPriority"),
            speed_priority: priority("speedPriority"),
            intelligence_priority: priority("intelligencePriority"),
        }
    });
    request
}

/// An importing host answering a server's `sampling/createMessage` with `handler`.
pub(super) async fn answer_sampling(
    handler: &SamplingHandler,
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, ErrorData> {
    let response = handler(sampling_request(&params))
        .await
        .map_err(|e| ErrorData::internal_error(format!("the host did not sample: {}", e.message()), None))?;
    let content: Vec<Value> = response.content.iter().map(content_json).collect();
    let content = match <[Value; 1]>::try_from(content) {
        Ok([one]) => one,
        Err(many) => Value::Array(many),
    };
    let mut result = json!({"role": role_name(response.role), "content": content, "model": response.model});
    if let Some(reason) = response.stop_reason {
        result["stopReason"] = reason.into();
    }
    serde_json::from_value(result)
        .map_err(|e| ErrorData::internal_error(format!("the host's sampling answer is not valid MCP: {e}"), None))
}

/// An importing host answering a server's `elicitation/create` with `handler`; an accepted
/// form gets the defaults it declares for the fields the handler left out (SEP-1034).
pub(super) async fn answer_elicitation(
    handler: &ElicitationHandler,
    params: ElicitRequestParams,
) -> Result<ElicitResult, ErrorData> {
    let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = params else {
        // URL mode sends the user to a page: a host with forms only says no.
        return Ok(ElicitResult::new(ElicitationAction::Decline));
    };
    let request = ElicitationRequest::new(message, serde_json::to_value(&requested_schema).unwrap_or_default());
    let answer = handler(request.clone())
        .await
        .map_err(|e| ErrorData::internal_error(format!("the host did not answer the form: {}", e.message()), None))?;
    Ok(match answer {
        ElicitationAnswer::Accept(content) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(request.with_defaults(content)))
        }
        ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{elicitation_params, sampling_params, sampling_request};
    use crate::ask::{ElicitationRequest, ModelPreferences, SamplingContent, SamplingMessage, SamplingRequest};

    #[test]
    fn a_form_rmcp_would_carry_changed_is_refused_naming_the_field() {
        let schema = json!({
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
            "required": ["code"]
        });
        let error = elicitation_params(&ElicitationRequest::new("Code?", schema)).unwrap_err();
        assert_eq!(
            error.message(),
            r#"The form cannot be sent over MCP: rmcp cannot carry the field `code` as it is ({"type":"string","pattern":"^[A-Z]{3}$"})."#
        );
        assert_eq!(error.code(), Some("invalid_form"));
    }

    #[test]
    fn a_sampling_request_goes_out_and_comes_back_in_mcps_words() {
        let request = SamplingRequest::conversation(
            vec![
                SamplingMessage::user("What is this?"),
                SamplingMessage {
                    role: crate::ask::SamplingRole::User,
                    content: SamplingContent::image("aGk=", "image/png"),
                },
            ],
            50,
        )
        .stop_sequence("END")
        .model_preferences(ModelPreferences {
            hints: vec!["claude".into()],
            intelligence_priority: Some(0.5),
            ..Default::default()
        });
        let params = sampling_params(&request);
        assert_eq!(
            params,
            json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "What is this?"}},
                    {"role": "user", "content": {"type": "image", "data": "aGk=", "mimeType": "image/png"}}
                ],
                "maxTokens": 50,
                "stopSequences": ["END"],
                "modelPreferences": {"hints": [{"name": "claude"}], "intelligencePriority": 0.5}
            })
        );
        #[allow(deprecated)] // sampling: see the module's note
        let read = sampling_request(&serde_json::from_value(params).unwrap());
        assert_eq!(read, request);
    }
}
