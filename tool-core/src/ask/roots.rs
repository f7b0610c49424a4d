//! Roots: the places (directories, repositories) whoever made a call lets its tools work in,
//! as an MCP client lists them (`roots/list`).

use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::ToolError;

/// One root of the caller ([`ToolContext::roots`](crate::ToolContext::roots)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Where it is: a `file://` URI for MCP clients today.
    pub uri: String,
    /// What the client calls it, when it names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`, without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Root { uri: uri.into(), name: None }
    }

    /// The same root, named `name`.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// Answers a tool's [`ToolContext::roots`](crate::ToolContext::roots): the MCP client that made
/// the call, or the host ([`CallScope::on_roots`](crate::CallScope::on_roots)).
pub type RootsHandler = Arc<dyn Fn() -> super::future::AskFuture<Vec<Root>> + Send + Sync>;

pub(crate) fn roots_handler<F, Fut>(handler: F) -> RootsHandler
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<Root>, ToolError>> + Send + 'static,
{
    Arc::new(move || Box::pin(handler()))
}
