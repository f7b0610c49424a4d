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

mod anthropic; // Anthropic's content block events
mod gemini; // Gemini's chunks, and Vertex's streamed arguments assembled
mod openai; // OpenAI Chat Completions chunks and Responses API events
mod partial_json; // what a JSON text cut short would hold
mod sse; // server-sent events split into their data payloads

pub use partial_json::parse_partial_json;
pub use sse::sse_data;

use serde::Serialize;
use serde_json::{Map, Value};

use super::calls::{mcp_call, ParsedCalls, Path, Reader, ResponseError};
use super::dialect::Provider;
use super::names::NameMap;
use crate::extract;
use crate::model::rules;
use crate::model::{truncate, ArgumentError, ArgumentErrors, ToolCallRequest};

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
/// use tool_core::providers::names::NameMap;
/// use tool_core::providers::Provider;
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

    fn no_open_call(&self, path: &Path<'_>, found: Option<&Value>) -> ResponseError {
        ResponseError::NoOpenCall {
            provider: self.provider,
            event: self.events,
            path: path.to_string(),
            found: found.map(Value::to_string).unwrap_or_default(),
        }
    }
}

/// The error of a call the stream cut off before any readable arguments arrived, or while
/// Gemini still marked it as continuing.
fn cut_off_error(raw: &str, detail: &str) -> ArgumentErrors {
    ArgumentErrors::single(ArgumentError {
        pointer: String::new(),
        rule: rules::TRUNCATED_JSON.to_owned(),
        expected: "a JSON object".to_owned(),
        received: Some(truncate(raw)),
        detail: detail.to_owned(),
    })
}
