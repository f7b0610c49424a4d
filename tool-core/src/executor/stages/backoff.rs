//! The tool run: again after a transient failure of an idempotent tool (with the host's
//! backoff), and again once approved when the tool itself asked for approval.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::model::{ErrorKind, ToolCallRequest, ToolError};
use crate::policy::backoff::jitter_random;
use crate::policy::{ApprovalReason, Outcome, Stage};
use crate::tool::Tool;

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::rules::idempotent;
use super::super::run::{failed, run as run_tool, Prepared};
use super::super::{CallFailure, ExecutionRecord, Executor};
use super::approval::{ask, pending_call, Answer};
use super::bind::bind_now;

pub(crate) async fn run(executor: &Executor, call: &mut CallRun) -> Flow {
    let Held::Bound(mut prepared) = call.take() else { unreachable!("a call runs once it is bound") };
    let mut retries = 0;
    let record = loop {
        let (approved, counts_from) = (call.approved, prepared.counts_from);
        let request = Arc::clone(&prepared.request);
        let environment = Arc::clone(&executor.environment);
        let ran = run_tool(
            prepared,
            approved,
            environment,
            call.watched.clone(),
            call.scope.clone(),
            call.started,
            executor.reply,
        );
        let record = Box::pin(ran).await;
        let (Some(CallFailure::ToolError { error }), Some(tool)) = (&record.failure, call.tool.clone()) else {
            break record;
        };
        if error.kind() == ErrorKind::ApprovalRequired && !approved {
            // Boxed, as the wait below: rare ways kept out of every call's future.
            match Box::pin(approved_again(executor, call, &tool, &request, error)).await {
                ControlFlow::Continue(next) => prepared = next,
                ControlFlow::Break(flow) => return flow,
            }
            continue;
        }
        let Some(wait) = retry_wait(executor, call, tool.definition(), error, retries, counts_from) else {
            break record;
        };
        retries += 1;
        let message = format!(
            "try {retries} failed: {}; ran again after {}",
            error.message(),
            crate::model::duration_words(wait)
        );
        call.decide(Stage::Backoff, "backoff", Outcome::Retried, Some(message));
        if let Some(cancelled) = Box::pin(sleep_watched(call.watched.as_ref(), wait, request, call.started)).await {
            return ControlFlow::Break(cancelled);
        }
        let Some(again) = call.received.as_deref().cloned() else { break record };
        match bind_now(executor, Some(&tool), again, call.started) {
            Ok(mut next) => {
                next.counts_from = counts_from;
                prepared = next;
            }
            Err(record) => break *record,
        }
    };
    call.held = Held::Ran(record);
    ControlFlow::Continue(Go::Next)
}

/// A tool that asked for approval while it ran: the person asked, and the call bound again to
/// run approved; or where the answer sends the call instead (ended, or edited and checked
/// again from the start).
async fn approved_again(
    executor: &Executor,
    call: &mut CallRun,
    tool: &Arc<dyn Tool>,
    request: &ToolCallRequest,
    error: &ToolError,
) -> ControlFlow<Flow, Prepared> {
    let reasons = vec![ApprovalReason::Asked { message: error.message().to_owned() }];
    let pending = pending_call(call.received.as_deref().cloned(), request, reasons);
    match ask(executor, call, pending).await {
        ControlFlow::Break(record) => ControlFlow::Break(ControlFlow::Break(record)),
        ControlFlow::Continue(Answer::Edited(edited)) => ControlFlow::Break(call.restart(edited)),
        ControlFlow::Continue(Answer::AsIs) => {
            let again = call.received.as_deref().cloned().unwrap_or_else(|| request.clone());
            match bind_now(executor, Some(tool), again, call.started) {
                Ok(mut next) => {
                    next.counts_from = Instant::now();
                    ControlFlow::Continue(next)
                }
                Err(record) => ControlFlow::Break(ControlFlow::Break(*record)),
            }
        }
    }
}

/// How long to wait before running a failed call again; none when it is not run again: not a
/// transient failure of an idempotent tool kept as it arrived, no tries left, or a wait that
/// would outlast the call's time.
fn retry_wait(
    executor: &Executor,
    call: &CallRun,
    definition: &crate::model::ToolDefinition,
    error: &ToolError,
    retries: u32,
    counts_from: Instant,
) -> Option<Duration> {
    let backoff = &executor.policy.rules.backoff;
    let retryable = error.kind() == ErrorKind::Transient && idempotent(definition) && call.received.is_some();
    if !retryable || retries >= backoff.max_retries {
        return None;
    }
    let wait = backoff.wait(retries + 1, jitter_random());
    let limit = definition.timeout.or(executor.timeout);
    // A wait that would outlast the call's time leaves the failure standing.
    limit.is_none_or(|limit| counts_from.elapsed() + wait < limit).then_some(wait)
}

/// Waits `wait`; the record of the call cancelled meanwhile, if it was.
async fn sleep_watched(
    watched: Option<&CancellationToken>,
    wait: Duration,
    request: Arc<ToolCallRequest>,
    started: Instant,
) -> Option<ExecutionRecord> {
    let slept = tokio::time::sleep(wait);
    let Some(watched) = watched else {
        slept.await;
        return None;
    };
    tokio::select! {
        biased;
        () = watched.cancelled() => {
            let message = "The call was cancelled while it waited to run again.".to_owned();
            Some(failed(request, started, CallFailure::Cancelled, message))
        }
        () = slept => None,
    }
}
