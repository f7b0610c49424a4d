//! What comes back: the provider's own searches read from whole and streamed responses, and
//! our search's answers in the provider's shape.
//!
//! The provider's search steps (Anthropic's `server_tool_use` and `tool_search_tool_result`
//! blocks, the Responses API's `tool_search_call` and `tool_search_output` items) are never
//! tool calls to run: [`calls`](crate::providers::calls) leaves them out, and [`read_response`]
//! and [`SearchStream`] read them beside the calls as [`ProviderSearch`]es.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::discovered::Discovered;
use super::request::SearchRequest;
use super::tool::found_names;
use crate::executor::{CallStatus, ExecutionRecord, Executor};
use crate::model::{truncate, ToolCallRequest};
use crate::providers::calls::{parse_response, ParsedCalls, ResponseError};
use crate::providers::names::NameMap;
use crate::providers::results::result_message;
use crate::providers::stream::StreamAccumulator;
use crate::providers::Provider;

/// The most bytes of a streamed search input kept: Anthropic's regex query is at most 200
/// characters, its BM25 query 500; the rest of a longer input is dropped.
const MAX_SEARCH_INPUT_BYTES: usize = 16 * 1024;

/// Who runs a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SearchExecution {
    /// The provider ran it (Anthropic's search tools, OpenAI's hosted search).
    Server,
    /// The model waits for us to run it (the Responses API's `execution: "client"`):
    /// [`execute_openai_tool_search_output`].
    Client,
}

/// How a provider's search ended, as far as the response says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SearchOutcome {
    /// No result yet: a client-executed search waiting for us, or a result still to stream.
    Pending,
    /// The tools it loaded, by our names, in the provider's order (none: nothing matched).
    Found {
        /// Our names of the tools found.
        tools: Vec<String>,
    },
    /// The provider's error object (Anthropic's `tool_search_tool_result_error`).
    Failed {
        /// Its `error_code` (`invalid_tool_input`, `unavailable`, `too_many_requests`,
        /// `execution_time_exceeded`).
        code: String,
        /// Its `error_message`, when it gave one.
        message: Option<String>,
    },
}

/// One search a response holds: what was searched and what it found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ProviderSearch {
    /// Who runs it.
    pub execution: SearchExecution,
    /// The searcher: `tool_search_tool_regex` or `tool_search_tool_bm25` (Anthropic; just
    /// `tool_search_tool` when the response holds the result without its `server_tool_use`),
    /// `tool_search` (OpenAI).
    pub tool: String,
    /// Anthropic's `server_tool_use` id (`srvtoolu_...`); the Responses API's `call_id`
    /// (none for a hosted search).
    pub call_id: Option<String>,
    /// The Responses API's item id of the `tool_search_call`.
    pub item_id: Option<String>,
    /// What the model searched for, as it sent it: `{"pattern": ...}` (regex), `{"query":
    /// ...}` (BM25), `{"paths": [...]}` (OpenAI hosted), our search tool's arguments (OpenAI
    /// client-executed). `null` when the response holds only the result.
    pub arguments: Value,
    /// What it found.
    pub outcome: SearchOutcome,
}

impl ProviderSearch {
    /// The tools it found (ours), if it found any.
    pub fn found(&self) -> &[String] {
        match &self.outcome {
            SearchOutcome::Found { tools } => tools,
            _ => &[],
        }
    }

    /// Records the tools it found into `discovered`; returns the names it added.
    pub fn record(&self, discovered: &mut Discovered) -> Vec<String> {
        self.found().iter().filter(|name| discovered.insert(name.as_str())).cloned().collect()
    }
}

/// A response's calls (as [`parse_response`] reads them) and its searches.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SearchResponse {
    /// The tool calls to run, the text and the stop reason.
    pub calls: ParsedCalls,
    /// The searches, in the order the response holds them.
    pub searches: Vec<ProviderSearch>,
}

impl SearchResponse {
    /// Records what every search found into `discovered`; returns the names it added.
    pub fn record(&self, discovered: &mut Discovered) -> Vec<String> {
        self.searches.iter().flat_map(|search| search.record(discovered)).collect()
    }
}

/// Reads a whole response of `provider`: its calls ([`parse_response`]) and its searches
/// (Anthropic's `server_tool_use` of a tool search and `tool_search_tool_result` blocks, the
/// Responses API's `tool_search_call` and `tool_search_output` items; other providers have
/// none: their search is our tool, an ordinary call). Found tools are named back through
/// `names` (namespaces included).
///
/// ```
/// use serde_json::json;
/// use tool_core::providers::names::NameMap;
/// use tool_core::providers::Provider;
/// use tool_core::search::{read_response, SearchOutcome};
///
/// let response = json!({"role": "assistant", "stop_reason": "end_turn", "content": [
///     {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex",
///      "input": {"pattern": "weather"}},
///     {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
///      "content": {"type": "tool_search_tool_search_result",
///                  "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}}
/// ]});
/// let read = read_response(Provider::Anthropic, &response, &NameMap::identity()).unwrap();
/// assert!(read.calls.calls.is_empty());
/// assert_eq!(read.searches[0].arguments, json!({"pattern": "weather"}));
/// assert_eq!(read.searches[0].outcome, SearchOutcome::Found { tools: vec!["get_weather".into()] });
/// ```
pub fn read_response(provider: Provider, response: &Value, names: &NameMap) -> Result<SearchResponse, ResponseError> {
    let calls = parse_response(provider, response, names)?;
    let r = Ctx { provider, event: None };
    let mut searches = Vec::new();
    match provider {
        Provider::Anthropic => {
            for (i, block) in response["content"].as_array().into_iter().flatten().enumerate() {
                let path = format!("$.content[{i}]");
                let block = r.object(Some(block), &path)?;
                match r.string(block, "type", &path)? {
                    "server_tool_use" => searches.extend(r.anthropic_use(block, &path)?),
                    "tool_search_tool_result" => {
                        let (id, outcome) = r.anthropic_result(block, &path, names)?;
                        attach(&mut searches, Some(id), SearchExecution::Server, "tool_search_tool", outcome);
                    }
                    _ => {}
                }
            }
        }
        Provider::OpenAiResponses => {
            for (i, item) in response["output"].as_array().into_iter().flatten().enumerate() {
                let path = format!("$.output[{i}]");
                let item = r.object(Some(item), &path)?;
                match r.string(item, "type", &path)? {
                    "tool_search_call" => searches.push(r.openai_call(item, &path)?),
                    "tool_search_output" => {
                        let (call_id, execution, outcome) = r.openai_output(item, &path, names)?;
                        attach(&mut searches, call_id, execution, "tool_search", outcome);
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    Ok(SearchResponse { calls, searches })
}

/// Gives `outcome` to the search it answers: the one with its call id, else (a hosted search,
/// whose call id is null) the last one still pending; a result without its search is a search
/// of its own, whose arguments are unknown. Returns the search's place.
fn attach(
    searches: &mut Vec<ProviderSearch>,
    call_id: Option<String>,
    execution: SearchExecution,
    tool: &str,
    outcome: SearchOutcome,
) -> usize {
    let at = match &call_id {
        Some(id) => searches.iter().rposition(|s| s.call_id.as_ref() == Some(id)),
        None => searches.iter().rposition(|s| s.call_id.is_none() && s.outcome == SearchOutcome::Pending),
    };
    match at {
        Some(at) => {
            searches[at].outcome = outcome;
            at
        }
        None => {
            searches.push(ProviderSearch {
                execution,
                tool: tool.to_owned(),
                call_id,
                item_id: None,
                arguments: Value::Null,
                outcome,
            });
            searches.len() - 1
        }
    }
}

/// Where a value is read from, for errors.
#[derive(Clone, Copy)]
struct Ctx {
    provider: Provider,
    event: Option<usize>,
}

impl Ctx {
    fn shape(self, path: &str, expected: &'static str, found: Option<&Value>) -> ResponseError {
        let found = match found {
            None => "nothing".to_owned(),
            Some(Value::Null) => "null".to_owned(),
            Some(value) => truncate(&value.to_string()),
        };
        ResponseError::Shape { provider: self.provider, event: self.event, path: path.to_owned(), expected, found }
    }

    fn object<'v>(self, value: Option<&'v Value>, path: &str) -> Result<&'v Map<String, Value>, ResponseError> {
        value.and_then(Value::as_object).ok_or_else(|| self.shape(path, "an object", value))
    }

    fn string<'v>(self, object: &'v Map<String, Value>, key: &str, path: &str) -> Result<&'v str, ResponseError> {
        let value = object.get(key);
        value.and_then(Value::as_str).ok_or_else(|| self.shape(&format!("{path}.{key}"), "a string", value))
    }

    fn opt_string<'v>(
        self,
        object: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Result<Option<&'v str>, ResponseError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            other => Err(self.shape(&format!("{path}.{key}"), "a string or null", other)),
        }
    }

    /// An object field that may be missing (then `{}`).
    fn arguments(self, object: &Map<String, Value>, key: &str, path: &str) -> Result<Value, ResponseError> {
        match object.get(key) {
            None => Ok(json!({})),
            Some(value @ Value::Object(_)) => Ok(value.clone()),
            other => Err(self.shape(&format!("{path}.{key}"), "an object", other)),
        }
    }

    /// An Anthropic `server_tool_use` block, if it is a tool search's.
    fn anthropic_use(self, block: &Map<String, Value>, path: &str) -> Result<Option<ProviderSearch>, ResponseError> {
        let name = self.string(block, "name", path)?;
        if !name.starts_with("tool_search_tool_") {
            return Ok(None);
        }
        let id = self.string(block, "id", path)?;
        Ok(Some(ProviderSearch {
            execution: SearchExecution::Server,
            tool: name.to_owned(),
            call_id: Some(id.to_owned()),
            item_id: None,
            arguments: self.arguments(block, "input", path)?,
            outcome: SearchOutcome::Pending,
        }))
    }

    /// An Anthropic `tool_search_tool_result` block: the id of its search, and what it found.
    fn anthropic_result(
        self,
        block: &Map<String, Value>,
        path: &str,
        names: &NameMap,
    ) -> Result<(String, SearchOutcome), ResponseError> {
        let id = self.string(block, "tool_use_id", path)?;
        let content_path = format!("{path}.content");
        let content = self.object(block.get("content"), &content_path)?;
        let outcome = match self.string(content, "type", &content_path)? {
            "tool_search_tool_search_result" => {
                let references_path = format!("{content_path}.tool_references");
                let references = content.get("tool_references");
                let references = references
                    .and_then(Value::as_array)
                    .ok_or_else(|| self.shape(&references_path, "an array", references))?;
                let mut tools = Vec::with_capacity(references.len());
                for (i, reference) in references.iter().enumerate() {
                    let at = format!("{references_path}[{i}]");
                    let reference = self.object(Some(reference), &at)?;
                    tools.push(names.tool_name(self.string(reference, "tool_name", &at)?).to_owned());
                }
                SearchOutcome::Found { tools }
            }
            "tool_search_tool_result_error" => SearchOutcome::Failed {
                code: self.string(content, "error_code", &content_path)?.to_owned(),
                message: self.opt_string(content, "error_message", &content_path)?.map(str::to_owned),
            },
            _ => {
                return Err(self.shape(
                    &format!("{content_path}.type"),
                    "`tool_search_tool_search_result` or `tool_search_tool_result_error`",
                    content.get("type"),
                ))
            }
        };
        Ok((id.to_owned(), outcome))
    }

    fn execution(self, item: &Map<String, Value>, path: &str) -> Result<SearchExecution, ResponseError> {
        match self.opt_string(item, "execution", path)? {
            None | Some("server") => Ok(SearchExecution::Server),
            Some("client") => Ok(SearchExecution::Client),
            Some(_) => Err(self.shape(&format!("{path}.execution"), "`server` or `client`", item.get("execution"))),
        }
    }

    /// A Responses `tool_search_call` item.
    fn openai_call(self, item: &Map<String, Value>, path: &str) -> Result<ProviderSearch, ResponseError> {
        Ok(ProviderSearch {
            execution: self.execution(item, path)?,
            tool: "tool_search".to_owned(),
            call_id: self.opt_string(item, "call_id", path)?.map(str::to_owned),
            item_id: self.opt_string(item, "id", path)?.map(str::to_owned),
            arguments: self.arguments(item, "arguments", path)?,
            outcome: SearchOutcome::Pending,
        })
    }

    /// A Responses `tool_search_output` item: its call id, who ran it, and the functions it
    /// loaded (those inside a namespace named back in it; other kinds of tools, MCP servers,
    /// have no name of ours and are left out).
    fn openai_output(
        self,
        item: &Map<String, Value>,
        path: &str,
        names: &NameMap,
    ) -> Result<(Option<String>, SearchExecution, SearchOutcome), ResponseError> {
        let call_id = self.opt_string(item, "call_id", path)?.map(str::to_owned);
        let execution = self.execution(item, path)?;
        let tools_path = format!("{path}.tools");
        let listed = item.get("tools");
        let listed = listed.and_then(Value::as_array).ok_or_else(|| self.shape(&tools_path, "an array", listed))?;
        let mut tools = Vec::new();
        for (i, tool) in listed.iter().enumerate() {
            let at = format!("{tools_path}[{i}]");
            let tool = self.object(Some(tool), &at)?;
            match self.opt_string(tool, "type", &at)? {
                Some("function") => tools.push(names.tool_name(self.string(tool, "name", &at)?).to_owned()),
                Some("namespace") => {
                    let namespace = self.string(tool, "name", &at)?;
                    let inner_path = format!("{at}.tools");
                    let inner = tool.get("tools");
                    let inner =
                        inner.and_then(Value::as_array).ok_or_else(|| self.shape(&inner_path, "an array", inner))?;
                    for (j, function) in inner.iter().enumerate() {
                        let at = format!("{inner_path}[{j}]");
                        let function = self.object(Some(function), &at)?;
                        if self.opt_string(function, "type", &at)? == Some("function") {
                            let name = self.string(function, "name", &at)?;
                            tools.push(names.namespaced_tool_name(Some(namespace), name).to_owned());
                        }
                    }
                }
                _ => {}
            }
        }
        Ok((call_id, execution, SearchOutcome::Found { tools }))
    }
}

/// Reads one provider's stream of events into its calls ([`StreamAccumulator`]) and its
/// searches, as [`read_response`] reads a whole response.
///
/// - Anthropic: a search's `server_tool_use` starts in `content_block_start`, its input comes
///   as `input_json_delta` fragments and is read at `content_block_stop`; its
///   `tool_search_tool_result` comes whole in `content_block_start`.
/// - OpenAI Responses: `tool_search_call` and `tool_search_output` items come through
///   `response.output_item.added` and `.done` (no events of their own); the `.done` item is
///   the final one.
///
/// ```
/// use tool_core::providers::names::NameMap;
/// use tool_core::providers::Provider;
/// use tool_core::search::{SearchOutcome, SearchStream};
///
/// let mut stream = SearchStream::new(Provider::Anthropic, NameMap::identity());
/// for data in [
///     r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{}}}"#,
///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\":\"weather\"}"}}"#,
///     r#"{"type":"content_block_stop","index":0}"#,
///     r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"get_weather"}]}}}"#,
/// ] {
///     stream.push_data(data).unwrap();
/// }
/// let read = stream.finish();
/// assert_eq!(read.searches[0].arguments, serde_json::json!({"pattern": "weather"}));
/// assert_eq!(read.searches[0].outcome, SearchOutcome::Found { tools: vec!["get_weather".into()] });
/// ```
#[derive(Debug, Clone)]
pub struct SearchStream {
    calls: StreamAccumulator,
    provider: Provider,
    names: NameMap,
    events: usize,
    searches: Vec<ProviderSearch>,
    /// Anthropic: the search inputs still streaming.
    inputs: Vec<Input>,
    /// The Responses API: each `tool_search_output` item read (its id) and the search it
    /// answered, since `.added` and `.done` both carry it.
    outputs: Vec<(String, usize)>,
}

/// An Anthropic search input still streaming.
#[derive(Debug, Clone)]
struct Input {
    /// Its content block's index.
    index: u64,
    /// Its search's place.
    search: usize,
    /// The text so far.
    text: String,
    /// A fragment went past [`MAX_SEARCH_INPUT_BYTES`]: nothing more is kept, not even a later
    /// fragment that would fit.
    full: bool,
}

/// What one event does to the searches, read before anything changes.
enum Step {
    Nothing,
    Start(u64, ProviderSearch),
    Fragment(u64, String),
    Stop(u64),
    /// A search's result: its call id, who ran it, the searcher, what it found, and (the
    /// Responses API) its item id.
    Result(Option<String>, SearchExecution, &'static str, SearchOutcome, Option<String>),
    /// A Responses `tool_search_call` item, new or final.
    Call(ProviderSearch),
}

impl SearchStream {
    /// A reader of one response streamed by `provider`; `names` maps names back to ours.
    pub fn new(provider: Provider, names: NameMap) -> Self {
        SearchStream {
            calls: StreamAccumulator::new(provider, names.clone()),
            provider,
            names,
            events: 0,
            searches: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Reads one decoded event. An event not in the provider's shape is an error and changes
    /// no search.
    pub fn push(&mut self, event: &Value) -> Result<(), ResponseError> {
        let step = self.read(event);
        let pushed = self.calls.push(event);
        self.events += 1;
        pushed?;
        self.apply(step?);
        Ok(())
    }

    /// Reads one payload as text (the data of one SSE event); `[DONE]` and empty payloads are
    /// skipped; text that is not JSON is an error.
    pub fn push_data(&mut self, data: &str) -> Result<(), ResponseError> {
        let trimmed = data.trim();
        if trimmed.is_empty() || trimmed == "[DONE]" {
            return Ok(());
        }
        match serde_json::from_str::<Value>(trimmed) {
            Ok(event) => self.push(&event),
            Err(_) => {
                self.events += 1;
                self.calls.push_data(data)
            }
        }
    }

    /// The calls, as far as they have arrived.
    pub fn calls(&self) -> &StreamAccumulator {
        &self.calls
    }

    /// The searches so far, in the order they started.
    pub fn searches(&self) -> &[ProviderSearch] {
        &self.searches
    }

    /// Ends the stream: the calls as [`StreamAccumulator::finish`] gives them, and the
    /// searches (an input still streaming is read as far as it came).
    pub fn finish(mut self) -> SearchResponse {
        for Input { search, text, .. } in std::mem::take(&mut self.inputs) {
            self.searches[search].arguments = input_value(&text, &self.searches[search].arguments);
        }
        SearchResponse { calls: self.calls.finish(), searches: self.searches }
    }

    fn read(&self, event: &Value) -> Result<Step, ResponseError> {
        let r = Ctx { provider: self.provider, event: Some(self.events + 1) };
        let Some(body) = event.as_object() else { return Ok(Step::Nothing) };
        let kind = body.get("type").and_then(Value::as_str).unwrap_or_default();
        let index = body.get("index").and_then(Value::as_u64);
        match (self.provider, kind, index) {
            (Provider::Anthropic, "content_block_start", Some(index)) => {
                let path = "$.content_block";
                let block = r.object(body.get("content_block"), path)?;
                match block.get("type").and_then(Value::as_str) {
                    Some("server_tool_use") => {
                        Ok(r.anthropic_use(block, path)?.map_or(Step::Nothing, |s| Step::Start(index, s)))
                    }
                    Some("tool_search_tool_result") => {
                        let (id, outcome) = r.anthropic_result(block, path, &self.names)?;
                        Ok(Step::Result(Some(id), SearchExecution::Server, "tool_search_tool", outcome, None))
                    }
                    _ => Ok(Step::Nothing),
                }
            }
            (Provider::Anthropic, "content_block_delta", Some(index)) if self.input_open(index) => {
                let delta = r.object(body.get("delta"), "$.delta")?;
                if delta.get("type").and_then(Value::as_str) != Some("input_json_delta") {
                    return Ok(Step::Nothing);
                }
                Ok(Step::Fragment(index, r.string(delta, "partial_json", "$.delta")?.to_owned()))
            }
            (Provider::Anthropic, "content_block_stop", Some(index)) if self.input_open(index) => Ok(Step::Stop(index)),
            (Provider::OpenAiResponses, "response.output_item.added" | "response.output_item.done", _) => {
                let path = "$.item";
                let item = r.object(body.get("item"), path)?;
                match item.get("type").and_then(Value::as_str) {
                    Some("tool_search_call") => Ok(Step::Call(r.openai_call(item, path)?)),
                    Some("tool_search_output") => {
                        let (call_id, execution, outcome) = r.openai_output(item, path, &self.names)?;
                        let item_id = r.opt_string(item, "id", path)?.map(str::to_owned);
                        Ok(Step::Result(call_id, execution, "tool_search", outcome, item_id))
                    }
                    _ => Ok(Step::Nothing),
                }
            }
            _ => Ok(Step::Nothing),
        }
    }

    fn input_open(&self, index: u64) -> bool {
        self.inputs.iter().any(|input| input.index == index)
    }

    fn apply(&mut self, step: Step) {
        match step {
            Step::Nothing => {}
            Step::Start(index, search) => {
                self.searches.push(search);
                let search = self.searches.len() - 1;
                self.inputs.push(Input { index, search, text: String::new(), full: false });
            }
            Step::Fragment(index, fragment) => {
                if let Some(input) = self.inputs.iter_mut().find(|input| input.index == index) {
                    input.full |= input.text.len() + fragment.len() > MAX_SEARCH_INPUT_BYTES;
                    if !input.full {
                        input.text.push_str(&fragment);
                    }
                }
            }
            Step::Stop(index) => {
                if let Some(at) = self.inputs.iter().position(|input| input.index == index) {
                    let Input { search, text, .. } = self.inputs.remove(at);
                    self.searches[search].arguments = input_value(&text, &self.searches[search].arguments);
                }
            }
            Step::Result(call_id, execution, tool, outcome, item_id) => {
                let known = item_id.as_ref().and_then(|id| self.outputs.iter().find(|(seen, _)| seen == id));
                match known {
                    Some(&(_, search)) => self.searches[search].outcome = outcome,
                    None => {
                        let at = attach(&mut self.searches, call_id, execution, tool, outcome);
                        self.outputs.extend(item_id.map(|id| (id, at)));
                    }
                }
            }
            Step::Call(call) => {
                // `.added` then `.done` of one item: the second is the final form.
                match self.searches.iter_mut().find(|s| s.item_id.is_some() && s.item_id == call.item_id) {
                    Some(known) => {
                        let outcome = std::mem::replace(&mut known.outcome, SearchOutcome::Pending);
                        *known = ProviderSearch { outcome, ..call };
                    }
                    None => self.searches.push(call),
                }
            }
        }
    }
}

/// A streamed search input: the fragments joined, read as JSON; none (an input sent whole in
/// `content_block_start`) keeps `start`; text that is no JSON stays as a string.
fn input_value(text: &str, start: &Value) -> Value {
    if text.trim().is_empty() {
        return start.clone();
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Anthropic: our search tool's result as the `tool_result` block the API expands
/// (Anthropic's "custom tool search"): one `{"type": "tool_reference", "tool_name"}` per tool
/// found that `request` sends (by the name sent; a name it does not send would be refused,
/// "Tool reference '…' not found in available tools"); when none is left, one text block (the
/// result's message), since Anthropic refuses an empty `content`. A failed search is an
/// ordinary error result ([`result_message`]).
pub fn anthropic_tool_result(record: &ExecutionRecord, request: &SearchRequest) -> Value {
    let names = request.names();
    if record.status != CallStatus::Success {
        return result_message(Provider::Anthropic, record, names);
    }
    let found: Vec<String> = found_names(&record.content).into_iter().filter(|name| request.sends(name)).collect();
    let content: Vec<Value> = if found.is_empty() {
        let message = record
            .content
            .structured
            .as_ref()
            .and_then(|s| s.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("No tool matched.");
        vec![json!({"type": "text", "text": message})]
    } else {
        found.iter().map(|name| json!({"type": "tool_reference", "tool_name": names.wire_name(name)})).collect()
    };
    json!({"type": "tool_result", "tool_use_id": record.request.call_id, "content": content})
}

/// Answers a client-executed search of the Responses API ([`SearchExecution::Client`], still
/// pending): runs our search tool through `executor` with the call's arguments, records what
/// it found into `discovered`, and returns the `tool_search_output` input item to send after
/// the response's output items ([`SearchRequest::openai_tool_search_output`]). A failed search
/// (no `query`) answers with no tools. `None` for any other search, or when `request` is not
/// the Responses API's with [`SearchMode::Ours`](super::SearchMode::Ours).
pub async fn execute_openai_tool_search_output(
    executor: &Executor,
    request: &SearchRequest,
    search: &ProviderSearch,
    discovered: &mut Discovered,
) -> Option<Value> {
    if search.execution != SearchExecution::Client || search.outcome != SearchOutcome::Pending {
        return None;
    }
    let call_id = search.call_id.as_deref()?;
    request.openai_tool_search_output(call_id, &[])?;
    let call = ToolCallRequest::new(request.search_tool_name(), call_id, search.arguments.to_string());
    let record = executor.execute(call).await;
    discovered.record(request.search_tool_name(), &record);
    let found = if record.status == CallStatus::Success { found_names(&record.content) } else { Vec::new() };
    request.openai_tool_search_output(call_id, &found)
}
