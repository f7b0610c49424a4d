//! Tool search in an MCP server (feature `search`; without it, `no_search.rs` stands in and
//! does nothing): the catalog's deferred tools left out of `tools/list`, the search tool over
//! them listed instead, and what a search gives the client.
//!
//! A client of protocol 2025-11-25 or earlier has a session of its own: the tools its searches
//! find join its `tools/list` after the others (`notifications/tools/list_changed` tells it).
//! From 2026-07-28 on, `tools/list` must not vary per connection nor change as a side effect of
//! another request, so a search leaves the list alone and its result carries the found tools'
//! whole definitions instead. Either way a deferred tool is called by its name.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{ProtocolVersion, Tool as McpTool};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{json, Value};

use crate::catalog::ToolCatalog;
use crate::executor::{CallStatus, ExecutionRecord, Executor};
use crate::model::ToolOutput;
use crate::search::{Discovered, SearchToolBuilder};
use crate::tool::Tool;

use super::server_error::{McpServerError, ToolSearchError};

/// What the host changes of the search tool (its name, description, limits).
type ConfigureSearch = Arc<dyn Fn(SearchToolBuilder) -> SearchToolBuilder + Send + Sync>;

/// The most deferred tools one session's `tools/list` gains by searching, unless told
/// otherwise: beyond them, found tools come with their definitions, as for a client whose
/// protocol has no per-session list.
const MAX_SESSION_DISCOVERED: usize = 200;

/// A server's tool search as the host configured it: none until
/// [`McpServerBuilder::tool_search`] asks for one.
#[derive(Clone)]
pub(super) struct ServerSearch {
    configure: Option<ConfigureSearch>,
    max_discovered: usize,
}

impl Default for ServerSearch {
    fn default() -> Self {
        ServerSearch { configure: None, max_discovered: MAX_SESSION_DISCOVERED }
    }
}

/// What one session's searches found: in its `tools/list`, after the others.
#[derive(Default)]
pub(super) struct SessionSearch {
    discovered: Mutex<Discovered>,
}

/// The tool search of one served catalog: the search tool's name, when the catalog defers
/// tools, and each tool's place among the served tools.
pub(super) struct ServedSearch {
    tool: Option<String>,
    places: HashMap<String, usize>,
}

impl ServerSearch {
    /// Searches the deferred tools with the search tool `configure` makes.
    pub(super) fn configure(
        &mut self,
        configure: impl Fn(SearchToolBuilder) -> SearchToolBuilder + Send + Sync + 'static,
    ) {
        self.configure = Some(Arc::new(configure));
    }

    /// At most `tools` found tools join a session's `tools/list`.
    pub(super) fn max_discovered(&mut self, tools: usize) {
        self.max_discovered = tools.min(crate::search::MAX_DISCOVERED);
    }

    /// What calls of `executor`'s catalog run on when served: `executor` over its catalog with
    /// the search tool added (never deferred) when this server searches and the catalog
    /// defers tools, else `executor` itself; and the search of what is served.
    pub(super) fn prepare(&self, executor: &Executor) -> Result<(Executor, ServedSearch), McpServerError> {
        let (executor, tool) = match &self.configure {
            Some(configure) => add_search_tool(executor, configure).map_err(McpServerError::ToolSearch)?,
            None => (executor.clone(), None),
        };
        let places = executor.catalog().names().enumerate().map(|(place, name)| (name.to_owned(), place)).collect();
        Ok((executor, ServedSearch { tool, places }))
    }
}

impl ServedSearch {
    /// Whether every session's `tools/list` holds the tool `name`: all tools do, unless a
    /// search tool finds the deferred ones.
    pub(super) fn always_listed(&self, catalog: &ToolCatalog, name: &str) -> bool {
        self.tool.is_none() || !catalog.is_deferred(name)
    }

    /// The tools a request's `tools/list` holds, by their place: `listed` (those of every
    /// session), then those `session`'s searches found when the request's protocol lets a
    /// session's list differ from others' (2025-11-25 and earlier; 2026-07-28 forbids it).
    pub(super) fn listed<'a>(
        &self,
        listed: &'a [usize],
        catalog: &ToolCatalog,
        session: Option<&SessionSearch>,
        context: &RequestContext<RoleServer>,
    ) -> Cow<'a, [usize]> {
        let Some(session) = self.discovering(session, context) else { return Cow::Borrowed(listed) };
        let discovered = session.discovered.lock().unwrap_or_else(|e| e.into_inner());
        if discovered.is_empty() {
            return Cow::Borrowed(listed);
        }
        let mut listed = listed.to_vec();
        // A found tool the host's catalog no longer defers is listed already.
        let found = discovered.names().filter(|name| catalog.is_deferred(name));
        listed.extend(found.filter_map(|name| self.places.get(name).copied()));
        Cow::Owned(listed)
    }

    /// A search call's result settled: each found tool joins `session`'s list when it can
    /// (the client told with `notifications/tools/list_changed`, before the result), or comes
    /// with its definition from `tools`. Any other call is left alone.
    pub(super) async fn settle(
        &self,
        server: &ServerSearch,
        record: &mut ExecutionRecord,
        tools: &[McpTool],
        session: Option<&SessionSearch>,
        context: &RequestContext<RoleServer>,
    ) {
        if self.tool.as_deref() != Some(record.request.tool_name.as_str()) {
            return;
        }
        let listing = match self.discovering(session, context) {
            Some(session) if server.max_discovered > 0 => {
                Listing::Session { discovered: &session.discovered, max: server.max_discovered }
            }
            _ => Listing::Result,
        };
        let definition = |name: &str| self.places.get(name).and_then(|&place| serde_json::to_value(&tools[place]).ok());
        if settle(record, listing, definition) {
            // Before the result, so a client that lists on reading it sees the new tools.
            let _ = context.peer.notify_tool_list_changed().await;
        }
    }

    /// `session`, when this catalog has a search tool and the request's protocol lets a
    /// session's `tools/list` grow.
    fn discovering<'s>(
        &self,
        session: Option<&'s SessionSearch>,
        context: &RequestContext<RoleServer>,
    ) -> Option<&'s SessionSearch> {
        self.tool.as_ref()?;
        if context.protocol_version()? >= ProtocolVersion::V_2026_07_28 {
            return None;
        }
        session
    }
}

/// `executor` over its catalog with the search tool added (never deferred), and the tool's
/// name; `executor` itself, and no name, when the catalog defers nothing.
fn add_search_tool(
    executor: &Executor,
    configure: &ConfigureSearch,
) -> Result<(Executor, Option<String>), ToolSearchError> {
    let catalog = executor.catalog();
    if catalog.deferred().next().is_none() {
        return Ok((executor.clone(), None));
    }
    let tool = configure(SearchToolBuilder::new(catalog.deferred())).build().map_err(ToolSearchError::Invalid)?;
    let name = tool.definition().name.clone();
    if catalog.contains(&name) {
        return Err(ToolSearchError::NameTaken { name });
    }
    let catalog = catalog.to_builder().add_tool(tool).keep_loaded(name.clone()).build()?;
    Ok((executor.with_catalog(catalog), Some(name)))
}

/// Where a search's found tools go.
enum Listing<'a> {
    /// Into this session's `tools/list`, up to `max` tools in all.
    Session { discovered: &'a Mutex<Discovered>, max: usize },
    /// Nowhere: the result carries their definitions.
    Result,
}

/// Settles a search call's result: each found tool joins the session's list when it can, and
/// the result names it with its wire name and says where it is; a tool that cannot join comes
/// with its MCP definition (`definition` gives it by our name). Returns whether the session's
/// list grew.
fn settle(record: &mut ExecutionRecord, listing: Listing<'_>, definition: impl Fn(&str) -> Option<Value>) -> bool {
    if record.status != CallStatus::Success {
        return false;
    }
    let Some(mut structured) = record.content.structured.take() else { return false };
    let entries = match structured.get_mut("tools") {
        Some(Value::Array(entries)) => std::mem::take(entries),
        _ => {
            record.content.structured = Some(structured);
            return false;
        }
    };
    let mut grew = false;
    let mut full = false;
    let (mut listed, mut defined) = (Vec::new(), Vec::new());
    let mut tools = Vec::with_capacity(entries.len());
    let mut session = match &listing {
        Listing::Session { discovered, max } => Some((discovered.lock().unwrap_or_else(|e| e.into_inner()), *max)),
        Listing::Result => None,
    };
    for entry in entries {
        // A name the served catalog no longer has (replaced meanwhile) is left as found.
        let Some((name, definition)) =
            entry.get("name").and_then(Value::as_str).and_then(|name| Some((name.to_owned(), definition(name)?)))
        else {
            tools.push(entry);
            continue;
        };
        let wire = definition["name"].as_str().unwrap_or(&name).to_owned();
        let joins = match &mut session {
            Some((discovered, _)) if discovered.contains(&name) => true,
            Some((discovered, max)) if discovered.len() < *max => {
                grew |= discovered.insert(name);
                true
            }
            Some(_) => {
                full = true;
                false
            }
            None => false,
        };
        if joins {
            tools.push(json!({"name": wire, "description": entry["description"]}));
            listed.push(wire);
        } else {
            tools.push(definition);
            defined.push(wire);
        }
    }
    drop(session);
    structured["tools"] = Value::Array(tools);
    let mut message = Vec::new();
    if let [one] = listed.as_slice() {
        message.push(format!("`{one}` is now in your tool list: call it by name."));
    } else if !listed.is_empty() {
        message.push(format!("{} are now in your tool list: call them by name.", names(&listed)));
    }
    if !defined.is_empty() {
        let (why, place) = match listing {
            Listing::Session { max, .. } if full => {
                (format!("Your tool list holds the most tools searches may add to it ({max}), so "), "in it")
            }
            _ => (String::new(), "in your tool list"),
        };
        message.push(match defined.as_slice() {
            [one] => format!(
                "{why}`{one}` is not {place}: its entry is its definition; call it by name with the arguments its `inputSchema` describes."
            ),
            _ => format!(
                "{why}{} are not {place}: each entry is the tool's definition; call them by name with the arguments their `inputSchema` describes.",
                names(&defined)
            ),
        });
    }
    if !message.is_empty() {
        structured["message"] = Value::from(message.join(" "));
    }
    record.content = ToolOutput::structured(structured);
    grew
}

/// `a`, `a` and `b`, `a`, `b` and `c`: names quoted, for a sentence.
fn names(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::{json, Value};

    use super::{names, settle, Listing};
    use crate::executor::{CallFailure, CallStatus, ExecutionRecord};
    use crate::model::{ToolCallRequest, ToolOutput};
    use crate::search::Discovered;

    fn record(status: CallStatus, structured: Value) -> ExecutionRecord {
        let request = Arc::new(ToolCallRequest::new("search_tools", "1", r#"{"query": "refund"}"#));
        let output = ToolOutput::structured(structured);
        match status {
            CallStatus::Success => ExecutionRecord::succeeded(request, output, std::time::Duration::ZERO),
            _ => ExecutionRecord::failed(request, CallFailure::InvalidArguments, output, std::time::Duration::ZERO),
        }
    }

    fn definition(name: &str) -> Option<Value> {
        (name == "orders.refund").then(|| json!({"name": "orders_refund", "description": "Refund.", "inputSchema": {}}))
    }

    #[test]
    fn a_found_tool_joins_under_its_wire_name_and_one_the_server_no_longer_has_is_left_as_found() {
        let found = json!({"query": "refund", "tools": [
            {"name": "orders.refund", "description": "Refund."},
            {"name": "orders.gone", "description": "Replaced meanwhile."}
        ]});
        let discovered = Mutex::new(Discovered::new());
        let mut settled = record(CallStatus::Success, found);
        assert!(settle(&mut settled, Listing::Session { discovered: &discovered, max: 5 }, definition));
        assert_eq!(
            settled.content.structured,
            Some(json!({"query": "refund", "tools": [
                {"name": "orders_refund", "description": "Refund."},
                {"name": "orders.gone", "description": "Replaced meanwhile."}
            ], "message": "`orders_refund` is now in your tool list: call it by name."}))
        );
        assert_eq!(settled.content.text, settled.content.structured.as_ref().unwrap().to_string());
        assert_eq!(discovered.lock().unwrap().names().collect::<Vec<_>>(), ["orders.refund"]);
    }

    #[test]
    fn a_failed_search_is_left_alone() {
        let discovered = Mutex::new(Discovered::new());
        let failed = json!({"query": "refund", "tools": [{"name": "orders.refund", "description": "Refund."}]});
        let mut settled = record(CallStatus::Failed, failed.clone());
        assert!(!settle(&mut settled, Listing::Session { discovered: &discovered, max: 5 }, definition));
        assert_eq!(settled.content.structured, Some(failed));
        assert!(discovered.lock().unwrap().is_empty());
    }

    #[test]
    fn names_read_as_a_list_in_a_sentence() {
        let list = |items: &[&str]| names(&items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(list(&["a"]), "`a`");
        assert_eq!(list(&["a", "b"]), "`a` and `b`");
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` and `c`");
    }
}
