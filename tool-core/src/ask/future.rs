//! What an asking handler returns.

use std::future::Future;
use std::pin::Pin;

use crate::model::ToolError;

/// What an asking handler returns: the answer, later.
pub type AskFuture<T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send + 'static>>;
