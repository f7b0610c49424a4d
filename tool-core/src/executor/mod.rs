//! The executor: runs tool calls against a catalog and records every one.
//!
//! Each call is looked up, bound (arguments extracted), and run with a timeout, cancellation and
//! panic isolation. Whatever happens (unknown tool, refused arguments, an error, a panic, a
//! timeout) the result is an [`ExecutionRecord`], never a crash. Batches run concurrently, up
//! to a bound, and come back in request order.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::ask::{
    elicitation_handler, sampling_handler, ElicitationAnswer, ElicitationHandler, ElicitationRequest, SamplingHandler,
    SamplingRequest, SamplingResponse,
};
use crate::catalog::ToolCatalog;
use crate::context::{Environment, LogMessage, LogSink, Progress, ProgressSink, ToolContext};
use crate::model::ToolCallRequest;
use crate::model::{serialized_over, Cut, ToolError, ToolOutput};
use crate::stateful::Conversations;
use crate::tool::{Invocation, ToolResult};
use crate::wire::NameMap;

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
        /// unless [`ExecutorBuilder::expose_error_details`] is set.
        message: String,
    },
    /// The tool ran out of time.
    TimedOut {
        /// The limit, in milliseconds.
        after_ms: u64,
    },
    /// The host cancelled the call.
    Cancelled,
}

/// Everything about one call: the request (raw arguments verbatim), how it ended, what the model
/// gets back, the warnings and how long it took.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ExecutionRecord {
    /// The request, with the raw arguments, parse warnings and argument errors.
    pub request: Arc<ToolCallRequest>,
    /// How the call ended.
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
}

/// How a call's output was cut to [`ExecutorBuilder::max_output_bytes`].
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
}

/// The default of [`ExecutorBuilder::max_output_bytes`]: 1 MiB, about 250,000 tokens, more
/// than most models' whole context.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1 << 20;

/// Runs tool calls. Cheap to clone; clones share the catalog, environment and the instances of
/// stateful tools.
#[derive(Clone, Debug)]
pub struct Executor {
    catalog: ToolCatalog,
    environment: Arc<Environment>,
    timeout: Option<Duration>,
    concurrency: usize,
    reply: Reply,
    conversations: Conversations,
    asking: Asking,
}

/// The host's answers to what tools ask, for calls whose scope gives none.
#[derive(Clone, Default)]
struct Asking {
    sampling: Option<SamplingHandler>,
    elicitation: Option<ElicitationHandler>,
}

impl std::fmt::Debug for Asking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asking")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .finish()
    }
}

/// What a finished call may hand on: how much output, and whether the text meant for the
/// host alone (a panic's message, an upstream's error) reaches the model.
#[derive(Clone, Copy, Debug)]
struct Reply {
    max_output_bytes: usize,
    expose_error_details: bool,
}

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

    /// Answers the [`ToolContext::sample`] requests of calls whose scope gives no handler
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

    /// Answers the [`ToolContext::elicit`] requests of calls whose scope gives no handler (see
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
        }
    }
}

/// What a caller attaches to one call beyond its request: a cancellation token and places for
/// the tool's progress reports and log messages.
#[derive(Clone, Default)]
pub struct CallScope {
    cancel: Option<CancellationToken>,
    progress: Option<ProgressSink>,
    log: Option<LogSink>,
    asking: Asking,
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

    /// The tool's log messages ([`ToolContext::log`]) go to `sink`, in the order the tool sent
    /// them; without one, `log` tells the tool nobody receives them.
    pub fn on_log(mut self, sink: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(sink));
        self
    }

    /// The tool's [`ToolContext::sample`] requests go to `handler` (the host's model), which
    /// answers with the model's message or an error the tool gets. Without one, the executor's
    /// ([`ExecutorBuilder::on_sample`]) answers, else `sample` tells the tool nobody can.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SamplingResponse, ToolError>> + Send + 'static,
    {
        self.asking.sampling = Some(sampling_handler(handler));
        self
    }

    /// The tool's [`ToolContext::elicit`] requests go to `handler` (the host's user
    /// interface), which shows the message and the form and answers with what the user did.
    /// Without one, the executor's ([`ExecutorBuilder::on_elicit`]) answers, else `elicit`
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

impl std::fmt::Debug for CallScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallScope")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("sampling", &self.asking.sampling.is_some())
            .field("elicitation", &self.asking.elicitation.is_some())
            .finish()
    }
}

/// A bound call, ready to start.
struct Prepared {
    request: Arc<ToolCallRequest>,
    invocation: Invocation,
    timeout: Option<Duration>,
}

/// One call of a batch: finished, or still out on a task.
enum Slot {
    Done(Box<ExecutionRecord>),
    Running(Arc<ToolCallRequest>, Instant),
}

/// The record of a call whose task never reported (aborted by a runtime shutdown).
fn lost(request: Arc<ToolCallRequest>, started: Instant, message: String) -> ExecutionRecord {
    failed(request, started, CallStatus::Failed, CallFailure::Panicked { message }, FAILED_UNEXPECTEDLY.to_owned())
}

/// What the model reads of a panic, unless the host exposes error details.
const FAILED_UNEXPECTEDLY: &str = "The tool failed unexpectedly.";

enum Stage {
    Done(Box<ExecutionRecord>),
    Ready(Prepared),
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
        let watched = scope.cancel.as_ref().map(CancellationToken::child_token);
        let stage = if binds_off_workers(&request) {
            self.prepare_off_workers(request, watched.as_ref(), started).instrument(span.clone()).await
        } else {
            span.in_scope(|| self.prepare(request, started))
        };
        let record = match stage {
            Stage::Done(record) => *record,
            Stage::Ready(prepared) => {
                let environment = Arc::clone(&self.environment);
                let mut scope = scope;
                scope.asking.sampling = scope.asking.sampling.or_else(|| self.asking.sampling.clone());
                scope.asking.elicitation = scope.asking.elicitation.or_else(|| self.asking.elicitation.clone());
                Box::pin(run(prepared, environment, watched, scope, started, self.reply)).instrument(span.clone()).await
            }
        };
        span.in_scope(|| log_record(&record));
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
    /// ```
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
        let mut slots: Vec<Slot> = Vec::with_capacity(requests.len());
        let mut task_index = HashMap::new();
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let mut tasks = JoinSet::new();
        for (i, request) in requests.into_iter().enumerate() {
            let started = Instant::now();
            let span = call_span(&request);
            // Large arguments are read in the call's own task, on the blocking pool.
            let stage = if binds_off_workers(&request) {
                Err(request)
            } else {
                Ok(span.in_scope(|| self.prepare(request, started)))
            };
            let watched = cancel.map(CancellationToken::child_token);
            let (kept, stage) = match stage {
                Ok(Stage::Done(record)) => {
                    span.in_scope(|| log_record(&record));
                    slots.push(Slot::Done(record));
                    continue;
                }
                Ok(Stage::Ready(prepared)) => (Arc::clone(&prepared.request), Ok(prepared)),
                Err(request) => (Arc::new(request.clone()), Err(request)),
            };
            slots.push(Slot::Running(kept, started));
            // The semaphore is never closed, so a permit always comes.
            let permit = Arc::clone(&permits).acquire_owned().await.ok();
            let executor = self.clone();
            let task = async move {
                let stage = match stage {
                    Ok(prepared) => Stage::Ready(prepared),
                    Err(request) => executor.prepare_off_workers(request, watched.as_ref(), started).await,
                };
                let record = match stage {
                    Stage::Done(record) => *record,
                    Stage::Ready(prepared) => {
                        run(
                            prepared,
                            Arc::clone(&executor.environment),
                            watched,
                            CallScope::new(),
                            started,
                            executor.reply,
                        )
                        .await
                    }
                };
                log_record(&record);
                drop(permit);
                (i, record)
            };
            task_index.insert(tasks.spawn(task.instrument(span)).id(), i);
        }
        while let Some(joined) = tasks.join_next_with_id().await {
            match joined {
                Ok((_, (i, record))) => slots[i] = Slot::Done(Box::new(record)),
                Err(error) => {
                    if let Some(&i) = task_index.get(&error.id()) {
                        if let Slot::Running(request, started) = &slots[i] {
                            slots[i] = Slot::Done(Box::new(lost(
                                Arc::clone(request),
                                *started,
                                format!("the call's task ended abnormally: {error}"),
                            )));
                        }
                    }
                }
            }
        }
        slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Done(record) => *record,
                Slot::Running(request, started) => {
                    lost(request, started, "the call's task ended without a result".to_owned())
                }
            })
            .collect()
    }

    /// [`Executor::prepare`] for large arguments: on the blocking pool, so that reading them
    /// never holds an async worker, and under the call's time limit and cancellation. A call
    /// stopped while its arguments are read ends at once; the reading itself finishes on its
    /// thread (it is bounded by the catalog's argument limits) and is dropped.
    async fn prepare_off_workers(
        &self,
        request: ToolCallRequest,
        watched: Option<&CancellationToken>,
        started: Instant,
    ) -> Stage {
        let limit = self.catalog.definition(&request.tool_name).and_then(|d| d.timeout).or(self.timeout);
        let kept = request.clone();
        let executor = self.clone();
        let span = tracing::Span::current();
        let binding = tokio::task::spawn_blocking(move || span.in_scope(|| executor.prepare(request, started)));
        let limited = async {
            match limit {
                Some(limit) => {
                    let deadline = tokio::time::Instant::from_std(started + limit);
                    tokio::time::timeout_at(deadline, binding).await.map_err(|_| limit)
                }
                None => Ok(binding.await),
            }
        };
        let outcome = match watched {
            None => Some(limited.await),
            Some(watched) => tokio::select! {
                biased;
                () = watched.cancelled() => None,
                outcome = limited => Some(outcome),
            },
        };
        let (status, failure, message) = match outcome {
            Some(Ok(Ok(stage))) => return stage,
            Some(Ok(Err(error))) => {
                return Stage::Done(Box::new(lost(
                    Arc::new(kept),
                    started,
                    format!("reading the call's arguments ended abnormally: {error}"),
                )))
            }
            Some(Err(limit)) => (
                CallStatus::TimedOut,
                CallFailure::TimedOut { after_ms: limit.as_millis() as u64 },
                format!("The arguments were not read within {}; the call was stopped.", human_duration(limit)),
            ),
            None => (
                CallStatus::Cancelled,
                CallFailure::Cancelled,
                "The call was cancelled before its arguments were read.".to_owned(),
            ),
        };
        Stage::Done(Box::new(failed(Arc::new(kept), started, status, failure, message)))
    }

    /// Looks the tool up and binds the arguments; a failure here is already a record.
    fn prepare(&self, mut request: ToolCallRequest, started: Instant) -> Stage {
        let Some(tool) = self.catalog.get(&request.tool_name) else {
            // Keep what the model sent readable in the record: a generic tolerant parse.
            let untyped = crate::extract::untyped_with(&request.raw_arguments, self.catalog.policy());
            request.parse_warnings.extend(untyped.warnings);
            request.arguments = untyped.arguments;
            request.parse_error = untyped.value.err();
            let suggestions: Vec<String> =
                self.catalog.closest_names(&request.tool_name, 3).into_iter().map(str::to_owned).collect();
            let message = unknown_tool_message(&request.tool_name, &suggestions, self.catalog.is_empty());
            return Stage::Done(Box::new(failed(
                Arc::new(request),
                started,
                CallStatus::Failed,
                CallFailure::UnknownTool { suggestions },
                message,
            )));
        };
        // Arguments given in the request (a provider's call put back in the declared form) are
        // what the values are read from; the raw text stays as the provider sent it.
        let policy = self.catalog.policy();
        // Under the strict policy the repairs that made the given arguments (an undecodable
        // JSON text left as it was by restoring, an XML call's broken structure read) are
        // refused, each as an error saying what lenient extraction would have done.
        let strict = policy.strict || tool.definition().strict;
        let refused = strict && request.arguments.is_some() && !request.parse_warnings.is_empty();
        // A reader that already refused the call (one cut by the end of the answer or of the
        // stream) has said why: nothing the text holds is run.
        let bound = if let Some(errors) = request.parse_error.take() {
            Err(errors)
        } else {
            match request.arguments.take() {
                Some(arguments) if refused => {
                    request.arguments = Some(arguments);
                    let refusals = request.parse_warnings.drain(..).map(|w| crate::extract::refusal(&w)).collect();
                    Err(crate::model::ArgumentErrors { errors: refusals })
                }
                None => self.conversations.binding(|| tool.bind(&mut request, policy)),
                Some(arguments) => {
                    let raw = std::mem::replace(&mut request.raw_arguments, arguments.to_string());
                    let bound = self.conversations.binding(|| tool.bind(&mut request, policy));
                    request.raw_arguments = raw;
                    request.arguments.get_or_insert(arguments);
                    bound
                }
            }
        };
        match bound {
            Ok(invocation) => {
                let timeout = tool.definition().timeout.or(self.timeout);
                Stage::Ready(Prepared { request: Arc::new(request), invocation, timeout })
            }
            Err(errors) => {
                let message = errors.model_message(&request.tool_name);
                let structured = errors.structured();
                request.parse_error = Some(errors);
                let mut record =
                    failed(Arc::new(request), started, CallStatus::Failed, CallFailure::InvalidArguments, message);
                record.content.structured = Some(json!({ "errors": structured }));
                Stage::Done(Box::new(record))
            }
        }
    }
}

fn call_span(request: &ToolCallRequest) -> tracing::Span {
    let (tool, call_id) = (Cut(&request.tool_name), Cut(&request.call_id));
    tracing::info_span!(target: "tools", "tool_call", tool = %tool, call_id = %call_id)
}

/// Arguments at least this long are read on the blocking pool (see
/// [`Executor::prepare_off_workers`]); shorter ones are read in place, in less time than a
/// trip to another thread takes.
const OFF_WORKERS_BYTES: usize = 64 * 1024;

/// Whether the arguments of `request` are read on the blocking pool.
fn binds_off_workers(request: &ToolCallRequest) -> bool {
    request.raw_arguments.len() >= OFF_WORKERS_BYTES
}

/// How many distinct rules of warnings and errors the summary of a call names.
const LOGGED_RULES: usize = 3;

/// The one event of a call (target `tools`): the tool, the call id, how it ended, how long it
/// took, how many warnings and errors its arguments had and the first rules among them, every
/// text cut (see [`crate::model::truncate`]), so that no call writes more than a line of log
/// whatever the model sent. Warning level unless the call succeeded.
fn log_record(record: &ExecutionRecord) {
    let success = record.status == CallStatus::Success;
    // The rules are gathered only for a subscriber that records the event.
    let enabled = match success {
        true => tracing::enabled!(target: "tools", tracing::Level::INFO),
        false => tracing::enabled!(target: "tools", tracing::Level::WARN),
    };
    if !enabled {
        return;
    }
    let request = &record.request;
    let errors = request.parse_error.as_ref().map_or(&[][..], |e| &e.errors[..]);
    let mut rules: Vec<&str> = Vec::new();
    let all = request.parse_warnings.iter().map(|w| w.rule()).chain(errors.iter().map(|e| e.rule.as_str()));
    for rule in all {
        if rules.len() == LOGGED_RULES {
            break;
        }
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    let rules = rules.join(",");
    let (rules, tool, call_id) = (Cut(&rules), Cut(&request.tool_name), Cut(&request.call_id));
    let (warnings, errors) = (request.parse_warnings.len(), errors.len());
    let duration_us = record.duration.as_micros() as u64;
    macro_rules! finished {
        ($level:ident) => {
            tracing::$level!(target: "tools", tool = %tool, call_id = %call_id, status = ?record.status, duration_us, warnings, errors, rules = %rules, "tool call finished")
        };
    }
    if success {
        finished!(info);
    } else {
        finished!(warn);
    }
}

/// Runs a bound call with its limits and turns every ending into a record.
///
/// `watched` is the host's cancellation (a child of its token), when it gave one; without it
/// there is nothing to race, so no `select!` and no waiter registration. The context's token
/// is cancelled when the call times out or is cancelled, never after a normal end.
async fn run(
    prepared: Prepared,
    environment: Arc<Environment>,
    watched: Option<CancellationToken>,
    scope: CallScope,
    started: Instant,
    reply: Reply,
) -> ExecutionRecord {
    let Prepared { request, invocation, timeout } = prepared;
    let token = watched.clone().unwrap_or_default();
    let mut ctx = ToolContext::new(Arc::clone(&request), environment, token.clone());
    if let Some(sink) = scope.progress {
        ctx = ctx.with_progress(sink);
    }
    if let Some(sink) = scope.log {
        ctx = ctx.with_log(sink);
    }
    if let Some(handler) = scope.asking.sampling {
        ctx = ctx.with_sampling(handler);
    }
    if let Some(handler) = scope.asking.elicitation {
        ctx = ctx.with_elicitation(handler);
    }
    let body = CatchUnwind::new(invocation, ctx);
    let limited = async {
        match timeout {
            // The limit counts from receipt: reading the arguments is part of the call.
            Some(limit) => {
                let deadline = tokio::time::Instant::from_std(started + limit);
                tokio::time::timeout_at(deadline, body).await.map_err(|_| limit)
            }
            None => Ok(body.await),
        }
    };
    let outcome = match &watched {
        None => Some(limited.await),
        Some(watched) => tokio::select! {
            biased;
            () = watched.cancelled() => None,
            outcome = limited => Some(outcome),
        },
    };
    if !matches!(outcome, Some(Ok(_))) {
        token.cancel();
    }
    let record = match outcome {
        None => failed(
            request,
            started,
            CallStatus::Cancelled,
            CallFailure::Cancelled,
            "The call was cancelled before the tool finished.".to_owned(),
        ),
        Some(Err(limit)) => {
            let message = format!("The tool did not finish within {}; it was stopped.", human_duration(limit));
            failed(
                request,
                started,
                CallStatus::TimedOut,
                CallFailure::TimedOut { after_ms: limit.as_millis() as u64 },
                message,
            )
        }
        Some(Ok(Err(mut panic))) => {
            // The record keeps the panic's message; the model reads it only when the host
            // says so, since it may hold paths, OS errors or data.
            crate::model::cut_saying(&mut panic, reply.max_output_bytes);
            let message = match reply.expose_error_details {
                true => format!("The tool failed unexpectedly: {panic}"),
                false => FAILED_UNEXPECTEDLY.to_owned(),
            };
            failed(request, started, CallStatus::Failed, CallFailure::Panicked { message: panic }, message)
        }
        Some(Ok(Ok(Err(mut error)))) => {
            let text = match error.internal_detail() {
                Some(detail) if reply.expose_error_details => format!("{}\nDetail: {detail}", error.message()),
                _ => error.message().to_owned(),
            };
            let mut content = ToolOutput::text(text);
            content.structured = error.details().cloned();
            let output_cut = bound_output(&mut content, reply.max_output_bytes);
            error.cut_to(reply.max_output_bytes);
            let mut record =
                failed(request, started, CallStatus::Failed, CallFailure::ToolError { error }, String::new());
            record.content = content;
            record.output_cut = output_cut;
            record
        }
        Some(Ok(Ok(Ok(mut output)))) => {
            let output_cut = bound_output(&mut output, reply.max_output_bytes);
            if let Some(error) = broken_block(&output) {
                let message = error.message().to_owned();
                return failed(request, started, CallStatus::Failed, CallFailure::ToolError { error }, message);
            }
            ExecutionRecord {
                request,
                status: CallStatus::Success,
                content: output,
                failure: None,
                duration: started.elapsed(),
                output_cut,
            }
        }
    };
    record
}

fn failed(
    request: Arc<ToolCallRequest>,
    started: Instant,
    status: CallStatus,
    failure: CallFailure,
    message: String,
) -> ExecutionRecord {
    ExecutionRecord {
        request,
        status,
        content: ToolOutput::text(message),
        failure: Some(failure),
        duration: started.elapsed(),
        output_cut: None,
    }
}

/// The error a result with a broken content block becomes: no provider or client is sent a
/// block it would refuse or misread.
fn broken_block(output: &ToolOutput) -> Option<ToolError> {
    output.blocks.iter().enumerate().find_map(|(index, block)| {
        let problem = block.problem()?;
        let message =
            format!("The tool's result could not be sent: its content block {index} ({}) {problem}.", block.kind());
        Some(ToolError::new(message).with_code("invalid_content"))
    })
}

/// Cuts `output` to `limit`: the text cut, the blocks that do not fit after it dropped, a
/// structured result or metadata over the limit dropped, and what was done said at the text's
/// end.
fn bound_output(output: &mut ToolOutput, limit: usize) -> Option<OutputCut> {
    let text_bytes = output.text.len();
    let structured_dropped = output.structured.as_ref().is_some_and(|value| serialized_over(value, limit));
    let metadata_dropped = !output.metadata.is_empty() && serialized_over(&output.metadata, limit);
    let text_cut = crate::model::cut_at(&mut output.text, limit);
    let mut left = limit - output.text.len();
    let mut dropped = Vec::new();
    output.blocks.retain(|block| {
        let size = block.size();
        let fits = size <= left;
        match fits {
            true => left -= size,
            false => dropped.push(dropped_block(block, size)),
        }
        fits
    });
    if !(text_cut || structured_dropped || metadata_dropped || !dropped.is_empty()) {
        return None;
    }
    let mut said = Vec::new();
    if text_cut {
        said.push(format!("output cut at {limit} bytes of {text_bytes}"));
    }
    if !dropped.is_empty() {
        let count = match dropped.len() {
            1 => "1 block".to_owned(),
            n => format!("{n} blocks"),
        };
        said.push(format!("{count} dropped ({}): over {limit} bytes", dropped.join("; ")));
    }
    if structured_dropped {
        output.structured = None;
        said.push(format!("structured result dropped: over {limit} bytes"));
    }
    if metadata_dropped {
        output.metadata.clear();
    }
    if !said.is_empty() {
        output.text.push_str(&format!("\n[{}]", said.join("; ")));
    }
    Some(OutputCut { limit, text_bytes, structured_dropped, metadata_dropped, blocks_dropped: dropped.len() })
}

/// A dropped block in a few words: `image/png, 2 MB`.
fn dropped_block(block: &crate::model::ContentBlock, size: usize) -> String {
    let what = block.mime_type().unwrap_or(block.kind());
    format!("{what}, {}", crate::model::human_bytes(block.decoded_len().unwrap_or(size)))
}

fn unknown_tool_message(name: &str, suggestions: &[String], no_tools: bool) -> String {
    // The name is the model's own text, of any length: the message quotes it cut.
    let name = crate::model::truncate(name);
    if no_tools {
        return format!("There is no tool named `{name}`, and no tools are available.");
    }
    if suggestions.is_empty() {
        return format!("There is no tool named `{name}`, and no tool has a name like it.");
    }
    let list: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    format!(
        "There is no tool named `{name}`. The closest existing tools are: {}. Call one of them instead.",
        list.join(", ")
    )
}

fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Polls a tool's future, turning a panic (while starting it or while polling it) into an error.
struct CatchUnwind {
    state: Option<Result<crate::tool::BoxFuture<'static, ToolResult>, String>>,
}

impl CatchUnwind {
    fn new(invocation: Invocation, ctx: ToolContext) -> Self {
        let started = std::panic::catch_unwind(AssertUnwindSafe(|| invocation.run(ctx))).map_err(panic_message);
        CatchUnwind { state: Some(started) }
    }
}

impl Future for CatchUnwind {
    type Output = Result<ToolResult, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.state.as_mut() {
            None => Poll::Ready(Err("the tool was polled after it finished".to_owned())),
            Some(Err(_)) => Poll::Ready(Err(self.state.take().and_then(Result::err).unwrap_or_default())),
            Some(Ok(future)) => match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                Ok(Poll::Pending) => Poll::Pending,
                Ok(Poll::Ready(result)) => {
                    self.state = None;
                    Poll::Ready(Ok(result))
                }
                Err(payload) => {
                    self.state = None;
                    Poll::Ready(Err(panic_message(payload)))
                }
            },
        }
    }
}

fn panic_message(payload: Box<dyn Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".to_owned()
    }
}
