//! What a caller attaches to one call (cancellation, progress, logs, answers to the tool's
//! questions), and the executor's own answerers.

use std::future::Future;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::ask::{
    elicitation_handler, sampling_handler, ElicitationAnswer, ElicitationHandler, ElicitationRequest, SamplingHandler,
    SamplingRequest, SamplingResponse,
};
use crate::context::{LogMessage, LogSink, Progress, ProgressSink};
use crate::model::ToolError;
use crate::policy::approval::{approval_handler, ApprovalHandler};
use crate::policy::{Decision, PendingCall};

/// The host's answers to what tools ask, for calls whose scope gives none.
#[derive(Clone, Default)]
pub(super) struct Asking {
    pub(super) sampling: Option<SamplingHandler>,
    pub(super) elicitation: Option<ElicitationHandler>,
    pub(super) approval: Option<ApprovalHandler>,
    pub(super) roots: Option<crate::ask::RootsHandler>,
}

impl std::fmt::Debug for Asking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asking")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("approval", &self.approval.is_some())
            .finish()
    }
}

/// What a caller attaches to one call beyond its request: a cancellation token and places for
/// the tool's progress reports and log messages.
#[derive(Clone, Default)]
pub struct CallScope {
    pub(super) cancel: Option<CancellationToken>,
    pub(super) progress: Option<ProgressSink>,
    pub(super) log: Option<LogSink>,
    pub(super) asking: Asking,
    /// Whether the call's rate limits admitted it already: a later round of one MCP request
    /// (2026-07-28), whose first round took its places.
    pub(crate) admitted: bool,
    /// Told when the tool calls `ToolContext::continue_as_task`: an MCP request that turns
    /// into a task there.
    pub(crate) task_switch: Option<crate::context::TaskSwitch>,
}

impl CallScope {
    /// No cancellation, progress reports dropped, no log receiver.
    pub fn new() -> Self {
        Self::default()
    }

    /// The call is cancelled when `token` is.
    pub fn cancel_on(mut self, token: &CancellationToken) -> Self {
        self.cancel = Some(token.clone());
        self
    }

    /// The tool's progress reports go to `sink`, in the order the tool made them.
    pub fn on_progress(mut self, sink: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    /// The tool's log messages ([`ToolContext::log`](crate::ToolContext::log)) go to `sink`, in the order the tool sent
    /// them; without one, `log` tells the tool nobody receives them.
    pub fn on_log(mut self, sink: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(sink));
        self
    }

    /// The tool's [`ToolContext::sample`](crate::ToolContext::sample) requests go to `handler` (the host's model), which
    /// answers with the model's message or an error the tool gets. Without one, the executor's
    /// ([`ExecutorBuilder::on_sample`](crate::ExecutorBuilder::on_sample)) answers, else `sample` tells the tool nobody can.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SamplingResponse, ToolError>> + Send + 'static,
    {
        self.asking.sampling = Some(sampling_handler(handler));
        self
    }

    /// The tool's [`ToolContext::roots`](crate::ToolContext::roots) requests go to `handler`,
    /// which lists the places the caller lets tools work in; without one, `roots` tells the
    /// tool nobody lists them.
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<crate::ask::Root>, ToolError>> + Send + 'static,
    {
        self.asking.roots = Some(crate::ask::roots_handler(handler));
        self
    }

    /// The tool's [`ToolContext::elicit`](crate::ToolContext::elicit) requests go to `handler` (the host's user
    /// interface), which shows the message and the form and answers with what the user did.
    /// Without one, the executor's ([`ExecutorBuilder::on_elicit`](crate::ExecutorBuilder::on_elicit)) answers, else `elicit`
    /// tells the tool nobody can.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitationAnswer, ToolError>> + Send + 'static,
    {
        self.asking.elicitation = Some(elicitation_handler(handler));
        self
    }
}

impl CallScope {
    /// Calls of this scope that need a person's approval are shown to `handler` (a terminal
    /// prompt, an MCP client's user), which answers at once; without one, the executor's
    /// ([`ExecutorBuilder::on_approval`](crate::ExecutorBuilder::on_approval)) answers, else
    /// the call's record says pending.
    pub fn on_approval<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Decision> + Send + 'static,
    {
        self.asking.approval = Some(approval_handler(handler));
        self
    }
}

impl std::fmt::Debug for CallScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallScope")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("sampling", &self.asking.sampling.is_some())
            .field("elicitation", &self.asking.elicitation.is_some())
            .field("roots", &self.asking.roots.is_some())
            .field("approval", &self.asking.approval.is_some())
            .finish()
    }
}
