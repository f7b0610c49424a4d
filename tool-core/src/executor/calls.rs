//! The ways to run calls with an executor: one call or a batch, new or resumed, as the model
//! sent it or as a provider did (names restored), or refused by a front end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::model::{ToolCallRequest, ToolError, ToolOutput};
use crate::policy::approval::ApprovalHandler;
use crate::policy::{keys, Decision, PendingCall};
use crate::state::{Owner, StateError};
use crate::wire::NameMap;

use super::batch::run_batch;
use super::call::{CallRun, Step};
use super::chain::advance;
use super::log::{call_span, log_record};
use super::pending;
use super::run::failed;
use super::{CallFailure, CallScope, ExecutionRecord, Executor};

impl Executor {
    /// Runs one call.
    pub async fn execute(&self, request: ToolCallRequest) -> ExecutionRecord {
        self.execute_in(request, CallScope::default()).await
    }

    /// Runs one call in `scope`: cancelled when its token is, reporting progress to its sink.
    pub async fn execute_in(&self, request: ToolCallRequest, scope: CallScope) -> ExecutionRecord {
        let span = call_span(&request, self);
        let started = Instant::now();
        let run = CallRun::new(request, started, None);
        self.carry(run, scope).instrument(span).await
    }

    /// Answers a call that waited for approval: runs it as it arrived, runs it with the
    /// edited arguments (read and checked as the model's were), or ends it denied, the reason
    /// the model reads. The call goes through the policy again but for approval: guardrails,
    /// rate limits and the retry budget apply as they do now.
    ///
    /// The call is taken from the executor's [store](crate::ExecutorBuilder::store) once, by its
    /// [`id`](PendingCall::id) and its principal and conversation, and the stored call is the
    /// one that runs: works in any process that has the tool and shares the store, and of two
    /// resumes of one call (two replicas, a replay) only the first runs it. A call that no
    /// longer waits is refused with [`CallFailure::NotPending`] (resumed already, expired, or
    /// not kept for this principal and conversation), one that differs from the stored call
    /// with [`CallFailure::PendingAltered`] (the stored one still waits), and one whose store
    /// cannot be reached with [`CallFailure::StateUnavailable`]; nothing runs.
    pub async fn resume(&self, pending: PendingCall, decision: Decision) -> ExecutionRecord {
        self.resume_in(pending, decision, CallScope::default()).await
    }

    /// [`resume`](Self::resume) in `scope`.
    pub async fn resume_in(&self, pending: PendingCall, decision: Decision, scope: CallScope) -> ExecutionRecord {
        let span = call_span(&pending.request, self);
        let started = Instant::now();
        async move {
            // Cancelled before it is taken, the call is left waiting rather than taken unrun.
            if scope.cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
                let message = "The call was cancelled before it was resumed; it still waits.".to_owned();
                let record = failed(Arc::new(pending.request), started, CallFailure::Cancelled, message);
                log_record(&record, self);
                return record;
            }
            match pending::take(self, &pending).await {
                Ok(stored) => self.carry(CallRun::resumed(stored, decision, started, None), scope).await,
                Err(refusal) => {
                    let (failure, message) = pending::refused(&pending, refusal);
                    let record = failed(Arc::new(pending.request), started, failure, message);
                    log_record(&record, self);
                    record
                }
            }
        }
        .instrument(span)
        .await
    }

    /// The call that waits for approval under `id` for `owner` (the principal and the
    /// conversation of its request), as stored, without taking it: for a host that shows the
    /// calls it keeps the ids of. `None` when none waits there (resumed, expired, or never
    /// kept for this owner).
    pub async fn pending(&self, id: &str, owner: &Owner) -> Result<Option<PendingCall>, StateError> {
        pending::read(self, id, owner).await
    }

    /// Runs calls concurrently (at most the configured number at once); the records come back
    /// in request order.
    pub async fn execute_batch(&self, requests: Vec<ToolCallRequest>) -> Vec<ExecutionRecord> {
        run_batch(self, requests, CallScope::default()).await
    }

    /// [`execute_batch`](Self::execute_batch) in `scope`: every call cancelled when its token
    /// is, the calls' progress reports and log messages sent to its sinks, its answerers asked
    /// what the calls ask.
    pub async fn execute_batch_in(&self, requests: Vec<ToolCallRequest>, scope: CallScope) -> Vec<ExecutionRecord> {
        run_batch(self, requests, scope).await
    }

    /// Runs one call as a provider sent it, for tools exported with a [`NameMap`]: the tool and
    /// its arguments are read in the declared form ([`NameMap::restore`]); the record keeps the
    /// raw text as sent. The call parsers of `providers` restore what they read already; this
    /// is for calls read another way.
    ///
    /// ```standalone_crate
    /// use tool_core::prelude::*;
    /// use tool_core::providers::export::export;
    /// use tool_core::providers::Dialect;
    ///
    /// /// Add a note.
    /// #[tool(name = "notes.add")]
    /// fn add_note(
    ///     /// The note.
    ///     text: String,
    /// ) -> String {
    ///     text
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let catalog = ToolCatalog::global().unwrap();
    /// let exported = export(Dialect::OpenAiChat { strict: false }, catalog.definitions()).unwrap();
    /// let executor = Executor::new(catalog.clone());
    /// // OpenAI names may not hold a dot: the tool went out as `notes_add`.
    /// let request = ToolCallRequest::new("notes_add", "call_1", r#"{"text":"hi"}"#);
    /// let record = executor.execute_with_names(request, &exported.names).await;
    /// assert_eq!(record.status, CallStatus::Success);
    /// assert_eq!(record.request.tool_name, "notes.add");
    /// # }
    /// ```
    pub async fn execute_with_names(&self, mut request: ToolCallRequest, names: &NameMap) -> ExecutionRecord {
        names.restore(&mut request);
        self.execute(request).await
    }

    /// Runs calls as a provider sent them (see [`execute_with_names`](Self::execute_with_names)),
    /// concurrently as [`execute_batch`](Self::execute_batch) does.
    pub async fn execute_batch_with_names(
        &self,
        mut requests: Vec<ToolCallRequest>,
        names: &NameMap,
    ) -> Vec<ExecutionRecord> {
        for request in &mut requests {
            names.restore(request);
        }
        self.execute_batch(requests).await
    }

    /// The record of a call a front end refuses before it reaches the executor's stages (an
    /// MCP server's call of a stateful tool outside any conversation): failed with `error`,
    /// which the model reads, and logged as every call is. The retry budget does not count
    /// it: the model did nothing wrong.
    pub fn refuse(&self, request: ToolCallRequest, error: ToolError) -> ExecutionRecord {
        let content = ToolOutput::text(error.message());
        let record =
            ExecutionRecord::failed(Arc::new(request), CallFailure::ToolError { error }, content, Duration::ZERO);
        call_span(&record.request, self).in_scope(|| log_record(&record, self));
        record
    }

    /// Forgets what the policy counted of `owner`'s conversation
    /// ([`Owner::new`]`(principal, conversation)`; no conversation: the calls without one): its
    /// failing tries in a row, so that a spent retry budget is whole again, and its rate-limit
    /// places (a tool's limit across conversations is not the conversation's to reset). Every
    /// replica sharing the store sees it at once.
    pub async fn reset_policy(&self, owner: &Owner) -> Result<(), StateError> {
        let owner = keys::owner(owner.principal(), owner.conversation());
        for kind in [keys::BUDGET, keys::RATE] {
            self.store.clear(&owner, Some(kind)).await?;
        }
        Ok(())
    }

    /// One call's whole way through the stages, and its log.
    async fn carry(&self, mut run: CallRun, scope: CallScope) -> ExecutionRecord {
        run.watched = scope.cancel.as_ref().map(CancellationToken::child_token);
        (run.scope, run.approver) = self.scoped(scope);
        advance(&mut run, self, Step::Done).await;
        let Some(record) = run.into_record() else { unreachable!("a call taken to its end has its record") };
        log_record(&record, self);
        record
    }

    /// The scope a call runs in, and who approves it: the caller's answerers, else the
    /// executor's.
    pub(super) fn scoped(&self, mut scope: CallScope) -> (CallScope, Option<ApprovalHandler>) {
        let approver = scope.asking.approval.take().or_else(|| self.policy.rules.approver.clone());
        scope.asking.sampling = scope.asking.sampling.or_else(|| self.asking.sampling.clone());
        scope.asking.elicitation = scope.asking.elicitation.or_else(|| self.asking.elicitation.clone());
        (scope, approver)
    }
}
