//! The stages of a call's way ([`STAGES`](super::chain::STAGES) gives their order), each in
//! the file of the policy it applies: the retry budget, before and at the end (`budget.rs`);
//! the tool looked up and the arguments read (`bind.rs`); the host's repair hook
//! (`repair.rs`); input and output guardrails (`guard.rs`); approval by a person
//! (`approval.rs`); rate limits (`rate.rs`); the tool run, again after a transient failure
//! (`backoff.rs`).

pub(super) mod approval;
pub(super) mod backoff;
pub(super) mod bind;
pub(super) mod budget;
pub(super) mod guard;
pub(super) mod rate;
pub(super) mod repair;
