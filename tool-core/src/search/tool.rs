//! Our search as a tool the model calls: `search_tools(query, limit?)`, for every provider and
//! protocol, and as the custom search of Anthropic and OpenAI's client-executed search.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::document::cut;
use super::index::ToolSearch;
use crate::model::{ToolDefinition, ToolError, ToolOutput};
use crate::tool::{DynamicTool, DynamicToolError};

/// The search tool's name, unless the host gives another.
pub const SEARCH_TOOL_NAME: &str = "search_tools";

/// The most tools one search returns unless the host says otherwise; the model may ask for
/// fewer, never more than [`SearchToolBuilder::max_limit`].
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The longest query read, in bytes: a longer one is cut at a character boundary.
pub const MAX_QUERY_BYTES: usize = 2048;

/// Builds the search tool over a set of tools (usually a catalog's
/// [`deferred`](crate::ToolCatalog::deferred) ones).
///
/// ```
/// use serde_json::json;
/// use tool_core::search::SearchToolBuilder;
/// use tool_core::{Tool, ToolDefinition};
///
/// let weather = ToolDefinition::new(
///     "weather.forecast",
///     "The forecast for a city.",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// );
/// let tool = SearchToolBuilder::new([&weather]).build().unwrap();
/// assert_eq!(tool.definition().name, "search_tools");
/// assert_eq!(tool.definition().parameters[0].name, "query");
/// ```
pub struct SearchToolBuilder {
    search: Arc<ToolSearch>,
    descriptions: Arc<HashMap<String, String>>,
    name: String,
    description: String,
    default_limit: usize,
    max_limit: usize,
}

impl SearchToolBuilder {
    /// A search tool over `definitions`.
    pub fn new<'a>(definitions: impl IntoIterator<Item = &'a ToolDefinition>) -> SearchToolBuilder {
        let definitions: Vec<&ToolDefinition> = definitions.into_iter().collect();
        let search = Arc::new(ToolSearch::new(definitions.iter().copied()));
        SearchToolBuilder::with_search(search, definitions)
    }

    /// A search tool answering from `search`; `definitions` give each found tool's description.
    pub fn with_search<'a>(
        search: Arc<ToolSearch>,
        definitions: impl IntoIterator<Item = &'a ToolDefinition>,
    ) -> SearchToolBuilder {
        let descriptions = definitions.into_iter().map(|d| (d.name.clone(), first_sentence(&d.description))).collect();
        SearchToolBuilder {
            search,
            descriptions: Arc::new(descriptions),
            name: SEARCH_TOOL_NAME.to_owned(),
            description: DEFAULT_DESCRIPTION.to_owned(),
            default_limit: DEFAULT_SEARCH_LIMIT,
            max_limit: 20,
        }
    }

    /// Another name for the tool.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Another description for the model (say which kinds of tools there are to find).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// How many tools a search returns when the model does not say ([`DEFAULT_SEARCH_LIMIT`]).
    pub fn default_limit(mut self, limit: usize) -> Self {
        self.default_limit = limit.max(1);
        self
    }

    /// The most tools one search returns, whatever the model asks for (20).
    pub fn max_limit(mut self, limit: usize) -> Self {
        self.max_limit = limit.max(1);
        self
    }

    /// The tool. Its result's structured content is `{"query", "tools": [{"name",
    /// "description"}]}`, best first, and a `message` when nothing matched.
    pub fn build(self) -> Result<DynamicTool, DynamicToolError> {
        let SearchToolBuilder { search, descriptions, name, description, default_limit, max_limit } = self;
        let default_limit = default_limit.min(max_limit);
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What the tool you need does, in a few words (`weather forecast for a city`, `refund an order`). Tool names work too."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": format!("How many tools to return, best first (default {default_limit}, at most {max_limit}).")
                }
            },
            "required": ["query"]
        });
        DynamicTool::builder(name)
            .description(description)
            .input_schema(schema)
            .annotations(crate::model::ToolAnnotations {
                read_only: Some(true),
                idempotent: Some(true),
                open_world: Some(false),
                ..Default::default()
            })
            .handler(move |arguments: Map<String, Value>, _| {
                let result = answer(&search, &descriptions, &arguments, default_limit, max_limit);
                async move { result }
            })
            .build()
    }
}

const DEFAULT_DESCRIPTION: &str = "Searches the tools that are not loaded yet. Call it when none of the tools you have does what the task needs: describe the action you need in a few words. The tools it finds can be called from your next step.";

/// One search: the arguments read, the hits written.
fn answer(
    search: &ToolSearch,
    descriptions: &HashMap<String, String>,
    arguments: &Map<String, Value>,
    default_limit: usize,
    max_limit: usize,
) -> Result<ToolOutput, ToolError> {
    let query = match arguments.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => cut(query, MAX_QUERY_BYTES),
        _ => {
            return Err(ToolError::new(
                "`query` must be a non-empty string: describe the tool you need in a few words.",
            )
            .with_code("empty_query"))
        }
    };
    let limit = match arguments.get("limit") {
        Some(Value::Number(n)) => n.as_u64().map_or(default_limit, |n| (n as usize).clamp(1, max_limit)),
        _ => default_limit,
    };
    let hits = search.search(query, limit);
    let tools: Vec<Value> = hits
        .iter()
        .map(|hit| json!({"name": hit.name, "description": descriptions.get(&hit.name).cloned().unwrap_or_default()}))
        .collect();
    let mut structured = json!({"query": query, "tools": tools});
    if hits.is_empty() {
        structured["message"] = Value::from(
            "No tool matched. Try other words for the action (a verb and what it acts on), or go on without one.",
        );
    }
    Ok(ToolOutput::structured(structured))
}

/// The first sentence of a description (up to 200 bytes): enough to choose, short enough to
/// list several.
fn first_sentence(description: &str) -> String {
    let text = description.trim();
    let end = text.find(". ").map_or(text.len(), |i| i + 1).min(text.find('\n').unwrap_or(text.len()));
    cut(&text[..end], 200).trim().to_owned()
}

/// The names a search tool's result found, in its order: from its structured content.
pub(crate) fn found_names(output: &ToolOutput) -> Vec<String> {
    output
        .structured
        .as_ref()
        .and_then(|s| s.get("tools"))
        .and_then(Value::as_array)
        .map(|tools| tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).map(str::to_owned).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_stops_at_the_first_full_stop_or_line() {
        assert_eq!(first_sentence("Books a flight. Pays with the card."), "Books a flight.");
        assert_eq!(first_sentence("Line one\nline two"), "Line one");
        assert_eq!(first_sentence("A tool, e.g. this one"), "A tool, e.g.");
    }
}
