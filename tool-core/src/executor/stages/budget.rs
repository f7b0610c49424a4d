//! The retry budget: a call refused when its conversation spent it, and every call counted
//! against it at the end, the model told what it has left.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use crate::model::{ErrorKind, ToolCallRequest};
use crate::policy::budget::{Counted, Counting, Spent, Try};
use crate::policy::keys;
use crate::policy::{Outcome, PolicyDecision, Stage};
use crate::state::{Owner, StateError};

use super::super::call::{policy_owner, CallRun, Flow, Go, Held};
use super::super::run::{failed, state_unavailable};
use super::super::{BudgetScope, CallFailure, CallStatus, ExecutionRecord, Executor};

/// Who refuses a call whose budget could not be read, in its record.
const BY: (Stage, &str) = (Stage::RetryBudget, "retry budget");

/// The first stage: the tool looked up, and the call refused when its conversation spent the
/// tool's budget or its own. The conversation's spent flags and counts are read in one batch
/// (kept in the call, for the count at the end); a call without a conversation, or under an
/// unlimited budget, reads nothing.
pub(crate) async fn refuse_spent(executor: &Executor, run: &mut CallRun) -> Flow {
    let Held::Request(request) = &run.held else { return ControlFlow::Continue(Go::Next) };
    if run.tool.is_none() {
        run.tool = executor.catalog.shared(&request.tool_name).cloned();
    }
    run.tally = None;
    let budget = &executor.policy.rules.budget;
    if !budget.in_play() || request.conversation_id.is_none() {
        return ControlFlow::Continue(Go::Next);
    }
    let owner = policy_owner(&mut run.owner, request);
    let tool = run.tool.as_ref().map(|tool| tool.definition().name.as_str());
    let check = budget.check(&owner, tool);
    let store = &executor.store;
    let found = store.count(&check).await.and_then(|found| {
        budget.checked(&check, &found).ok_or_else(|| unreadable(store.kind(), &owner, found.values.len(), &check))
    });
    let refusal = match found {
        Ok(Ok(tally)) => {
            run.tally = Some(tally);
            return ControlFlow::Continue(Go::Next);
        }
        Ok(Err(spent)) => Ok(spent),
        Err(error) => Err(error),
    };
    let Held::Request(request) = run.take() else { unreachable!("the call was a request above") };
    ControlFlow::Break(match refusal {
        Ok(spent) => budget_refusal(request, run.started, spent),
        Err(error) => state_unavailable(Arc::new(request), run.started, store.kind(), error, BY),
    })
}

/// The error of a store that answered a batch with another number of values than it had steps.
fn unreadable(store: &'static str, owner: &Owner, values: usize, batch: &crate::state::Counters) -> StateError {
    StateError::Unreadable {
        store,
        key: owner.key(keys::BUDGET, "*").to_string(),
        reason: format!("{values} values for a batch of {} steps", batch.steps.len()),
    }
}

/// The record of a call refused because its conversation spent a retry budget.
fn budget_refusal(request: ToolCallRequest, started: Instant, spent: Spent) -> ExecutionRecord {
    let (message, failure) = match spent {
        Spent::Tool(tries) => (
            format!(
                "`{}` is not run again in this conversation: it failed {tries} times in a row. Tell the user what \
                 went wrong instead of calling it.",
                request.tool_name
            ),
            CallFailure::BudgetSpent { tries, scope: BudgetScope::Tool },
        ),
        Spent::Conversation(tries) => (
            format!(
                "No tool runs again in this conversation: its tool calls failed {tries} times in a row. Tell the \
                 user what went wrong."
            ),
            CallFailure::BudgetSpent { tries, scope: BudgetScope::Conversation },
        ),
    };
    let mut record = failed(Arc::new(request), started, failure, message.clone());
    record.decisions.push(PolicyDecision::new(Stage::RetryBudget, "retry budget", Outcome::Rejected, Some(message)));
    record
}

/// The last stage: the call counted against the retry budget, and the model told what it
/// has left. A success with nothing counted before it changes nothing in the store; any other
/// count is one batch (a second only when another call of the conversation counted between
/// this call's check and its count, and the spent flags need putting right). When the store
/// cannot be reached the call keeps its record (its tool ran) and is not counted.
pub(crate) async fn settle(executor: &Executor, run: &mut CallRun) -> Flow {
    let record = match &run.held {
        Held::Ended(record) | Held::Ran(record) => record,
        _ => unreachable!("a call is settled once it ended"),
    };
    let budget = &executor.policy.rules.budget;
    let retry = matches!(&record.failure, Some(CallFailure::ToolError { error }) if error.kind() == ErrorKind::Retry);
    let outcome = match &record.failure {
        None if record.status == CallStatus::Success => Try::Succeeded,
        Some(CallFailure::InvalidArguments | CallFailure::UnknownTool { .. } | CallFailure::Rejected { .. }) => {
            Try::Fixable
        }
        _ if retry => Try::Fixable,
        _ => Try::Other,
    };
    let tool = match &record.failure {
        Some(CallFailure::UnknownTool { .. }) => None,
        _ => Some(record.request.tool_name.as_str()),
    };
    let request = &record.request;
    let counting = match (budget.in_play(), &request.conversation_id) {
        (true, Some(_)) => {
            let owner = policy_owner(&mut run.owner, request);
            budget.count(&owner, tool, outcome, run.tally, executor.policy.rules.ttl).map(|counting| (owner, counting))
        }
        _ => None,
    };
    let counted = match counting {
        Some((owner, counting)) => count(executor, &owner, &counting).await,
        None => None,
    };
    let mut record = match run.take() {
        Held::Ended(record) | Held::Ran(record) => record,
        _ => unreachable!("a call is settled once it ended"),
    };
    let name = &record.request.tool_name;
    let note = match counted {
        Some(Counted { spent: Some(Spent::Tool(tries)), .. }) => Some(format!(
            "This was the last try: `{name}` failed {tries} times in a row in this conversation, so it will not run \
             again. Do not call it again; tell the user what went wrong."
        )),
        Some(Counted { spent: Some(Spent::Conversation(tries)), .. }) => Some(format!(
            "This was the last try: the tool calls of this conversation failed {tries} times in a row, so no tool \
             will run again. Do not call tools again; tell the user what went wrong."
        )),
        Some(Counted { tries, spent: None, .. }) if retry => {
            Some(format!("Fix this and call `{name}` again (try {tries} of {}).", budget.per_tool))
        }
        None if retry => Some(format!("Fix this and call `{name}` again.")),
        _ => None,
    };
    if let Some(note) = note {
        if matches!(counted, Some(Counted { spent: Some(_), .. })) {
            record.decisions.push(PolicyDecision::new(
                Stage::RetryBudget,
                "retry budget",
                Outcome::Exhausted,
                Some(note.clone()),
            ));
        }
        record.content.text.push_str("\n\n");
        record.content.text.push_str(&note);
    }
    ControlFlow::Break(record)
}

/// Counts a try in the store: what a failure's count found (`None` after a success, or when
/// the store could not be reached: the call is then not counted, and the log says so).
async fn count(executor: &Executor, owner: &Owner, counting: &Counting) -> Option<Counted> {
    let budget = &executor.policy.rules.budget;
    let store = &executor.store;
    let found = match store.count(&counting.counters).await {
        Ok(found) => found,
        Err(error) => {
            tracing::warn!(target: "tools", store = store.kind(), error = %error, "the call was not counted against the retry budget");
            return None;
        }
    };
    let mut counted = budget.counted(owner, counting, &found)?;
    if let Some(correction) = counted.correction.take()
        && let Err(error) = store.count(&correction).await
    {
        tracing::warn!(target: "tools", store = store.kind(), error = %error, "a spent retry budget's flag was not put right");
    }
    Some(counted)
}
