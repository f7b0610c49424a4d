//! What the policy decided about a call, kept in its record.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Where in a call's way a decision was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stage {
    /// The host's repair hook, for a call extraction refused.
    Repair,
    /// An input guardrail, after extraction and before the tool.
    InputGuardrail,
    /// Approval by a person.
    Approval,
    /// A rate limit.
    RateLimit,
    /// A transient failure of an idempotent tool, run again after a wait.
    Backoff,
    /// An output guardrail, on the tool's result.
    OutputGuardrail,
    /// The retry budget: how many failing tries in a row a conversation has left.
    RetryBudget,
}

/// What was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The call went on.
    Allowed,
    /// The call was refused; the model reads why.
    Rejected,
    /// The whole turn was stopped.
    Stopped,
    /// The result was replaced.
    Replaced,
    /// The call was changed: repaired, or its arguments edited by the approver.
    Changed,
    /// The call waits for a person.
    Pending,
    /// A person approved the call.
    Approved,
    /// A person denied the call.
    Denied,
    /// The call was run again.
    Retried,
    /// The budget is spent: the failure is final.
    Exhausted,
}

/// One decision of the policy about a call, in the order they were taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PolicyDecision {
    /// Where it was taken.
    pub stage: Stage,
    /// Who took it: the guardrail's or limit's name, the approval rule, `repair`, `backoff`.
    pub by: Arc<str>,
    /// What was decided.
    pub outcome: Outcome,
    /// What was said: the message the model reads, the reason for a person, the error that
    /// was retried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl PolicyDecision {
    pub(crate) fn new(stage: Stage, by: impl Into<Arc<str>>, outcome: Outcome, message: Option<String>) -> Self {
        PolicyDecision { stage, by: by.into(), outcome, message }
    }
}
