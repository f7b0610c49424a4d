//! Approval over MCP: a served call that needs a person's approval is shown to the user of the
//! client that made it (`elicitation/create`, a form with one `approve` choice), or, when
//! nobody can be asked, ends with its pending state as a clear tool result.

use std::time::{Duration, Instant};

use rmcp::service::{RequestContext, RoleServer};
use serde_json::{json, Map, Value};

use crate::ask::{ElicitationAnswer, ElicitationRequest};
use crate::executor::{CallScope, CallStatus, ExecutionRecord, Executor};
use crate::policy::{Decision, PendingCall};

/// The most bytes of a pending call's arguments the request for approval shows (as indented
/// JSON); beyond, they are cut and the cut said. The person approves what the model sent
/// whole: a call whose arguments do not fit is better denied, or resumed by the host.
pub(super) const MAX_SHOWN_ARGUMENTS: usize = 4_000;

/// The most characters of a user's reason for a denial that reach the model.
pub(super) const MAX_REASON_CHARS: usize = 500;

/// The reason the model reads when the user unticked `approve` and said nothing.
const NOT_APPROVED: &str = "the user of the MCP client did not approve it";
/// The reason the model reads when the user declined the request for approval.
const DECLINED: &str = "the user of the MCP client declined it";
/// The reason the model reads when the user dismissed the request for approval.
const DISMISSED: &str = "the user of the MCP client dismissed the request for approval without answering";

/// `scope` with the user of the client of `context` approving its calls through elicitation,
/// when the client takes forms (and its protocol has server-to-client requests) and the host's
/// executor has no approver of its own: the host chose that one, so it answers. `received` is
/// when the call arrived: the wait for an answer ends with the call's time limit, which counts
/// from then.
pub(super) fn scope_approving_by_client(
    context: &RequestContext<RoleServer>,
    executor: &Executor,
    received: Instant,
    scope: CallScope,
) -> CallScope {
    if executor.has_approver() || !super::ask::client_takes_forms(context) {
        return scope;
    }
    let (peer, origin, executor) = (context.peer.clone(), context.id.clone(), executor.clone());
    scope.on_approval(move |pending: PendingCall| {
        let (peer, origin) = (peer.clone(), origin.clone());
        let deadline = executor.time_limit(pending.tool_name()).map(|limit| received + limit);
        async move {
            let limit = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
            if limit == Some(Duration::ZERO) {
                return Decision::deny(no_answer_within(deadline, received));
            }
            match super::ask::elicit_client(&peer, origin, approval_request(&pending), limit).await {
                Ok(answer) => decision(answer),
                Err(_) if deadline.is_some_and(|deadline| Instant::now() >= deadline) => {
                    Decision::deny(no_answer_within(deadline, received))
                }
                Err(error) => Decision::deny(format!("approval could not be asked: {}", error.message())),
            }
        }
    })
}

/// The reason of a call whose time ran out while its approval was asked.
fn no_answer_within(deadline: Option<Instant>, received: Instant) -> String {
    let limit = deadline.map_or(Duration::ZERO, |deadline| deadline.duration_since(received));
    format!(
        "nobody answered the request for approval within the call's time limit ({})",
        crate::model::duration_words(limit)
    )
}

/// The form that asks the client's user about `pending`: the tool, the arguments it would get
/// (cut to [`MAX_SHOWN_ARGUMENTS`]) and why it waits; one required `approve` choice and an
/// optional reason for the model.
pub(super) fn approval_request(pending: &PendingCall) -> ElicitationRequest {
    let mut arguments = serde_json::to_string_pretty(&pending.arguments).unwrap_or_default();
    crate::model::cut_saying(&mut arguments, MAX_SHOWN_ARGUMENTS);
    let message = format!(
        "Allow the tool `{}` to run with these arguments?\n{arguments}\nIt needs approval: {}.",
        pending.tool_name(),
        pending.reasons_text()
    );
    let schema = json!({
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
                "maxLength": MAX_REASON_CHARS
            }
        },
        "required": ["approve"]
    });
    ElicitationRequest::new(message, schema)
}

/// What the user's answer decides: only an accepted form with `approve` true approves.
pub(super) fn decision(answer: ElicitationAnswer) -> Decision {
    match answer {
        ElicitationAnswer::Accept(content) if content.get("approve") == Some(&Value::Bool(true)) => Decision::Approve,
        ElicitationAnswer::Accept(content) => {
            Decision::deny(reason(&content).unwrap_or_else(|| NOT_APPROVED.to_owned()))
        }
        ElicitationAnswer::Decline => Decision::deny(DECLINED),
        ElicitationAnswer::Cancel => Decision::deny(DISMISSED),
    }
}

/// The user's reason, trimmed and cut to [`MAX_REASON_CHARS`]; none when empty.
fn reason(content: &Map<String, Value>) -> Option<String> {
    let text = content.get("reason")?.as_str()?.trim();
    if text.is_empty() {
        return None;
    }
    Some(match text.char_indices().nth(MAX_REASON_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    })
}

/// A pending call's public shape, for the `structuredContent` of its MCP result: the tool as
/// the client called it, the call's id, the arguments as extraction read them, and why it
/// waits.
pub(super) fn pending_content(record: &ExecutionRecord, called: &str) -> Option<Value> {
    let pending = record.pending.as_deref().filter(|_| record.status == CallStatus::Pending)?;
    Some(json!({
        "status": "pending",
        "tool": called,
        "call_id": pending.call_id(),
        "arguments": pending.arguments,
        "reasons": pending.reasons,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map};

    use super::{decision, reason, MAX_REASON_CHARS};
    use crate::ask::ElicitationAnswer;
    use crate::policy::Decision;

    fn accepted(content: serde_json::Value) -> ElicitationAnswer {
        ElicitationAnswer::Accept(content.as_object().cloned().unwrap_or_default())
    }

    #[test]
    fn only_an_accepted_true_approves() {
        assert_eq!(decision(accepted(json!({"approve": true}))), Decision::Approve);
        for content in [json!({"approve": "true"}), json!({"approve": 1}), json!({})] {
            assert_eq!(decision(accepted(content)), Decision::deny("the user of the MCP client did not approve it"));
        }
        assert_eq!(decision(accepted(json!({"approve": false, "reason": "  "}))), Decision::deny(super::NOT_APPROVED));
    }

    #[test]
    fn a_long_reason_is_cut_at_its_bound() {
        let long = "é".repeat(MAX_REASON_CHARS + 10);
        let mut content = Map::new();
        content.insert("reason".into(), long.into());
        let cut = reason(&content).unwrap();
        assert_eq!(cut.chars().count(), MAX_REASON_CHARS + 1);
        assert!(cut.ends_with("é…"));
    }
}
