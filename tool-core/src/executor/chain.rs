//! A call's way through the executor: the stages in order, written once here, and the loop
//! that takes a [`CallRun`] through them. Each stage lives in a file of `stages/` named after the
//! policy it applies. Whatever ended a call, its record is settled last.

use std::ops::ControlFlow;

use tracing::Instrument;

use super::call::{CallRun, Go, Held, Step};
use super::stages::{approval, backoff, bind, budget, guard, rate, repair};
use super::Executor;

/// A call's stages, in order.
pub(super) const STAGES: [Step; 9] = [
    Step::Budget,
    Step::Bind,
    Step::Repair,
    Step::InputGuardrails,
    Step::Approval,
    Step::RateLimit,
    Step::Run,
    Step::OutputGuardrails,
    Step::Settle,
];

/// A stage's span, a child of the call's (debug level: a subscriber at info sees the call's
/// span alone): `extract` for the arguments read, `run` for the tool's body, the policy's
/// name for the others.
fn stage_span(step: Step) -> tracing::Span {
    let name = match step {
        Step::Budget => "retry_budget",
        Step::Bind => "extract",
        Step::Repair => "repair",
        Step::InputGuardrails => "input_guardrails",
        Step::Approval => "approval",
        Step::RateLimit => "rate_limit",
        Step::Run => "run",
        Step::OutputGuardrails => "output_guardrails",
        Step::Settle | Step::Done => "settle",
    };
    tracing::debug_span!(target: "tools", "stage", otel.name = name, stage = name)
}

/// Where `step` is in [`STAGES`]; [`Step::Done`] after them all.
fn place(step: Step) -> usize {
    STAGES.iter().position(|&at| at == step).unwrap_or(STAGES.len())
}

/// The stage after `step`.
fn next(step: Step) -> Step {
    STAGES.get(place(step) + 1).copied().unwrap_or(Step::Done)
}

/// Takes `run` through its stages, from where it is, until it reaches `until` or ends. A call
/// that ends before [`Step::Settle`] keeps its record unsettled when `until` comes first: a
/// batch settles its calls' records once every call was checked.
pub(super) async fn advance(run: &mut CallRun, executor: &Executor, until: Step) {
    while place(run.at) < place(until) {
        if run.at == Step::Done {
            return;
        }
        let span = stage_span(run.at);
        let flow = async {
            match run.at {
                Step::Budget => budget::refuse_spent(executor, run).await,
                Step::Bind => bind::bind(executor, run).await,
                Step::Repair => repair::repair(executor, run).await,
                Step::InputGuardrails => guard::check_input(executor, run).await,
                Step::Approval => approval::approve(executor, run).await,
                Step::RateLimit => rate::admit(executor, run).await,
                Step::Run => backoff::run(executor, run).await,
                Step::OutputGuardrails => guard::check_output(executor, run).await,
                // `Done` returned above.
                Step::Settle | Step::Done => budget::settle(executor, run).await,
            }
        }
        .instrument(span)
        .await;
        match flow {
            ControlFlow::Continue(Go::Next) => run.at = next(run.at),
            ControlFlow::Continue(Go::To(step)) => run.at = step,
            ControlFlow::Break(record) => {
                let record = run.close(record);
                run.held = Held::Ended(record);
                run.at = match run.at {
                    Step::Settle => Step::Done,
                    _ => Step::Settle,
                };
            }
        }
    }
}
