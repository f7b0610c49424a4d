//! The retry budget: a call refused when its conversation spent it, and every call counted
//! against it at the end, the model told what it has left.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use crate::model::{ErrorKind, ToolCallRequest};
use crate::policy::state::{Spent, Try};
use crate::policy::{Outcome, PolicyDecision, Stage};

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::run::failed;
use super::super::{BudgetScope, CallFailure, CallStatus, ExecutionRecord, Executor};

/// The first stage: the tool looked up, and the call refused when its conversation spent the
/// tool's budget or its own.
pub(crate) fn refuse_spent(executor: &Executor, run: &mut CallRun) -> Flow {
    let Held::Request(request) = &run.held else { return ControlFlow::Continue(Go::Next) };
    if run.tool.is_none() {
        run.tool = executor.catalog.shared(&request.tool_name).cloned();
    }
    let tool = run.tool.as_ref().map(|tool| tool.definition().name.as_str());
    let budget = &executor.policy.rules.budget;
    match executor.policy.state.spent(request.conversation_id.as_deref(), tool, budget) {
        None => ControlFlow::Continue(Go::Next),
        Some(spent) => {
            let Held::Request(request) = run.take() else { unreachable!("the call was a request above") };
            ControlFlow::Break(budget_refusal(request, run.started, spent))
        }
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
/// has left.
pub(crate) fn settle(executor: &Executor, run: &mut CallRun) -> Flow {
    let mut record = match run.take() {
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
    let counted = executor.policy.state.count(record.request.conversation_id.as_deref(), tool, outcome, budget);
    let name = &record.request.tool_name;
    let note = match counted {
        Some((_, Some(Spent::Tool(tries)))) => Some(format!(
            "This was the last try: `{name}` failed {tries} times in a row in this conversation, so it will not run \
             again. Do not call it again; tell the user what went wrong."
        )),
        Some((_, Some(Spent::Conversation(tries)))) => Some(format!(
            "This was the last try: the tool calls of this conversation failed {tries} times in a row, so no tool \
             will run again. Do not call tools again; tell the user what went wrong."
        )),
        Some((count, None)) if retry => {
            Some(format!("Fix this and call `{name}` again (try {count} of {}).", budget.per_tool))
        }
        None if retry => Some(format!("Fix this and call `{name}` again.")),
        _ => None,
    };
    if let Some(note) = note {
        if matches!(counted, Some((_, Some(_)))) {
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
