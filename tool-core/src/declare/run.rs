//! The runtime pieces `#[tool]` expands to: a struct tool run and its output schema, a sync
//! body on the blocking pool, a stateful type's instance made by its factory, a call its
//! `approval` predicate holds for a person. Reached by the
//! expansion as `tool_core::__private::..`.

use schemars::{Schema, SchemaGenerator};

use super::tool_run::ToolRun;
use crate::context::ToolContext;
use crate::model::{IntoToolOutput, ToolError};
use crate::tool::{BoxFuture, ToolResult};

/// Makes an instance with its factory's result, converting the factory's error.
pub fn created<T, E: Into<ToolError>>(made: Result<T, E>) -> Result<T, ToolError> {
    made.map_err(Into::into)
}

/// The answer of a `#[tool(approval = "..")]` tool whose predicate flags a call nobody approved
/// yet: the executor holds the call until a person decides, then runs it again approved. The
/// message is shown to that person.
#[cold]
pub fn approval_pending(tool: &str) -> BoxFuture<'static, ToolResult> {
    let error = ToolError::approval_required(format!("`{tool}` needs a person's approval for these arguments"));
    Box::pin(std::future::ready(Err(error)))
}

/// Runs a struct tool (`ToolRun::run`) and converts its output.
pub fn run_struct<T: ToolRun>(value: T, ctx: ToolContext) -> BoxFuture<'static, ToolResult> {
    Box::pin(async move { value.run(&ctx).await.into_output() })
}

/// The output schema of a struct tool.
pub fn struct_output_schema<T: ToolRun>(generator: &mut SchemaGenerator) -> Option<Schema> {
    T::Output::output_schema(generator)
}

/// Runs a sync tool body on the blocking pool (every sync `#[tool]` not marked `inline`),
/// inside the call's tracing span. When the call's future is dropped (time limit,
/// cancellation) the body goes on until it returns; only its result is dropped.
pub async fn run_blocking<R: IntoToolOutput + Send + 'static>(body: impl FnOnce() -> R + Send + 'static) -> ToolResult {
    let span = tracing::Span::current();
    match tokio::task::spawn_blocking(move || span.in_scope(body)).await {
        Ok(result) => result.into_output(),
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(ToolError::new(format!("the blocking task did not finish: {error}"))),
    }
}
