//! The tracing of calls, by OpenTelemetry's GenAI semantic conventions: a span per call
//! (`execute_tool {tool}`), a child span per stage, one summary event when it ends, and the
//! first warnings as events.

use crate::model::{Cut, ToolCallRequest};

use super::{CallStatus, ExecutionRecord, Executor};

/// A call's span, named and attributed by the GenAI semantic conventions (`gen_ai.*`,
/// `error.type`); `otel.*` fields are read by `tracing-opentelemetry` as the span's name, kind
/// and status. Its tool's type and description are looked up only for a subscriber that records
/// the span.
pub(super) fn call_span(request: &ToolCallRequest, executor: &Executor) -> tracing::Span {
    let (tool, call_id) = (Cut(&request.tool_name), Cut(&request.call_id));
    let span = tracing::info_span!(
        target: "tools",
        "execute_tool",
        otel.name = format_args!("execute_tool {tool}"),
        otel.kind = "internal",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %tool,
        gen_ai.tool.call.id = %call_id,
        gen_ai.tool.type = tracing::field::Empty,
        gen_ai.tool.description = tracing::field::Empty,
        error.type = tracing::field::Empty,
    );
    let definition = (!span.is_disabled()).then(|| executor.catalog().definition(&request.tool_name)).flatten();
    if let Some(definition) = definition {
        // A tool that calls another system (an MCP server's, a REST API) is an extension; one
        // that runs here is a function.
        let kind = if definition.calls_out() { "extension" } else { "function" };
        span.record("gen_ai.tool.type", kind);
        span.record("gen_ai.tool.description", tracing::field::display(Cut(&definition.description)));
    }
    span
}

/// How many of a call's warnings are events of its span: the summary names the first rules of
/// them all, and the record keeps every one.
const TRACED_WARNINGS: usize = 16;

/// How many distinct rules of warnings and errors the summary of a call names.
const LOGGED_RULES: usize = 3;

/// The end of a call: its metrics (feature `otel`, with a meter), its span's `error.type` and
/// status when it failed, its first warnings as
/// debug events, and its one summary event (target `tools`): the tool, the call id, its
/// principal when it has one, how it ended, how long it took, how many warnings and errors its
/// arguments had and the first rules among them, every text cut (see
/// [`crate::model::truncate`]), so that no call writes more than a line of log at info whatever
/// the model sent. Warning level unless the call succeeded.
pub(super) fn log_record(record: &ExecutionRecord, executor: &Executor) {
    let request = &record.request;
    #[cfg(feature = "otel")]
    if let Some(metrics) = &executor.metrics {
        metrics.record(record, executor.catalog());
    }
    #[cfg(not(feature = "otel"))]
    let _ = executor;
    // The call's span (current here) says how it failed, by the failure's kind.
    let span = tracing::Span::current();
    if !span.is_disabled() {
        if let Some(failure) = &record.failure {
            span.record("error.type", failure.kind());
            span.record("otel.status_code", "error");
        }
        // Each warning names its rule and place, never the value (the arguments may hold
        // personal data): at debug level, so that a log at info writes one line per call.
        for warning in request.parse_warnings.iter().take(TRACED_WARNINGS) {
            tracing::debug!(target: "tools", rule = warning.rule(), pointer = %Cut(warning.pointer()), "argument warning");
        }
    }
    let success = record.status == CallStatus::Success;
    // The rules are gathered only for a subscriber that records the event.
    let enabled = match success {
        true => tracing::enabled!(target: "tools", tracing::Level::INFO),
        false => tracing::enabled!(target: "tools", tracing::Level::WARN),
    };
    if !enabled {
        return;
    }
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
