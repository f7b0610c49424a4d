//! A call bound: its tool looked up and its arguments read (on the blocking pool when they are
//! large), or the record of why it could not be.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::model::{ArgumentErrors, ToolCallRequest};
use crate::tool::Tool;

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::run::{failed, lost, within, Prepared};
use super::super::{CallFailure, ExecutionRecord, Executor};
use super::repair::repairable;

/// Arguments at least this long are read on the blocking pool (see [`bind_off_workers`]);
/// shorter ones are read in place, in less time than a trip to another thread takes.
const OFF_WORKERS_BYTES: usize = 64 * 1024;

/// Whether the arguments of `request` are read on the blocking pool.
pub(crate) fn binds_off_workers(request: &ToolCallRequest) -> bool {
    request.raw_arguments.len() >= OFF_WORKERS_BYTES
}

/// The stage: the call bound, or refused (for the repair stage when the host has a hook).
pub(crate) async fn bind(executor: &Executor, run: &mut CallRun) -> Flow {
    let Held::Request(request) = run.take() else { unreachable!("a call is bound once, as a request") };
    // Why the call waits for a person, read once for the approval stage; the request as it
    // arrived is kept when the call may run again (a tool that may ask for approval, an
    // idempotent tool that may be retried).
    run.reasons = match &run.tool {
        Some(tool) if !run.approved => executor.policy.approval_reasons(tool.definition()),
        _ => Vec::new(),
    };
    let keep =
        !run.reasons.is_empty() || run.tool.as_ref().is_some_and(|t| executor.policy.may_run_again(t.definition()));
    run.received = keep.then(|| Box::new(request.clone()));
    let bound = match binds_off_workers(&request) {
        // Boxed: the rare large call's wait is kept out of every call's future.
        true => {
            Box::pin(bind_off_workers(executor, run.tool.clone(), request, run.started, run.watched.as_ref())).await
        }
        false => bind_now(executor, run.tool.as_ref(), request, run.started),
    };
    match bound {
        Ok(mut prepared) => {
            if run.approved {
                // The time limit counts from the approval, not from a person's wait for it.
                prepared.counts_from = Instant::now();
            }
            run.held = Held::Bound(prepared);
            ControlFlow::Continue(Go::Next)
        }
        Err(record) if repairable(executor, run, record.failure.as_ref()) => {
            run.held = Held::Refused(record);
            ControlFlow::Continue(Go::Next)
        }
        Err(record) => ControlFlow::Break(*record),
    }
}

/// [`bind_now`] for large arguments: on the blocking pool, so that reading them never holds
/// an async worker, and under the call's time limit and cancellation. A call stopped while its
/// arguments are read ends at once; the reading itself finishes on its thread (it is bounded by
/// the catalog's argument limits) and is dropped.
async fn bind_off_workers(
    executor: &Executor,
    tool: Option<Arc<dyn Tool>>,
    request: ToolCallRequest,
    started: Instant,
    watched: Option<&CancellationToken>,
) -> Result<Prepared, Box<ExecutionRecord>> {
    let limit = executor.time_limit(&request.tool_name);
    let kept = request.clone();
    let executor = executor.clone();
    let span = tracing::Span::current();
    let binding =
        tokio::task::spawn_blocking(move || span.in_scope(|| bind_now(&executor, tool.as_ref(), request, started)));
    let outcome = within(binding, started, limit, watched).await;
    let (failure, message) = match outcome {
        Some(Ok(Ok(bound))) => return bound,
        Some(Ok(Err(error))) => {
            let message = format!("reading the call's arguments ended abnormally: {error}");
            return Err(Box::new(lost(Arc::new(kept), started, message)));
        }
        Some(Err(limit)) => (
            CallFailure::TimedOut { after_ms: limit.as_millis() as u64 },
            format!(
                "The arguments were not read within {}; the call was stopped.",
                crate::model::duration_words(limit)
            ),
        ),
        None => (CallFailure::Cancelled, "The call was cancelled before its arguments were read.".to_owned()),
    };
    Err(Box::new(failed(Arc::new(kept), started, failure, message)))
}

/// Binds the arguments of a call of `tool` (`None`: the catalog has no tool of that name); a
/// failure here is already a record.
pub(crate) fn bind_now(
    executor: &Executor,
    tool: Option<&Arc<dyn Tool>>,
    mut request: ToolCallRequest,
    started: Instant,
) -> Result<Prepared, Box<ExecutionRecord>> {
    let catalog = &executor.catalog;
    let Some(tool) = tool else {
        // Keep what the model sent readable in the record: a generic tolerant parse, unless
        // a reader already made the arguments object (a Python call's raw text is no JSON)
        // or refused them (a call the end of the answer cut keeps its own error).
        if request.arguments.is_none() && request.parse_error.is_none() {
            let untyped = crate::extract::untyped_with(&request.raw_arguments, catalog.policy());
            request.parse_warnings.extend(untyped.warnings);
            request.arguments = untyped.arguments;
            request.parse_error = untyped.value.err();
        }
        let suggestions: Vec<String> =
            catalog.closest_names(&request.tool_name, 3).into_iter().map(str::to_owned).collect();
        let message = unknown_tool_message(&request.tool_name, &suggestions, catalog.is_empty());
        let failure = CallFailure::UnknownTool { suggestions };
        return Err(Box::new(failed(Arc::new(request), started, failure, message)));
    };
    // Arguments given in the request (a provider's call put back in the declared form) are
    // what the values are read from; the raw text stays as the provider sent it.
    let extraction = catalog.policy();
    // Under the strict policy the repairs that made the given arguments (an undecodable
    // JSON text left as it was by restoring, an XML call's broken structure read) are
    // refused, each as an error saying what lenient extraction would have done.
    let strict = extraction.strict || tool.definition().strict;
    let refused = strict && request.arguments.is_some() && !request.parse_warnings.is_empty();
    let conversations = &executor.conversations;
    // A reader that already refused the call (one cut by the end of the answer or of the
    // stream) has said why: nothing the text holds is run.
    let bound = if let Some(errors) = request.parse_error.take() {
        Err(errors)
    } else {
        match request.arguments.take() {
            Some(arguments) if refused => {
                request.arguments = Some(arguments);
                let refusals = request.parse_warnings.drain(..).map(|w| crate::extract::refusal(&w)).collect();
                Err(ArgumentErrors { errors: refusals })
            }
            None => conversations.binding(|| tool.bind(&mut request, extraction)),
            Some(arguments) => {
                let raw = std::mem::replace(&mut request.raw_arguments, arguments.to_string());
                let bound = conversations.binding(|| tool.bind(&mut request, extraction));
                request.raw_arguments = raw;
                request.arguments.get_or_insert(arguments);
                bound
            }
        }
    };
    match bound {
        Ok(invocation) => {
            let timeout = tool.definition().timeout.or(executor.timeout);
            Ok(Prepared { request: Arc::new(request), invocation, timeout, counts_from: started })
        }
        Err(errors) => {
            let message = errors.model_message(&request.tool_name);
            let structured = errors.structured();
            request.parse_error = Some(errors);
            let mut record = failed(Arc::new(request), started, CallFailure::InvalidArguments, message);
            record.content.structured = Some(json!({ "errors": structured }));
            Err(Box::new(record))
        }
    }
}

fn unknown_tool_message(name: &str, suggestions: &[String], no_tools: bool) -> String {
    // The name is the model's own text, of any length: the message quotes it cut.
    let name = crate::model::truncate(name);
    if no_tools {
        return format!("There is no tool named `{name}`, and no tools are available.");
    }
    if suggestions.is_empty() {
        return format!("There is no tool named `{name}`, and no tool has a name like it.");
    }
    let list: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    format!(
        "There is no tool named `{name}`. The closest existing tools are: {}. Call one of them instead.",
        list.join(", ")
    )
}
