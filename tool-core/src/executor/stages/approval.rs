//! Approval by a person: a call that needs it shown to the approver (or, when there is none,
//! kept in the executor's store and ended pending), and the person's answer applied: the call
//! goes on as it is, goes on with edited arguments checked again from the start, or ends
//! denied. A resumed call enters the chain here with the answer already given, the stored call
//! taken from the store.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::model::{ToolCallRequest, ToolOutput};
use crate::policy::{ApprovalReason, Decision, Outcome, PendingCall, Stage};

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::pending::keep;
use super::super::run::failed;
use super::super::{CallFailure, ExecutionRecord, Executor};

/// What a person's answer lets the call do.
// Handed back once per answer, the edited request moved on into the call.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Answer {
    /// Go on as it is.
    AsIs,
    /// Go on as this request, its arguments edited, checked again from the start.
    Edited(ToolCallRequest),
}

/// The stage: a resumed call's answer applied, or a call that needs approval asked about.
pub(crate) async fn approve(executor: &Executor, run: &mut CallRun) -> Flow {
    if let Some(answer) = run.answer.take() {
        let (pending, decision) = *answer;
        // The resumed record tells the whole story: why it waited, then the answer.
        run.decide(Stage::Approval, "approval", Outcome::Pending, Some(pending.reasons_text()));
        let request = pending.request.clone();
        return match decided(run, pending, decision)? {
            Answer::AsIs => run.restart(request),
            Answer::Edited(edited) => run.restart(edited),
        };
    }
    // The bind stage read the reasons (none once approved).
    let reasons = std::mem::take(&mut run.reasons);
    let Held::Bound(prepared) = &run.held else { return ControlFlow::Continue(Go::Next) };
    if reasons.is_empty() {
        return ControlFlow::Continue(Go::Next);
    }
    let pending = pending_call(run.received.as_deref().cloned(), &prepared.request, reasons);
    // Boxed: a person's wait, kept out of the future of every call that needs none.
    match Box::pin(ask(executor, run, pending)).await? {
        Answer::AsIs => {
            if let Held::Bound(prepared) = &mut run.held {
                // The time limit counts from the approval, not from a person's wait for it.
                prepared.counts_from = Instant::now();
            }
            ControlFlow::Continue(Go::Next)
        }
        Answer::Edited(edited) => run.restart(edited),
    }
}

/// Asks the approver about a pending call; without one, the call is kept in the executor's
/// store and ends pending (or, when the store cannot keep it, ends `state_unavailable`).
pub(crate) async fn ask(
    executor: &Executor,
    run: &mut CallRun,
    mut pending: PendingCall,
) -> ControlFlow<ExecutionRecord, Answer> {
    run.decide(Stage::Approval, "approval", Outcome::Pending, Some(pending.reasons_text()));
    let Some(approver) = run.approver.clone() else {
        return ControlFlow::Break(match keep(executor, &mut pending).await {
            Ok(()) => pending_record(pending, run.started),
            Err(error) => not_kept(pending, &error, run.started),
        });
    };
    let decision = match &run.watched {
        None => approver(pending.clone()).await,
        Some(watched) => tokio::select! {
            biased;
            () = watched.cancelled() => {
                let message = "The call was cancelled while it waited for approval.".to_owned();
                return ControlFlow::Break(failed(Arc::new(pending.request), run.started, CallFailure::Cancelled, message));
            }
            decision = approver(pending.clone()) => decision,
        },
    };
    decided(run, pending, decision)
}

/// What a person's decision makes of a pending call.
fn decided(run: &mut CallRun, pending: PendingCall, decision: Decision) -> ControlFlow<ExecutionRecord, Answer> {
    match decision {
        Decision::Approve => {
            run.decide(Stage::Approval, "person", Outcome::Approved, None);
            run.approved = true;
            ControlFlow::Continue(Answer::AsIs)
        }
        Decision::ApproveWith { arguments } => {
            let edited = format!("approved with the arguments {}", crate::model::truncate(&arguments.to_string()));
            run.decide(Stage::Approval, "person", Outcome::Changed, Some(edited));
            run.approved = true;
            let original = Arc::new(pending.request.clone());
            let mut edited = pending.request;
            edited.raw_arguments = arguments.to_string();
            edited.arguments = None;
            edited.parse_error = None;
            edited.parse_warnings.clear();
            run.original.get_or_insert(original);
            ControlFlow::Continue(Answer::Edited(edited))
        }
        Decision::Deny { reason } => {
            run.decide(Stage::Approval, "person", Outcome::Denied, Some(reason.clone()));
            let message = format!("This call of `{}` was denied: {reason}", pending.request.tool_name);
            let mut request = pending.request;
            request.arguments = Some(pending.arguments);
            request.parse_warnings = pending.warnings;
            ControlFlow::Break(failed(Arc::new(request), run.started, CallFailure::Denied { reason }, message))
        }
    }
}

/// The pending call for a bound request: the request as it arrived, and what extraction read.
pub(crate) fn pending_call(
    received: Option<ToolCallRequest>,
    bound: &ToolCallRequest,
    reasons: Vec<ApprovalReason>,
) -> PendingCall {
    let arguments = match &bound.arguments {
        Some(arguments) => arguments.clone(),
        None => serde_json::from_str(&bound.raw_arguments).unwrap_or(Value::Null),
    };
    let request = received.unwrap_or_else(|| {
        let mut request = bound.clone();
        request.arguments = None;
        request.parse_warnings.clear();
        request
    });
    PendingCall::new(request, arguments, bound.parse_warnings.clone(), reasons)
}

/// The record of a call that needs approval but could not be kept: it did not run, and there
/// is nothing to resume.
fn not_kept(pending: PendingCall, error: &crate::state::StateError, started: Instant) -> ExecutionRecord {
    let message = format!(
        "`{}` needs a person's approval, but the store that keeps pending calls could not be reached, so it \
         was not kept and has not run. Try again in a moment.",
        pending.request.tool_name
    );
    let (crate::state::StateError::Unavailable { store, .. } | crate::state::StateError::Unreadable { store, .. }) =
        error;
    let failure = CallFailure::StateUnavailable { store: (*store).to_owned() };
    let mut request = pending.request;
    request.arguments = Some(pending.arguments);
    request.parse_warnings = pending.warnings;
    failed(Arc::new(request), started, failure, message)
}

/// The record of a call that waits for approval.
fn pending_record(pending: PendingCall, started: Instant) -> ExecutionRecord {
    let message = format!(
        "`{}` waits for a person's approval and has not run ({}).",
        pending.request.tool_name,
        pending.reasons_text()
    );
    let mut request = pending.request.clone();
    request.arguments = Some(pending.arguments.clone());
    request.parse_warnings.clone_from(&pending.warnings);
    ExecutionRecord::waiting(Arc::new(request), pending, ToolOutput::text(message), started.elapsed())
}
