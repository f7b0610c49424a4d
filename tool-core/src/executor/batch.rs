//! A batch of calls: every call checked first, so that a guardrail's stop halts the turn
//! before any of its calls runs; then the calls run concurrently, up to the executor's bound,
//! a sequential tool's call alone; the records in request order.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::model::ToolCallRequest;

use super::call::{CallRun, Held, Step};
use super::chain::advance;
use super::log::{call_span, log_record};
use super::run::{failed, lost};
use super::stages::bind::binds_off_workers;
use super::{CallFailure, CallScope, ExecutionRecord, Executor};

/// One call of a batch: on its way, ended, or still out on a task.
enum Slot {
    Checked(Box<CallRun>, tracing::Span),
    Done(Box<ExecutionRecord>),
    Running(Arc<ToolCallRequest>, Instant),
}

pub(super) async fn run_batch(
    executor: &Executor,
    requests: Vec<ToolCallRequest>,
    scope: CallScope,
) -> Vec<ExecutionRecord> {
    let (scope, approver) = executor.scoped(scope);
    let cancel = scope.cancel.clone();
    let begin = |request: ToolCallRequest| {
        let span = call_span(&request, executor);
        let mut run = CallRun::new(request, Instant::now(), cancel.as_ref().map(CancellationToken::child_token));
        run.approver.clone_from(&approver);
        run.scope = scope.clone();
        (Box::new(run), span)
    };
    // First every call's checks, each in its own task when the checks may wait.
    let checked = match checks_wait(executor, &requests) {
        true => check_apart(executor, requests, begin).await,
        false => check_in_turn(executor, requests, begin).await,
    };
    let stop = turn_stop(&checked);
    let mut slots: Vec<Slot> = Vec::with_capacity(checked.len());
    let mut task_index = HashMap::new();
    let permits = Arc::new(Semaphore::new(executor.concurrency));
    let mut tasks = JoinSet::new();
    for (i, slot) in checked.into_iter().enumerate() {
        let (run, span) = match slot {
            Slot::Checked(run, span) => (run, span),
            done => {
                slots.push(done);
                continue;
            }
        };
        let (mut run, span, request) = match not_run(executor, run, span, stop.as_ref()).await {
            Ok(done) => {
                slots.push(done);
                continue;
            }
            Err(going) => going,
        };
        let sequential = run.tool.as_ref().is_some_and(|tool| tool.definition().sequential);
        if sequential {
            // Alone: the calls before it end first, and it ends before the next starts.
            join_into(&mut tasks, &mut slots, &task_index, "task", ended).await;
        }
        slots.push(Slot::Running(request, run.started));
        // The semaphore is never closed, so a permit always comes.
        let permit = Arc::clone(&permits).acquire_owned().await.ok();
        let executor = executor.clone();
        let task = async move {
            advance(&mut run, &executor, Step::Done).await;
            let Some(record) = run.into_record() else { unreachable!("a call taken to its end has its record") };
            log_record(&record, &executor);
            drop(permit);
            (i, record)
        };
        task_index.insert(tasks.spawn(task.instrument(span)).id(), i);
        if sequential {
            join_into(&mut tasks, &mut slots, &task_index, "task", ended).await;
        }
    }
    join_into(&mut tasks, &mut slots, &task_index, "task", ended).await;
    slots
        .into_iter()
        .map(|slot| match slot {
            Slot::Done(record) => *record,
            Slot::Running(request, started) => {
                lost(request, started, "the call's task ended without a result".to_owned())
            }
            Slot::Checked(..) => unreachable!("every checked call was started or ended"),
        })
        .collect()
}

/// The slot of a checked call that does not run: its settled record when it ended, or the
/// record of a call the turn's stop kept from running; else the call goes on, with its span and
/// its bound request.
async fn not_run(
    executor: &Executor,
    mut run: Box<CallRun>,
    span: tracing::Span,
    stop: Option<&(String, String)>,
) -> Result<Slot, (Box<CallRun>, tracing::Span, Arc<ToolCallRequest>)> {
    if run.ended().is_some() {
        advance(&mut run, executor, Step::Done).instrument(span.clone()).await;
        let Some(record) = run.into_record() else { unreachable!("a settled call has its record") };
        span.in_scope(|| log_record(&record, executor));
        return Ok(Slot::Done(Box::new(record)));
    }
    let Held::Bound(prepared) = &run.held else { unreachable!("a checked call that did not end is bound") };
    let request = Arc::clone(&prepared.request);
    let Some((guardrail, call_id)) = stop else { return Err((run, span, request)) };
    let message =
        format!("The turn was stopped by the guardrail `{guardrail}` at the call `{call_id}`; this call did not run.");
    let failure = CallFailure::TurnStopped { guardrail: guardrail.clone(), call_id: call_id.clone() };
    let record = failed(request, run.started, failure, message);
    span.in_scope(|| log_record(&record, executor));
    Ok(Slot::Done(Box::new(record)))
}

/// The checks of a batch's calls, one after the other, in request order.
async fn check_in_turn(
    executor: &Executor,
    requests: Vec<ToolCallRequest>,
    begin: impl Fn(ToolCallRequest) -> (Box<CallRun>, tracing::Span),
) -> Vec<Slot> {
    let mut slots = Vec::with_capacity(requests.len());
    for request in requests {
        let (mut run, span) = begin(request);
        advance(&mut run, executor, Step::Run).instrument(span.clone()).await;
        slots.push(Slot::Checked(run, span));
    }
    slots
}

/// The guardrail that stopped the turn, and the call it stopped at, when one did.
fn turn_stop(checked: &[Slot]) -> Option<(String, String)> {
    checked.iter().find_map(|slot| match slot {
        Slot::Checked(run, _) => match run.ended().map(|record| &record.failure) {
            Some(Some(CallFailure::TurnStopped { guardrail, call_id })) => Some((guardrail.clone(), call_id.clone())),
            _ => None,
        },
        _ => None,
    })
}

/// Whether a batch's checks may wait (guardrails, a repair hook or an approver that may be
/// async, arguments read on the blocking pool), so that they run in tasks of their own.
fn checks_wait(executor: &Executor, requests: &[ToolCallRequest]) -> bool {
    let rules = &executor.policy.rules;
    rules.input.iter().any(|g| g.guard.waits())
        || rules.repair.is_some()
        || rules.approver.is_some()
        || requests.iter().any(binds_off_workers)
}

/// The checks of a batch's calls, each in its own task (at most the batch's concurrency at
/// once); in request order.
async fn check_apart(
    executor: &Executor,
    requests: Vec<ToolCallRequest>,
    begin: impl Fn(ToolCallRequest) -> (Box<CallRun>, tracing::Span),
) -> Vec<Slot> {
    let mut slots: Vec<Slot> = Vec::with_capacity(requests.len());
    let mut index = HashMap::new();
    let permits = Arc::new(Semaphore::new(executor.concurrency));
    let mut tasks = JoinSet::new();
    for (i, request) in requests.into_iter().enumerate() {
        slots.push(Slot::Running(Arc::new(request.clone()), Instant::now()));
        let (mut run, span) = begin(request);
        let permit = Arc::clone(&permits).acquire_owned().await.ok();
        let executor = executor.clone();
        let task_span = span.clone();
        let task = async move {
            advance(&mut run, &executor, Step::Run).await;
            drop(permit);
            (i, (run, task_span))
        };
        index.insert(tasks.spawn(task.instrument(span)).id(), i);
    }
    join_into(&mut tasks, &mut slots, &index, "checks", |(run, span), _| Slot::Checked(run, span)).await;
    slots
}

/// The slot of a call whose task gave its record.
fn ended(record: ExecutionRecord, _: Instant) -> Slot {
    Slot::Done(Box::new(record))
}

/// Waits for every task of a batch, putting what each gave in its slot (`place` is given the
/// time the call was received); a task that ended abnormally leaves the record of a lost call,
/// saying what it was doing (`doing`: "task", "checks").
async fn join_into<T: 'static>(
    tasks: &mut JoinSet<(usize, T)>,
    slots: &mut [Slot],
    index: &HashMap<tokio::task::Id, usize>,
    doing: &str,
    place: impl Fn(T, Instant) -> Slot,
) {
    while let Some(joined) = tasks.join_next_with_id().await {
        let (i, outcome) = match joined {
            Ok((_, (i, given))) => (i, Ok(given)),
            Err(error) => match index.get(&error.id()) {
                Some(&i) => (i, Err(error)),
                None => continue,
            },
        };
        let Slot::Running(request, started) = &slots[i] else { continue };
        slots[i] = match outcome {
            Ok(given) => place(given, *started),
            Err(error) => {
                let message = format!("the call's {doing} ended abnormally: {error}");
                Slot::Done(Box::new(lost(Arc::clone(request), *started, message)))
            }
        };
    }
}
