//! The tracing of calls: a span per call and one summary event when it ends.

use crate::model::{Cut, ToolCallRequest};

use super::{CallStatus, ExecutionRecord};

pub(super) fn call_span(request: &ToolCallRequest) -> tracing::Span {
    let (tool, call_id) = (Cut(&request.tool_name), Cut(&request.call_id));
    tracing::info_span!(target: "tools", "tool_call", tool = %tool, call_id = %call_id)
}

/// How many distinct rules of warnings and errors the summary of a call names.
const LOGGED_RULES: usize = 3;

/// The one event of a call (target `tools`): the tool, the call id, its principal when it has
/// one, how it ended, how long it
/// took, how many warnings and errors its arguments had and the first rules among them, every
/// text cut (see [`crate::model::truncate`]), so that no call writes more than a line of log
/// whatever the model sent. Warning level unless the call succeeded.
pub(super) fn log_record(record: &ExecutionRecord) {
    let success = record.status == CallStatus::Success;
    // The rules are gathered only for a subscriber that records the event.
    let enabled = match success {
        true => tracing::enabled!(target: "tools", tracing::Level::INFO),
        false => tracing::enabled!(target: "tools", tracing::Level::WARN),
    };
    if !enabled {
        return;
    }
    let request = &record.request;
    let errors = request.parse_error.as_ref().map_or(&[][..], |e| &e.errors[..]);
    let mut rules: Vec<&str> = Vec::new();
    let all = request.parse_warnings.iter().map(|w| w.rule()).chain(errors.iter().map(|e| e.rule.as_str()));
    for rule in all {
        if rules.len() == LOGGED_RULES {
            break;
        }
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    let rules = rules.join(",");
    let (rules, tool, call_id) = (Cut(&rules), Cut(&request.tool_name), Cut(&request.call_id));
    let (warnings, errors) = (request.parse_warnings.len(), errors.len());
    let duration_us = record.duration.as_micros() as u64;
    // The caller, when the front end authenticated one (its principal: an OAuth token's issuer
    // and subject, never the token).
    let principal = request.principal.as_deref().map(Cut);
    macro_rules! finished {
        ($level:ident) => {
            match &principal {
                Some(principal) => tracing::$level!(target: "tools", tool = %tool, call_id = %call_id, principal = %principal, status = ?record.status, duration_us, warnings, errors, rules = %rules, "tool call finished"),
                None => tracing::$level!(target: "tools", tool = %tool, call_id = %call_id, status = ?record.status, duration_us, warnings, errors, rules = %rules, "tool call finished"),
            }
        };
    }
    if success {
        finished!(info);
    } else {
        finished!(warn);
    }
}
