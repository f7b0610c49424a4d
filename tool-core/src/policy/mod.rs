//! Call policy: what decides whether, when and how often a call the model asked for runs.
//!
//! Between extraction and the tool, and after it, the executor applies the host's policy:
//! a repair hook for calls extraction refused ([`repair`]), input guardrails, approval by a
//! person ([`approval`]: a [`PendingCall`] that serializes and resumes anywhere), rate limits
//! ([`rate`]), the tool itself (a transient failure of an idempotent tool retried with
//! [`Backoff`]), output guardrails ([`guard`]), and the retry budget that ends a model's
//! loop of failing calls ([`budget`]). Each decision is kept in the call's record as a
//! [`PolicyDecision`].

pub mod approval;
pub mod backoff;
pub mod budget;
mod decision;
pub mod guard;
pub mod rate;
pub mod repair;
pub(crate) mod state;

pub use approval::{ApprovalReason, ApprovalRule, Decision, PendingCall};
pub use backoff::Backoff;
pub use budget::RetryBudget;
pub use decision::{Outcome, PolicyDecision, Stage};
pub use guard::{GuardScope, GuardedCall, InputGuardrail, InputVerdict, OutputGuardrail, OutputVerdict};
pub use rate::{RateLimit, RateScope};
pub use repair::{Repair, RepairRequest};
