//! Requests with deferred tools: the `tools` array of every dialect, with our search tool or
//! the provider's own search.
//!
//! Every definition goes through [`export_with`] once, when the [`SearchRequest`] is built;
//! each turn then only assembles the array ([`SearchRequest::tools`]). The whole catalog is
//! exported, sent or not, so that a tool's wire name never depends on what was discovered and
//! every call maps back, a discovered one included.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use serde::Serialize;
use serde_json::{json, Value};

use super::discovered::Discovered;
use crate::catalog::ToolCatalog;
use crate::model::ToolDefinition;
use crate::providers::export::{export_with, request_fragment, ConversionReport, ExportError, ExportOptions, Exported};
use crate::providers::names::{NameMap, NameRule};
use crate::providers::{Dialect, Provider};

/// The most deferred tools Anthropic takes in one request.
pub const MAX_ANTHROPIC_DEFERRED: usize = 10_000;

/// The most function names a namespace's generated description lists.
const DESCRIBED_NAMES: usize = 10;

/// How the model finds the tools a request leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SearchMode {
    /// Our search tool, in every dialect. Chat Completions, Gemini, MCP and plain JSON Schema:
    /// the loaded tools, the search tool, then the tools discovered so far, in the order found
    /// (appended, so that the part before them never changes). Anthropic: the search tool as a
    /// custom tool and every deferred tool with `"defer_loading": true` (its result is
    /// `tool_reference` blocks, which the API expands). The Responses API: the client-executed
    /// `{"type":"tool_search","execution":"client"}` in place of a function; the found
    /// definitions go back in `tool_search_output` items.
    Ours,
    /// Anthropic's server-side search by regular expression
    /// (`tool_search_tool_regex_20251119`), over every deferred tool.
    AnthropicRegex,
    /// Anthropic's server-side BM25 search (`tool_search_tool_bm25_20251119`).
    AnthropicBm25,
    /// The Responses API's hosted `{"type":"tool_search"}`, over the deferred functions,
    /// optionally grouped into namespaces ([`Namespaces`]).
    OpenAiHosted,
}

impl SearchMode {
    /// The provider whose own search this is; `None` for ours.
    pub fn provider(self) -> Option<Provider> {
        match self {
            SearchMode::Ours => None,
            SearchMode::AnthropicRegex | SearchMode::AnthropicBm25 => Some(Provider::Anthropic),
            SearchMode::OpenAiHosted => Some(Provider::OpenAiResponses),
        }
    }

    /// The mode in words, for messages.
    pub fn label(self) -> &'static str {
        match self {
            SearchMode::Ours => "our search tool",
            SearchMode::AnthropicRegex => "Anthropic's regex tool search",
            SearchMode::AnthropicBm25 => "Anthropic's BM25 tool search",
            SearchMode::OpenAiHosted => "OpenAI's hosted tool search",
        }
    }
}

/// How the Responses API's hosted search sees the deferred functions: each alone (the
/// default), or grouped into namespaces, which OpenAI recommends ("our models have primarily
/// been trained to search those surfaces"; keep each under 10 functions). The model sees a
/// namespace's name and description up front, its functions once the search loads them.
///
/// Only deferred tools are grouped; loaded ones stay top-level functions.
///
/// ```
/// use tool_core::search::Namespaces;
///
/// // `crm.list_orders` goes out as `list_orders` in the namespace `crm`.
/// let namespaces = Namespaces::by_prefix().describe("crm", "Customer lookup and orders.");
/// # let _ = namespaces;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Namespaces {
    grouping: Grouping,
    descriptions: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Grouping {
    #[default]
    None,
    Prefix,
    Tag,
}

impl Namespaces {
    /// Grouped by the name's part before the first `.`: `crm.list_orders` is `list_orders` in
    /// the namespace `crm`; a name without a dot stays a top-level function.
    pub fn by_prefix() -> Namespaces {
        Namespaces { grouping: Grouping::Prefix, ..Namespaces::default() }
    }

    /// Grouped by the tool's first tag; a tool without tags stays a top-level function. A name
    /// that starts with the tag and a `.` goes out without them, as [`by_prefix`](Self::by_prefix).
    pub fn by_tag() -> Namespaces {
        Namespaces { grouping: Grouping::Tag, ..Namespaces::default() }
    }

    /// The description of the namespace `namespace` (the prefix or tag, as ours). A namespace
    /// without one says which functions it holds.
    pub fn describe(mut self, namespace: impl Into<String>, description: impl Into<String>) -> Self {
        self.descriptions.insert(namespace.into(), description.into());
        self
    }

    fn group<'a>(&self, definition: &'a ToolDefinition) -> Option<&'a str> {
        match self.grouping {
            Grouping::None => None,
            Grouping::Prefix => definition.name.split_once('.').map(|(prefix, _)| prefix),
            Grouping::Tag => definition.tags.first().map(String::as_str),
        }
    }

    fn is_set(&self) -> bool {
        self.grouping != Grouping::None
    }
}

/// Why a request with deferred tools could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchRequestError {
    /// The provider's own search asked of a dialect that has none.
    #[error("{} runs on {}'s side, and {} has no such tool: use `SearchMode::Ours`, our search tool, which every dialect takes", .mode.label(), provider_name(.mode), .dialect.label())]
    Unsupported {
        /// The mode asked for.
        mode: SearchMode,
        /// The dialect asked for.
        dialect: Dialect,
    },
    /// A setting the mode or dialect does not use.
    #[error("`{setting}` applies only to {applies}, not to {} in {}", .mode.label(), .dialect.label())]
    NotApplicable {
        /// The setting (`namespaces`, `cache_breakpoint`).
        setting: &'static str,
        /// Where it applies.
        applies: &'static str,
        /// The mode asked for.
        mode: SearchMode,
        /// The dialect asked for.
        dialect: Dialect,
    },
    /// A definition could not be exported.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Anthropic refuses a request whose tools are all deferred.
    #[error("every tool of the request is deferred (`defer_loading: true`), which Anthropic refuses (\"At least one tool must have defer_loading=false\"): keep the search tool, or another tool, loaded")]
    AllDeferred,
    /// Anthropic refuses `cache_control` on a deferred tool.
    #[error("`{tool}` is deferred and carries `cache_control`, which Anthropic refuses: put the cache breakpoint on a tool that is not deferred")]
    CacheControlOnDeferred {
        /// The tool, by the name sent.
        tool: String,
    },
    /// More deferred tools than Anthropic takes.
    #[error("{count} deferred tools: Anthropic takes at most {max} in one request")]
    TooManyDeferred {
        /// How many the request would defer.
        count: usize,
        /// [`MAX_ANTHROPIC_DEFERRED`].
        max: usize,
    },
    /// A namespace name longer than OpenAI takes (a long tag).
    #[error(
        "the namespace `{namespace}` is longer than the {max} characters OpenAI takes in a name: use a shorter tag"
    )]
    NamespaceTooLong {
        /// Our name of the namespace (the prefix or tag).
        namespace: String,
        /// The longest name OpenAI takes.
        max: usize,
    },
    /// Two things of the request would go out under one name.
    #[error("`{name}` would name both {first} and {second}: rename one")]
    NameTaken {
        /// The name sent.
        name: String,
        /// The first holder, in words.
        first: String,
        /// The second.
        second: String,
    },
}

fn provider_name(mode: &SearchMode) -> &'static str {
    match mode.provider() {
        Some(Provider::Anthropic) => "Anthropic",
        Some(Provider::OpenAiResponses) => "the OpenAI Responses API",
        _ => "our",
    }
}

/// Builds a [`SearchRequest`]: the host's choices, with their defaults.
pub struct SearchRequestBuilder<'a> {
    catalog: &'a ToolCatalog,
    search_tool: &'a ToolDefinition,
    dialect: Dialect,
    mode: SearchMode,
    options: ExportOptions,
    namespaces: Namespaces,
    cache_breakpoint: bool,
}

impl<'a> SearchRequestBuilder<'a> {
    /// How the deferred tools are found: [`SearchMode::Ours`] (the default), or a provider's
    /// own search.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = mode;
        self
    }

    /// How names the dialect refuses are handled ([`ExportOptions`]; the default refuses a
    /// collision).
    pub fn export_options(mut self, options: ExportOptions) -> Self {
        self.options = options;
        self
    }

    /// Groups the deferred functions into namespaces ([`SearchMode::OpenAiHosted`] only).
    pub fn namespaces(mut self, namespaces: Namespaces) -> Self {
        self.namespaces = namespaces;
        self
    }

    /// Anthropic: `"cache_control": {"type": "ephemeral"}` on the last tool that is not
    /// deferred (the search tool), so that the tools are cached (off by default). Deferred
    /// tools never carry it: Anthropic refuses that.
    pub fn cache_breakpoint(mut self, cache_breakpoint: bool) -> Self {
        self.cache_breakpoint = cache_breakpoint;
        self
    }

    /// Exports every definition and assembles the part of the request that never changes.
    pub fn build(self) -> Result<SearchRequest, SearchRequestError> {
        let SearchRequestBuilder { catalog, search_tool, dialect, mode, options, namespaces, cache_breakpoint } = self;
        let anthropic = matches!(dialect, Dialect::Anthropic { .. });
        let responses = matches!(dialect, Dialect::OpenAiResponses { .. });
        let supported = match mode {
            SearchMode::Ours => true,
            SearchMode::AnthropicRegex | SearchMode::AnthropicBm25 => anthropic,
            SearchMode::OpenAiHosted => responses,
        };
        if !supported {
            return Err(SearchRequestError::Unsupported { mode, dialect });
        }
        if namespaces.is_set() && mode != SearchMode::OpenAiHosted {
            return Err(SearchRequestError::NotApplicable {
                setting: "namespaces",
                applies: "OpenAI's hosted tool search",
                mode,
                dialect,
            });
        }
        if cache_breakpoint && !anthropic {
            return Err(SearchRequestError::NotApplicable {
                setting: "cache_breakpoint",
                applies: "Anthropic",
                mode,
                dialect,
            });
        }
        let search_name = search_tool.name.as_str();
        let loaded: Vec<&ToolDefinition> = catalog.loaded().filter(|d| d.name != search_name).collect();
        let deferred: Vec<&ToolDefinition> = catalog.deferred().filter(|d| d.name != search_name).collect();
        if anthropic && deferred.len() > MAX_ANTHROPIC_DEFERRED {
            return Err(SearchRequestError::TooManyDeferred { count: deferred.len(), max: MAX_ANTHROPIC_DEFERRED });
        }
        let mut all = loaded.clone();
        all.push(search_tool);
        all.extend(deferred.iter().copied());
        let exported = export_with(dialect, options, all.iter().copied())?;
        let Exported { tools, mut names, reports, .. } = exported;
        let wire: HashMap<String, Value> = all.iter().map(|d| d.name.clone()).zip(tools).collect();
        let reports: HashMap<String, ConversionReport> = reports.into_iter().map(|r| (r.tool.clone(), r)).collect();
        let mut fixed: Vec<Value> = loaded.iter().map(|d| take(&wire, &d.name)).collect();
        let mut sent: Vec<String> = loaded.iter().map(|d| d.name.clone()).collect();
        let deferred_names: Vec<String> = deferred.iter().map(|d| d.name.clone()).collect();
        let mut appends = false;
        let deferred_flagged = |wire: &HashMap<String, Value>| -> Vec<Value> {
            deferred.iter().map(|d| with_defer_loading(take(wire, &d.name))).collect()
        };
        match mode {
            SearchMode::Ours if anthropic => {
                fixed.push(take(&wire, search_name));
                fixed.extend(deferred_flagged(&wire));
                sent.push(search_name.to_owned());
                sent.extend(deferred_names.iter().cloned());
            }
            SearchMode::Ours if responses => {
                let function = take(&wire, search_name);
                fixed.push(json!({
                    "type": "tool_search",
                    "execution": "client",
                    "description": function["description"],
                    "parameters": function["parameters"],
                }));
                sent.push(search_name.to_owned());
            }
            SearchMode::Ours => {
                fixed.push(take(&wire, search_name));
                sent.push(search_name.to_owned());
                appends = true;
            }
            SearchMode::AnthropicRegex | SearchMode::AnthropicBm25 => {
                let (kind, name) = if mode == SearchMode::AnthropicRegex {
                    ("tool_search_tool_regex_20251119", "tool_search_tool_regex")
                } else {
                    ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25")
                };
                if let Some(holder) = all.iter().find(|d| names.wire_name(&d.name) == name) {
                    return Err(SearchRequestError::NameTaken {
                        name: name.to_owned(),
                        first: format!("the tool `{}`", holder.name),
                        second: format!("the server tool of {}", mode.label()),
                    });
                }
                fixed.push(json!({"type": kind, "name": name}));
                fixed.extend(deferred_flagged(&wire));
                sent.extend(deferred_names.iter().cloned());
            }
            SearchMode::OpenAiHosted => {
                fixed.push(json!({"type": "tool_search"}));
                fixed.extend(grouped(&deferred, &wire, &mut names, &namespaces)?);
                sent.extend(deferred_names.iter().cloned());
            }
        }
        if cache_breakpoint && let Some(last) = fixed.iter_mut().rev().find(|tool| !is_deferred(tool)) {
            last["cache_control"] = json!({"type": "ephemeral"});
        }
        if anthropic {
            check_deferral(&fixed)?;
        }
        let fixed_reports = sent.iter().filter_map(|name| reports.get(name).cloned()).collect();
        Ok(SearchRequest {
            dialect,
            mode,
            search_name: search_name.to_owned(),
            fixed,
            fixed_reports,
            appends,
            deferred: deferred_names.into_iter().collect(),
            wire,
            reports,
            names,
        })
    }
}

/// The wire form of the tool named `name` (ours); every definition was exported.
fn take(wire: &HashMap<String, Value>, name: &str) -> Value {
    wire.get(name).cloned().unwrap_or(Value::Null)
}

/// A tool's wire form with `"defer_loading": true`.
fn with_defer_loading(mut tool: Value) -> Value {
    if let Value::Object(object) = &mut tool {
        object.insert("defer_loading".to_owned(), Value::Bool(true));
    }
    tool
}

fn is_deferred(tool: &Value) -> bool {
    tool.get("defer_loading") == Some(&Value::Bool(true))
}

/// The deferred functions of the hosted search, in name order, those of one namespace
/// together at the place of its first function.
fn grouped(
    deferred: &[&ToolDefinition],
    wire: &HashMap<String, Value>,
    names: &mut NameMap,
    namespaces: &Namespaces,
) -> Result<Vec<Value>, SearchRequestError> {
    let rule = NameRule::OPENAI_ANTHROPIC;
    let mut out: Vec<Value> = Vec::new();
    // Our namespace name to its place in `out`, and the names inside it to our tool names.
    let mut places: BTreeMap<&str, (usize, BTreeMap<String, String>)> = BTreeMap::new();
    let top_level: HashSet<String> = wire.values().filter_map(|t| t["name"].as_str()).map(str::to_owned).collect();
    for definition in deferred {
        let mut tool = with_defer_loading(take(wire, &definition.name));
        let Some(group) = namespaces.group(definition) else {
            out.push(tool);
            continue;
        };
        let Some(namespace) = rule.wire_name(group) else {
            return Err(SearchRequestError::NamespaceTooLong { namespace: group.to_owned(), max: rule.max_len });
        };
        let inner = match definition.name.strip_prefix(group).and_then(|rest| rest.strip_prefix('.')) {
            Some(rest) => rule.wire_name(rest).unwrap_or_else(|| names.wire_name(&definition.name).to_owned()),
            None => names.wire_name(&definition.name).to_owned(),
        };
        if !places.contains_key(group) {
            if top_level.contains(&namespace) {
                return Err(SearchRequestError::NameTaken {
                    name: namespace,
                    first: format!("the namespace `{group}`"),
                    second: "a function".to_owned(),
                });
            }
            let description = namespaces.descriptions.get(group).cloned().unwrap_or_default();
            out.push(json!({"type": "namespace", "name": namespace, "description": description, "tools": []}));
            places.insert(group, (out.len() - 1, BTreeMap::new()));
        }
        let (at, inside) = places.get_mut(group).expect("inserted above");
        if let Some(first) = inside.insert(inner.clone(), definition.name.clone()) {
            return Err(SearchRequestError::NameTaken {
                name: inner,
                first: format!("`{first}` in the namespace `{namespace}`"),
                second: format!("`{}`", definition.name),
            });
        }
        tool["name"] = Value::String(inner.clone());
        names.insert_namespaced(&definition.name, &namespace, &inner);
        if let Some(Value::Array(tools)) = out[*at].get_mut("tools") {
            tools.push(tool);
        }
    }
    for (group, (at, inside)) in &places {
        if out[*at]["description"] == "" {
            let listed: Vec<&str> = inside.keys().map(String::as_str).take(DESCRIBED_NAMES).collect();
            let more = inside.len().saturating_sub(DESCRIBED_NAMES);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            out[*at]["description"] = Value::String(format!("The {group} tools: {}{more}.", listed.join(", ")));
        }
    }
    Ok(out)
}

/// The definitions a request sends with our search, for the forms that take definitions rather
/// than a dialect's JSON (the XML prompt, `xml::functions_block`; the open models' chat
/// templates): `catalog`'s loaded tools in name order, the search tool, then the deferred tools
/// `discovered` found, in the order found, so that the part before them never changes.
///
/// ```
/// use serde_json::json;
/// use tool_core::prelude::*;
/// use tool_core::search::{definitions_with_search, Discovered, SearchToolBuilder};
///
/// let tool = |name: &str| {
///     DynamicTool::builder(name)
///         .description("Does one thing.")
///         .input_schema(json!({"type": "object", "properties": {}}))
///         .handler(|_, _| async { ToolOutput::text("") })
///         .build()
///         .unwrap()
/// };
/// let catalog = ToolCatalog::builder()
///     .add_tool(tool("clock.now"))
///     .add_tool(tool("crm.list_orders"))
///     .add_tool(tool("crm.refund"))
///     .defer_all()
///     .keep_loaded("clock.now")
///     .build()
///     .unwrap();
/// let search = SearchToolBuilder::new(catalog.deferred()).build().unwrap();
/// let mut discovered = Discovered::new();
/// discovered.insert("crm.refund");
/// let names: Vec<&str> = definitions_with_search(&catalog, search.definition(), &discovered)
///     .iter()
///     .map(|d| d.name.as_str())
///     .collect();
/// assert_eq!(names, ["clock.now", "search_tools", "crm.refund"]);
/// ```
pub fn definitions_with_search<'a>(
    catalog: &'a ToolCatalog,
    search_tool: &'a ToolDefinition,
    discovered: &Discovered,
) -> Vec<&'a ToolDefinition> {
    let search_name = search_tool.name.as_str();
    let mut out: Vec<&ToolDefinition> = catalog.loaded().filter(|d| d.name != search_name).collect();
    out.push(search_tool);
    out.extend(
        discovered
            .names()
            .filter(|name| *name != search_name && catalog.is_deferred(name))
            .filter_map(|name| catalog.definition(name)),
    );
    out
}

/// Checks Anthropic's deferral rules over a request's `tools` array, as [`SearchRequest`]
/// does over its own; for a host that adds tools of its own (a server tool, an MCP toolset)
/// to the array: at least one tool is not deferred ([`SearchRequestError::AllDeferred`]),
/// no deferred tool carries `cache_control` ([`SearchRequestError::CacheControlOnDeferred`]),
/// at most [`MAX_ANTHROPIC_DEFERRED`] are deferred.
///
/// ```
/// use serde_json::json;
/// use tool_core::search::{check_deferral, SearchRequestError};
///
/// let tools = [json!({"name": "get_weather", "input_schema": {"type": "object"}, "defer_loading": true})];
/// assert_eq!(check_deferral(&tools), Err(SearchRequestError::AllDeferred));
/// ```
pub fn check_deferral(tools: &[Value]) -> Result<(), SearchRequestError> {
    if let Some(tool) = tools.iter().find(|tool| is_deferred(tool) && tool.get("cache_control").is_some()) {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        return Err(SearchRequestError::CacheControlOnDeferred { tool: name.to_owned() });
    }
    let count = tools.iter().filter(|tool| is_deferred(tool)).count();
    if count > MAX_ANTHROPIC_DEFERRED {
        return Err(SearchRequestError::TooManyDeferred { count, max: MAX_ANTHROPIC_DEFERRED });
    }
    if !tools.is_empty() && count == tools.len() {
        return Err(SearchRequestError::AllDeferred);
    }
    Ok(())
}

/// A request's tools with deferral and search, for one catalog, search tool, dialect and mode:
/// built once ([`SearchRequest::builder`]), assembled each turn ([`SearchRequest::tools`]).
///
/// ```
/// use serde_json::json;
/// use tool_core::prelude::*;
/// use tool_core::providers::Dialect;
/// use tool_core::search::{Discovered, SearchMode, SearchRequest, SearchToolBuilder};
///
/// let tool = |name: &str| {
///     DynamicTool::builder(name)
///         .description("Does one thing.")
///         .input_schema(json!({"type": "object", "properties": {}}))
///         .handler(|_, _| async { ToolOutput::text("") })
///         .build()
///         .unwrap()
/// };
/// let catalog = ToolCatalog::builder()
///     .add_tool(tool("clock.now"))
///     .add_tool(tool("crm.list_orders"))
///     .defer("crm.list_orders")
///     .build()
///     .unwrap();
/// let search = SearchToolBuilder::new(catalog.deferred()).build().unwrap();
/// let request =
///     SearchRequest::builder(&catalog, search.definition(), Dialect::OpenAiChat { strict: false })
///         .build()
///         .unwrap();
/// let mut discovered = Discovered::new();
/// let names = |tools: &[serde_json::Value]| -> Vec<String> {
///     tools.iter().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
/// };
/// assert_eq!(names(&request.tools(&discovered).tools), ["clock_now", "search_tools"]);
/// discovered.insert("crm.list_orders");
/// assert_eq!(names(&request.tools(&discovered).tools), ["clock_now", "search_tools", "crm_list_orders"]);
/// ```
#[derive(Debug, Clone)]
pub struct SearchRequest {
    dialect: Dialect,
    mode: SearchMode,
    search_name: String,
    /// The part of `tools` that never changes.
    fixed: Vec<Value>,
    fixed_reports: Vec<ConversionReport>,
    /// Whether discovered tools are appended (ours, where the provider has no deferral).
    appends: bool,
    /// The deferred tools, by our name.
    deferred: HashSet<String>,
    /// Every tool's wire form in the dialect, by our name (the search tool's too).
    wire: HashMap<String, Value>,
    reports: HashMap<String, ConversionReport>,
    names: NameMap,
}

impl SearchRequest {
    /// A request's tools over `catalog`'s loaded and deferred tools
    /// ([`ToolCatalog::loaded`], [`ToolCatalog::deferred`]) with `search_tool` (the
    /// definition of [`SearchToolBuilder`](super::SearchToolBuilder)'s tool; left out of the
    /// catalog's lists if the catalog has it too, and never deferred), in `dialect`, found by
    /// our search tool unless [`mode`](SearchRequestBuilder::mode) says otherwise.
    pub fn builder<'a>(
        catalog: &'a ToolCatalog,
        search_tool: &'a ToolDefinition,
        dialect: Dialect,
    ) -> SearchRequestBuilder<'a> {
        SearchRequestBuilder {
            catalog,
            search_tool,
            dialect,
            mode: SearchMode::Ours,
            options: ExportOptions::default(),
            namespaces: Namespaces::default(),
            cache_breakpoint: false,
        }
    }

    /// The request's `tools` for a conversation that discovered `discovered`, with the names
    /// to read calls back with (every tool of the catalog, sent or not, and those inside
    /// namespaces) and the conversion reports of the tools sent. In the modes where the
    /// provider keeps what was found in the conversation (Anthropic, the Responses API), the
    /// array is the same every turn; in ours elsewhere, the discovered deferred tools follow
    /// the fixed part in the order found (names the catalog does not defer are skipped).
    /// What is the same every turn is lent, not copied: only a turn that appends tools owns
    /// its array.
    pub fn tools(&self, discovered: &Discovered) -> RequestTools<'_> {
        let mut tools = Cow::Borrowed(self.fixed.as_slice());
        let mut reports = Cow::Borrowed(self.fixed_reports.as_slice());
        if self.appends {
            for name in discovered.names().filter(|name| self.deferred.contains(*name)) {
                if let Some(tool) = self.wire.get(name) {
                    tools.to_mut().push(tool.clone());
                    if let Some(report) = self.reports.get(name) {
                        reports.to_mut().push(report.clone());
                    }
                }
            }
        }
        RequestTools { dialect: self.dialect, tools, names: &self.names, reports }
    }

    /// The names to read the provider's calls back with (as in [`tools`](Self::tools)).
    pub fn names(&self) -> &NameMap {
        &self.names
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The mode.
    pub fn mode(&self) -> SearchMode {
        self.mode
    }

    /// The search tool's name (ours).
    pub fn search_tool_name(&self) -> &str {
        &self.search_name
    }

    /// Whether `name` (ours) is a tool of the request other than the search tool: sent, or
    /// deferred for a search to load.
    pub(super) fn sends(&self, name: &str) -> bool {
        name != self.search_name && self.wire.contains_key(name)
    }

    /// The Responses API's input item answering a client-executed `tool_search_call` whose
    /// `call_id` is `call_id` and that found `found` (our names): `{"type":
    /// "tool_search_output", "execution": "client", "call_id", "status": "completed",
    /// "tools": [...]}`, each found deferred tool's full definition with `"defer_loading":
    /// true` (as OpenAI's example sends them), in the order given. Names of tools that are not
    /// deferred (already loaded) or not in the catalog are left out. `None` unless the request
    /// is in the Responses dialect with [`SearchMode::Ours`].
    pub fn openai_tool_search_output(&self, call_id: &str, found: &[String]) -> Option<Value> {
        if !matches!(self.dialect, Dialect::OpenAiResponses { .. }) || self.mode != SearchMode::Ours {
            return None;
        }
        let tools: Vec<Value> = found
            .iter()
            .filter(|name| self.deferred.contains(*name))
            .filter_map(|name| self.wire.get(name))
            .map(|tool| with_defer_loading(tool.clone()))
            .collect();
        Some(json!({
            "type": "tool_search_output",
            "execution": "client",
            "call_id": call_id,
            "status": "completed",
            "tools": tools,
        }))
    }
}

/// A request's tools for one turn ([`SearchRequest::tools`]), lent by the request where they
/// are the same every turn: the fields of [`Exported`], borrowed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RequestTools<'a> {
    /// The dialect the tools are in.
    #[serde(skip)]
    pub dialect: Dialect,
    /// One entry per tool sent, in the dialect's shape.
    pub tools: Cow<'a, [Value]>,
    /// The names to read calls back with; hand it to the call parsers.
    pub names: &'a NameMap,
    /// The conversion reports of the tools sent.
    pub reports: Cow<'a, [ConversionReport]>,
}

impl RequestTools<'_> {
    /// The part of the provider request that carries the tools, as
    /// [`Exported::request_fragment`].
    pub fn request_fragment(&self) -> Value {
        request_fragment(self.dialect, &self.tools)
    }

    /// The tools as an owned [`Exported`].
    pub fn into_exported(self) -> Exported {
        Exported {
            dialect: self.dialect,
            tools: self.tools.into_owned(),
            names: self.names.clone(),
            reports: self.reports.into_owned(),
        }
    }
}

impl fmt::Display for SearchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
