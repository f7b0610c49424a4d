//! Call policy: what decides whether, when and how often a call the model asked for runs.
//!
//! Between extraction and the tool, and after it, the executor applies the host's policy:
//! a repair hook for calls extraction refused ([`RepairRequest`]), input guardrails
//! ([`InputGuardrail`]), approval by a person ([`ApprovalRule`], [`Decision`]: a
//! [`PendingCall`] that serializes and resumes anywhere), rate limits ([`RateLimit`]), the tool
//! itself (a transient failure of an idempotent tool retried with [`Backoff`]), output
//! guardrails ([`OutputGuardrail`]), and the retry budget that ends a model's loop of failing
//! calls ([`RetryBudget`]). Each decision is kept in the call's record as a
//! [`PolicyDecision`]. What the budget and the limits count between calls lives in the
//! executor's [store](crate::ExecutorBuilder::store), never in the executor. The types live in
//! private files and are named here, at `tool_core::policy::`.

pub(crate) mod approval;
pub(crate) mod backoff;
pub(crate) mod budget;
mod decision;
pub(crate) mod guard;
pub(crate) mod keys;
pub(crate) mod rate;
pub(crate) mod repair;

pub use approval::{ApprovalReason, ApprovalRule, Decision, PendingCall};
pub use backoff::Backoff;
pub use budget::RetryBudget;
pub use decision::{Outcome, PolicyDecision, Stage};
pub use guard::{
    input_async, output_async, GuardScope, GuardedCall, InputGuardrail, InputVerdict, OutputGuardrail, OutputVerdict,
};
pub use rate::{RateLimit, RateScope};
pub use repair::{Repair, RepairRequest};
