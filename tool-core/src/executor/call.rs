//! A call on its way through the executor: one value, [`CallRun`], that the stages of
//! `stages/` take in turn (`chain.rs` gives their order), each returning a [`Flow`]: go on (to
//! the next stage, or back to an earlier one when the call changed), or end with a record.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::model::ToolCallRequest;
use crate::policy::approval::ApprovalHandler;
use crate::policy::budget::Tally;
use crate::policy::{keys, ApprovalReason, Decision, Outcome, PendingCall, PolicyDecision, Stage};
use crate::state::Owner;
use crate::tool::Tool;

use super::run::Prepared;
use super::{CallScope, ExecutionRecord};

/// Where a call is on its way (in the order of [`STAGES`](super::chain::STAGES)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// A spent retry budget refuses the call before anything else.
    Budget,
    /// The tool looked up and the arguments read.
    Bind,
    /// The host's hook given a call extraction refused.
    Repair,
    /// The input guardrails, on the bound arguments.
    InputGuardrails,
    /// A person's approval, asked or (for a resumed call) given.
    Approval,
    /// The rate limits.
    RateLimit,
    /// The tool run, again after a transient failure or once the approval it asked for came.
    Run,
    /// The output guardrails, on a successful result.
    OutputGuardrails,
    /// The retry budget counted, and what is left said to the model.
    Settle,
    /// Settled: the record is final.
    Done,
}

/// What a stage says of the call: go on, or end it with this record.
pub(super) type Flow = ControlFlow<ExecutionRecord, Go>;

/// Where a call goes on.
pub(super) enum Go {
    /// To the next stage.
    Next,
    /// Back to an earlier stage: the call changed (repaired, its arguments edited by the
    /// person who approved it, or approved on resumption) and is checked again from there.
    To(Step),
}

/// What the call is at this point of its way.
// One per call, moved in place from variant to variant: boxing the request would cost every
// call an allocation to save bytes nobody copies.
#[allow(clippy::large_enum_variant)]
pub(super) enum Held {
    /// Not bound yet: the request as it stands.
    Request(ToolCallRequest),
    /// Bound, ready to run.
    Bound(Prepared),
    /// Refused by extraction, for the repair stage to look at.
    Refused(Box<ExecutionRecord>),
    /// The tool's result, for the output guardrails.
    Ran(ExecutionRecord),
    /// Ended: the record, settled once the run reaches [`Step::Done`].
    Ended(ExecutionRecord),
    /// Between two stages' hands.
    Moving,
}

/// One call on its way: what it is now, and what it carries from stage to stage.
pub(super) struct CallRun {
    pub(super) at: Step,
    pub(super) held: Held,
    /// The tool of the call's name as it stands, looked up once per name.
    pub(super) tool: Option<Arc<dyn Tool>>,
    /// When the call was received: its record's duration counts from it.
    pub(super) started: Instant,
    /// The host's cancellation, a child of its token.
    pub(super) watched: Option<CancellationToken>,
    /// Who answers a call that needs approval: the scope's, else the executor's.
    pub(super) approver: Option<ApprovalHandler>,
    /// What the running tool reports to and asks of its caller.
    pub(super) scope: CallScope,
    /// What the policy decided so far, in order.
    pub(super) decisions: Vec<PolicyDecision>,
    /// The call as the model sent it, when the one that goes on differs.
    pub(super) original: Option<Arc<ToolCallRequest>>,
    /// A person approved the call.
    pub(super) approved: bool,
    /// Why the call waits for a person, as its tool and the executor's rules say: read when it
    /// is bound, asked about at the approval stage.
    pub(super) reasons: Vec<ApprovalReason>,
    /// The request as it arrived, kept when the call may run again (a tool that may ask for
    /// approval, an idempotent tool that may be retried).
    pub(super) received: Option<Box<ToolCallRequest>>,
    /// A person's answer to a pending call, for the approval stage of a resumed call.
    pub(super) answer: Option<Box<(PendingCall, Decision)>>,
    /// What the retry budget's check read of the conversation, for the count at the end.
    pub(super) tally: Option<Tally>,
    /// Who owns the call's policy values in the store, made once for the stages that need it
    /// (the budget's check, the rate limits, the count): their keys share its ids.
    pub(super) owner: Option<Owner>,
}

/// Who owns the policy values of the call of `request` (the call a run holds), made once per
/// run in `made` (its `owner`).
pub(super) fn policy_owner(made: &mut Option<Owner>, request: &ToolCallRequest) -> Owner {
    made.get_or_insert_with(|| keys::owner(request.principal.as_deref(), request.conversation_id.as_deref())).clone()
}

impl CallRun {
    /// A new call, from the first stage.
    pub(super) fn new(request: ToolCallRequest, started: Instant, watched: Option<CancellationToken>) -> Self {
        CallRun {
            at: Step::Budget,
            held: Held::Request(request),
            tool: None,
            started,
            watched,
            approver: None,
            scope: CallScope::default(),
            decisions: Vec::new(),
            original: None,
            approved: false,
            reasons: Vec::new(),
            received: None,
            answer: None,
            tally: None,
            owner: None,
        }
    }

    /// A call a person answered: it enters the chain at the approval stage.
    pub(super) fn resumed(
        pending: PendingCall,
        decision: Decision,
        started: Instant,
        watched: Option<CancellationToken>,
    ) -> Self {
        let mut run = CallRun::new(pending.request.clone(), started, watched);
        run.at = Step::Approval;
        run.answer = Some(Box::new((pending, decision)));
        run
    }

    pub(super) fn decide(&mut self, stage: Stage, by: impl Into<Arc<str>>, outcome: Outcome, message: Option<String>) {
        self.decisions.push(PolicyDecision::new(stage, by, outcome, message));
    }

    /// Takes what the call is, leaving it moving.
    pub(super) fn take(&mut self) -> Held {
        std::mem::replace(&mut self.held, Held::Moving)
    }

    /// The call goes on as `request` (repaired, or edited by the person who approved it),
    /// checked again from the first stage.
    pub(super) fn restart(&mut self, request: ToolCallRequest) -> Flow {
        self.held = Held::Request(request);
        self.tool = None;
        self.owner = None;
        ControlFlow::Continue(Go::To(Step::Budget))
    }

    /// The record of the call's end, with what the policy decided on its way before the
    /// decisions the record took itself.
    pub(super) fn close(&mut self, mut record: ExecutionRecord) -> ExecutionRecord {
        if !self.decisions.is_empty() {
            let later = std::mem::replace(&mut record.decisions, std::mem::take(&mut self.decisions));
            record.decisions.extend(later);
        }
        if record.original.is_none() {
            record.original = self.original.take();
        }
        record
    }

    /// The record, once the call has ended (settled or not).
    pub(super) fn ended(&self) -> Option<&ExecutionRecord> {
        match &self.held {
            Held::Ended(record) => Some(record),
            _ => None,
        }
    }

    /// The settled record; `None` before the call reached [`Step::Done`].
    pub(super) fn into_record(self) -> Option<ExecutionRecord> {
        match (self.at, self.held) {
            (Step::Done, Held::Ended(record)) => Some(record),
            _ => None,
        }
    }
}
