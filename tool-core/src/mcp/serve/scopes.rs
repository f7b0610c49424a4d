//! OAuth scopes per tool: what a call of each tool needs (`#[tool(scopes(..))]` and the host's
//! rule), which tools a caller's token lets it see, and the refusal of a call it may not make.
//! Only a request with an access token (feature `oauth`) is held to them.

use std::collections::BTreeSet;

use rmcp::service::{RequestContext, RoleServer};

use super::{McpServer, Served};
use crate::model::ToolDefinition;

impl McpServer {
    /// The scopes a call of `definition` needs: its own, then the host rule's.
    fn scopes_of(&self, definition: &ToolDefinition) -> Vec<String> {
        let mut scopes = definition.scopes.clone();
        if let Some(rule) = &self.scope_rule {
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

    /// The scopes the request's access token grants; `None` for a request without one, which
    /// scopes do not hold back.
    pub(super) fn granted(context: &RequestContext<RoleServer>) -> Option<BTreeSet<String>> {
        #[cfg(feature = "oauth")]
        {
            let parts = context.extensions.get::<axum::http::request::Parts>()?;
            parts.extensions.get::<crate::auth::Principal>().map(|principal| principal.scopes.clone())
        }
        #[cfg(not(feature = "oauth"))]
        {
            let _ = context;
            None
        }
    }

    /// Whether the tool at `place` among the served ones is listed to a caller granted
    /// `granted`: a tool needing a scope the caller lacks is not shown.
    pub(super) fn may_list(&self, served: &Served, place: usize, granted: &BTreeSet<String>) -> bool {
        let name = served.names.tool_name(&served.tools[place].name);
        served
            .executor
            .catalog()
            .definition(name)
            .is_none_or(|definition| self.scopes_of(definition).iter().all(|scope| granted.contains(scope)))
    }

    /// The scopes of `needed` that `granted` lacks.
    pub(crate) fn missing(needed: &[String], granted: &BTreeSet<String>) -> Vec<String> {
        needed.iter().filter(|scope| !granted.contains(*scope)).cloned().collect()
    }
}
