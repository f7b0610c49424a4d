//! The host's repair hook: a call extraction refused (arguments not accepted, no tool of that
//! name) handed to it once, and what it makes of the call checked again from the start.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::policy::{Outcome, RepairRequest, Stage};

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::{CallFailure, Executor};

/// A refused call goes to the hook; a bound one goes on.
pub(crate) async fn repair(executor: &Executor, run: &mut CallRun) -> Flow {
    if !matches!(run.held, Held::Refused(_)) {
        return ControlFlow::Continue(Go::Next);
    }
    let Held::Refused(record) = run.take() else { unreachable!("the call was refused above") };
    // The bind stage hands a call on refused only when the host has a hook.
    let Some(hook) = executor.policy.rules.repair.as_ref() else { return ControlFlow::Break(*record) };
    let refused = Arc::clone(&record.request);
    let suggestions = match &record.failure {
        Some(CallFailure::UnknownTool { suggestions }) => suggestions.clone(),
        _ => Vec::new(),
    };
    let asked = RepairRequest {
        request: (*refused).clone(),
        message: record.content.text.clone(),
        definition: executor.catalog.definition(&refused.tool_name).cloned(),
        suggestions,
    };
    let Some(mut repaired) = hook(asked).await else {
        run.decide(Stage::Repair, "repair", Outcome::Rejected, Some("the hook made no repair".to_owned()));
        return ControlFlow::Break(*record);
    };
    // The repaired call answers the model's: it keeps its id and conversation.
    repaired.call_id.clone_from(&refused.call_id);
    repaired.conversation_id.clone_from(&refused.conversation_id);
    let what = match repaired.tool_name == refused.tool_name {
        true => format!("arguments repaired: {}", crate::model::truncate(&repaired.raw_arguments)),
        false => format!("`{}` repaired as `{}`", crate::model::truncate(&refused.tool_name), repaired.tool_name),
    };
    run.decide(Stage::Repair, "repair", Outcome::Changed, Some(what));
    run.original = Some(refused);
    run.restart(repaired)
}

/// Whether a call refused this way may be repaired: once, by the host's hook.
pub(crate) fn repairable(executor: &Executor, run: &CallRun, failure: Option<&CallFailure>) -> bool {
    executor.policy.rules.repair.is_some()
        && run.original.is_none()
        && matches!(failure, Some(CallFailure::InvalidArguments | CallFailure::UnknownTool { .. }))
}
