//! The tool run: again after a transient failure of an idempotent tool (with the host's
//! backoff), and again once approved when the tool itself asked for approval.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use crate::model::ErrorKind;
use crate::policy::backoff::jitter_random;
use crate::policy::{ApprovalReason, Outcome, Stage};

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::rules::idempotent;
use super::super::run::{failed, run as run_tool};
use super::super::{CallFailure, Executor};
use super::approval::{ask, pending_call, Answer};
use super::bind::bind_now;

pub(crate) async fn run(executor: &Executor, call: &mut CallRun) -> Flow {
    let Held::Bound(mut prepared) = call.take() else { unreachable!("a call runs once it is bound") };
    let mut retries = 0;
    let record = loop {
        let (approved, counts_from) = (prepared.approved, prepared.counts_from);
        let request = Arc::clone(&prepared.request);
        let environment = Arc::clone(&executor.environment);
        let ran =
            run_tool(prepared, environment, call.watched.clone(), call.scope.clone(), call.started, executor.reply);
        let record = Box::pin(ran).await;
        let error = match &record.failure {
            Some(CallFailure::ToolError { error }) => error,
            _ => break record,
        };
        let Some(tool) = call.tool.clone() else { break record };
        let definition = tool.definition();
        if error.kind() == ErrorKind::ApprovalRequired && !approved {
            let reasons = vec![ApprovalReason::Asked { message: error.message().to_owned() }];
            let pending = pending_call(call.received.clone(), &request, reasons);
            match ask(call, pending).await? {
                Answer::Edited(edited) => return call.restart(edited),
                Answer::AsIs => {
                    let again = call.received.clone().unwrap_or_else(|| (*request).clone());
                    let mut next = match bind_now(executor, Some(&tool), again, call.started) {
                        Ok(next) => next,
                        Err(record) => return ControlFlow::Break(*record),
                    };
                    next.approved = true;
                    next.counts_from = Instant::now();
                    prepared = next;
                    continue;
                }
            }
        }
        let backoff = &executor.policy.rules.backoff;
        let retryable = error.kind() == ErrorKind::Transient && idempotent(definition) && call.received.is_some();
        if !retryable || retries >= backoff.max_retries {
            break record;
        }
        retries += 1;
        let wait = backoff.wait(retries, jitter_random());
        let limit = definition.timeout.or(executor.timeout);
        if limit.is_some_and(|limit| counts_from.elapsed() + wait >= limit) {
            // The wait would outlast the call's time: the failure stands.
            break record;
        }
        let words = crate::model::duration_words(wait);
        let message = format!("try {} failed: {}; ran again after {words}", retries, error.message());
        call.decide(Stage::Backoff, "backoff", Outcome::Retried, Some(message));
        let slept = tokio::time::sleep(wait);
        if let Some(watched) = &call.watched {
            tokio::select! {
                biased;
                () = watched.cancelled() => {
                    let message = "The call was cancelled while it waited to run again.".to_owned();
                    return ControlFlow::Break(failed(request, call.started, CallFailure::Cancelled, message));
                }
                () = slept => {}
            }
        } else {
            slept.await;
        }
        let Some(again) = call.received.clone() else { break record };
        match bind_now(executor, Some(&tool), again, call.started) {
            Ok(mut next) => {
                next.approved = approved;
                next.counts_from = counts_from;
                prepared = next;
            }
            Err(record) => break *record,
        }
    };
    call.held = Held::Ran(Box::new(record));
    ControlFlow::Continue(Go::Next)
}
