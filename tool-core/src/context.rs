//! The execution context a tool runs in: its call request and the host's environment.
//!
//! Tool functions receive these by reference (`ctx: &ToolContext`, `cancel: &CancellationToken`,
//! `db: &State<Db>`); the executor supplies them through [`FromContext`]. They never appear in
//! a tool's schema.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::ask::{Elicitation, ElicitationHandler, SamplingHandler, SamplingRequest, SamplingResponse};
use crate::model::ToolCallRequest;
use crate::model::ToolError;
use crate::state::{Owner, SharedStore};

/// Shared state a host hands to its tools, read by `&State<T>` parameters.
#[derive(Debug, Default)]
pub struct State<T>(pub Arc<T>);

impl<T> State<T> {
    /// Wraps a value.
    pub fn new(value: T) -> Self {
        State(Arc::new(value))
    }
}

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// The host's environment for tool calls: typed shared state and named values
/// (conversation id, debug flags, ...).
#[derive(Clone, Default)]
pub struct Environment {
    states: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    values: HashMap<String, Value>,
    /// The executor's state store, set when it is built.
    pub(crate) store: Option<SharedStore>,
    /// Whether types whose state lives in this process run on a shared store
    /// ([`ExecutorBuilder::allow_local_state`](crate::ExecutorBuilder::allow_local_state)).
    pub(crate) local_state: bool,
    /// The most bytes a `shared_state` value may take in the store, when the host set it
    /// ([`ExecutorBuilder::max_state_bytes`](crate::ExecutorBuilder::max_state_bytes)).
    pub(crate) max_state_bytes: Option<usize>,
}

impl Environment {
    /// An empty environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds shared state of type `T`, replacing any earlier one.
    pub fn insert_state<T: Send + Sync + 'static>(&mut self, value: T) {
        self.states.insert(TypeId::of::<State<T>>(), Arc::new(State::new(value)));
    }

    /// The shared state of type `T`, if the host gave one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&State<T>> {
        self.states.get(&TypeId::of::<State<T>>())?.downcast_ref::<State<T>>()
    }

    /// Sets a named value.
    pub fn insert_value(&mut self, key: impl Into<String>, value: impl Into<Value>) {
        self.values.insert(key.into(), value.into());
    }

    /// A named value.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.values.get(key)
    }
}

impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Environment").field("states", &self.states.len()).field("values", &self.values).finish()
    }
}

/// How far a running tool has got, as it reports it through [`ToolContext::report_progress`].
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Work done so far; it should grow with every report, even when the total is unknown.
    pub progress: f64,
    /// The whole amount of work, when known.
    pub total: Option<f64>,
    /// What the tool is doing, for a person watching.
    pub message: Option<String>,
}

/// Where a call's progress reports go (an MCP client's progress notifications, a UI).
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// How severe a tool's log message is: the syslog levels, as MCP's `logging/setLevel` and
/// `notifications/message` name them, least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Details for whoever debugs the tool.
    Debug,
    /// What the tool is doing.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at; the tool goes on.
    Warning,
    /// An operation failed.
    Error,
    /// A part of the system failed.
    Critical,
    /// Someone must act at once.
    Alert,
    /// The system cannot be used.
    Emergency,
}

/// One log message of a running tool, as [`ToolContext::log`] sends it.
#[derive(Clone, Debug, PartialEq)]
pub struct LogMessage {
    /// How severe it is.
    pub level: LogLevel,
    /// The name of the tool that sent it.
    pub logger: String,
    /// What the tool logged: text, or any JSON value.
    pub data: Value,
}

/// Where a call's log messages go (an MCP client's `notifications/message`, a host's log).
pub type LogSink = Arc<dyn Fn(LogMessage) + Send + Sync>;

/// Everything a running tool may look at: the request that started it and the environment.
#[derive(Clone)]
pub struct ToolContext {
    request: Arc<ToolCallRequest>,
    environment: Arc<Environment>,
    cancellation: CancellationToken,
    progress: Option<ProgressSink>,
    log: Option<LogSink>,
    sampling: Option<SamplingHandler>,
    elicitation: Option<ElicitationHandler>,
    roots: Option<crate::ask::RootsHandler>,
    approved: bool,
    task_switch: Option<TaskSwitch>,
}

/// What tells the server a call reached [`ToolContext::continue_as_task`] in its request.
pub(crate) type TaskSwitch = Arc<dyn Fn() + Send + Sync>;

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("request", &self.request)
            .field("environment", &self.environment)
            .field("cancellation", &self.cancellation)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("approved", &self.approved)
            .finish()
    }
}

impl ToolContext {
    /// A context for `request`; the executor builds these, tests may too.
    pub fn new(request: Arc<ToolCallRequest>, environment: Arc<Environment>, cancellation: CancellationToken) -> Self {
        ToolContext {
            request,
            environment,
            cancellation,
            progress: None,
            log: None,
            sampling: None,
            elicitation: None,
            roots: None,
            approved: false,
            task_switch: None,
        }
    }

    /// The store the call's state lives in (the executor's; see
    /// [`ExecutorBuilder::store`](crate::ExecutorBuilder::store)), when an executor runs it.
    pub fn store(&self) -> Option<&SharedStore> {
        self.environment.store.as_ref()
    }

    /// Who owns the call's state: its principal and its conversation.
    pub fn owner(&self) -> Owner {
        Owner::new(self.request.principal.as_deref(), self.request.conversation_id.as_deref())
    }

    /// Whether a person approved this call: a call that waited for approval runs with it true,
    /// so that a tool deciding per call
    /// ([`ToolError::approval_required`](crate::ToolError::approval_required), or
    /// `#[tool(approval = "fn")]`) does not ask again.
    pub fn approved(&self) -> bool {
        self.approved
    }

    /// Marks the call approved (see [`approved`](Self::approved)).
    pub fn with_approved(mut self, approved: bool) -> Self {
        self.approved = approved;
        self
    }

    /// Sends the tool's [`sample`](Self::sample) requests to `handler`.
    pub fn with_sampling(mut self, handler: SamplingHandler) -> Self {
        self.sampling = Some(handler);
        self
    }

    /// Sends the tool's [`elicit`](Self::elicit) requests to `handler`.
    pub fn with_elicitation(mut self, handler: ElicitationHandler) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Asks the model of whoever made the call for a message: the MCP client that made the
    /// call (`sampling/createMessage`, when it declared the `sampling` capability), else the
    /// host's handler ([`CallScope::on_sample`](crate::CallScope::on_sample), or
    /// [`ExecutorBuilder::on_sample`](crate::ExecutorBuilder::on_sample) for every call). The
    /// wait ends with the call: its time limit and cancellation stop it.
    ///
    /// # Errors
    /// Nobody to ask (code `no_sampling`), an error the tool may handle; or the error of
    /// whoever answered (over MCP: `sampling_failed`, saying what the client said).
    pub async fn sample(&self, request: SamplingRequest) -> Result<SamplingResponse, ToolError> {
        let Some(handler) = &self.sampling else {
            return Err(ToolError::new(format!(
                "`{}` has no model to ask: over MCP the client that made the call must declare the \
                 `sampling` capability; otherwise the host answers with `CallScope::on_sample` or \
                 `ExecutorBuilder::on_sample`",
                self.request.tool_name
            ))
            .with_code("no_sampling"));
        };
        handler(request).await
    }

    /// Asks the user of whoever made the call to fill in a form made from `T` (its fields, with
    /// their doc comments as descriptions and their `#[serde(default)]`s as defaults), showing
    /// `message`: the MCP client that made the call (`elicitation/create`, when it declared the
    /// `elicitation` capability), else the host's handler
    /// ([`CallScope::on_elicit`](crate::CallScope::on_elicit), or
    /// [`ExecutorBuilder::on_elicit`](crate::ExecutorBuilder::on_elicit) for every call). The
    /// answer is read as arguments are: a value in another form is converted, with a warning.
    /// The wait ends with the call: its time limit and cancellation stop it.
    ///
    /// # Errors
    /// `T` is not a flat form (code `invalid_form`, naming the field); nobody to ask (code
    /// `no_elicitation`); an answer that does not fit `T` (code `invalid_elicitation_answer`,
    /// naming each field, what it expects and what arrived); or the error of whoever answered.
    pub async fn elicit<T: schemars::JsonSchema + serde::de::DeserializeOwned>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ToolError> {
        crate::ask::elicit(self.elicitation.as_ref(), &self.request.tool_name, message.into(), None).await
    }

    /// [`elicit`](Self::elicit), with the question named `key` where questions are named: on
    /// MCP 2026-07-28, the key of its entry in the `InputRequiredResult` the client answers
    /// (a client that knows the key may answer it by name).
    ///
    /// # Errors
    /// As [`elicit`](Self::elicit).
    pub async fn elicit_keyed<T: schemars::JsonSchema + serde::de::DeserializeOwned>(
        &self,
        key: &str,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ToolError> {
        crate::ask::elicit(self.elicitation.as_ref(), &self.request.tool_name, message.into(), Some(key)).await
    }

    /// Sends the tool's [`roots`](Self::roots) requests to `handler`.
    pub fn with_roots(mut self, handler: crate::ask::RootsHandler) -> Self {
        self.roots = Some(handler);
        self
    }

    /// The places whoever made the call lets its tools work in: the roots of the MCP client
    /// that made the call (`roots/list`, when it declared the `roots` capability; on protocol
    /// 2026-07-28, a question in the request's rounds), else the host's
    /// ([`CallScope::on_roots`](crate::CallScope::on_roots)).
    ///
    /// # Errors
    /// Nobody lists them (code `no_roots`); or the error of whoever answered (over MCP:
    /// `roots_failed`, saying what the client said).
    pub async fn roots(&self) -> Result<Vec<crate::ask::Root>, ToolError> {
        let Some(handler) = &self.roots else {
            return Err(ToolError::new(format!(
                "`{}` has nobody to list its roots: over MCP the client that made the call must declare the \
                 `roots` capability; otherwise the host answers with `CallScope::on_roots`",
                self.request.tool_name
            ))
            .with_code("no_roots"));
        };
        handler().await
    }

    /// Where the call becomes a task when it reaches [`continue_as_task`](Self::continue_as_task).
    pub(crate) fn with_task_switch(mut self, switch: TaskSwitch) -> Self {
        self.task_switch = Some(switch);
        self
    }

    /// Where a call may become an MCP task (a `#[tool(task(asks_first))]` tool called by a
    /// client of protocol 2026-07-28 that declared the tasks extension), the call's request
    /// ends here and answers with a task, and the task runs the call again from the top: each
    /// question it asked before gets the answer given in the request's rounds at once, and this
    /// call returns at once. Everywhere else (the task itself, another client, another kind of
    /// caller) it returns at once. So a tool asks what it needs, then calls this, then does its
    /// long work; what comes before it may run twice and should not act.
    pub async fn continue_as_task(&self) {
        if let Some(switch) = &self.task_switch {
            switch();
            // The server drops the call here; its task runs it again.
            std::future::pending::<()>().await;
        }
    }

    /// Sends the tool's log messages to `sink`.
    pub fn with_log(mut self, sink: LogSink) -> Self {
        self.log = Some(sink);
        self
    }

    /// Sends a log message to whoever receives the call's logs: the MCP client that made the
    /// call (as `notifications/message`, when its level is at least the one the client set with
    /// `logging/setLevel`), or the host's sink (`CallScope::on_log`). `data` is text or any
    /// JSON value.
    ///
    /// # Errors
    /// When nobody receives this call's logs, an error (code `no_log_receiver`) the tool may
    /// return or ignore.
    pub fn log(&self, level: LogLevel, data: impl Into<Value>) -> Result<(), ToolError> {
        let Some(sink) = &self.log else {
            return Err(ToolError::new(format!(
                "`{}` has nobody to send its log to: a call gets one over MCP, or from the host's \
                 `CallScope::on_log`",
                self.request.tool_name
            ))
            .with_code("no_log_receiver"));
        };
        sink(LogMessage { level, logger: self.request.tool_name.clone(), data: data.into() });
        Ok(())
    }

    /// Sends the tool's progress reports to `sink`.
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Reports how far the tool has got. The report reaches whoever asked for progress (an MCP
    /// client that sent a progress token, a host that gave a sink); without one it goes nowhere.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.progress {
            sink(Progress { progress, total, message: message.map(str::to_owned) });
        }
    }

    /// Whether anyone receives progress reports, so a tool can skip preparing them.
    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// The call request, with the raw arguments and every parse warning.
    pub fn request(&self) -> &ToolCallRequest {
        &self.request
    }

    /// The provider's id of this call.
    pub fn call_id(&self) -> &str {
        &self.request.call_id
    }

    /// The host's environment.
    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    /// Shared state of type `T`, if the host gave one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&State<T>> {
        self.environment.state::<T>()
    }

    /// Cancelled when the call times out or the host cancels it (not after a normal end); long
    /// tools should watch it.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }
}

/// A value the executor injects into a tool function, taken by reference.
#[diagnostic::on_unimplemented(
    message = "`&{Self}` is not something the executor can supply",
    label = "parameters taken by reference are injected by the executor",
    note = "injectable references are `&ToolContext`, `&CancellationToken`, `&ToolCallRequest`, `&Environment` and `&State<T>`",
    note = "a tool parameter the model sends must be an owned value: `String`, not `&str`"
)]
pub trait FromContext {
    /// Borrows the value from the context, or explains why it is not there.
    fn from_context(ctx: &ToolContext) -> Result<&Self, ToolError>;
}

impl FromContext for ToolContext {
    fn from_context(ctx: &ToolContext) -> Result<&Self, ToolError> {
        Ok(ctx)
    }
}

impl FromContext for CancellationToken {
    fn from_context(ctx: &ToolContext) -> Result<&Self, ToolError> {
        Ok(&ctx.cancellation)
    }
}

impl FromContext for ToolCallRequest {
    fn from_context(ctx: &ToolContext) -> Result<&Self, ToolError> {
        Ok(&ctx.request)
    }
}

impl FromContext for Environment {
    fn from_context(ctx: &ToolContext) -> Result<&Self, ToolError> {
        Ok(&ctx.environment)
    }
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(ctx: &ToolContext) -> Result<&Self, ToolError> {
        ctx.state::<T>().ok_or_else(|| {
            ToolError::new(format!(
                "the tool `{}` needs shared state `{}`, which the host did not provide",
                ctx.request.tool_name,
                std::any::type_name::<T>()
            ))
            .with_code("missing_state")
        })
    }
}
