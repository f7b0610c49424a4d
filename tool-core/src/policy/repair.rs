//! The host's repair of calls extraction refused.

use std::future::Future;
use std::sync::Arc;

use crate::model::{ToolCallRequest, ToolDefinition};
use crate::tool::BoxFuture;

/// A call extraction refused, handed to the host's repair hook.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RepairRequest {
    /// The call as refused: raw arguments verbatim, the errors in `parse_error`, warnings.
    pub request: ToolCallRequest,
    /// The model-facing message the call would fail with.
    pub message: String,
    /// The tool's definition, when the tool exists (its name was not the problem).
    pub definition: Option<ToolDefinition>,
    /// The closest tool names, when no tool has the call's name.
    pub suggestions: Vec<String>,
}

/// What a repair hook is: given a refused call, a call to try instead (its arguments are
/// extracted again, once; the record keeps both), or `None` to let the call fail.
pub type Repair = Arc<dyn Fn(RepairRequest) -> BoxFuture<'static, Option<ToolCallRequest>> + Send + Sync>;

pub(crate) fn repair_hook<F, Fut>(hook: F) -> Repair
where
    F: Fn(RepairRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Option<ToolCallRequest>> + Send + 'static,
{
    Arc::new(move |request| Box::pin(hook(request)))
}
