//! A bound call run to its end: its time limit, cancellation and panics, its output checked
//! and cut to the limit, and every ending turned into a record.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::context::{Environment, ToolContext};
use crate::model::{serialized_over, ToolCallRequest, ToolError, ToolOutput};
use crate::policy::{Outcome, PolicyDecision, Stage};
use crate::state::StateError;
use crate::tool::{Invocation, ToolResult};

use super::{CallFailure, CallScope, ExecutionRecord, OutputCut};

/// What a finished call may hand on: how much output, and whether the text meant for the
/// host alone (a panic's message, an upstream's error) reaches the model.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reply {
    pub(super) max_output_bytes: usize,
    pub(super) expose_error_details: bool,
}

/// A bound call, ready to start.
pub(super) struct Prepared {
    pub(super) request: Arc<ToolCallRequest>,
    pub(super) invocation: Invocation,
    pub(super) timeout: Option<Duration>,
    /// Where the call's time limit counts from: its receipt, or the end of a wait for a
    /// person's approval (a person's minutes are not the tool's).
    pub(super) counts_from: Instant,
}

/// What the model reads of a panic, unless the host exposes error details.
const FAILED_UNEXPECTEDLY: &str = "The tool failed unexpectedly.";

/// Runs a bound call with its limits and turns every ending into a record.
///
/// `watched` is the host's cancellation (a child of its token), when it gave one; without it
/// there is nothing to race, so no `select!` and no waiter registration. The context's token
/// is cancelled when the call times out or is cancelled, never after a normal end. `approved`:
/// a person approved the call (the tool's context says so).
pub(super) async fn run(
    prepared: Prepared,
    approved: bool,
    environment: Arc<Environment>,
    watched: Option<CancellationToken>,
    scope: CallScope,
    started: Instant,
    reply: Reply,
) -> ExecutionRecord {
    let Prepared { request, invocation, timeout, counts_from } = prepared;
    let token = watched.clone().unwrap_or_default();
    let mut ctx = ToolContext::new(Arc::clone(&request), environment, token.clone()).with_approved(approved);
    if let Some(sink) = scope.progress {
        ctx = ctx.with_progress(sink);
    }
    if let Some(sink) = scope.log {
        ctx = ctx.with_log(sink);
    }
    if let Some(handler) = scope.asking.sampling {
        ctx = ctx.with_sampling(handler);
    }
    if let Some(handler) = scope.asking.elicitation {
        ctx = ctx.with_elicitation(handler);
    }
    if let Some(handler) = scope.asking.roots {
        ctx = ctx.with_roots(handler);
    }
    if let Some(switch) = scope.task_switch {
        ctx = ctx.with_task_switch(switch);
    }
    let body = CatchUnwind::new(invocation, ctx);
    // The limit counts from receipt: reading the arguments is part of the call.
    let outcome = within(body, counts_from, timeout, watched.as_ref()).await;
    if !matches!(outcome, Some(Ok(_))) {
        token.cancel();
    }

    match outcome {
        None => failed(
            request,
            started,
            CallFailure::Cancelled,
            "The call was cancelled before the tool finished.".to_owned(),
        ),
        Some(Err(limit)) => {
            let message =
                format!("The tool did not finish within {}; it was stopped.", crate::model::duration_words(limit));
            failed(request, started, CallFailure::TimedOut { after_ms: limit.as_millis() as u64 }, message)
        }
        Some(Ok(Err(mut panic))) => {
            // The record keeps the panic's message; the model reads it only when the host
            // says so, since it may hold paths, OS errors or data.
            crate::model::cut_saying(&mut panic, reply.max_output_bytes);
            let message = match reply.expose_error_details {
                true => format!("The tool failed unexpectedly: {panic}"),
                false => FAILED_UNEXPECTEDLY.to_owned(),
            };
            failed(request, started, CallFailure::Panicked { message: panic }, message)
        }
        Some(Ok(Ok(Err(mut error)))) => {
            let text = match error.internal_detail() {
                Some(detail) if reply.expose_error_details => format!("{}\nDetail: {detail}", error.message()),
                _ => error.message().to_owned(),
            };
            let mut content = ToolOutput::text(text);
            content.structured = error.details().cloned();
            let output_cut = bound_output(&mut content, reply.max_output_bytes);
            error.cut_to(reply.max_output_bytes);
            let mut record = failed(request, started, CallFailure::of_tool(error), String::new());
            record.content = content;
            record.output_cut = output_cut;
            record
        }
        Some(Ok(Ok(Ok(mut output)))) => {
            let output_cut = bound_output(&mut output, reply.max_output_bytes);
            if let Some(error) = broken_block(&output) {
                let message = error.message().to_owned();
                return failed(request, started, CallFailure::ToolError { error }, message);
            }
            let mut record = ExecutionRecord::succeeded(request, output, started.elapsed());
            record.output_cut = output_cut;
            record
        }
    }
}

/// Waits for `work` until `limit` after `from` (`Err` with the limit) or until `watched` is
/// cancelled (`None`), whichever comes first. Without a token there is nothing to race, so no
/// `select!` and no waiter registration.
pub(super) async fn within<T>(
    work: impl Future<Output = T>,
    from: Instant,
    limit: Option<Duration>,
    watched: Option<&CancellationToken>,
) -> Option<Result<T, Duration>> {
    let limited = async {
        match limit {
            Some(limit) => {
                let deadline = tokio::time::Instant::from_std(from + limit);
                tokio::time::timeout_at(deadline, work).await.map_err(|_| limit)
            }
            None => Ok(work.await),
        }
    };
    match watched {
        None => Some(limited.await),
        Some(watched) => tokio::select! {
            biased;
            () = watched.cancelled() => None,
            outcome = limited => Some(outcome),
        },
    }
}

/// The record of a call that failed as `failure` says, the model reading `message`.
pub(super) fn failed(
    request: Arc<ToolCallRequest>,
    started: Instant,
    failure: CallFailure,
    message: String,
) -> ExecutionRecord {
    ExecutionRecord::failed(request, failure, ToolOutput::text(message), started.elapsed())
}

/// The record of a call refused because the policy's state in `store` could not be reached
/// (at `stage`, by the policy `by`): the tool did not run, nothing fell back to memory, and the
/// model reads to try again in a moment; the store's own words go to the log, for the host.
pub(super) fn state_unavailable(
    request: Arc<ToolCallRequest>,
    started: Instant,
    store: &'static str,
    error: StateError,
    (stage, by): (Stage, &'static str),
) -> ExecutionRecord {
    tracing::warn!(target: "tools", store, error = %error, "the call's policy state is unavailable; it did not run");
    let message = error.into_tool_error().message().to_owned();
    let failure = CallFailure::StateUnavailable { store: store.to_owned() };
    let mut record = failed(request, started, failure, message.clone());
    record.decisions.push(PolicyDecision::new(stage, by, Outcome::Rejected, Some(message)));
    record
}

/// The record of a call whose task never reported (aborted by a runtime shutdown).
pub(super) fn lost(request: Arc<ToolCallRequest>, started: Instant, message: String) -> ExecutionRecord {
    failed(request, started, CallFailure::Panicked { message }, FAILED_UNEXPECTEDLY.to_owned())
}

/// The error a result with a broken content block becomes: no provider or client is sent a
/// block it would refuse or misread.
pub(super) fn broken_block(output: &ToolOutput) -> Option<ToolError> {
    output.blocks.iter().enumerate().find_map(|(index, block)| {
        let problem = block.problem()?;
        let message =
            format!("The tool's result could not be sent: its content block {index} ({}) {problem}.", block.kind());
        Some(ToolError::new(message).with_code("invalid_content"))
    })
}

/// Cuts `output` to `limit`: the text cut, the blocks that do not fit after it dropped, a
/// structured result or metadata over the limit dropped, and what was done said at the text's
/// end.
pub(super) fn bound_output(output: &mut ToolOutput, limit: usize) -> Option<OutputCut> {
    let text_bytes = output.text.len();
    let structured_dropped = output.structured.as_ref().is_some_and(|value| serialized_over(value, limit));
    let metadata_dropped = !output.metadata.is_empty() && serialized_over(&output.metadata, limit);
    let text_cut = crate::model::cut_at(&mut output.text, limit);
    let mut left = limit - output.text.len();
    let mut dropped = Vec::new();
    output.blocks.retain(|block| {
        let size = block.size();
        let fits = size <= left;
        match fits {
            true => left -= size,
            false => dropped.push(dropped_block(block, size)),
        }
        fits
    });
    if !(text_cut || structured_dropped || metadata_dropped || !dropped.is_empty()) {
        return None;
    }
    let mut said = Vec::new();
    if text_cut {
        said.push(format!("output cut at {limit} bytes of {text_bytes}"));
    }
    if !dropped.is_empty() {
        let count = match dropped.len() {
            1 => "1 block".to_owned(),
            n => format!("{n} blocks"),
        };
        said.push(format!("{count} dropped ({}): over {limit} bytes", dropped.join("; ")));
    }
    if structured_dropped {
        output.structured = None;
        said.push(format!("structured result dropped: over {limit} bytes"));
    }
    if metadata_dropped {
        output.metadata.clear();
    }
    if !said.is_empty() {
        output.text.push_str(&format!("\n[{}]", said.join("; ")));
    }
    Some(OutputCut { limit, text_bytes, structured_dropped, metadata_dropped, blocks_dropped: dropped.len() })
}

/// A dropped block in a few words: `image/png, 2 MB`.
fn dropped_block(block: &crate::model::ContentBlock, size: usize) -> String {
    let what = block.mime_type().unwrap_or(block.kind());
    format!("{what}, {}", crate::model::human_bytes(block.decoded_len().unwrap_or(size)))
}

/// Polls a tool's future, turning a panic (while starting it or while polling it) into an error.
pub(super) struct CatchUnwind {
    state: Option<Result<crate::tool::BoxFuture<'static, ToolResult>, String>>,
}

impl CatchUnwind {
    fn new(invocation: Invocation, ctx: ToolContext) -> Self {
        let started = std::panic::catch_unwind(AssertUnwindSafe(|| invocation.run(ctx))).map_err(panic_message);
        CatchUnwind { state: Some(started) }
    }
}

impl Future for CatchUnwind {
    type Output = Result<ToolResult, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.state.as_mut() {
            None => Poll::Ready(Err("the tool was polled after it finished".to_owned())),
            Some(Err(_)) => Poll::Ready(Err(self.state.take().and_then(Result::err).unwrap_or_default())),
            Some(Ok(future)) => match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                Ok(Poll::Pending) => Poll::Pending,
                Ok(Poll::Ready(result)) => {
                    self.state = None;
                    Poll::Ready(Ok(result))
                }
                Err(payload) => {
                    self.state = None;
                    Poll::Ready(Err(panic_message(payload)))
                }
            },
        }
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    crate::model::panic_words(payload.as_ref())
}
