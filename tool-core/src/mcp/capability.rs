//! A request of protocol 2026-07-28 that needed a capability its client did not declare
//! (SEP-2575). Such a request carries the client's capabilities in its own `_meta`, and the
//! server must not rely on one that is not there: when a tool asked the client's model
//! ([`ToolContext::sample`](crate::ToolContext::sample)) or its user
//! ([`ToolContext::elicit`](crate::ToolContext::elicit)), nobody else answered (no host
//! handler), and the call failed for it, the request is answered with JSON-RPC error -32021
//! (Missing required client capability; HTTP 400), naming the capability in
//! `data.requiredCapabilities`, instead of a tool result.
//!
//! A tool that handles the refusal itself (it goes on without the answer) succeeds or fails as
//! it says: the request did not need the capability. Clients of earlier protocols declared
//! their capabilities once, at `initialize`, and keep getting the tool's own error result.

use rmcp::model::{ClientCapabilities, ErrorCode, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData;
use serde_json::{json, Value};

use crate::executor::{CallFailure, ExecutionRecord};

/// The -32021 error for the call of `record`, when it failed for want of a capability that the
/// request of `context` (protocol 2026-07-28 or later) did not declare; `None` otherwise.
pub(super) fn missing_client_capability(
    context: &RequestContext<RoleServer>,
    record: &ExecutionRecord,
) -> Option<ErrorData> {
    if !context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28) {
        return None;
    }
    let Some(CallFailure::ToolError { error }) = &record.failure else { return None };
    let declared = context.client_capabilities().unwrap_or_default();
    let (capability, required) = required_for(error.code()?, &declared)?;
    let message = format!(
        "the tool `{}` needs the client's `{capability}` capability, which this request did not declare \
         in `_meta.io.modelcontextprotocol/clientCapabilities`",
        record.request.tool_name
    );
    Some(ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message,
        Some(json!({ "requiredCapabilities": required })),
    ))
}

/// The capability a tool's error `code` says nobody could answer, and the client capabilities
/// object that requires it, when `declared` lacks it.
fn required_for(code: &str, declared: &ClientCapabilities) -> Option<(&'static str, Value)> {
    match code {
        "no_sampling" if declared.sampling.is_none() => Some(("sampling", json!({"sampling": {}}))),
        "no_elicitation" => match &declared.elicitation {
            None => Some(("elicitation", json!({"elicitation": {}}))),
            // Declared for URLs alone: a form needs `form`.
            Some(elicitation) if elicitation.form.is_none() && elicitation.url.is_some() => {
                Some(("elicitation.form", json!({"elicitation": {"form": {}}})))
            }
            Some(_) => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capabilities(value: Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn only_an_undeclared_capability_is_required() {
        let none = capabilities(json!({}));
        assert_eq!(required_for("no_sampling", &none), Some(("sampling", json!({"sampling": {}}))));
        assert_eq!(required_for("no_elicitation", &none), Some(("elicitation", json!({"elicitation": {}}))));
        assert_eq!(required_for("no_sampling", &capabilities(json!({"sampling": {}}))), None);
        assert_eq!(required_for("no_elicitation", &capabilities(json!({"elicitation": {}}))), None);
        assert_eq!(required_for("no_elicitation", &capabilities(json!({"elicitation": {"form": {}}}))), None);
        assert_eq!(
            required_for("no_elicitation", &capabilities(json!({"elicitation": {"url": {}}}))),
            Some(("elicitation.form", json!({"elicitation": {"form": {}}})))
        );
        assert_eq!(required_for("sampling_failed", &none), None);
        assert_eq!(required_for("no_log_receiver", &none), None);
    }
}
