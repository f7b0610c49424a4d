//! Rate limits: a bound call runs only when every limit that covers it has room, its places
//! taken in one batch on the executor's store (none when one limit is full).

use std::ops::ControlFlow;

use crate::model::duration_words;
use crate::policy::rate::{admission, covering};
use crate::policy::{Outcome, Stage};
use crate::state::StateError;

use super::super::call::{policy_owner, CallRun, Flow, Go, Held};
use super::super::run::{failed, state_unavailable};
use super::super::{CallFailure, Executor};

pub(crate) async fn admit(executor: &Executor, run: &mut CallRun) -> Flow {
    let rates = &executor.policy.rules.rates;
    let (Held::Bound(prepared), Some(tool)) = (&run.held, &run.tool) else { return ControlFlow::Continue(Go::Next) };
    if rates.is_empty() || run.scope.admitted {
        return ControlFlow::Continue(Go::Next);
    }
    let definition = tool.definition();
    let request = &prepared.request;
    let owner = policy_owner(&mut run.owner, request);
    let Some(cells) = admission(rates, &owner, definition) else { return ControlFlow::Continue(Go::Next) };
    let store = &executor.store;
    let refused = store.count(&cells).await.and_then(|found| {
        match found.refused {
            None if found.values.len() == cells.steps.len() => Ok(None),
            Some((step, wait)) => match covering(rates, definition).nth(step) {
                Some(i) => Ok(Some((i, wait))),
                None => Err(format!("a refusal at step {step} of a batch of {}", cells.steps.len())),
            },
            None => Err(format!("{} values for a batch of {} steps", found.values.len(), cells.steps.len())),
        }
        .map_err(|reason| StateError::Unreadable {
            store: store.kind(),
            key: cells.steps[0].0.to_string(),
            reason,
        })
    });
    let (i, wait) = match refused {
        Ok(None) => return ControlFlow::Continue(Go::Next),
        Ok(Some(refused)) => refused,
        Err(error) => {
            let Held::Bound(prepared) = run.take() else { unreachable!("the call was bound above") };
            let by = (Stage::RateLimit, "rate limits");
            return ControlFlow::Break(state_unavailable(prepared.request, run.started, store.kind(), error, by));
        }
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
