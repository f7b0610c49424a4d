//! A server without tool search (the `search` feature is off): every tool is listed, and no
//! call is a search. The same parts `search.rs` gives the server, holding nothing.

use std::borrow::Cow;

use rmcp::model::Tool as McpTool;
use rmcp::service::{RequestContext, RoleServer};

use crate::catalog::ToolCatalog;
use crate::executor::{ExecutionRecord, Executor};

use super::server_error::McpServerError;

/// A server's tool search: none.
#[derive(Clone, Default)]
pub(super) struct ServerSearch(());

/// What a session's searches found: nothing.
#[derive(Default)]
pub(super) struct SessionSearch(());

/// The search of a served catalog: none.
pub(super) struct ServedSearch(());

impl ServerSearch {
    pub(super) fn prepare(&self, executor: &Executor) -> Result<(Executor, ServedSearch), McpServerError> {
        Ok((executor.clone(), ServedSearch(())))
    }
}

impl ServedSearch {
    pub(super) fn always_listed(&self, _: &ToolCatalog, _: &str) -> bool {
        true
    }

    pub(super) fn listed<'a>(
        &self,
        listed: &'a [usize],
        _: &ToolCatalog,
        _: Option<&SessionSearch>,
        _: &RequestContext<RoleServer>,
    ) -> Cow<'a, [usize]> {
        Cow::Borrowed(listed)
    }

    pub(super) async fn settle(
        &self,
        _: &ServerSearch,
        _: &mut ExecutionRecord,
        _: &[McpTool],
        _: Option<&SessionSearch>,
        _: &RequestContext<RoleServer>,
    ) {
    }
}
