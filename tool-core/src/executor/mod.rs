//! The executor: runs tool calls against a catalog and records every one.
//!
//! Each call is looked up, bound (arguments extracted), and run with a timeout, cancellation and
//! panic isolation. Whatever happens (unknown tool, refused arguments, an error, a panic, a
//! timeout) the result is an [`ExecutionRecord`], never a crash. Batches run concurrently, up
//! to a bound, and come back in request order.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::ask::{
    elicitation_handler, sampling_handler, ElicitationAnswer, ElicitationRequest, SamplingRequest, SamplingResponse,
};
use crate::catalog::ToolCatalog;
use crate::context::Environment;
use crate::model::ToolCallRequest;
use crate::model::ToolError;
use crate::policy::approval::{approval_handler, ApprovalHandler};
use crate::policy::guard::Scoped;
use crate::policy::repair::repair_hook;
use crate::policy::{
    ApprovalRule, Backoff, Decision, GuardScope, InputGuardrail, OutputGuardrail, PendingCall, RateLimit,
    RepairRequest, RetryBudget,
};
use crate::stateful::Conversations;
use crate::wire::NameMap;

mod bind;
mod log;
mod pipeline;
mod record;
mod rules;
mod run;
mod scope;
#[cfg(feature = "tower")]
mod service;

pub use bind::Executor;
use bind::{binds_off_workers, lost};
use log::{call_span, log_record};
use pipeline::{Checked, Way};
pub use record::{CallFailure, CallStatus, ExecutionRecord, OutputCut};
use rules::{Policy, Rules};
#[cfg(feature = "mcp")]
pub(crate) use run::human_duration;
use run::{failed, Reply};
use scope::Asking;
pub use scope::CallScope;

/// The default of [`ExecutorBuilder::max_output_bytes`]: 1 MiB, about 250,000 tokens, more
/// than most models' whole context.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1 << 20;

/// Configures an [`Executor`].
#[derive(Debug)]
pub struct ExecutorBuilder {
    catalog: ToolCatalog,
    environment: Environment,
    timeout: Option<Duration>,
    concurrency: usize,
    reply: Reply,
    conversations: Conversations,
    asking: Asking,
    rules: Rules,
}

impl ExecutorBuilder {
    /// The default time limit per call; a tool's own `timeout_ms` takes precedence.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How many calls of a batch run at once (at least 1).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// The most a call hands on, in bytes: the text of its output (or error) and its content
    /// blocks together (an image counts its base64 data), and its structured result and
    /// metadata serialised. Text over it is cut at a character boundary and the cut said at its
    /// end (`[output cut at N bytes of M]`); a block that does not fit in what the text and
    /// the blocks before it left is dropped whole, and a structured result or metadata over
    /// the limit is dropped, each said likewise (`[1 block dropped (image/png, 2 MB): over
    /// 1048576 bytes]`). The record says what was cut
    /// ([`ExecutionRecord::output_cut`]). Default: [`DEFAULT_MAX_OUTPUT_BYTES`] (1 MiB); at
    /// least 1,024.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.reply.max_output_bytes = bytes.max(1024);
        self
    }

    /// Whether the model (and an MCP client) reads a panic's message and a tool error's
    /// [internal detail](ToolError::with_internal_detail) (an upstream's error body, a
    /// connection error). Off by default: the model reads a plain message, and the record
    /// keeps the whole text for the host.
    pub fn expose_error_details(mut self, expose: bool) -> Self {
        self.reply.expose_error_details = expose;
        self
    }

    /// Shared state for `&State<T>` parameters.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.environment.insert_state(value);
        self
    }

    /// A named environment value.
    pub fn value(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.environment.insert_value(key, value);
        self
    }

    /// The store the instances of stateful tools live in; by default the executor has one of
    /// its own, so executors never share an instance. Give several executors the same store
    /// (a clone of one handle) to let them share their conversations, or a store made with
    /// [`Conversations::with_limits`] to bound it otherwise.
    pub fn conversations(mut self, conversations: Conversations) -> Self {
        self.conversations = conversations;
        self
    }

    /// Answers the [`ToolContext::sample`](crate::ToolContext::sample) requests of calls whose scope gives no handler
    /// (see [`CallScope::on_sample`]): over MCP, those of clients without the `sampling`
    /// capability.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SamplingResponse, ToolError>> + Send + 'static,
    {
        self.asking.sampling = Some(sampling_handler(handler));
        self
    }

    /// Answers the [`ToolContext::elicit`](crate::ToolContext::elicit) requests of calls whose scope gives no handler (see
    /// [`CallScope::on_elicit`]): over MCP, those of clients without the `elicitation`
    /// capability.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitationAnswer, ToolError>> + Send + 'static,
    {
        self.asking.elicitation = Some(elicitation_handler(handler));
        self
    }

    /// Calls of the tools `rule` names wait for a person's approval, beside those of tools
    /// that declare it (`#[tool(requires_approval)]`): `ApprovalRule::destructive()` for every
    /// tool annotated destructive.
    pub fn require_approval(mut self, rule: ApprovalRule) -> Self {
        self.rules.approval.push(rule);
        self
    }

    /// Calls that need approval are shown to `handler`, which answers at once (a terminal
    /// prompt); a call's scope may give its own ([`CallScope::on_approval`]). Without one, a
    /// call that needs approval ends pending, with a [`PendingCall`] to store, show and
    /// [`resume`](Executor::resume).
    pub fn on_approval<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Decision> + Send + 'static,
    {
        self.rules.approver = Some(approval_handler(handler));
        self
    }

    /// Checks the arguments of the calls `scope` covers, after extraction and before approval
    /// and the tool, in the order the guardrails were added; `name` names it in records.
    pub fn input_guardrail(mut self, name: impl Into<String>, scope: GuardScope, guard: impl InputGuardrail) -> Self {
        self.rules.input.push(Scoped { name: Arc::from(name.into()), scope, guard: Arc::new(guard) });
        self
    }

    /// Checks the successful results of the calls `scope` covers, before the model reads them,
    /// in the order the guardrails were added; `name` names it in records.
    pub fn output_guardrail(mut self, name: impl Into<String>, scope: GuardScope, guard: impl OutputGuardrail) -> Self {
        self.rules.output.push(Scoped { name: Arc::from(name.into()), scope, guard: Arc::new(guard) });
        self
    }

    /// Adds a rate limit; a call runs only when every limit that covers it has room.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rules.rates.push(limit);
        self
    }

    /// How many failing tries in a row a conversation's model has (default: 3 per tool, 10 per
    /// conversation; [`RetryBudget::unlimited`] turns it off).
    pub fn retry_budget(mut self, budget: RetryBudget) -> Self {
        self.rules.budget = budget;
        self
    }

    /// How calls of idempotent tools are run again after a transient failure (default: two
    /// more tries after 200 ms and 400 ms; [`Backoff::none`] turns it off).
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.rules.backoff = backoff;
        self
    }

    /// Calls extraction refuses (arguments not accepted, no tool of that name) go to `hook`
    /// first: a call it returns instead (fixed arguments, a retired tool's new name) is read
    /// again, once, and the record keeps the model's call in
    /// [`original`](ExecutionRecord::original).
    pub fn repair<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(RepairRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<ToolCallRequest>> + Send + 'static,
    {
        self.rules.repair = Some(repair_hook(hook));
        self
    }

    /// How many conversations the policy remembers (failing tries in a row, rate-limit
    /// places); the least recently used is forgotten first. Default: 10,000.
    pub fn max_policy_conversations(mut self, conversations: usize) -> Self {
        self.rules.max_conversations = conversations.max(1);
        self
    }

    /// Builds the executor.
    pub fn build(self) -> Executor {
        Executor {
            catalog: self.catalog,
            environment: Arc::new(self.environment),
            timeout: self.timeout,
            concurrency: self.concurrency,
            reply: self.reply,
            conversations: self.conversations,
            asking: self.asking,
            policy: Policy::new(self.rules),
        }
    }
}

/// Where a call's way starts: a new call, or one a person answered.
enum Start {
    New(ToolCallRequest),
    Resumed(PendingCall, Decision),
}

/// One call of a batch: checked, finished, or still out on a task.
enum Slot {
    Checked(Checked, Instant, tracing::Span),
    Done(Box<ExecutionRecord>),
    Running(Arc<ToolCallRequest>, Instant),
}

impl Executor {
    /// An executor over `catalog` with no time limit and a batch concurrency of 8.
    pub fn new(catalog: ToolCatalog) -> Self {
        Self::builder(catalog).build()
    }

    /// Configures an executor over `catalog`.
    pub fn builder(catalog: ToolCatalog) -> ExecutorBuilder {
        ExecutorBuilder {
            catalog,
            environment: Environment::new(),
            timeout: None,
            concurrency: 8,
            reply: Reply { max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES, expose_error_details: false },
            conversations: Conversations::new(),
            asking: Asking::default(),
            rules: Rules::default(),
        }
    }

    /// The catalog calls are resolved against.
    pub fn catalog(&self) -> &ToolCatalog {
        &self.catalog
    }

    /// The instances of this executor's stateful tools: end a conversation, all of them, or the
    /// idle ones.
    pub fn conversations(&self) -> &Conversations {
        &self.conversations
    }

    /// This executor over another catalog, sharing its environment, settings and the
    /// instances of stateful tools: for a server that adds a tool of its own (the MCP server's
    /// tool search) to the host's catalog.
    #[cfg(all(feature = "mcp", feature = "search"))]
    pub(crate) fn with_catalog(&self, catalog: ToolCatalog) -> Executor {
        Executor { catalog, ..self.clone() }
    }

    /// Whether the host gave an approver ([`ExecutorBuilder::on_approval`]): an MCP server
    /// leaves the approval of its calls to it rather than ask the client's user.
    #[cfg(feature = "mcp")]
    pub(crate) fn has_approver(&self) -> bool {
        self.policy.rules.approver.is_some()
    }

    /// The time limit of a call of `tool`, counted from its receipt: the tool's own, else the
    /// executor's.
    #[cfg(feature = "mcp")]
    pub(crate) fn time_limit(&self, tool: &str) -> Option<Duration> {
        self.catalog.definition(tool).and_then(|d| d.timeout).or(self.timeout)
    }

    /// This executor with more approval rules, beside its own, and a policy state of its own
    /// (what it remembers of conversations starts empty): for the command line's
    /// `--require-approval`, which adds rules to the host's executor.
    #[cfg(feature = "cli")]
    pub(crate) fn with_approval_rules(&self, more: Vec<ApprovalRule>) -> Executor {
        if more.is_empty() {
            return self.clone();
        }
        let mut rules = self.policy.rules.clone();
        rules.approval.extend(more);
        Executor { policy: Policy::new(rules), ..self.clone() }
    }

    /// Runs one call.
    pub async fn execute(&self, request: ToolCallRequest) -> ExecutionRecord {
        self.execute_in(request, CallScope::default()).await
    }

    /// Runs one call, cancelled when `cancel` is.
    pub async fn execute_cancellable(&self, request: ToolCallRequest, cancel: &CancellationToken) -> ExecutionRecord {
        self.execute_in(request, CallScope::new().cancel_on(cancel)).await
    }

    /// Runs one call in `scope`: cancelled when its token is, reporting progress to its sink.
    pub async fn execute_in(&self, request: ToolCallRequest, scope: CallScope) -> ExecutionRecord {
        let started = Instant::now();
        let span = call_span(&request);
        self.carry(Start::New(request), scope, started).instrument(span.clone()).await
    }

    /// Answers a call that waited for approval: runs it as it arrived, runs it with the
    /// edited arguments (read and checked as the model's were), or ends it denied, the reason
    /// the model reads. The call goes through the policy again but for approval: guardrails,
    /// rate limits and the retry budget apply as they do now. Works in any process that has
    /// the tool: a [`PendingCall`] serializes.
    pub async fn resume(&self, pending: PendingCall, decision: Decision) -> ExecutionRecord {
        self.resume_in(pending, decision, CallScope::default()).await
    }

    /// [`resume`](Self::resume) in `scope`.
    pub async fn resume_in(&self, pending: PendingCall, decision: Decision, scope: CallScope) -> ExecutionRecord {
        let started = Instant::now();
        let span = call_span(&pending.request);
        self.carry(Start::Resumed(pending, decision), scope, started).instrument(span.clone()).await
    }

    /// Forgets what the policy remembers of `conversation` (`None`: of calls without one): its
    /// failing tries in a row, so that a spent retry budget is whole again, and its rate-limit
    /// places.
    pub fn reset_policy(&self, conversation: Option<&str>) {
        self.policy.state.forget(conversation);
    }

    /// One call's whole way: checks, run, output guardrails, budget, log.
    async fn carry(&self, start: Start, mut scope: CallScope, started: Instant) -> ExecutionRecord {
        let watched = scope.cancel.as_ref().map(CancellationToken::child_token);
        let approver = scope.asking.approval.take().or_else(|| self.policy.rules.approver.clone());
        let checked = match start {
            Start::New(request) => {
                self.check(request, started, watched.as_ref(), approver.as_ref(), Way::default()).await
            }
            Start::Resumed(pending, decision) => {
                self.resume_checked(pending, decision, started, watched.as_ref()).await
            }
        };
        let record = match checked {
            Checked::Done(record) => *record,
            Checked::Ready(ready) => {
                scope.asking.sampling = scope.asking.sampling.or_else(|| self.asking.sampling.clone());
                scope.asking.elicitation = scope.asking.elicitation.or_else(|| self.asking.elicitation.clone());
                self.finish(*ready, watched, scope, approver, started).await
            }
        };
        let record = self.settle(record);
        log_record(&record);
        record
    }

    /// Runs calls concurrently (at most the configured number at once); the records come back
    /// in request order.
    pub async fn execute_batch(&self, requests: Vec<ToolCallRequest>) -> Vec<ExecutionRecord> {
        self.execute_many(requests, None).await
    }

    /// Runs calls concurrently, all cancelled when `cancel` is.
    pub async fn execute_batch_cancellable(
        &self,
        requests: Vec<ToolCallRequest>,
        cancel: &CancellationToken,
    ) -> Vec<ExecutionRecord> {
        self.execute_many(requests, Some(cancel)).await
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

    async fn execute_many(
        &self,
        requests: Vec<ToolCallRequest>,
        cancel: Option<&CancellationToken>,
    ) -> Vec<ExecutionRecord> {
        let approver = self.policy.rules.approver.clone();
        // First every call's checks, so that a guardrail's stop halts the turn before any of
        // its calls runs; each in its own task when the checks may wait.
        let checks: Vec<Slot> = if self.checks_wait(&requests) {
            self.check_apart(requests, cancel, approver.as_ref()).await
        } else {
            let mut slots = Vec::with_capacity(requests.len());
            for request in requests {
                let started = Instant::now();
                let span = call_span(&request);
                let watched = cancel.map(CancellationToken::child_token);
                let checked = self
                    .check(request, started, watched.as_ref(), approver.as_ref(), Way::default())
                    .instrument(span.clone())
                    .await;
                slots.push(Slot::Checked(checked, started, span));
            }
            slots
        };
        let stop = checks.iter().find_map(|slot| match slot {
            Slot::Checked(Checked::Done(record), ..) if record.stops_turn() => match &record.failure {
                Some(CallFailure::TurnStopped { guardrail, call_id }) => Some((guardrail.clone(), call_id.clone())),
                _ => None,
            },
            _ => None,
        });
        let mut slots: Vec<Slot> = Vec::with_capacity(checks.len());
        let mut task_index = HashMap::new();
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let mut tasks = JoinSet::new();
        for (i, slot) in checks.into_iter().enumerate() {
            let (checked, started, span) = match slot {
                Slot::Checked(checked, started, span) => (checked, started, span),
                done => {
                    slots.push(done);
                    continue;
                }
            };
            let ready = match checked {
                Checked::Done(record) => {
                    let record = span.in_scope(|| self.settle(*record));
                    span.in_scope(|| log_record(&record));
                    slots.push(Slot::Done(Box::new(record)));
                    continue;
                }
                Checked::Ready(ready) => ready,
            };
            if let Some((guardrail, call_id)) = &stop {
                let message = format!("The turn was stopped by the guardrail `{guardrail}` at the call `{call_id}`; this call did not run.");
                let failure = CallFailure::TurnStopped { guardrail: guardrail.clone(), call_id: call_id.clone() };
                let record =
                    failed(Arc::clone(&ready.prepared.request), started, CallStatus::Stopped, failure, message);
                span.in_scope(|| log_record(&record));
                slots.push(Slot::Done(Box::new(record)));
                continue;
            }
            let sequential = ready.sequential;
            if sequential {
                // Alone: the calls before it end first, and it ends before the next starts.
                join_into(&mut tasks, &mut slots, &task_index, "task", ended).await;
            }
            slots.push(Slot::Running(Arc::clone(&ready.prepared.request), started));
            // The semaphore is never closed, so a permit always comes.
            let permit = Arc::clone(&permits).acquire_owned().await.ok();
            let executor = self.clone();
            let watched = cancel.map(CancellationToken::child_token);
            let approver = approver.clone();
            let task = async move {
                let record = executor.finish(*ready, watched, CallScope::new(), approver, started).await;
                let record = executor.settle(record);
                log_record(&record);
                drop(permit);
                (i, record)
            };
            task_index.insert(tasks.spawn(task.instrument(span)).id(), i);
            if sequential {
                join_into(&mut tasks, &mut slots, &task_index, "task", ended).await;
            }
        }
        join_into(&mut tasks, &mut slots, &task_index, "task", ended).await;
        slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Done(record) => *record,
                Slot::Running(request, started) => {
                    lost(request, started, "the call's task ended without a result".to_owned())
                }
                Slot::Checked(..) => unreachable!("every checked call was started or ended"),
            })
            .collect()
    }

    /// Whether a batch's checks may wait (guardrails, a repair hook or an approver that may
    /// be async, arguments read on the blocking pool), so that they run in tasks of their own.
    fn checks_wait(&self, requests: &[ToolCallRequest]) -> bool {
        let rules = &self.policy.rules;
        rules.input.iter().any(|g| g.guard.waits())
            || rules.repair.is_some()
            || rules.approver.is_some()
            || requests.iter().any(binds_off_workers)
    }

    /// The checks of a batch's calls, each in its own task (at most the batch's concurrency at
    /// once); in request order.
    async fn check_apart(
        &self,
        requests: Vec<ToolCallRequest>,
        cancel: Option<&CancellationToken>,
        approver: Option<&ApprovalHandler>,
    ) -> Vec<Slot> {
        let mut slots: Vec<Slot> = Vec::with_capacity(requests.len());
        let mut index = HashMap::new();
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let mut tasks = JoinSet::new();
        for (i, request) in requests.into_iter().enumerate() {
            let started = Instant::now();
            let span = call_span(&request);
            slots.push(Slot::Running(Arc::new(request.clone()), started));
            let permit = Arc::clone(&permits).acquire_owned().await.ok();
            let executor = self.clone();
            let watched = cancel.map(CancellationToken::child_token);
            let approver = approver.cloned();
            let task_span = span.clone();
            let task = async move {
                let checked =
                    executor.check(request, started, watched.as_ref(), approver.as_ref(), Way::default()).await;
                drop(permit);
                (i, (checked, task_span))
            };
            index.insert(tasks.spawn(task.instrument(span)).id(), i);
        }
        join_into(&mut tasks, &mut slots, &index, "checks", |(checked, span), started| {
            Slot::Checked(checked, started, span)
        })
        .await;
        slots
    }
}

/// The slot of a call whose task gave its record.
fn ended(record: ExecutionRecord, _: Instant) -> Slot {
    Slot::Done(Box::new(record))
}

/// Waits for every task of a batch, putting what each gave in its slot (`place` is given the
/// time the call was received); a task that ended abnormally leaves the record of a lost call,
/// saying what it was doing (`doing`: "task", "checks").
async fn join_into<T: 'static>(
    tasks: &mut JoinSet<(usize, T)>,
    slots: &mut [Slot],
    index: &HashMap<tokio::task::Id, usize>,
    doing: &str,
    place: impl Fn(T, Instant) -> Slot,
) {
    while let Some(joined) = tasks.join_next_with_id().await {
        let (i, outcome) = match joined {
            Ok((_, (i, given))) => (i, Ok(given)),
            Err(error) => match index.get(&error.id()) {
                Some(&i) => (i, Err(error)),
                None => continue,
            },
        };
        let Slot::Running(request, started) = &slots[i] else { continue };
        slots[i] = match outcome {
            Ok(given) => place(given, *started),
            Err(error) => {
                let message = format!("the call's {doing} ended abnormally: {error}");
                Slot::Done(Box::new(lost(Arc::clone(request), *started, message)))
            }
        };
    }
}
