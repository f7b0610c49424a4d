//! Who calls, and OAuth scopes per tool: the principal and identity of a request, what a call
//! of each tool needs (`#[tool(scopes(..))]` and the host's rule), which tools a caller's token
//! lets it see, and the refusal of a call it may not make.
//! Only a request with an access token (feature `oauth`) is held to them.

use std::borrow::Cow;
use std::collections::BTreeSet;

use rmcp::service::{RequestContext, RoleServer};

use rmcp::model::{ListToolsResult, PaginatedRequestParams, Tool as McpTool};
use rmcp::ErrorData;
use serde_json::Value;

use super::{McpServer, Served};
use crate::model::{Principal, ToolDefinition};

/// Where a listed tool names the scopes its calls need.
const SCOPES_META: &str = "tool-core/scopes";

impl McpServer {
    /// The scopes a call of `definition` needs: its own, then the host rule's.
    fn scopes_of(&self, definition: &ToolDefinition) -> Vec<String> {
        let mut scopes = definition.scopes.clone();
        if let Some(rule) = &self.scopes.rule {
            for scope in rule(definition) {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
        }
        scopes
    }

    /// The scopes a call of the tool the client names `called` needs (none for a tool this
    /// server does not serve: its call fails anyway).
    pub(crate) fn scopes_needed(&self, called: &str) -> Vec<String> {
        let served = self.current();
        let name = served.names.tool_name(called);
        served.executor.catalog().definition(name).map(|definition| self.scopes_of(definition)).unwrap_or_default()
    }

    /// What the request's access token says of its caller, when an OAuth resource server
    /// checked one (feature `oauth`).
    pub(super) fn identity_of(context: &RequestContext<RoleServer>) -> Option<&Principal> {
        context.extensions.get::<axum::http::request::Parts>()?.extensions.get::<Principal>()
    }

    /// The principal of a request: its access token's (feature `oauth`), else the host's
    /// rule's (HTTP requests only).
    pub(super) fn principal_of(&self, context: &RequestContext<RoleServer>) -> Option<String> {
        if let Some(principal) = Self::identity_of(context) {
            return Some(principal.id());
        }
        let parts = context.extensions.get::<axum::http::request::Parts>()?;
        self.principal.as_ref().and_then(|rule| rule(parts))
    }

    /// The scopes the request's access token grants; `None` for a request without one, which
    /// scopes do not hold back.
    pub(super) fn granted(context: &RequestContext<RoleServer>) -> Option<&BTreeSet<String>> {
        Self::identity_of(context).map(|principal| &principal.scopes)
    }

    /// The scopes the tool at `place` among the served ones needs.
    fn scopes_at(&self, served: &Served, place: usize) -> Vec<String> {
        let name = served.names.tool_name(&served.tools[place].name);
        served.executor.catalog().definition(name).map(|definition| self.scopes_of(definition)).unwrap_or_default()
    }

    /// The tools of `listed` (places among the served ones) that the caller is shown: a caller
    /// with an access token does not see those needing a scope it lacks, unless the host lists
    /// them all.
    pub(super) fn listed_to<'a>(
        &self,
        served: &Served,
        listed: Cow<'a, [usize]>,
        context: &RequestContext<RoleServer>,
    ) -> Cow<'a, [usize]> {
        match Self::granted(context) {
            Some(granted) if !self.scopes.list_all => Cow::Owned(
                listed
                    .iter()
                    .copied()
                    .filter(|&place| self.scopes_at(served, place).iter().all(|scope| granted.contains(scope)))
                    .collect(),
            ),
            _ => listed,
        }
    }

    /// `tool` (at `place` among the served ones) with the scopes it needs in its `_meta`.
    pub(super) fn marked(&self, served: &Served, place: usize, mut tool: McpTool) -> McpTool {
        let scopes = self.scopes_at(served, place);
        if !scopes.is_empty() {
            let meta = tool.meta.get_or_insert_with(Default::default);
            meta.0.insert(SCOPES_META.to_owned(), Value::from(scopes));
        }
        tool
    }

    /// The scopes of `needed` that `granted` lacks.
    pub(crate) fn missing(needed: &[String], granted: &BTreeSet<String>) -> Vec<String> {
        needed.iter().filter(|scope| !granted.contains(*scope)).cloned().collect()
    }

    /// A page of `tools/list`.
    pub(super) async fn list_page(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let served = self.current();
        let listed = self.listed_to(&served, self.listed(&served, context), context);
        // The cursor is the index of the page's first tool, as text.
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start < listed.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor `{cursor}`"), None))?,
        };
        let end = (start + self.page).min(listed.len());
        // Outside any session, the conversation is named by a handle among the arguments.
        let tools = match self.conversation_header.is_none() && self.session_of(context).is_none() {
            true => &served.outside,
            false => &served.tools,
        };
        let mut result = ListToolsResult::with_all_items(
            listed[start..end].iter().map(|&place| self.marked(&served, place, tools[place].clone())).collect(),
        );
        result.next_cursor = (end < listed.len()).then(|| end.to_string());
        Ok(result)
    }
}
