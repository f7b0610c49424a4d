//! What a call leaves behind: how it ended, why it failed, what the model reads, and what was
//! cut from its output.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::model::{ToolCallRequest, ToolError, ToolOutput};
use crate::policy::{PendingCall, PolicyDecision};

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallStatus {
    /// The tool ran and returned a result.
    Success,
    /// The call failed: unknown tool, refused arguments, a tool error or a panic.
    Failed,
    /// The tool did not finish in time.
    TimedOut,
    /// The host cancelled the call.
    Cancelled,
    /// The call waits for a person's approval and has not run: it is kept in the executor's
    /// store, and the record's [`pending`](ExecutionRecord::pending) call is what to show and
    /// [resume](crate::Executor::resume), once.
    Pending,
    /// A person denied the call; the model reads their reason.
    Denied,
    /// An input guardrail stopped the turn: neither this call nor any other of its batch ran,
    /// and the host should end the turn rather than hand the results to the model.
    Stopped,
}

/// Why a call did not succeed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallFailure {
    /// No tool has the requested name.
    UnknownTool {
        /// The closest existing names, best first.
        suggestions: Vec<String>,
    },
    /// The arguments were refused and the tool was not called; the reasons are in the
    /// request's `parse_error`.
    InvalidArguments,
    /// The tool returned an error.
    ToolError {
        /// The error, with its [internal detail](ToolError::internal_detail) (which the model
        /// does not read unless the host exposes it), cut to the output limit.
        error: ToolError,
    },
    /// The tool panicked.
    Panicked {
        /// The panic message, for the host: the model reads "The tool failed unexpectedly."
        /// unless [`ExecutorBuilder::expose_error_details`](crate::ExecutorBuilder::expose_error_details) is set.
        message: String,
    },
    /// The tool ran out of time.
    TimedOut {
        /// The limit, in milliseconds.
        after_ms: u64,
    },
    /// The host cancelled the call.
    Cancelled,
    /// A person denied the call.
    Denied {
        /// Their reason, which the model reads.
        reason: String,
    },
    /// A guardrail refused the call's arguments or its result.
    Rejected {
        /// The guardrail's name.
        guardrail: String,
    },
    /// A guardrail stopped the turn (this call's, or another's of the same batch).
    TurnStopped {
        /// The guardrail's name.
        guardrail: String,
        /// The call whose arguments it stopped at.
        call_id: String,
    },
    /// A rate limit had no room for the call.
    RateLimited {
        /// The limit in words: `5 calls per minute per tool`.
        limit: String,
        /// When the limit has room again, in milliseconds.
        retry_after_ms: u64,
    },
    /// The conversation's retry budget for this tool (or for all its tools) was spent by
    /// earlier failing tries; the call was not run.
    BudgetSpent {
        /// The tries the budget allowed.
        tries: u32,
        /// Whose budget was spent: the tool's in this conversation, or the whole
        /// conversation's.
        scope: BudgetScope,
    },
    /// The store the call's state lives in could not be reached (see
    /// [`ExecutorBuilder::store`](crate::ExecutorBuilder::store)): the call did not run, or
    /// (a stateful tool) its state was not read or not kept. Nothing fell back to memory.
    StateUnavailable {
        /// The kind of store: `redis`.
        store: String,
    },
    /// A resumed call that no longer waits, or never waited, under its id for its principal
    /// and conversation: resumed already (by this process or another sharing the store),
    /// expired, or unknown. Nothing ran.
    NotPending {
        /// The pending call's id, as presented.
        id: String,
        /// Why it does not wait.
        reason: NotPendingReason,
    },
    /// A resumed call that differs from the call stored under its id (its tool, call id or
    /// arguments were changed): nothing ran, and the stored call still waits.
    PendingAltered {
        /// The pending call's id.
        id: String,
    },
}

/// Why a resumed call does not wait ([`CallFailure::NotPending`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NotPendingReason {
    /// It was resumed already: a pending call runs once.
    Resumed,
    /// Its time to live ([`ExecutorBuilder::pending_ttl`](crate::ExecutorBuilder::pending_ttl))
    /// passed before it was resumed.
    Expired,
    /// Nothing was kept under its id for its principal and conversation: another principal or
    /// conversation presented it, its id was changed, or the store no longer holds it (a memory
    /// store forgets on a restart and at its bound).
    Unknown,
}

/// Which retry budget a conversation spent ([`CallFailure::BudgetSpent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BudgetScope {
    /// The tool's: its failing tries in a row in this conversation.
    Tool,
    /// The conversation's: the failing tries in a row of all its tools.
    Conversation,
}

impl CallFailure {
    /// The failure of a call whose tool returned `error`: a stateful tool that could not reach
    /// its store says so with the code `state_unavailable` ([`StateError::into_tool_error`](crate::state::StateError::into_tool_error)).
    pub(crate) fn of_tool(error: ToolError) -> CallFailure {
        if error.code() == Some("state_unavailable") {
            let store = error.details().and_then(|details| details["store"].as_str()).unwrap_or("state");
            return CallFailure::StateUnavailable { store: store.to_owned() };
        }
        CallFailure::ToolError { error }
    }

    /// The failure's kind, as its `kind` field in JSON (`unknown_tool`, `invalid_arguments`,
    /// `tool_error`, `timed_out`, ..): the `error.type` of the call's span.
    pub fn kind(&self) -> &'static str {
        match self {
            CallFailure::UnknownTool { .. } => "unknown_tool",
            CallFailure::InvalidArguments => "invalid_arguments",
            CallFailure::ToolError { .. } => "tool_error",
            CallFailure::Panicked { .. } => "panicked",
            CallFailure::TimedOut { .. } => "timed_out",
            CallFailure::Cancelled => "cancelled",
            CallFailure::Denied { .. } => "denied",
            CallFailure::TurnStopped { .. } => "turn_stopped",
            CallFailure::Rejected { .. } => "rejected",
            CallFailure::RateLimited { .. } => "rate_limited",
            CallFailure::BudgetSpent { .. } => "budget_spent",
            CallFailure::StateUnavailable { .. } => "state_unavailable",
            CallFailure::NotPending { .. } => "not_pending",
            CallFailure::PendingAltered { .. } => "pending_altered",
        }
    }

    /// How a call that failed this way ended: the one place a record's
    /// [`status`](ExecutionRecord::status) comes from.
    pub fn status(&self) -> CallStatus {
        match self {
            CallFailure::TimedOut { .. } => CallStatus::TimedOut,
            CallFailure::Cancelled => CallStatus::Cancelled,
            CallFailure::Denied { .. } => CallStatus::Denied,
            CallFailure::TurnStopped { .. } => CallStatus::Stopped,
            CallFailure::UnknownTool { .. }
            | CallFailure::InvalidArguments
            | CallFailure::ToolError { .. }
            | CallFailure::Panicked { .. }
            | CallFailure::Rejected { .. }
            | CallFailure::RateLimited { .. }
            | CallFailure::BudgetSpent { .. }
            | CallFailure::StateUnavailable { .. }
            | CallFailure::NotPending { .. }
            | CallFailure::PendingAltered { .. } => CallStatus::Failed,
        }
    }
}

/// Everything about one call: the request (raw arguments verbatim), how it ended, what the model
/// gets back, the warnings and how long it took.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ExecutionRecord {
    /// The request, with the raw arguments, parse warnings and argument errors.
    pub request: Arc<ToolCallRequest>,
    /// How the call ended: [`Success`](CallStatus::Success) without a failure,
    /// [`Pending`](CallStatus::Pending) with a [`pending`](Self::pending) call, else what the
    /// [`failure`](Self::failure) says ([`CallFailure::status`]).
    pub status: CallStatus,
    /// What the model gets back. On failure: the model-facing message, and the structured
    /// error where there is one.
    pub content: ToolOutput,
    /// Why it did not succeed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<CallFailure>,
    /// Wall-clock time from receipt to record.
    #[serde(serialize_with = "serialize_micros", rename = "duration_us")]
    pub duration: Duration,
    /// What of the tool's output (or error) was cut to the executor's output limit, when
    /// anything was; the content says so too, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_cut: Option<OutputCut>,
    /// The call that waits for approval, when the status is [`CallStatus::Pending`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<Box<PendingCall>>,
    /// What the call policy decided on the way, in order: guardrails, approval, limits,
    /// repairs, retries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<PolicyDecision>,
    /// The call as the model sent it, when the one that ran differs: repaired by the host's
    /// hook, or its arguments edited by the person who approved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original: Option<Arc<ToolCallRequest>>,
    /// The tool's own result, when an output guardrail replaced or refused it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_output: Option<Box<ToolOutput>>,
}

/// How a call's output was cut to [`ExecutorBuilder::max_output_bytes`](crate::ExecutorBuilder::max_output_bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OutputCut {
    /// The limit, in bytes.
    pub limit: usize,
    /// The size in bytes of the text the tool returned (or of its error message), before the
    /// cut.
    pub text_bytes: usize,
    /// The structured result was over the limit and was dropped; the text stands for it.
    pub structured_dropped: bool,
    /// The host-facing metadata was over the limit and was dropped.
    pub metadata_dropped: bool,
    /// How many content blocks ([`ToolOutput::blocks`]) were dropped: the text and the blocks
    /// together are held to the limit, in order, and a block that does not fit in what is left
    /// is dropped whole.
    pub blocks_dropped: usize,
}

fn serialize_micros<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u128(d.as_micros())
}

impl ExecutionRecord {
    /// Whether the model should see this result as an error.
    pub fn is_error(&self) -> bool {
        self.status != CallStatus::Success
    }

    /// The parse warnings of the call.
    pub fn warnings(&self) -> &[crate::model::ParseWarning] {
        &self.request.parse_warnings
    }

    /// The text the model reads.
    pub fn model_text(&self) -> &str {
        &self.content.text
    }

    /// Whether a guardrail stopped the turn: the host ends it instead of handing the results
    /// to the model.
    pub fn stops_turn(&self) -> bool {
        self.status == CallStatus::Stopped
    }

    /// The record of a call whose tool returned `output`.
    pub(crate) fn succeeded(request: Arc<ToolCallRequest>, output: ToolOutput, duration: Duration) -> Self {
        Self::new(request, CallStatus::Success, output, None, duration)
    }

    /// The record of a call that failed as `failure` says, the model reading `content`.
    pub(crate) fn failed(
        request: Arc<ToolCallRequest>,
        failure: CallFailure,
        content: ToolOutput,
        duration: Duration,
    ) -> Self {
        Self::new(request, failure.status(), content, Some(failure), duration)
    }

    /// The record of a call that waits for a person's approval.
    pub(crate) fn waiting(
        request: Arc<ToolCallRequest>,
        pending: PendingCall,
        content: ToolOutput,
        duration: Duration,
    ) -> Self {
        let mut record = Self::new(request, CallStatus::Pending, content, None, duration);
        record.pending = Some(Box::new(pending));
        record
    }

    /// Makes the record a failure: a result refused after the tool ran.
    pub(crate) fn fail(&mut self, failure: CallFailure) {
        self.status = failure.status();
        self.failure = Some(failure);
    }

    fn new(
        request: Arc<ToolCallRequest>,
        status: CallStatus,
        content: ToolOutput,
        failure: Option<CallFailure>,
        duration: Duration,
    ) -> Self {
        ExecutionRecord {
            request,
            status,
            content,
            failure,
            duration,
            output_cut: None,
            pending: None,
            decisions: Vec::new(),
            original: None,
            original_output: None,
        }
    }
}
