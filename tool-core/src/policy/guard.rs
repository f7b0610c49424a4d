//! Guardrails: the host's checks of a call's arguments before the tool runs, and of its
//! result after.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::{ToolCallRequest, ToolDefinition, ToolOutput};
use crate::tool::{BoxFuture, Tool};

/// A call as a guardrail sees it: the request after extraction, the tool's definition, and
/// the arguments as the tool reads them. `'static`, so that an async guardrail may keep it
/// across awaits.
#[derive(Clone)]
pub struct GuardedCall {
    request: Arc<ToolCallRequest>,
    tool: Arc<dyn Tool>,
    arguments: OnceLock<Value>,
}

impl GuardedCall {
    pub(crate) fn new(request: Arc<ToolCallRequest>, tool: Arc<dyn Tool>) -> Self {
        GuardedCall { request, tool, arguments: OnceLock::new() }
    }

    /// The request: raw arguments verbatim, warnings, conversation.
    pub fn request(&self) -> &ToolCallRequest {
        &self.request
    }

    /// The tool's name.
    pub fn tool_name(&self) -> &str {
        &self.request.tool_name
    }

    /// The tool's definition: tags, annotations, schema.
    pub fn definition(&self) -> &ToolDefinition {
        self.tool.definition()
    }

    /// The arguments object the tool's values were read from: extraction's object when it
    /// built one (conversions applied), else the raw text, read once and shared by every
    /// guardrail of the call.
    pub fn arguments(&self) -> &Value {
        self.arguments.get_or_init(|| match &self.request.arguments {
            Some(arguments) => arguments.clone(),
            None => serde_json::from_str(&self.request.raw_arguments).unwrap_or(Value::Null),
        })
    }

    /// One argument by its wire name.
    pub fn argument(&self, name: &str) -> Option<&Value> {
        self.arguments().get(name)
    }

    /// The arguments read as `T` (a struct of the fields a guardrail cares about).
    ///
    /// # Errors
    /// The arguments do not have `T`'s shape.
    pub fn arguments_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(self.arguments())
    }
}

impl std::fmt::Debug for GuardedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedCall")
            .field("request", &self.request)
            .field("tool", &self.tool.definition().name)
            .field("arguments", &self.arguments.get())
            .finish()
    }
}

/// What an input guardrail decided.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputVerdict {
    /// The call goes on.
    Allow,
    /// The call is not run; the model reads the message as its result.
    Reject(String),
    /// The call is not run, nor any other call of its batch: the host ends the turn.
    StopTurn(String),
}

impl InputVerdict {
    /// The call goes on.
    pub fn allow() -> Self {
        InputVerdict::Allow
    }

    /// The call is refused with a message for the model.
    pub fn reject(message: impl Into<String>) -> Self {
        InputVerdict::Reject(message.into())
    }

    /// The whole turn stops.
    pub fn stop_turn(message: impl Into<String>) -> Self {
        InputVerdict::StopTurn(message.into())
    }
}

/// What an output guardrail decided.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OutputVerdict {
    /// The result goes to the model.
    Allow,
    /// This goes to the model instead; the record keeps the tool's own result.
    Replace(ToolOutput),
    /// The call fails with this message for the model; the record keeps the tool's result.
    Reject(String),
}

impl OutputVerdict {
    /// The result goes to the model.
    pub fn allow() -> Self {
        OutputVerdict::Allow
    }

    /// The model reads `output` instead.
    pub fn replace(output: impl Into<ToolOutput>) -> Self {
        OutputVerdict::Replace(output.into())
    }

    /// The call fails with a message for the model.
    pub fn reject(message: impl Into<String>) -> Self {
        OutputVerdict::Reject(message.into())
    }
}

/// A check of a call's arguments, after extraction and before the tool (and before asking
/// for approval: a person is not asked about a call a guardrail refuses).
///
/// Any `Fn(&GuardedCall) -> InputVerdict` is one; [`input_async`] makes one of an async
/// function.
pub trait InputGuardrail: Send + Sync + 'static {
    /// Decides about `call`.
    fn check<'a>(&'a self, call: &'a GuardedCall) -> BoxFuture<'a, InputVerdict>;

    /// Whether [`check`](Self::check) may wait (on a service, a lock); a batch whose
    /// guardrails never wait checks its calls in place rather than in tasks of their own.
    fn waits(&self) -> bool {
        true
    }

    /// The verdict at once, for a guardrail that never waits; `None` to have `check` asked.
    fn check_now(&self, call: &GuardedCall) -> Option<InputVerdict> {
        let _ = call;
        None
    }
}

impl<F> InputGuardrail for F
where
    F: Fn(&GuardedCall) -> InputVerdict + Send + Sync + 'static,
{
    fn check<'a>(&'a self, call: &'a GuardedCall) -> BoxFuture<'a, InputVerdict> {
        Box::pin(std::future::ready(self(call)))
    }

    fn waits(&self) -> bool {
        false
    }

    fn check_now(&self, call: &GuardedCall) -> Option<InputVerdict> {
        Some(self(call))
    }
}

/// A check of a call's successful result, before the model reads it.
///
/// Any `Fn(&GuardedCall, &ToolOutput) -> OutputVerdict` is one; [`output_async`] makes one of
/// an async function.
pub trait OutputGuardrail: Send + Sync + 'static {
    /// Decides about `output`, the result of `call`.
    fn check<'a>(&'a self, call: &'a GuardedCall, output: &'a ToolOutput) -> BoxFuture<'a, OutputVerdict>;

    /// The verdict at once, for a guardrail that never waits; `None` to have `check` asked.
    fn check_now(&self, call: &GuardedCall, output: &ToolOutput) -> Option<OutputVerdict> {
        let _ = (call, output);
        None
    }
}

impl<F> OutputGuardrail for F
where
    F: Fn(&GuardedCall, &ToolOutput) -> OutputVerdict + Send + Sync + 'static,
{
    fn check<'a>(&'a self, call: &'a GuardedCall, output: &'a ToolOutput) -> BoxFuture<'a, OutputVerdict> {
        Box::pin(std::future::ready(self(call, output)))
    }

    fn check_now(&self, call: &GuardedCall, output: &ToolOutput) -> Option<OutputVerdict> {
        Some(self(call, output))
    }
}

struct AsyncInput<F>(F);

impl<F, Fut> InputGuardrail for AsyncInput<F>
where
    F: Fn(GuardedCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = InputVerdict> + Send + 'static,
{
    fn check<'a>(&'a self, call: &'a GuardedCall) -> BoxFuture<'a, InputVerdict> {
        Box::pin((self.0)(call.clone()))
    }
}

struct AsyncOutput<F>(F);

impl<F, Fut> OutputGuardrail for AsyncOutput<F>
where
    F: Fn(GuardedCall, ToolOutput) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = OutputVerdict> + Send + 'static,
{
    fn check<'a>(&'a self, call: &'a GuardedCall, output: &'a ToolOutput) -> BoxFuture<'a, OutputVerdict> {
        Box::pin((self.0)(call.clone(), output.clone()))
    }
}

/// An input guardrail of an async function (a moderation service, a database lookup).
pub fn input_async<F, Fut>(check: F) -> impl InputGuardrail
where
    F: Fn(GuardedCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = InputVerdict> + Send + 'static,
{
    AsyncInput(check)
}

/// An output guardrail of an async function.
pub fn output_async<F, Fut>(check: F) -> impl OutputGuardrail
where
    F: Fn(GuardedCall, ToolOutput) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = OutputVerdict> + Send + 'static,
{
    AsyncOutput(check)
}

/// Which calls a guardrail (or a rate limit) applies to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GuardScope {
    /// Every call.
    All,
    /// Calls of the tool with this name.
    Tool(String),
    /// Calls of tools with this tag.
    Tag(String),
}

impl GuardScope {
    /// Calls of the tool with this name.
    pub fn tool(name: impl Into<String>) -> Self {
        GuardScope::Tool(name.into())
    }

    /// Calls of tools with this tag.
    pub fn tag(tag: impl Into<String>) -> Self {
        GuardScope::Tag(tag.into())
    }

    /// Whether calls of `definition` are in scope.
    pub fn covers(&self, definition: &ToolDefinition) -> bool {
        match self {
            GuardScope::All => true,
            GuardScope::Tool(name) => definition.name == *name,
            GuardScope::Tag(tag) => definition.has_tag(tag),
        }
    }
}

/// A guardrail with its name and scope, as the executor holds it.
pub(crate) struct Scoped<G: ?Sized> {
    pub(crate) name: Arc<str>,
    pub(crate) scope: GuardScope,
    pub(crate) guard: Arc<G>,
}

impl<G: ?Sized> Clone for Scoped<G> {
    fn clone(&self) -> Self {
        Scoped { name: Arc::clone(&self.name), scope: self.scope.clone(), guard: Arc::clone(&self.guard) }
    }
}
