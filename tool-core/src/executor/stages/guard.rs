//! Input guardrails on a bound call's arguments, before approval and the tool; output
//! guardrails on a successful result, before the model reads it.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::model::ToolOutput;
use crate::policy::{GuardedCall, InputVerdict, Outcome, OutputVerdict, Stage};
use crate::tool::Tool;

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::run::failed;
use super::super::{CallFailure, CallStatus, ExecutionRecord, Executor};

pub(crate) async fn check_input(executor: &Executor, run: &mut CallRun) -> Flow {
    let rules = &executor.policy.rules;
    let (Held::Bound(prepared), Some(tool)) = (&run.held, &run.tool) else { return ControlFlow::Continue(Go::Next) };
    if !rules.input.iter().any(|g| g.scope.covers(tool.definition())) {
        return ControlFlow::Continue(Go::Next);
    }
    let tool = Arc::clone(tool);
    let definition = tool.definition();
    let call = GuardedCall::new(Arc::clone(&prepared.request), Arc::clone(&tool));
    run.decisions.reserve(rules.input.len() + rules.output.len());
    for guard in rules.input.iter().filter(|g| g.scope.covers(definition)) {
        let verdict = match guard.guard.check_now(&call) {
            Some(verdict) => verdict,
            None => guard.guard.check(&call).await,
        };
        let (outcome, failure, message) = match verdict {
            InputVerdict::Allow => {
                run.decide(Stage::InputGuardrail, Arc::clone(&guard.name), Outcome::Allowed, None);
                continue;
            }
            InputVerdict::Reject(message) => {
                (Outcome::Rejected, CallFailure::Rejected { guardrail: guard.name.to_string() }, message)
            }
            InputVerdict::StopTurn(message) => {
                let call_id = call.request().call_id.clone();
                (Outcome::Stopped, CallFailure::TurnStopped { guardrail: guard.name.to_string(), call_id }, message)
            }
        };
        run.decide(Stage::InputGuardrail, Arc::clone(&guard.name), outcome, Some(message.clone()));
        let Held::Bound(prepared) = run.take() else { unreachable!("the call was bound above") };
        return ControlFlow::Break(failed(prepared.request, run.started, failure, message));
    }
    ControlFlow::Continue(Go::Next)
}

/// The output guardrails, on a successful result; the call ends here.
pub(crate) async fn check_output(executor: &Executor, run: &mut CallRun) -> Flow {
    let Held::Ran(record) = run.take() else { unreachable!("the output guardrails follow the run") };
    if record.status != CallStatus::Success || executor.policy.rules.output.is_empty() {
        return ControlFlow::Break(record);
    }
    let Some(tool) = run.tool.clone() else { return ControlFlow::Break(record) };
    // Boxed: the record a guardrail's wait holds stays out of the future of every call.
    ControlFlow::Break(Box::pin(guard_output(executor, run, tool, record)).await)
}

async fn guard_output(
    executor: &Executor,
    run: &mut CallRun,
    tool: Arc<dyn Tool>,
    mut record: ExecutionRecord,
) -> ExecutionRecord {
    let definition = tool.definition();
    let call = GuardedCall::new(Arc::clone(&record.request), Arc::clone(&tool));
    for guard in executor.policy.rules.output.iter().filter(|g| g.scope.covers(definition)) {
        let verdict = match guard.guard.check_now(&call, &record.content) {
            Some(verdict) => verdict,
            None => guard.guard.check(&call, &record.content).await,
        };
        match verdict {
            OutputVerdict::Allow => run.decide(Stage::OutputGuardrail, Arc::clone(&guard.name), Outcome::Allowed, None),
            OutputVerdict::Replace(output) => {
                run.decide(Stage::OutputGuardrail, Arc::clone(&guard.name), Outcome::Replaced, None);
                let own = std::mem::replace(&mut record.content, output);
                record.original_output.get_or_insert(Box::new(own));
            }
            OutputVerdict::Reject(message) => {
                run.decide(Stage::OutputGuardrail, Arc::clone(&guard.name), Outcome::Rejected, Some(message.clone()));
                let own = std::mem::replace(&mut record.content, ToolOutput::text(message));
                record.original_output.get_or_insert(Box::new(own));
                record.fail(CallFailure::Rejected { guardrail: guard.name.to_string() });
                break;
            }
        }
    }
    record
}
