//! The contract every tool goes through: binding a call's arguments, then running it.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::context::ToolContext;
use crate::extract::ExtractionPolicy;
use crate::model::{ArgumentErrors, Extraction, ParseWarning, ToolCallRequest, ToolDefinition};
use crate::model::{ToolError, ToolOutput};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What running a tool body yields.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// A call whose arguments were accepted, ready to run in a context.
pub struct Invocation(Box<dyn FnOnce(ToolContext) -> BoxFuture<'static, ToolResult> + Send>);

impl Invocation {
    /// Wraps the function that starts the call.
    pub fn new(run: impl FnOnce(ToolContext) -> BoxFuture<'static, ToolResult> + Send + 'static) -> Self {
        Invocation(Box::new(run))
    }

    /// Starts the call.
    pub fn run(self, ctx: ToolContext) -> BoxFuture<'static, ToolResult> {
        (self.0)(ctx)
    }
}

/// A tool the catalog can hold and the executor can run.
pub trait Tool: Send + Sync + 'static {
    /// The tool's definition, built once.
    fn definition(&self) -> &ToolDefinition;

    /// Extracts the arguments of `request` under `policy`, recording warnings (and the
    /// arguments object, when one was built) in it; returns the ready call, or why the arguments
    /// were refused.
    fn bind(&self, request: &mut ToolCallRequest, policy: ExtractionPolicy) -> Result<Invocation, ArgumentErrors>;

    /// Whether the tool keeps state per conversation (a `#[tool]` method): its calls need a
    /// conversation, and an MCP server whose requests belong to no session cannot serve it.
    fn keeps_state(&self) -> bool {
        false
    }
}

/// Records an extraction's warnings and arguments in the request, returning its value.
pub(crate) fn settle<T>(
    request: &mut ToolCallRequest,
    (value, warnings, arguments): ExtractionParts<T>,
) -> Result<T, ArgumentErrors> {
    request.parse_warnings.extend(warnings);
    request.arguments = arguments;
    value
}

pub(crate) type ExtractionParts<T> = (Result<T, ArgumentErrors>, Vec<ParseWarning>, Option<Value>);

pub(crate) fn parts<T>(extraction: Extraction<'_, T>) -> ExtractionParts<T> {
    (extraction.value, extraction.warnings.into_vec(), extraction.arguments)
}
