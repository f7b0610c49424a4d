//! A call's way through the host's policy: the checks before the tool (a spent retry budget,
//! the repair of a refused call, input guardrails, approval, rate limits), the tool run again
//! when it asks for approval or fails transiently, the output guardrails, and the retry
//! budget counted at the end.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::model::{ErrorKind, ToolCallRequest, ToolOutput};
use crate::policy::approval::ApprovalHandler;
use crate::policy::backoff::jitter_random;
use crate::policy::rate::wait_words;
use crate::policy::state::{Spent, Try};
use crate::policy::{
    ApprovalReason, Decision, GuardedCall, InputVerdict, Outcome, OutputVerdict, PendingCall, PolicyDecision,
    RepairRequest, Stage as Step,
};

use super::bind::{binds_off_workers, Executor, Stage};
use super::rules::idempotent;
use super::run::{failed, run, Prepared};
use super::{CallFailure, CallScope, CallStatus, ExecutionRecord};

/// A call that passed every check, ready to run.
pub(super) struct Ready {
    pub(super) prepared: Prepared,
    way: Way,
    /// The request as it arrived, kept when the call may run again (a tool that may ask for
    /// approval, an idempotent tool that may be retried).
    received: Option<ToolCallRequest>,
    /// Whether the call runs alone in its batch.
    pub(super) sequential: bool,
}

/// What the checks found.
pub(super) enum Checked {
    Done(Box<ExecutionRecord>),
    Ready(Box<Ready>),
}

/// What a call carries through the policy.
#[derive(Default)]
pub(super) struct Way {
    decisions: Vec<PolicyDecision>,
    /// The call as the model sent it, when the one that runs differs.
    original: Option<Arc<ToolCallRequest>>,
    /// A person approved it.
    approved: bool,
}

impl Way {
    fn decide(&mut self, stage: Step, by: impl Into<Arc<str>>, outcome: Outcome, message: Option<String>) {
        self.decisions.push(PolicyDecision::new(stage, by, outcome, message));
    }

    /// Puts what the way holds into the record.
    fn into_record(self, mut record: ExecutionRecord) -> ExecutionRecord {
        if !self.decisions.is_empty() {
            let later = std::mem::replace(&mut record.decisions, self.decisions);
            record.decisions.extend(later);
        }
        if record.original.is_none() {
            record.original = self.original;
        }
        record
    }
}

impl Executor {
    /// The checks before the tool runs.
    pub(super) async fn check(
        &self,
        request: ToolCallRequest,
        started: Instant,
        watched: Option<&CancellationToken>,
        approver: Option<&ApprovalHandler>,
        mut way: Way,
    ) -> Checked {
        let rules = &self.policy.rules;
        let tool = self.catalog.shared(&request.tool_name);
        let definition = tool.map(|tool| tool.definition());
        if let Some(spent) = self.policy.state.spent(
            request.conversation_id.as_deref(),
            definition.map(|d| d.name.as_str()),
            &rules.budget,
        ) {
            let record = budget_refusal(request, started, spent);
            return Checked::Done(Box::new(way.into_record(record)));
        }
        let reasons = match definition {
            Some(definition) if !way.approved => self.policy.approval_reasons(definition),
            _ => Vec::new(),
        };
        let keep = !reasons.is_empty() || definition.is_some_and(|d| self.policy.may_run_again(d));
        let received = keep.then(|| request.clone());
        let prepared = match self.bind(request, started, watched).await {
            Stage::Ready(prepared) => prepared,
            Stage::Done(record) => {
                let repairable =
                    matches!(record.failure, Some(CallFailure::InvalidArguments | CallFailure::UnknownTool { .. }));
                return match &rules.repair {
                    Some(repair) if repairable && way.original.is_none() => {
                        Box::pin(self.repair(*record, repair, started, watched, approver, way)).await
                    }
                    _ => Checked::Done(Box::new(way.into_record(*record))),
                };
            }
        };
        let mut prepared = prepared;
        prepared.approved = way.approved;
        if way.approved {
            // The time limit counts from the approval, not from a person's wait for it.
            prepared.counts_from = Instant::now();
        }
        // A bound call's tool is the one looked up above, under the same name.
        let Some(tool) = tool else { unreachable!("a bound call's tool is in the catalog") };
        let definition = tool.definition();
        if rules.input.iter().any(|g| g.scope.covers(definition)) {
            let call = GuardedCall::new(Arc::clone(&prepared.request), Arc::clone(tool));
            way.decisions.reserve(rules.input.len() + rules.output.len());
            for guard in rules.input.iter().filter(|g| g.scope.covers(definition)) {
                let verdict = match guard.guard.check_now(&call) {
                    Some(verdict) => verdict,
                    None => guard.guard.check(&call).await,
                };
                match verdict {
                    InputVerdict::Allow => {
                        way.decide(Step::InputGuardrail, Arc::clone(&guard.name), Outcome::Allowed, None)
                    }
                    InputVerdict::Reject(message) => {
                        way.decide(
                            Step::InputGuardrail,
                            Arc::clone(&guard.name),
                            Outcome::Rejected,
                            Some(message.clone()),
                        );
                        let failure = CallFailure::Rejected { guardrail: guard.name.to_string() };
                        let record = failed(prepared.request, started, CallStatus::Failed, failure, message);
                        return Checked::Done(Box::new(way.into_record(record)));
                    }
                    InputVerdict::StopTurn(message) => {
                        way.decide(
                            Step::InputGuardrail,
                            Arc::clone(&guard.name),
                            Outcome::Stopped,
                            Some(message.clone()),
                        );
                        let call_id = prepared.request.call_id.clone();
                        let failure = CallFailure::TurnStopped { guardrail: guard.name.to_string(), call_id };
                        let record = failed(prepared.request, started, CallStatus::Stopped, failure, message);
                        return Checked::Done(Box::new(way.into_record(record)));
                    }
                }
            }
        }
        if !reasons.is_empty() {
            let pending = pending_call(received.clone(), &prepared.request, reasons);
            match self.ask(pending, approver, started, watched, way).await {
                Answered::Approved(went) => {
                    prepared.approved = true;
                    prepared.counts_from = Instant::now();
                    way = *went;
                }
                Answered::Checked(checked) => return checked,
            }
        }
        if !rules.rates.is_empty() {
            let conversation = prepared.request.conversation_id.as_deref();
            if let Err((i, wait)) =
                self.policy.state.admit(&rules.rates, conversation, definition, tokio::time::Instant::now().into_std())
            {
                let limit = rules.rates[i].describe();
                let message = format!(
                    "`{}` was not run: its rate limit ({limit}) is reached. Try again in {}.",
                    definition.name,
                    wait_words(wait)
                );
                way.decide(Step::RateLimit, limit.as_str(), Outcome::Rejected, Some(message.clone()));
                let retry_after_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
                let failure = CallFailure::RateLimited { limit, retry_after_ms };
                let record = failed(prepared.request, started, CallStatus::Failed, failure, message);
                return Checked::Done(Box::new(way.into_record(record)));
            }
        }
        let sequential = definition.sequential;
        Checked::Ready(Box::new(Ready { prepared, way, received, sequential }))
    }

    /// A person's answer to a pending call: checked again (but for approval) when approved.
    pub(super) async fn resume_checked(
        &self,
        pending: PendingCall,
        decision: Decision,
        started: Instant,
        watched: Option<&CancellationToken>,
    ) -> Checked {
        let request = pending.request.clone();
        // The resumed record tells the whole story: why it waited, then the answer.
        let mut way = Way::default();
        way.decide(Step::Approval, "approval", Outcome::Pending, Some(pending.reasons_text()));
        match self.decided(pending, decision, started, watched, way).await {
            Answered::Approved(way) => Box::pin(self.check(request, started, watched, None, *way)).await,
            Answered::Checked(checked) => checked,
        }
    }

    /// Binds the call's arguments, on the blocking pool when they are large.
    async fn bind(&self, request: ToolCallRequest, started: Instant, watched: Option<&CancellationToken>) -> Stage {
        if binds_off_workers(&request) {
            self.prepare_off_workers(request, watched, started).await
        } else {
            self.prepare(request, started)
        }
    }

    /// Hands a refused call to the host's repair hook, and checks what it made of it instead.
    async fn repair(
        &self,
        record: ExecutionRecord,
        repair: &crate::policy::Repair,
        started: Instant,
        watched: Option<&CancellationToken>,
        approver: Option<&ApprovalHandler>,
        mut way: Way,
    ) -> Checked {
        let refused = Arc::clone(&record.request);
        let suggestions = match &record.failure {
            Some(CallFailure::UnknownTool { suggestions }) => suggestions.clone(),
            _ => Vec::new(),
        };
        let asked = RepairRequest {
            request: (*refused).clone(),
            message: record.content.text.clone(),
            definition: self.catalog.definition(&refused.tool_name).cloned(),
            suggestions,
        };
        let Some(mut repaired) = repair(asked).await else {
            way.decide(Step::Repair, "repair", Outcome::Rejected, Some("the hook made no repair".to_owned()));
            return Checked::Done(Box::new(way.into_record(record)));
        };
        // The repaired call answers the model's: it keeps its id and conversation.
        repaired.call_id.clone_from(&refused.call_id);
        repaired.conversation_id.clone_from(&refused.conversation_id);
        let what = match repaired.tool_name == refused.tool_name {
            true => format!("arguments repaired: {}", crate::model::truncate(&repaired.raw_arguments)),
            false => format!("`{}` repaired as `{}`", crate::model::truncate(&refused.tool_name), repaired.tool_name),
        };
        way.decide(Step::Repair, "repair", Outcome::Changed, Some(what));
        way.original = Some(refused);
        Box::pin(self.check(repaired, started, watched, approver, way)).await
    }

    /// Asks the approver about a pending call; without one, the call's record says pending.
    async fn ask(
        &self,
        pending: PendingCall,
        approver: Option<&ApprovalHandler>,
        started: Instant,
        watched: Option<&CancellationToken>,
        mut way: Way,
    ) -> Answered {
        way.decide(Step::Approval, "approval", Outcome::Pending, Some(pending.reasons_text()));
        let Some(approver) = approver else {
            return Answered::Checked(Checked::Done(Box::new(way.into_record(pending_record(pending, started)))));
        };
        let decision = match watched {
            None => approver(pending.clone()).await,
            Some(watched) => tokio::select! {
                biased;
                () = watched.cancelled() => {
                    let record = failed(Arc::new(pending.request), started, CallStatus::Cancelled, CallFailure::Cancelled, "The call was cancelled while it waited for approval.".to_owned());
                    return Answered::Checked(Checked::Done(Box::new(way.into_record(record))));
                }
                decision = approver(pending.clone()) => decision,
            },
        };
        self.decided(pending, decision, started, watched, way).await
    }

    /// What a person's decision makes of a pending call: the call approved as it is (the
    /// caller runs what it bound), checked again with edited arguments, or denied.
    async fn decided(
        &self,
        pending: PendingCall,
        decision: Decision,
        started: Instant,
        watched: Option<&CancellationToken>,
        mut way: Way,
    ) -> Answered {
        match decision {
            Decision::Approve => {
                way.decide(Step::Approval, "person", Outcome::Approved, None);
                way.approved = true;
                Answered::Approved(Box::new(way))
            }
            Decision::ApproveWith { arguments } => {
                way.decide(
                    Step::Approval,
                    "person",
                    Outcome::Changed,
                    Some(format!("approved with the arguments {}", crate::model::truncate(&arguments.to_string()))),
                );
                way.approved = true;
                let original = Arc::new(pending.request.clone());
                let mut edited = pending.request;
                edited.raw_arguments = arguments.to_string();
                edited.arguments = None;
                edited.parse_error = None;
                edited.parse_warnings.clear();
                way.original.get_or_insert(original);
                Answered::Checked(Box::pin(self.check(edited, started, watched, None, way)).await)
            }
            Decision::Deny { reason } => {
                way.decide(Step::Approval, "person", Outcome::Denied, Some(reason.clone()));
                let message = format!("This call of `{}` was denied: {reason}", pending.request.tool_name);
                let mut request = pending.request;
                request.arguments = Some(pending.arguments);
                request.parse_warnings = pending.warnings;
                let record =
                    failed(Arc::new(request), started, CallStatus::Denied, CallFailure::Denied { reason }, message);
                Answered::Checked(Checked::Done(Box::new(way.into_record(record))))
            }
        }
    }

    /// Runs a checked call to its end: again after a transient failure of an idempotent tool,
    /// or once approved when the tool asked; then its result through the output guardrails.
    pub(super) async fn finish(
        &self,
        ready: Ready,
        watched: Option<CancellationToken>,
        scope: CallScope,
        approver: Option<ApprovalHandler>,
        started: Instant,
    ) -> ExecutionRecord {
        let Ready { mut prepared, mut way, received, .. } = ready;
        let mut retries = 0;
        let record = loop {
            let (approved, counts_from) = (prepared.approved, prepared.counts_from);
            let request = Arc::clone(&prepared.request);
            let record = Box::pin(run(
                prepared,
                Arc::clone(&self.environment),
                watched.clone(),
                scope.clone(),
                started,
                self.reply,
            ))
            .await;
            let error = match &record.failure {
                Some(CallFailure::ToolError { error }) => error,
                _ => break record,
            };
            let Some(definition) = self.catalog.definition(&request.tool_name) else { break record };
            if error.kind() == ErrorKind::ApprovalRequired && !approved {
                let reasons = vec![ApprovalReason::Asked { message: error.message().to_owned() }];
                let pending = pending_call(received.clone(), &request, reasons);
                match self.ask(pending, approver.as_ref(), started, watched.as_ref(), way).await {
                    Answered::Approved(went) => {
                        way = *went;
                        let again = received.clone().unwrap_or_else(|| (*request).clone());
                        match self.prepare(again, started) {
                            Stage::Ready(mut next) => {
                                next.approved = true;
                                next.counts_from = Instant::now();
                                prepared = next;
                                continue;
                            }
                            Stage::Done(record) => return *record,
                        }
                    }
                    Answered::Checked(Checked::Done(record)) => return *record,
                    Answered::Checked(Checked::Ready(ready)) => {
                        return Box::pin(self.finish(*ready, watched, scope, approver, started)).await
                    }
                }
            }
            let backoff = &self.policy.rules.backoff;
            let again = match &received {
                Some(received) if error.kind() == ErrorKind::Transient && idempotent(definition) => received,
                _ => break record,
            };
            if retries >= backoff.max_retries {
                break record;
            }
            retries += 1;
            let wait = backoff.wait(retries, jitter_random());
            let limit = definition.timeout.or(self.timeout);
            if limit.is_some_and(|limit| counts_from.elapsed() + wait >= limit) {
                // The wait would outlast the call's time: the failure stands.
                break record;
            }
            let message = format!("try {} failed: {}; ran again after {}", retries, error.message(), wait_words(wait));
            way.decide(Step::Backoff, "backoff", Outcome::Retried, Some(message));
            let slept = tokio::time::sleep(wait);
            if let Some(watched) = &watched {
                tokio::select! {
                    biased;
                    () = watched.cancelled() => {
                        let record = failed(request, started, CallStatus::Cancelled, CallFailure::Cancelled, "The call was cancelled while it waited to run again.".to_owned());
                        return way.into_record(record);
                    }
                    () = slept => {}
                }
            } else {
                slept.await;
            }
            match self.prepare(again.clone(), started) {
                Stage::Ready(mut next) => {
                    next.approved = approved;
                    next.counts_from = counts_from;
                    prepared = next;
                }
                Stage::Done(record) => break *record,
            }
        };
        let record = self.guard_output(record, &mut way).await;
        way.into_record(record)
    }

    /// The output guardrails, on a successful result.
    async fn guard_output(&self, mut record: ExecutionRecord, way: &mut Way) -> ExecutionRecord {
        if record.status != CallStatus::Success || self.policy.rules.output.is_empty() {
            return record;
        }
        let Some(tool) = self.catalog.shared(&record.request.tool_name) else { return record };
        let definition = tool.definition();
        let call = GuardedCall::new(Arc::clone(&record.request), Arc::clone(tool));
        for guard in self.policy.rules.output.iter().filter(|g| g.scope.covers(definition)) {
            let verdict = match guard.guard.check_now(&call, &record.content) {
                Some(verdict) => verdict,
                None => guard.guard.check(&call, &record.content).await,
            };
            match verdict {
                OutputVerdict::Allow => {
                    way.decide(Step::OutputGuardrail, Arc::clone(&guard.name), Outcome::Allowed, None)
                }
                OutputVerdict::Replace(output) => {
                    way.decide(Step::OutputGuardrail, Arc::clone(&guard.name), Outcome::Replaced, None);
                    let own = std::mem::replace(&mut record.content, output);
                    record.original_output.get_or_insert(Box::new(own));
                }
                OutputVerdict::Reject(message) => {
                    way.decide(
                        Step::OutputGuardrail,
                        Arc::clone(&guard.name),
                        Outcome::Rejected,
                        Some(message.clone()),
                    );
                    let own = std::mem::replace(&mut record.content, ToolOutput::text(message));
                    record.original_output.get_or_insert(Box::new(own));
                    record.status = CallStatus::Failed;
                    record.failure = Some(CallFailure::Rejected { guardrail: guard.name.to_string() });
                    return record;
                }
            }
        }
        record
    }

    /// Counts the call against the retry budget and says to the model what it has left.
    pub(super) fn settle(&self, mut record: ExecutionRecord) -> ExecutionRecord {
        let budget = &self.policy.rules.budget;
        let retry =
            matches!(&record.failure, Some(CallFailure::ToolError { error }) if error.kind() == ErrorKind::Retry);
        let outcome = match &record.failure {
            None if record.status == CallStatus::Success => Try::Succeeded,
            Some(CallFailure::InvalidArguments | CallFailure::UnknownTool { .. } | CallFailure::Rejected { .. }) => {
                Try::Fixable
            }
            _ if retry => Try::Fixable,
            _ => Try::Other,
        };
        let tool = match &record.failure {
            Some(CallFailure::UnknownTool { .. }) => None,
            _ => Some(record.request.tool_name.as_str()),
        };
        let counted = self.policy.state.count(record.request.conversation_id.as_deref(), tool, outcome, budget);
        let name = &record.request.tool_name;
        let note = match counted {
            Some((_, Some(Spent::Tool(tries)))) => Some(format!(
                "This was the last try: `{name}` failed {tries} times in a row in this conversation, so it will not run \
                 again. Do not call it again; tell the user what went wrong."
            )),
            Some((_, Some(Spent::Conversation(tries)))) => Some(format!(
                "This was the last try: the tool calls of this conversation failed {tries} times in a row, so no tool \
                 will run again. Do not call tools again; tell the user what went wrong."
            )),
            Some((count, None)) if retry => {
                Some(format!("Fix this and call `{name}` again (try {count} of {}).", budget.per_tool))
            }
            None if retry => Some(format!("Fix this and call `{name}` again.")),
            _ => None,
        };
        if let Some(note) = note {
            if matches!(counted, Some((_, Some(_)))) {
                record.decisions.push(PolicyDecision::new(
                    Step::RetryBudget,
                    "retry budget",
                    Outcome::Exhausted,
                    Some(note.clone()),
                ));
            }
            record.content.text.push_str("\n\n");
            record.content.text.push_str(&note);
        }
        record
    }
}

/// What asking about a pending call, or a person's decision, came to.
enum Answered {
    /// Approved as it is: the call goes on with what it bound.
    Approved(Box<Way>),
    /// Ended (pending, denied, cancelled), or checked again with edited arguments.
    Checked(Checked),
}

/// The pending call for a bound request: the request as it arrived, and what extraction read.
fn pending_call(
    received: Option<ToolCallRequest>,
    bound: &ToolCallRequest,
    reasons: Vec<ApprovalReason>,
) -> PendingCall {
    let arguments = match &bound.arguments {
        Some(arguments) => arguments.clone(),
        None => serde_json::from_str(&bound.raw_arguments).unwrap_or(Value::Null),
    };
    let request = received.unwrap_or_else(|| {
        let mut request = bound.clone();
        request.arguments = None;
        request.parse_warnings.clear();
        request
    });
    PendingCall::new(request, arguments, bound.parse_warnings.clone(), reasons)
}

/// The record of a call that waits for approval.
pub(super) fn pending_record(pending: PendingCall, started: Instant) -> ExecutionRecord {
    let message = format!(
        "`{}` waits for a person's approval and has not run ({}).",
        pending.request.tool_name,
        pending.reasons_text()
    );
    let mut request = pending.request.clone();
    request.arguments = Some(pending.arguments.clone());
    request.parse_warnings.clone_from(&pending.warnings);
    let mut record = ExecutionRecord::ended(
        Arc::new(request),
        CallStatus::Pending,
        ToolOutput::text(message),
        None,
        started.elapsed(),
    );
    record.pending = Some(Box::new(pending));
    record
}

/// The record of a call refused because its conversation spent a retry budget.
fn budget_refusal(request: ToolCallRequest, started: Instant, spent: Spent) -> ExecutionRecord {
    let (message, failure) = match spent {
        Spent::Tool(tries) => (
            format!(
                "`{}` is not run again in this conversation: it failed {tries} times in a row. Tell the user what \
                 went wrong instead of calling it.",
                request.tool_name
            ),
            CallFailure::BudgetSpent { tries, conversation: false },
        ),
        Spent::Conversation(tries) => (
            format!(
                "No tool runs again in this conversation: its tool calls failed {tries} times in a row. Tell the \
                 user what went wrong."
            ),
            CallFailure::BudgetSpent { tries, conversation: true },
        ),
    };
    let mut record = failed(Arc::new(request), started, CallStatus::Failed, failure, message.clone());
    record.decisions.push(PolicyDecision::new(Step::RetryBudget, "retry budget", Outcome::Rejected, Some(message)));
    record
}
