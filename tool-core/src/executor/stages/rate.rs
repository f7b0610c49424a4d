//! Rate limits: a bound call runs only when every limit that covers it has room.

use std::ops::ControlFlow;

use crate::model::duration_words;
use crate::policy::{Outcome, Stage};

use super::super::call::{CallRun, Flow, Go, Held};
use super::super::run::failed;
use super::super::{CallFailure, Executor};

pub(crate) fn admit(executor: &Executor, run: &mut CallRun) -> Flow {
    let rates = &executor.policy.rules.rates;
    let (Held::Bound(prepared), Some(tool)) = (&run.held, &run.tool) else { return ControlFlow::Continue(Go::Next) };
    if rates.is_empty() {
        return ControlFlow::Continue(Go::Next);
    }
    let definition = tool.definition();
    let conversation = prepared.request.conversation_id.as_deref();
    let now = tokio::time::Instant::now().into_std();
    let Err((i, wait)) = executor.policy.state.admit(rates, conversation, definition, now) else {
        return ControlFlow::Continue(Go::Next);
    };
    let limit = rates[i].describe();
    let message = format!(
        "`{}` was not run: its rate limit ({limit}) is reached. Try again in {}.",
        definition.name,
        duration_words(wait)
    );
    run.decide(Stage::RateLimit, limit.as_str(), Outcome::Rejected, Some(message.clone()));
    let retry_after_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
    let failure = CallFailure::RateLimited { limit, retry_after_ms };
    let Held::Bound(prepared) = run.take() else { unreachable!("the call was bound above") };
    ControlFlow::Break(failed(prepared.request, run.started, failure, message))
}
