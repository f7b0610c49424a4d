//! Tool calls in, one streamed event at a time.
//!
//! [`StreamAccumulator`] reads each provider's stream into the same [`ToolCallRequest`]s that
//! [`calls`](super::calls) reads from a whole response, and shows the calls still arriving,
//! with a best-effort parse of their partial arguments ([`parse_partial_json`]) for UIs.
//! [`sse_data`] splits a server-sent-events body into the payloads to push.
//!
//! A call is finished by its provider's own end-of-call signal (Anthropic's
//! `content_block_stop`, the Responses API's `...arguments.done` or `output_item.done`, a
//! Gemini part without `willContinue`, an OpenAI Chat call followed by the next one or by the
//! `finish_reason` `tool_calls`, `stop` or `function_call`). A call still open when the stream
//! ends (at its end-of-message event, a Chat `finish_reason` such as `length`, or
//! [`StreamAccumulator::finish`]) was cut off: its text is kept in `raw_arguments` as it
//! arrived, and when that text is not a whole arguments object, `parse_error` says so (rule
//! `truncated_json`); it never becomes a silent `{}`.
//!
//! A finished call goes through [`NameMap::restore`]: arguments that went out other than
//! declared (renamed properties, JSON text) are in `arguments` in the declared form.
//!
//! This module must not extract arguments against a tool's declaration (the executor does) and
//! never panics: an event that is not in the provider's shape is a [`ResponseError`] and
//! changes nothing.

use serde::Serialize;
use serde_json::{Map, Value};

use super::calls::{
    chat_content, describe, gemini_block_reason, gemini_call, gemini_call_path, mcp_call, responses_call,
    responses_stop_reason, GeminiChunk, GeminiPart, ParsedCalls, Path, PathStep, Reader, ResponseError,
};
use super::dialect::Provider;
use super::names::NameMap;
use crate::extract;
use crate::model::{received_text, truncate, ArgumentError, ArgumentErrors, ToolCallRequest};

/// A call still streaming, as far as it has arrived.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartialCall {
    /// The tool, by our name.
    pub tool_name: String,
    /// The provider's id for the call (Gemini's generated one when it sent none).
    pub call_id: String,
    /// The arguments text so far (for Gemini, the arguments assembled so far, as JSON text).
    pub raw_arguments: String,
    /// What the arguments would be if the text ended here (see [`parse_partial_json`]); `None`
    /// while nothing readable has arrived.
    pub arguments: Option<Value>,
}

/// Reads one provider's stream of events into tool calls.
///
/// Push each event's payload in order ([`push`](Self::push) for a decoded JSON value,
/// [`push_data`](Self::push_data) for the text of one SSE `data:` field or one line of a JSON
/// lines stream), read [`completed`](Self::completed) and [`in_progress`](Self::in_progress)
/// at any time, and call [`finish`](Self::finish) when the stream ends.
///
/// Events per provider:
/// - OpenAI Chat: `chat.completion.chunk`s; `choices[0].delta.tool_calls[]` keyed by `index`,
///   id and name in the first delta of an index, argument fragments after. A delta with a new
///   id for an open index starts a new call (some compatible servers send every call at index
///   0); a delta without `index` is keyed by its position. Only choice 0 is read. Usage chunks
///   (`choices: []`) and `[DONE]` are fine.
/// - OpenAI Responses: `response.output_item.added` → `response.function_call_arguments.delta`
///   (by `item_id`) → `...arguments.done` → `response.output_item.done`; `output_text` deltas
///   are the text; `response.completed` / `.incomplete` give the stop reason.
/// - Anthropic: `content_block_start` (`tool_use`), `content_block_delta` (`input_json_delta`
///   fragments, by block `index`), `content_block_stop`; `message_delta` gives the stop reason.
///   A block whose fragments are all empty has the arguments `{}`.
/// - Gemini: each event is one whole `GenerateContentResponse` chunk; a `functionCall` part
///   with `args` is a whole call; Vertex's argument streaming (`partialArgs` by `jsonPath`,
///   `willContinue`) is assembled into one arguments object.
/// - MCP: each event is one whole `tools/call` request, finished at once.
///
/// ```
/// use tool_core::providers::stream::{sse_data, StreamAccumulator};
/// use tool_core::providers::{NameMap, Provider};
///
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",",
///     "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n",
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
///     "\"function\":{\"arguments\":\"{\\\"city\\\":\\\"Edin\"}}]}}]}\n\n",
/// );
/// let mut stream = StreamAccumulator::new(Provider::OpenAiChat, NameMap::identity());
/// for data in sse_data(body) {
///     stream.push_data(&data).unwrap();
/// }
/// let partial = &stream.in_progress()[0];
/// assert_eq!(partial.raw_arguments, r#"{"city":"Edin"#);
/// assert_eq!(partial.arguments, Some(serde_json::json!({"city": "Edin"})));
///
/// let parsed = stream.finish();
/// assert_eq!(parsed.calls[0].call_id, "call_1");
/// assert_eq!(parsed.calls[0].parse_error.as_ref().unwrap().errors[0].rule, "truncated_json");
/// ```
#[derive(Debug, Clone)]
pub struct StreamAccumulator {
    provider: Provider,
    names: NameMap,
    /// Events pushed so far (not counting `[DONE]` and empty payloads).
    events: usize,
    /// Calls still streaming, in the order they started.
    open: Vec<OpenCall>,
    /// Finished calls, in the order they started.
    completed: Vec<ToolCallRequest>,
    /// For each finished call, its start number and key.
    completed_keys: Vec<(usize, Key)>,
    /// Calls started so far.
    started: usize,
    /// Anthropic content blocks that are not tool calls (text, thinking, server tools).
    other_blocks: Vec<u64>,
    text: String,
    stop_reason: Option<String>,
}

/// What a provider's events name a call by.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// OpenAI Chat's `tool_calls[].index`; Anthropic's content block `index`.
    Index(u64),
    /// The Responses API's item id.
    Item(String),
    /// Gemini and MCP calls, named by nothing (Gemini streams one call at a time).
    Unnamed,
}

/// A call still streaming.
#[derive(Debug, Clone)]
struct OpenCall {
    key: Key,
    /// Its start number: its position among the stream's calls.
    seq: usize,
    request: ToolCallRequest,
    /// Anthropic: the `input` of `content_block_start` when it was not empty (a proxy may send
    /// the whole input there and no fragments).
    initial: Option<String>,
    /// Gemini: the arguments assembled so far.
    gemini: Option<GeminiArgs>,
}

/// A Gemini call's arguments as Vertex streams them.
#[derive(Debug, Clone, Default)]
struct GeminiArgs {
    args: Map<String, Value>,
    /// The `jsonPath` of a string value that continues in the next entry.
    continuing: Option<String>,
    /// The last part said more of the call follows.
    will_continue: bool,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// By its provider's end-of-call signal.
    Finished,
    /// By the end of the stream, before that signal.
    CutOff,
}

impl StreamAccumulator {
    /// An accumulator for one response streamed by `provider`; `names` maps the provider's tool
    /// names back to ours.
    pub fn new(provider: Provider, names: NameMap) -> Self {
        StreamAccumulator {
            provider,
            names,
            events: 0,
            open: Vec::new(),
            completed: Vec::new(),
            completed_keys: Vec::new(),
            started: 0,
            other_blocks: Vec::new(),
            text: String::new(),
            stop_reason: None,
        }
    }

    /// Reads one decoded event payload. An event that is not in the provider's shape, or that
    /// continues a call the stream never started, is an error and changes nothing; so is an
    /// error the provider reports in the stream.
    pub fn push(&mut self, event: &Value) -> Result<(), ResponseError> {
        self.events += 1;
        let r = Reader { provider: self.provider, event: Some(self.events) };
        match self.provider {
            Provider::OpenAiChat => self.openai_chat(r, event),
            Provider::OpenAiResponses => self.openai_responses(r, event),
            Provider::Anthropic => self.anthropic(r, event),
            Provider::Gemini => self.gemini(r, event),
            Provider::Mcp => {
                let call = mcp_call(r, event, &self.names)?;
                let seq = self.next_seq();
                self.insert_completed(seq, Key::Unnamed, call);
                Ok(())
            }
        }
    }

    /// Reads one payload as text: the data of one SSE event, or one line of a JSON lines stream.
    /// `[DONE]` and empty payloads are skipped; text that is not JSON is an error.
    pub fn push_data(&mut self, data: &str) -> Result<(), ResponseError> {
        let trimmed = data.trim();
        if trimmed.is_empty() || trimmed == "[DONE]" {
            return Ok(());
        }
        match serde_json::from_str::<Value>(trimmed) {
            Ok(event) => self.push(&event),
            Err(error) => {
                self.events += 1;
                Err(ResponseError::NotJson {
                    provider: self.provider,
                    event: self.events,
                    detail: error.to_string(),
                    text: truncate(data),
                })
            }
        }
    }

    /// The calls finished so far, in the order they started.
    pub fn completed(&self) -> &[ToolCallRequest] {
        &self.completed
    }

    /// The calls still streaming, in the order they started.
    pub fn in_progress(&self) -> Vec<PartialCall> {
        self.open
            .iter()
            .map(|call| {
                let mut arguments = match &call.gemini {
                    Some(gemini) => Some(Value::Object(gemini.args.clone())),
                    None => parse_partial_json(&call.request.raw_arguments),
                };
                // Shown in the declared form too; what the text is still missing says nothing yet.
                if let (Some(arguments), Some(map)) = (&mut arguments, self.names.arguments(&call.request.tool_name)) {
                    map.restore(arguments, &mut Vec::new());
                }
                PartialCall {
                    tool_name: call.request.tool_name.clone(),
                    call_id: call.request.call_id.clone(),
                    raw_arguments: call.request.raw_arguments.clone(),
                    arguments,
                }
            })
            .collect()
    }

    /// The assistant's text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The stop reason, once the stream has given it.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    /// Ends the stream: every call still open is cut off (see the module doc), and all calls
    /// come back in the order they started, with the text and the stop reason.
    pub fn finish(mut self) -> ParsedCalls {
        self.cut_off_open();
        ParsedCalls { calls: self.completed, text: self.text, stop_reason: self.stop_reason }
    }

    fn next_seq(&mut self) -> usize {
        self.started += 1;
        self.started - 1
    }

    fn is_open(&self, key: &Key) -> bool {
        self.open.iter().any(|call| &call.key == key)
    }

    fn is_completed(&self, key: &Key) -> bool {
        self.completed_keys.iter().any(|(_, k)| k == key)
    }

    fn open_call(&mut self, key: &Key) -> Option<&mut OpenCall> {
        self.open.iter_mut().find(|call| &call.key == key)
    }

    fn start(&mut self, key: Key, request: ToolCallRequest) -> &mut OpenCall {
        let seq = self.next_seq();
        self.open.push(OpenCall { key, seq, request, initial: None, gemini: None });
        let last = self.open.len() - 1;
        &mut self.open[last]
    }

    /// Finishes the open call `key` (if open).
    fn end(&mut self, key: &Key, end: End) {
        if let Some(position) = self.open.iter().position(|call| &call.key == key) {
            let call = self.open.remove(position);
            self.end_call(call, end);
        }
    }

    fn cut_off_open(&mut self) {
        for call in std::mem::take(&mut self.open) {
            self.end_call(call, End::CutOff);
        }
    }

    fn end_call(&mut self, call: OpenCall, end: End) {
        let OpenCall { key, seq, mut request, initial, gemini } = call;
        match &gemini {
            Some(gemini) => {
                if end == End::CutOff && gemini.will_continue {
                    request.parse_error = Some(cut_off_error(
                        &request.raw_arguments,
                        "the stream ended while the call was still marked `willContinue`",
                    ));
                }
            }
            None => {
                if request.raw_arguments.is_empty() {
                    if let Some(initial) = initial {
                        request.raw_arguments = initial;
                    } else if end == End::Finished && self.provider == Provider::Anthropic {
                        // Anthropic sends no fragment, or only empty ones, for a call without arguments.
                        request.raw_arguments = "{}".to_owned();
                    }
                }
                if end == End::CutOff {
                    request.parse_error = if request.raw_arguments.trim().is_empty() {
                        Some(cut_off_error(
                            &request.raw_arguments,
                            "the stream ended before any of the call's arguments arrived",
                        ))
                    } else {
                        extract::untyped(&request.raw_arguments).value.err()
                    };
                }
            }
        }
        self.insert_completed(seq, key, request);
    }

    fn insert_completed(&mut self, seq: usize, key: Key, mut request: ToolCallRequest) {
        self.names.restore(&mut request);
        let at = self.completed_keys.partition_point(|(s, _)| *s < seq);
        self.completed.insert(at, request);
        self.completed_keys.insert(at, (seq, key));
    }

    // -----------------------------------------------------------------------------------------
    // OpenAI Chat Completions.

    fn openai_chat(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let chunk = r.object(Some(event), &root)?;
        r.provider_error(chunk)?;
        // Read the whole chunk first, so that an error changes nothing.
        let mut text = String::new();
        let mut finish_reason = None;
        let mut deltas = Vec::new();
        let choices_path = root.key("choices");
        for (i, choice) in r.opt_array(chunk.get("choices"), &choices_path)?.iter().enumerate() {
            let path = choices_path.index(i);
            let choice = r.object(Some(choice), &path)?;
            if r.opt_index(choice.get("index"), &path.key("index"))?.unwrap_or(0) != 0 {
                continue;
            }
            if let Some(reason) = r.opt_string(choice.get("finish_reason"), &path.key("finish_reason"))? {
                finish_reason = Some(reason.to_owned());
            }
            let delta_path = path.key("delta");
            let Some(delta) = r.opt_object(choice.get("delta"), &delta_path)? else {
                continue;
            };
            text.push_str(&chat_content(r, delta.get("content"), &delta_path.key("content"))?);
            let calls_path = delta_path.key("tool_calls");
            for (j, call) in r.opt_array(delta.get("tool_calls"), &calls_path)?.iter().enumerate() {
                let path = calls_path.index(j);
                let call = r.object(Some(call), &path)?;
                let index = r.opt_index(call.get("index"), &path.key("index"))?.unwrap_or(j as u64);
                let id = r.opt_string(call.get("id"), &path.key("id"))?;
                let function_path = path.key("function");
                let function = r.opt_object(call.get("function"), &function_path)?;
                let (name, fragment) = match function {
                    Some(function) => (
                        r.opt_string(function.get("name"), &function_path.key("name"))?,
                        r.opt_string(function.get("arguments"), &function_path.key("arguments"))?,
                    ),
                    None => (None, None),
                };
                deltas.push(ChatDelta { index, id, name, fragment, choice: i, position: j });
            }
        }
        // Every delta must continue a call, or start one with its id and name.
        let mut actions = Vec::with_capacity(deltas.len());
        let mut started_here: Vec<(u64, &str)> = Vec::new();
        for delta in &deltas {
            let key = Key::Index(delta.index);
            let current = started_here
                .iter()
                .rev()
                .find(|(index, _)| *index == delta.index)
                .map(|(_, id)| *id)
                .or_else(|| self.open_call_id(&key))
                .or_else(|| self.completed_call_id(&key));
            let starts = match (current, delta.id) {
                (None, _) => true,
                (Some(current), Some(id)) => id != current,
                (Some(_), None) => false,
            };
            if !starts {
                actions.push(None);
                continue;
            }
            match (delta.id, delta.name) {
                (Some(id), Some(name)) => {
                    started_here.push((delta.index, id));
                    actions.push(Some((id, name)));
                }
                (None, Some(_)) => return Err(chat_missing(r, &delta.path(), "id")),
                (Some(_), None) if current.is_some() => return Err(chat_missing(r, &delta.path(), "function.name")),
                (_, None) => {
                    return Err(ResponseError::NoOpenCall {
                        provider: self.provider,
                        event: self.events,
                        path: format!("{}.index", delta.path()),
                        found: delta.index.to_string(),
                    })
                }
            }
        }
        self.text.push_str(&text);
        for (delta, action) in deltas.iter().zip(actions) {
            let key = Key::Index(delta.index);
            if let Some((id, name)) = action {
                // OpenAI streams calls one after another: a new call finishes those before it.
                let earlier: Vec<Key> = self
                    .open
                    .iter()
                    .filter(|call| matches!(call.key, Key::Index(index) if index <= delta.index))
                    .map(|call| call.key.clone())
                    .collect();
                for key in earlier {
                    self.end(&key, End::Finished);
                }
                let request = ToolCallRequest::new(self.names.tool_name(name), id, delta.fragment.unwrap_or_default());
                self.start(key, request);
                continue;
            }
            let Some(fragment) = delta.fragment else { continue };
            if let Some(call) = self.open_call(&key) {
                call.request.raw_arguments.push_str(fragment);
            } else if let Some(at) = self.completed_keys.iter().rposition(|(_, k)| k == &key) {
                // A late fragment of a call counted as finished when the next one started.
                self.completed[at].raw_arguments.push_str(fragment);
            }
        }
        if let Some(reason) = finish_reason {
            let end = if matches!(reason.as_str(), "tool_calls" | "stop" | "function_call") {
                End::Finished
            } else {
                End::CutOff
            };
            for call in std::mem::take(&mut self.open) {
                self.end_call(call, end);
            }
            self.stop_reason = Some(reason);
        }
        Ok(())
    }

    fn open_call_id(&self, key: &Key) -> Option<&str> {
        self.open.iter().find(|call| &call.key == key).map(|call| call.request.call_id.as_str())
    }

    /// The id of the latest finished call named `key`.
    fn completed_call_id(&self, key: &Key) -> Option<&str> {
        let at = self.completed_keys.iter().rposition(|(_, k)| k == key)?;
        Some(self.completed[at].call_id.as_str())
    }

    // -----------------------------------------------------------------------------------------
    // OpenAI Responses API.

    fn openai_responses(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let body = r.object(Some(event), &root)?;
        let kind = r.string(body.get("type"), &root.key("type"))?;
        match kind {
            "response.output_item.added" => {
                let path = root.key("item");
                let item = r.object(body.get("item"), &path)?;
                if r.string(item.get("type"), &path.key("type"))? != "function_call" {
                    return Ok(());
                }
                let item_id = r.string(item.get("id"), &path.key("id"))?;
                let call_id = r.string(item.get("call_id"), &path.key("call_id"))?;
                let name = r.string(item.get("name"), &path.key("name"))?;
                let arguments = r.opt_string(item.get("arguments"), &path.key("arguments"))?.unwrap_or_default();
                let key = Key::Item(item_id.to_owned());
                if self.is_open(&key) || self.is_completed(&key) {
                    return Ok(());
                }
                let mut request = ToolCallRequest::new(self.names.tool_name(name), call_id, arguments);
                request.provider_data.insert("id".to_owned(), Value::from(item_id));
                self.start(key, request);
            }
            "response.function_call_arguments.delta" => {
                let item_id = r.string(body.get("item_id"), &root.key("item_id"))?;
                let delta = r.string(body.get("delta"), &root.key("delta"))?;
                let key = Key::Item(item_id.to_owned());
                match self.open_call(&key) {
                    Some(call) => call.request.raw_arguments.push_str(delta),
                    None => return Err(self.no_open_call(&root.key("item_id"), body.get("item_id"))),
                }
            }
            "response.function_call_arguments.done" => {
                let item_id = r.string(body.get("item_id"), &root.key("item_id"))?;
                let arguments = r.opt_string(body.get("arguments"), &root.key("arguments"))?;
                let key = Key::Item(item_id.to_owned());
                if self.is_completed(&key) {
                    return Ok(());
                }
                let Some(call) = self.open_call(&key) else {
                    return Err(self.no_open_call(&root.key("item_id"), body.get("item_id")));
                };
                if let Some(arguments) = arguments {
                    // The whole text, as the provider counts it; equal to the fragments joined.
                    call.request.raw_arguments = arguments.to_owned();
                }
                self.end(&key, End::Finished);
            }
            "response.output_item.done" => {
                let path = root.key("item");
                let item = r.object(body.get("item"), &path)?;
                if r.string(item.get("type"), &path.key("type"))? != "function_call" {
                    return Ok(());
                }
                let whole = responses_call(r, item, &path, &self.names)?;
                let key = Key::Item(r.string(item.get("id"), &path.key("id"))?.to_owned());
                if self.is_completed(&key) {
                    return Ok(());
                }
                if let Some(call) = self.open_call(&key) {
                    call.request.raw_arguments = whole.raw_arguments;
                    self.end(&key, End::Finished);
                } else {
                    // Its `added` event was not pushed: the item is whole here.
                    let seq = self.next_seq();
                    self.insert_completed(seq, key, whole);
                }
            }
            "response.output_text.delta" => {
                self.text.push_str(r.string(body.get("delta"), &root.key("delta"))?);
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let path = root.key("response");
                let response = r.object(body.get("response"), &path)?;
                if let Some(error) = r.opt_object(response.get("error"), &path.key("error"))? {
                    return Err(r.reported(error));
                }
                let reason = responses_stop_reason(r, response, &path)?;
                self.cut_off_open();
                self.stop_reason = reason;
            }
            "error" => return Err(r.reported(body)),
            _ => {}
        }
        Ok(())
    }

    fn no_open_call(&self, path: &Path<'_>, found: Option<&Value>) -> ResponseError {
        ResponseError::NoOpenCall {
            provider: self.provider,
            event: self.events,
            path: path.to_string(),
            found: found.map(Value::to_string).unwrap_or_default(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Anthropic Messages.

    fn anthropic(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let body = r.object(Some(event), &root)?;
        let kind = r.string(body.get("type"), &root.key("type"))?;
        let index_path = root.key("index");
        match kind {
            "content_block_start" => {
                let index = r.index(body.get("index"), &index_path)?;
                let path = root.key("content_block");
                let block = r.object(body.get("content_block"), &path)?;
                let block_kind = r.string(block.get("type"), &path.key("type"))?;
                let key = Key::Index(index);
                if self.is_open(&key) || self.is_completed(&key) || self.other_blocks.contains(&index) {
                    return Err(r.shape(
                        &index_path,
                        "the index of a content block not started before",
                        body.get("index"),
                    ));
                }
                match block_kind {
                    "tool_use" => {
                        let id = r.string(block.get("id"), &path.key("id"))?;
                        let name = r.string(block.get("name"), &path.key("name"))?;
                        let input = r.opt_object(block.get("input"), &path.key("input"))?;
                        let initial = match input {
                            Some(input) if !input.is_empty() => serde_json::to_string(input).ok(),
                            _ => None,
                        };
                        let request = ToolCallRequest::new(self.names.tool_name(name), id, "");
                        self.start(key, request).initial = initial;
                    }
                    "text" => {
                        let text = r.opt_string(block.get("text"), &path.key("text"))?.unwrap_or_default();
                        self.text.push_str(text);
                        self.other_blocks.push(index);
                    }
                    _ => self.other_blocks.push(index),
                }
            }
            "content_block_delta" => {
                let index = r.index(body.get("index"), &index_path)?;
                let path = root.key("delta");
                let delta = r.object(body.get("delta"), &path)?;
                match r.string(delta.get("type"), &path.key("type"))? {
                    "input_json_delta" => {
                        let fragment = r.string(delta.get("partial_json"), &path.key("partial_json"))?;
                        let key = Key::Index(index);
                        if let Some(call) = self.open_call(&key) {
                            call.request.raw_arguments.push_str(fragment);
                        } else if !self.other_blocks.contains(&index) {
                            // Server tool blocks stream their input too; others name no call.
                            return Err(self.no_open_call(&index_path, body.get("index")));
                        }
                    }
                    "text_delta" => self.text.push_str(r.string(delta.get("text"), &path.key("text"))?),
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = r.index(body.get("index"), &index_path)?;
                let key = Key::Index(index);
                if self.is_open(&key) {
                    self.end(&key, End::Finished);
                } else if !self.is_completed(&key) && !self.other_blocks.contains(&index) {
                    return Err(self.no_open_call(&index_path, body.get("index")));
                }
            }
            "message_delta" => {
                let path = root.key("delta");
                let delta = r.object(body.get("delta"), &path)?;
                if let Some(reason) = r.opt_string(delta.get("stop_reason"), &path.key("stop_reason"))? {
                    self.stop_reason = Some(reason.to_owned());
                }
            }
            "message_stop" => self.cut_off_open(),
            "error" => {
                let error = r.object(body.get("error"), &root.key("error"))?;
                return Err(r.reported(error));
            }
            _ => {}
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Gemini.

    fn gemini(&mut self, r: Reader, event: &Value) -> Result<(), ResponseError> {
        let root = Path::Root;
        let body = r.object(Some(event), &root)?;
        r.provider_error(body)?;
        let candidates_path = root.key("candidates");
        let candidates = r.opt_array(body.get("candidates"), &candidates_path)?;
        let Some(candidate) = candidates.first() else {
            // A chunk with usage only, or a blocked prompt.
            if let Some(reason) = gemini_block_reason(r, body, &root)? {
                self.cut_off_open();
                self.stop_reason = Some(reason);
            }
            return Ok(());
        };
        let GeminiChunk { text, finish_reason, calls } = GeminiChunk::read(r, candidate, &candidates_path.index(0))?;
        if !calls.is_empty() {
            let (open, finished, started) = self.gemini_calls(r, event, calls)?;
            self.started = started;
            self.open.clear();
            for call in finished {
                self.end_call(call, End::Finished);
            }
            self.open.extend(open);
        }
        self.text.push_str(&text);
        if let Some(reason) = finish_reason {
            self.cut_off_open();
            self.stop_reason = Some(reason);
        }
        Ok(())
    }

    /// The `functionCall` parts of one chunk applied to a copy of the open call, so that an
    /// error changes nothing: the call still open after them, the calls they finished, and the
    /// number of calls started.
    fn gemini_calls(
        &self,
        r: Reader,
        event: &Value,
        parts: Vec<GeminiPart>,
    ) -> Result<(Option<OpenCall>, Vec<OpenCall>, usize), ResponseError> {
        let mut open = self.open.first().cloned();
        let mut finished = Vec::new();
        let mut started = self.started;
        for part in parts {
            let GeminiPart { position, name, id, args, partial_args, will_continue, mut signature } = part;
            if let Some(name) = name {
                // A new call: Gemini streams one call at a time.
                finished.extend(open.take());
                let request = gemini_call(&self.names, &name, id, started, signature.take());
                open = Some(OpenCall {
                    key: Key::Unnamed,
                    seq: started,
                    request,
                    initial: None,
                    gemini: Some(GeminiArgs::default()),
                });
                started += 1;
            }
            let Some(call) = open.as_mut() else {
                let found = &event["candidates"][0]["content"]["parts"][position]["functionCall"];
                return Err(ResponseError::NoOpenCall {
                    provider: self.provider,
                    event: self.events,
                    path: gemini_call_path(position),
                    found: received_text(found),
                });
            };
            if let Some(signature) = signature {
                call.request.provider_data.entry("thoughtSignature").or_insert(Value::from(signature));
            }
            let gemini = call.gemini.get_or_insert_with(GeminiArgs::default);
            if let Some(args) = args {
                gemini.args.extend(args);
                gemini.continuing = None;
            }
            for entry in partial_args {
                let Some(value) = entry.value else { continue };
                let append = gemini.continuing.as_deref() == Some(entry.json_path.as_str());
                let continues = entry.will_continue && value.is_string();
                if !set_at(&mut gemini.args, &entry.steps, value, append) {
                    return Err(ResponseError::Shape {
                        provider: self.provider,
                        event: r.event,
                        path: format!("{}.partialArgs[{}].jsonPath", gemini_call_path(position), entry.position),
                        expected: "a path the arguments can hold (an array index at most the array's length)",
                        found: describe(Some(&Value::from(entry.json_path))),
                    });
                }
                gemini.continuing = continues.then_some(entry.json_path);
            }
            gemini.will_continue = will_continue;
            call.request.raw_arguments = serde_json::to_string(&gemini.args).unwrap_or_default();
            if !will_continue {
                finished.extend(open.take());
            }
        }
        Ok((open, finished, started))
    }
}

/// One OpenAI Chat tool-call delta, read and checked.
struct ChatDelta<'v> {
    index: u64,
    id: Option<&'v str>,
    name: Option<&'v str>,
    fragment: Option<&'v str>,
    /// Its choice's position in `choices`.
    choice: usize,
    /// Its position in `tool_calls`.
    position: usize,
}

impl ChatDelta<'_> {
    fn path(&self) -> String {
        format!("$.choices[{}].delta.tool_calls[{}]", self.choice, self.position)
    }
}

/// A Chat tool-call delta that starts a call without its `id` or name.
fn chat_missing(r: Reader, path: &str, field: &str) -> ResponseError {
    ResponseError::Shape {
        provider: r.provider,
        event: r.event,
        path: format!("{path}.{field}"),
        expected: "a string",
        found: "nothing".to_owned(),
    }
}

/// The error of a call the stream cut off before any readable arguments arrived, or while
/// Gemini still marked it as continuing.
fn cut_off_error(raw: &str, detail: &str) -> ArgumentErrors {
    ArgumentErrors::single(ArgumentError {
        pointer: String::new(),
        rule: "truncated_json".to_owned(),
        expected: "a JSON object".to_owned(),
        received: Some(truncate(raw)),
        detail: detail.to_owned(),
    })
}

/// Sets `value` at `steps` below `root`, making the objects and arrays on the way; appends it
/// to the string there when `append`. `false` when a step does not fit what is there (a key
/// into an array, an index past an array's end).
fn set_at(root: &mut Map<String, Value>, steps: &[PathStep], value: Value, append: bool) -> bool {
    let Some((PathStep::Key(first), rest)) = steps.split_first() else {
        return false;
    };
    let slot = root.entry(first.clone()).or_insert(Value::Null);
    set_below(slot, rest, value, append)
}

fn set_below(slot: &mut Value, steps: &[PathStep], value: Value, append: bool) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        match (slot, value) {
            (Value::String(existing), Value::String(more)) if append => existing.push_str(&more),
            (slot, value) => *slot = value,
        }
        return true;
    };
    if slot.is_null() {
        *slot = match step {
            PathStep::Key(_) => Value::Object(Map::new()),
            PathStep::Index(_) => Value::Array(Vec::new()),
        };
    }
    match (step, slot) {
        (PathStep::Key(key), Value::Object(object)) => {
            set_below(object.entry(key.clone()).or_insert(Value::Null), rest, value, append)
        }
        (PathStep::Index(index), Value::Array(items)) => {
            if *index == items.len() {
                items.push(Value::Null);
            }
            match items.get_mut(*index) {
                Some(item) => set_below(item, rest, value, append),
                None => false,
            }
        }
        _ => false,
    }
}

/// Splits a server-sent-events body into its `data` payloads, one per event: the lines of an
/// event's `data` fields joined with `\n`; comments (`:`), other fields (`event`, `id`,
/// `retry`) and blank lines skipped. A body that ends without the blank line still gives its
/// last event (the body is whole when handed over).
pub fn sse_data(text: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut payloads = Vec::new();
    let mut data: Option<String> = None;
    for line in sse_lines(text) {
        if line.is_empty() {
            payloads.extend(data.take());
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    payloads.extend(data);
    payloads
}

/// The lines of an SSE body: ended by `\r\n`, `\n` or `\r`.
fn sse_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(['\r', '\n']).unwrap_or(rest.len());
        let line = &rest[..end];
        let after = &rest[end..];
        rest = after.strip_prefix("\r\n").or_else(|| after.get(1..)).unwrap_or("");
        Some(line)
    })
}

/// What a JSON text cut short would hold if it ended here: an open string, array or object is
/// closed; an unfinished key, a key without its value, and an unfinished literal or number
/// (`tru`, `1.`, `-`) are left out, as is an unfinished escape. `None` when the text is not the
/// beginning of one JSON value.
///
/// ```
/// use serde_json::json;
/// use tool_core::providers::stream::parse_partial_json;
///
/// assert_eq!(parse_partial_json(r#"{"city":"Edin"#), Some(json!({"city": "Edin"})));
/// assert_eq!(parse_partial_json(r#"{"a":[1,2"#), Some(json!({"a": [1, 2]})));
/// assert_eq!(parse_partial_json(r#"{"a":1,"b":tr"#), Some(json!({"a": 1})));
/// assert_eq!(parse_partial_json(r#"{"a":1}}"#), None);
/// ```
pub fn parse_partial_json(text: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    serde_json::from_str(&close_partial_json(text)?).ok()
}

/// An open array or object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Object,
    Array,
}

/// What may come next in [`close_partial_json`]'s scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// A value (at the top, after `:` or after `,` in an array).
    Value,
    /// A value or `]`, after `[`.
    ValueOrEnd,
    /// A key or `}`, after `{`.
    KeyOrEnd,
    /// A key, after `,` in an object.
    Key,
    /// `:` after a key.
    Colon,
    /// `,` or the end of the open array or object, after a value.
    CommaOrEnd,
    /// Nothing: the top value is complete.
    Nothing,
}

/// The text cut at the last place a value can end, with the open strings, arrays and objects
/// closed. The text is scanned once, without recursion; whether the result is JSON is left to
/// the parser.
fn close_partial_json(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut next = Next::Value;
    // Where the text can be cut and closed; no `[`/`{`/`]`/`}` comes after it (each of them is
    // itself such a place), so the stack there is the stack at the end.
    let mut cut: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
            continue;
        }
        match next {
            Next::Value | Next::ValueOrEnd => match byte {
                b'{' => {
                    stack.push(Open::Object);
                    next = Next::KeyOrEnd;
                    i += 1;
                    cut = Some(i);
                }
                b'[' => {
                    stack.push(Open::Array);
                    next = Next::ValueOrEnd;
                    i += 1;
                    cut = Some(i);
                }
                b']' if next == Next::ValueOrEnd => {
                    stack.pop();
                    next = after_value(&stack);
                    i += 1;
                    cut = Some(i);
                }
                b'"' => match scan_string(bytes, i) {
                    Ok(end) => {
                        i = end;
                        next = after_value(&stack);
                        cut = Some(i);
                    }
                    // The text ends inside a string value: close it where the text can end.
                    Err(end) => return Some(format!("{}\"{}", &text[..end], closers(&stack))),
                },
                _ => {
                    let end = bytes[i..]
                        .iter()
                        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
                        .map_or(bytes.len(), |n| i + n);
                    if end == i {
                        return None;
                    }
                    if end == bytes.len() {
                        // A number or literal at the very end may be unfinished: keep it only
                        // when it is whole as it stands (`12`, `true`).
                        if serde_json::from_str::<Value>(&text[i..end]).is_ok() {
                            return Some(format!("{text}{}", closers(&stack)));
                        }
                        break;
                    }
                    i = end;
                    next = after_value(&stack);
                    cut = Some(i);
                }
            },
            Next::KeyOrEnd | Next::Key => match byte {
                b'}' if next == Next::KeyOrEnd => {
                    stack.pop();
                    next = after_value(&stack);
                    i += 1;
                    cut = Some(i);
                }
                b'"' => match scan_string(bytes, i) {
                    Ok(end) => {
                        i = end;
                        next = Next::Colon;
                    }
                    Err(_) => break,
                },
                _ => return None,
            },
            Next::Colon if byte == b':' => {
                next = Next::Value;
                i += 1;
            }
            Next::CommaOrEnd => match (byte, stack.last()) {
                (b',', Some(Open::Object)) => {
                    next = Next::Key;
                    i += 1;
                }
                (b',', Some(Open::Array)) => {
                    next = Next::Value;
                    i += 1;
                }
                (b'}', Some(Open::Object)) | (b']', Some(Open::Array)) => {
                    stack.pop();
                    next = after_value(&stack);
                    i += 1;
                    cut = Some(i);
                }
                _ => return None,
            },
            Next::Colon | Next::Nothing => return None,
        }
    }
    let cut = cut?;
    Some(format!("{}{}", &text[..cut], closers(&stack)))
}

fn after_value(stack: &[Open]) -> Next {
    if stack.is_empty() {
        Next::Nothing
    } else {
        Next::CommaOrEnd
    }
}

fn closers(stack: &[Open]) -> String {
    stack.iter().rev().map(|open| if *open == Open::Object { '}' } else { ']' }).collect()
}

/// Scans the string starting at the quote `start`: `Ok` with the index after its closing quote,
/// or `Err` with the index where the text, ending inside it, can be cut (before an unfinished
/// escape, or a high surrogate whose low half has not arrived).
fn scan_string(bytes: &[u8], start: usize) -> Result<usize, usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok(i + 1),
            b'\\' => {
                let Some(&escaped) = bytes.get(i + 1) else { return Err(i) };
                if escaped != b'u' {
                    i += 2;
                    continue;
                }
                let Some(hex) = bytes.get(i + 2..i + 6) else { return Err(i) };
                let high_surrogate = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                    .is_some_and(|unit| (0xD800..0xDC00).contains(&unit));
                if high_surrogate && bytes.len() < i + 12 {
                    return Err(i);
                }
                i += 6;
            }
            _ => i += 1,
        }
    }
    Err(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_json_is_closed_where_a_value_can_end() {
        let cases: &[(&str, Option<Value>)] = &[
            ("", None),
            ("   ", None),
            ("{", Some(json!({}))),
            (r#"{"ci"#, Some(json!({}))),
            (r#"{"city""#, Some(json!({}))),
            (r#"{"city":"#, Some(json!({}))),
            (r#"{"city":""#, Some(json!({"city": ""}))),
            (r#"{"city":"Edin"#, Some(json!({"city": "Edin"}))),
            (r#"{"city":"Edinburgh","#, Some(json!({"city": "Edinburgh"}))),
            (r#"{"city":"Edinburgh","units":"c"}"#, Some(json!({"city": "Edinburgh", "units": "c"}))),
            (r#"{"n":12"#, Some(json!({"n": 12}))),
            (r#"{"n":1."#, Some(json!({}))),
            (r#"{"n":-"#, Some(json!({}))),
            (r#"{"a":1,"n":1e"#, Some(json!({"a": 1}))),
            (r#"{"ok":tru"#, Some(json!({}))),
            (r#"{"ok":true"#, Some(json!({"ok": true}))),
            (r#"{"ok":null,"#, Some(json!({"ok": null}))),
            (r#"{"a":[1,2"#, Some(json!({"a": [1, 2]}))),
            (r#"{"a":[1,2,"#, Some(json!({"a": [1, 2]}))),
            (r#"{"a":[{"b":"x"},{"#, Some(json!({"a": [{"b": "x"}, {}]}))),
            (r#"{"a":{"b":{"c":"deep"#, Some(json!({"a": {"b": {"c": "deep"}}}))),
            (r#"{"a":"x\"#, Some(json!({"a": "x"}))),
            (r#"{"a":"x\n"#, Some(json!({"a": "x\n"}))),
            (r#"{"a":"\u00e"#, Some(json!({"a": ""}))),
            (r#"{"a":"\u00e9"#, Some(json!({"a": "é"}))),
            (r#"{"a":"\ud83d"#, Some(json!({"a": ""}))),
            (r#"{"a":"\ud83d\ude0"#, Some(json!({"a": ""}))),
            (r#"{"a":"\ud83d\ude00"#, Some(json!({"a": "😀"}))),
            (r#"{"a":"naïve"#, Some(json!({"a": "naïve"}))),
            (r#"["x"#, Some(json!(["x"]))),
            (r#""x"#, Some(json!("x"))),
            (r#"{"a":1}}"#, None),
            (r#"{"a" 1"#, None),
            (r#"{'a':1"#, None),
            ("]", None),
            (r#"{"a":1]"#, None),
            (r#"{"a":01,"#, None),
        ];
        for (text, expected) in cases {
            assert_eq!(&parse_partial_json(text), expected, "{text}");
        }
    }

    #[test]
    fn deep_nesting_gives_none_instead_of_overflowing() {
        let text = "[".repeat(100_000);
        assert_eq!(parse_partial_json(&text), None);
    }

    #[test]
    fn sse_events_join_their_data_lines_and_skip_everything_else() {
        let body = "\u{feff}: comment\nevent: a\ndata: {\"a\":\ndata:1}\nid: 7\n\nretry: 10\ndata: [DONE]\r\n\r\ndata\n\ndata: last";
        assert_eq!(
            sse_data(body),
            vec!["{\"a\":\n1}".to_owned(), "[DONE]".to_owned(), String::new(), "last".to_owned()]
        );
        assert_eq!(sse_data("data: x\rdata: y\r\r"), vec!["x\ny".to_owned()]);
        assert_eq!(sse_data(""), Vec::<String>::new());
    }

    #[test]
    fn set_at_builds_objects_and_arrays_and_refuses_what_does_not_fit() {
        let mut args = Map::new();
        let steps = |path: &str| super::super::calls::parse_json_path(path).unwrap();
        assert!(set_at(&mut args, &steps("$.r.items[0].name"), json!("Lasa"), false));
        assert!(set_at(&mut args, &steps("$.r.items[0].name"), json!("gna"), true));
        assert!(set_at(&mut args, &steps("$.r.items[1]"), json!(2), false));
        assert_eq!(Value::Object(args.clone()), json!({"r": {"items": [{"name": "Lasagna"}, 2]}}));
        assert!(!set_at(&mut args, &steps("$.r.items[5]"), json!(1), false));
        assert!(!set_at(&mut args, &steps("$.r.items.x"), json!(1), false));
        assert!(!set_at(&mut args, &steps("$[0]"), json!(1), false));
    }
}
