//! The host's call policy as the executor holds it: what the builder was given. What it
//! counts between calls lives in the executor's store.

use std::sync::Arc;
use std::time::Duration;

use crate::model::{Approval, ToolDefinition};
use crate::policy::approval::ApprovalHandler;
use crate::policy::guard::Scoped;
use crate::policy::{
    ApprovalReason, ApprovalRule, Backoff, InputGuardrail, OutputGuardrail, RateLimit, Repair, RetryBudget,
};

/// Everything the executor decides calls by, besides running them.
#[derive(Clone)]
pub(super) struct Rules {
    pub(super) approval: Vec<ApprovalRule>,
    pub(super) approver: Option<ApprovalHandler>,
    pub(super) input: Vec<Scoped<dyn InputGuardrail>>,
    pub(super) output: Vec<Scoped<dyn OutputGuardrail>>,
    pub(super) rates: Vec<RateLimit>,
    pub(super) budget: RetryBudget,
    pub(super) backoff: Backoff,
    pub(super) repair: Option<Repair>,
    /// How long the retry budget's counts live after their last change.
    pub(super) ttl: Duration,
}

/// The default of [`ExecutorBuilder::policy_ttl`](super::ExecutorBuilder::policy_ttl): an hour.
pub(super) const DEFAULT_POLICY_TTL: Duration = Duration::from_secs(3600);

impl Default for Rules {
    fn default() -> Self {
        Rules {
            approval: Vec::new(),
            approver: None,
            input: Vec::new(),
            output: Vec::new(),
            rates: Vec::new(),
            budget: RetryBudget::default(),
            backoff: Backoff::default(),
            repair: None,
            ttl: DEFAULT_POLICY_TTL,
        }
    }
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names =
            |guards: &[Scoped<dyn InputGuardrail>]| guards.iter().map(|g| g.name.to_string()).collect::<Vec<_>>();
        f.debug_struct("Rules")
            .field("approval", &self.approval)
            .field("approver", &self.approver.is_some())
            .field("input", &names(&self.input))
            .field("output", &self.output.iter().map(|g| &*g.name).collect::<Vec<_>>())
            .field("rates", &self.rates)
            .field("budget", &self.budget)
            .field("backoff", &self.backoff)
            .field("repair", &self.repair.is_some())
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// The rules, shared by an executor's clones.
#[derive(Debug)]
pub(super) struct Policy {
    pub(super) rules: Rules,
}

impl Policy {
    pub(super) fn new(rules: Rules) -> Arc<Self> {
        Arc::new(Policy { rules })
    }

    /// Why a call of `definition` waits for a person before it runs, as far as its tool and
    /// the executor's rules say (a tool deciding from the arguments asks once it runs); none
    /// when it needs no approval.
    pub(super) fn approval_reasons(&self, definition: &ToolDefinition) -> Vec<ApprovalReason> {
        let declared = (definition.approval == Approval::Always).then_some(ApprovalReason::Declared);
        let rules = self.rules.approval.iter().filter(|rule| rule.applies(definition));
        declared.into_iter().chain(rules.map(|rule| ApprovalReason::Rule { rule: rule.name().to_owned() })).collect()
    }

    /// Whether a call of `definition` may be run again (after a transient failure) or asked
    /// about once it started, so that the request as it arrived must be kept.
    pub(super) fn may_run_again(&self, definition: &ToolDefinition) -> bool {
        !definition.approval.is_never() || (self.rules.backoff.max_retries > 0 && idempotent(definition))
    }
}

/// Whether running a call of `definition` twice does what running it once does.
pub(super) fn idempotent(definition: &ToolDefinition) -> bool {
    definition.annotations.idempotent == Some(true) || definition.annotations.read_only == Some(true)
}
