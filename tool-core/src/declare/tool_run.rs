//! The body of a struct declared with `#[tool]`: [`ToolRun`].

use std::future::Future;

use crate::context::ToolContext;
use crate::model::IntoToolOutput;

/// The struct form's body: `#[tool] struct CheckAvailability { .. }` plus this impl.
///
/// ```
/// use tool_core::prelude::*;
///
/// /// Check whether a meeting room is free.
/// #[tool]
/// struct CheckAvailability {
///     /// Room name.
///     room: String,
/// }
///
/// impl ToolRun for CheckAvailability {
///     type Output = Result<String, ToolError>;
///
///     async fn run(self, _ctx: &ToolContext) -> Self::Output {
///         Ok(format!("{} is free", self.room))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared with `#[tool]` but has no body",
    label = "needs `impl ToolRun for {Self}`",
    note = "add `impl ToolRun for {Self} {{ type Output = Result<String, ToolError>; async fn run(self, ctx: &ToolContext) -> Self::Output {{ .. }} }}`"
)]
pub trait ToolRun: Sized + Send + 'static {
    /// What the tool returns (see [`IntoToolOutput`]).
    type Output: IntoToolOutput;

    /// Runs the tool with its extracted parameters.
    fn run(self, ctx: &ToolContext) -> impl Future<Output = Self::Output> + Send;
}
