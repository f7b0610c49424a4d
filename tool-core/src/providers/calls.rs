//! Tool calls in: each provider's whole (non-streamed) response read into
//! [`ToolCallRequest`]s, with the assistant's text and the stop reason beside them.
//!
//! Names come back through the export's [`NameMap`], and so do arguments that went out other
//! than declared (renamed properties, JSON text: [`NameMap::restore`] puts the declared form in
//! `arguments`); call ids are kept; `raw_arguments` is the
//! arguments text exactly as the provider sent it (OpenAI's `arguments` string), or, where the
//! provider sends an object (Anthropic's `input`, Gemini's `args`, MCP's `arguments`), that
//! object written by `serde_json` in the order received. What must go back with the result
//! unchanged is kept in `provider_data`: Gemini's `thoughtSignature` (and `generatedId: true`
//! when Gemini sent no id and the call got `gemini_call_{i}`), the Responses API's item `id`.
//!
//! This module must not extract arguments against a tool's declaration (the executor does), and
//! never panics: a response that is not in the provider's shape is a [`ResponseError`] that
//! names the provider, the JSON path and what was there.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::dialect::Provider;
use super::names::NameMap;
use crate::model::{received_text, ToolCallRequest};

/// What one response holds: its tool calls, its text and why it stopped.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParsedCalls {
    /// The tool calls, in the order the response holds them.
    pub calls: Vec<ToolCallRequest>,
    /// The assistant's text, every text part concatenated (reasoning and thought summaries
    /// left out).
    pub text: String,
    /// The provider's own stop reason: OpenAI Chat's `finish_reason`, Anthropic's
    /// `stop_reason`, Gemini's `finishReason` (or the prompt's `blockReason`), the Responses
    /// API's `status` (its `incomplete_details.reason` when incomplete); `None` for MCP.
    pub stop_reason: Option<String>,
}

/// A response (or one streamed event) that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponseError {
    /// Not the provider's shape: a field is missing or holds another kind of value.
    #[error("{}: expected {expected} at `{path}`, found {found}", origin(.provider, .event))]
    Shape {
        /// Whose response it was.
        provider: Provider,
        /// The streamed event, numbered from 1 in the order given; `None` for a whole response.
        event: Option<usize>,
        /// Where, as a JSON path from the response's (or event's) root: `$.choices[0].message`.
        path: String,
        /// What the provider's shape has there.
        expected: &'static str,
        /// What was there: `nothing`, or its kind and JSON text (cut when long).
        found: String,
    },
    /// The provider answered with an error object instead of a response.
    #[error("{}: the provider reported an error{}: {message}", origin(.provider, .event), kind_text(.kind))]
    Provider {
        /// Whose response it was.
        provider: Provider,
        /// The streamed event, numbered from 1; `None` for a whole response.
        event: Option<usize>,
        /// The error's kind, as the provider names it (`type`, `status` or `code`).
        kind: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// A streamed payload that is not JSON.
    #[error("{}: not JSON ({detail}): {text}", stream_origin(.provider, .event))]
    NotJson {
        /// Whose stream it was.
        provider: Provider,
        /// The event, numbered from 1.
        event: usize,
        /// The JSON parser's message.
        detail: String,
        /// The payload (cut when long).
        text: String,
    },
    /// A streamed event continues a call that the stream never started, or already finished.
    #[error("{}: `{path}` = {found} names no tool call open in the stream", stream_origin(.provider, .event))]
    NoOpenCall {
        /// Whose stream it was.
        provider: Provider,
        /// The event, numbered from 1.
        event: usize,
        /// The field that names the call (`$.index`, `$.item_id`).
        path: String,
        /// Its value, as JSON text.
        found: String,
    },
}

/// The provider's name as people write it.
pub(super) fn provider_label(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAiChat => "OpenAI Chat",
        Provider::OpenAiResponses => "OpenAI Responses",
        Provider::Anthropic => "Anthropic",
        Provider::Gemini => "Gemini",
        Provider::Mcp => "MCP",
    }
}

/// `OpenAI Chat response`, or `Anthropic stream event 12`.
fn origin(provider: &Provider, event: &Option<usize>) -> String {
    match event {
        None => format!("{} response", provider_label(*provider)),
        Some(event) => stream_origin(provider, event),
    }
}

/// `Anthropic stream event 12`.
fn stream_origin(provider: &Provider, event: &usize) -> String {
    format!("{} stream event {event}", provider_label(*provider))
}

fn kind_text(kind: &Option<String>) -> String {
    kind.as_ref().map_or_else(String::new, |kind| format!(" ({kind})"))
}

/// What was found, for messages: `nothing`, `null`, or the kind and the JSON text (cut).
pub(super) fn describe(found: Option<&Value>) -> String {
    let kind = match found {
        None => return "nothing".to_owned(),
        Some(Value::Null) => return "null".to_owned(),
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    };
    format!("{kind} {}", found.map(received_text).unwrap_or_default())
}

/// A place in a response, as a JSON path; built on the stack and written out only for an error.
#[derive(Debug, Clone, Copy)]
pub(super) enum Path<'a> {
    /// `$`.
    Root,
    /// `parent.key`.
    Key(&'a Path<'a>, &'a str),
    /// `parent[index]`.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The member `key` of this place.
    pub(super) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The element `index` of this place.
    pub(super) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("$"),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// Reads fields of one provider's response (or one event), each failure a [`ResponseError`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Reader {
    /// Whose response it is.
    pub provider: Provider,
    /// The streamed event's number, from 1; `None` for a whole response.
    pub event: Option<usize>,
}

impl Reader {
    /// A reader for a whole response.
    pub(super) fn response(provider: Provider) -> Self {
        Reader { provider, event: None }
    }

    /// The error for `found` at `path` where `expected` belongs.
    pub(super) fn shape(self, path: &Path<'_>, expected: &'static str, found: Option<&Value>) -> ResponseError {
        ResponseError::Shape {
            provider: self.provider,
            event: self.event,
            path: path.to_string(),
            expected,
            found: describe(found),
        }
    }

    /// An object that must be there.
    pub(super) fn object<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<&'v Map<String, Value>, ResponseError> {
        match value {
            Some(Value::Object(object)) => Ok(object),
            other => Err(self.shape(path, "an object", other)),
        }
    }

    /// An object, or nothing (absent or `null`).
    pub(super) fn opt_object<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<Option<&'v Map<String, Value>>, ResponseError> {
        present(value).map(|value| self.object(Some(value), path)).transpose()
    }

    /// An array that must be there.
    pub(super) fn array<'v>(self, value: Option<&'v Value>, path: &Path<'_>) -> Result<&'v [Value], ResponseError> {
        match value {
            Some(Value::Array(items)) => Ok(items),
            other => Err(self.shape(path, "an array", other)),
        }
    }

    /// An array, or none (absent or `null` reads as empty).
    pub(super) fn opt_array<'v>(self, value: Option<&'v Value>, path: &Path<'_>) -> Result<&'v [Value], ResponseError> {
        Ok(present(value).map(|value| self.array(Some(value), path)).transpose()?.unwrap_or(&[]))
    }

    /// A string that must be there.
    pub(super) fn string<'v>(self, value: Option<&'v Value>, path: &Path<'_>) -> Result<&'v str, ResponseError> {
        match value {
            Some(Value::String(text)) => Ok(text),
            other => Err(self.shape(path, "a string", other)),
        }
    }

    /// A string, or nothing (absent or `null`).
    pub(super) fn opt_string<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<Option<&'v str>, ResponseError> {
        present(value).map(|value| self.string(Some(value), path)).transpose()
    }

    /// A boolean, or nothing (absent or `null`).
    pub(super) fn opt_bool(self, value: Option<&Value>, path: &Path<'_>) -> Result<Option<bool>, ResponseError> {
        match present(value) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            other => Err(self.shape(path, "a boolean", other)),
        }
    }

    /// A non-negative integer that must be there.
    pub(super) fn index(self, value: Option<&Value>, path: &Path<'_>) -> Result<u64, ResponseError> {
        value.and_then(Value::as_u64).ok_or_else(|| self.shape(path, "a non-negative integer", value))
    }

    /// A non-negative integer, or nothing (absent or `null`).
    pub(super) fn opt_index(self, value: Option<&Value>, path: &Path<'_>) -> Result<Option<u64>, ResponseError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(found) => found.as_u64().map(Some).ok_or_else(|| self.shape(path, "a non-negative integer", value)),
        }
    }

    /// The provider's error, when `body` is an error object (`{"error": {...}}`) rather than a
    /// response. A `null` `error` (the Responses API sends one) is no error.
    pub(super) fn provider_error(self, body: &Map<String, Value>) -> Result<(), ResponseError> {
        match body.get("error") {
            Some(Value::Object(error)) => Err(self.reported(error)),
            _ => Ok(()),
        }
    }

    /// The [`ResponseError::Provider`] for one error object: its `message`, and its kind from
    /// `type` (OpenAI, Anthropic), `status` (Gemini) or `code` (the Responses API).
    pub(super) fn reported(self, error: &Map<String, Value>) -> ResponseError {
        let kind = ["type", "status", "code"].iter().find_map(|key| error.get(*key).and_then(Value::as_str));
        let message = match error.get("message") {
            Some(Value::String(message)) => message.clone(),
            _ => received_text(&Value::Object(error.clone())),
        };
        ResponseError::Provider { provider: self.provider, event: self.event, kind: kind.map(str::to_owned), message }
    }
}

/// Reads a whole response of `provider` (for MCP, a `tools/call` request) into its calls.
///
/// ```
/// use serde_json::json;
/// use tool_core::providers::calls::parse_response;
/// use tool_core::providers::names::NameMap;
/// use tool_core::providers::Provider;
///
/// let response = json!({"content": [
///     {"type": "text", "text": "Searching."},
///     {"type": "tool_use", "id": "toolu_1", "name": "memory_search", "input": {"query": "rust"}}
/// ], "stop_reason": "tool_use"});
/// let mut names = NameMap::identity();
/// names.insert("memory.search", "memory_search");
/// let parsed = parse_response(Provider::Anthropic, &response, &names).unwrap();
/// assert_eq!(parsed.calls[0].tool_name, "memory.search");
/// assert_eq!(parsed.calls[0].raw_arguments, r#"{"query":"rust"}"#);
/// assert_eq!(parsed.text, "Searching.");
/// assert_eq!(parsed.stop_reason.as_deref(), Some("tool_use"));
/// ```
pub fn parse_response(provider: Provider, response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    match provider {
        Provider::OpenAiChat => openai_chat(response, names),
        Provider::OpenAiResponses => openai_responses(response, names),
        Provider::Anthropic => anthropic(response, names),
        Provider::Gemini => gemini(response, names),
        Provider::Mcp => mcp(response, names),
    }
}

/// The calls with their arguments in the declared form ([`NameMap::restore`]).
fn restored(mut parsed: ParsedCalls, names: &NameMap) -> ParsedCalls {
    for call in &mut parsed.calls {
        names.restore(call);
    }
    parsed
}

/// OpenAI Chat Completions: `choices[0].message.tool_calls[{id, function: {name, arguments}}]`,
/// the text from `message.content`, the stop reason from `finish_reason`.
///
/// Only the first choice is read (further choices, `n > 1`, are alternatives, not more calls);
/// tool calls whose `type` is not `function` (custom tools) are left out.
pub fn openai_chat(response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let r = Reader::response(Provider::OpenAiChat);
    let root = Path::Root;
    let body = r.object(Some(response), &root)?;
    r.provider_error(body)?;
    let choices_path = root.key("choices");
    let choices = r.array(body.get("choices"), &choices_path)?;
    let choice_path = choices_path.index(0);
    let choice = r.object(choices.first(), &choice_path)?;
    let stop_reason = r.opt_string(choice.get("finish_reason"), &choice_path.key("finish_reason"))?.map(str::to_owned);
    let message_path = choice_path.key("message");
    let message = r.object(choice.get("message"), &message_path)?;
    let text = chat_content(r, message.get("content"), &message_path.key("content"))?;
    let calls_path = message_path.key("tool_calls");
    let mut calls = Vec::new();
    for (i, call) in r.opt_array(message.get("tool_calls"), &calls_path)?.iter().enumerate() {
        let path = calls_path.index(i);
        let call = r.object(Some(call), &path)?;
        if r.opt_string(call.get("type"), &path.key("type"))?.is_some_and(|kind| kind != "function") {
            continue;
        }
        let id = r.string(call.get("id"), &path.key("id"))?;
        let function_path = path.key("function");
        let function = r.object(call.get("function"), &function_path)?;
        let name = r.string(function.get("name"), &function_path.key("name"))?;
        let arguments = r.string(function.get("arguments"), &function_path.key("arguments"))?;
        calls.push(ToolCallRequest::new(names.tool_name(name), id, arguments));
    }
    Ok(restored(ParsedCalls { calls, text, stop_reason }, names))
}

/// A Chat message's `content`: a string, `null`, or an array of parts whose `text` parts are
/// joined.
pub(super) fn chat_content(r: Reader, content: Option<&Value>, path: &Path<'_>) -> Result<String, ResponseError> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for (i, part) in parts.iter().enumerate() {
                let part_path = path.index(i);
                let part = r.object(Some(part), &part_path)?;
                if r.opt_string(part.get("type"), &part_path.key("type"))? == Some("text") {
                    text.push_str(r.string(part.get("text"), &part_path.key("text"))?);
                }
            }
            Ok(text)
        }
        other => Err(r.shape(path, "a string, an array of content parts, or null", other)),
    }
}

/// OpenAI Responses API: the `function_call` items of `output` (`call_id`, `name`,
/// `arguments`; the item's `id` goes to `provider_data["id"]`), the text of the `message`
/// items' `output_text` parts; reasoning and other items are left out. The stop reason is the
/// response's `status`, or its `incomplete_details.reason` when incomplete.
pub fn openai_responses(response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let r = Reader::response(Provider::OpenAiResponses);
    let root = Path::Root;
    let body = r.object(Some(response), &root)?;
    r.provider_error(body)?;
    let output_path = root.key("output");
    let mut parsed = ParsedCalls::default();
    for (i, item) in r.array(body.get("output"), &output_path)?.iter().enumerate() {
        let path = output_path.index(i);
        let item = r.object(Some(item), &path)?;
        match r.string(item.get("type"), &path.key("type"))? {
            "function_call" => parsed.calls.push(responses_call(r, item, &path, names)?),
            "message" => parsed.text.push_str(&responses_message_text(r, item, &path)?),
            _ => {}
        }
    }
    parsed.stop_reason = responses_stop_reason(r, body, &root)?;
    Ok(restored(parsed, names))
}

/// One whole `function_call` item of the Responses API.
pub(super) fn responses_call(
    r: Reader,
    item: &Map<String, Value>,
    path: &Path<'_>,
    names: &NameMap,
) -> Result<ToolCallRequest, ResponseError> {
    let call_id = r.string(item.get("call_id"), &path.key("call_id"))?;
    let name = r.string(item.get("name"), &path.key("name"))?;
    let arguments = r.string(item.get("arguments"), &path.key("arguments"))?;
    let item_id = r.opt_string(item.get("id"), &path.key("id"))?;
    let mut call = ToolCallRequest::new(names.tool_name(name), call_id, arguments);
    if let Some(item_id) = item_id {
        call.provider_data.insert("id".to_owned(), Value::from(item_id));
    }
    Ok(call)
}

/// The `output_text` parts of one Responses `message` item, joined.
fn responses_message_text(r: Reader, item: &Map<String, Value>, path: &Path<'_>) -> Result<String, ResponseError> {
    let content_path = path.key("content");
    let mut text = String::new();
    for (i, part) in r.opt_array(item.get("content"), &content_path)?.iter().enumerate() {
        let part_path = content_path.index(i);
        let part = r.object(Some(part), &part_path)?;
        if r.string(part.get("type"), &part_path.key("type"))? == "output_text" {
            text.push_str(r.string(part.get("text"), &part_path.key("text"))?);
        }
    }
    Ok(text)
}

/// A Responses API response's `status`, or its `incomplete_details.reason` when incomplete.
pub(super) fn responses_stop_reason(
    r: Reader,
    response: &Map<String, Value>,
    path: &Path<'_>,
) -> Result<Option<String>, ResponseError> {
    let status = r.opt_string(response.get("status"), &path.key("status"))?;
    if status == Some("incomplete") {
        let details_path = path.key("incomplete_details");
        if let Some(details) = r.opt_object(response.get("incomplete_details"), &details_path)? {
            if let Some(reason) = r.opt_string(details.get("reason"), &details_path.key("reason"))? {
                return Ok(Some(reason.to_owned()));
            }
        }
    }
    Ok(status.map(str::to_owned))
}

/// Anthropic Messages: the `tool_use` blocks of `content` (`id`, `name`, `input` written as
/// JSON text), the text of the `text` blocks, the stop reason from `stop_reason`. Thinking and
/// server-side tool blocks (`server_tool_use`, `mcp_tool_use`) are left out.
pub fn anthropic(response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let r = Reader::response(Provider::Anthropic);
    let root = Path::Root;
    let body = r.object(Some(response), &root)?;
    r.provider_error(body)?;
    let content_path = root.key("content");
    let mut parsed = ParsedCalls::default();
    for (i, block) in r.array(body.get("content"), &content_path)?.iter().enumerate() {
        let path = content_path.index(i);
        let block = r.object(Some(block), &path)?;
        match r.string(block.get("type"), &path.key("type"))? {
            "text" => parsed.text.push_str(r.string(block.get("text"), &path.key("text"))?),
            "tool_use" => {
                let id = r.string(block.get("id"), &path.key("id"))?;
                let name = r.string(block.get("name"), &path.key("name"))?;
                let input_path = path.key("input");
                let input = block.get("input");
                r.object(input, &input_path)?;
                let raw = input.map(Value::to_string).unwrap_or_default();
                parsed.calls.push(ToolCallRequest::new(names.tool_name(name), id, raw));
            }
            _ => {}
        }
    }
    parsed.stop_reason = r.opt_string(body.get("stop_reason"), &root.key("stop_reason"))?.map(str::to_owned);
    Ok(restored(parsed, names))
}

/// Gemini (Gemini API and Vertex AI): the `functionCall` parts of `candidates[0].content.parts`
/// (several parts are parallel calls), the text of the text parts that are not thoughts, the
/// stop reason from `finishReason`.
///
/// A call's `args` object is written as JSON text (`{}` when absent). A part's
/// `thoughtSignature` goes to `provider_data["thoughtSignature"]`. A call without `id` gets
/// `gemini_call_{i}`, `i` its position among the response's calls (from 0), and
/// `provider_data["generatedId"] = true`. A response without candidates whose prompt was
/// blocked has no calls and the `blockReason` as its stop reason.
pub fn gemini(response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let r = Reader::response(Provider::Gemini);
    let root = Path::Root;
    let body = r.object(Some(response), &root)?;
    r.provider_error(body)?;
    let candidates_path = root.key("candidates");
    let candidates = r.opt_array(body.get("candidates"), &candidates_path)?;
    let Some(candidate) = candidates.first() else {
        return match gemini_block_reason(r, body, &root)? {
            Some(reason) => Ok(ParsedCalls { stop_reason: Some(reason), ..ParsedCalls::default() }),
            None => Err(r.shape(&candidates_path, "an array of candidates", body.get("candidates"))),
        };
    };
    let chunk = GeminiChunk::read(r, candidate, &candidates_path.index(0))?;
    let mut parsed = ParsedCalls { text: chunk.text, stop_reason: chunk.finish_reason, ..ParsedCalls::default() };
    for part in chunk.calls {
        let Some(name) = part.name else {
            return Err(ResponseError::Shape {
                provider: r.provider,
                event: None,
                path: format!("{}.name", gemini_call_path(part.position)),
                expected: "a string",
                found: describe(None),
            });
        };
        let mut call = gemini_call(names, &name, part.id, parsed.calls.len(), part.signature);
        if let Some(args) = part.args {
            call.raw_arguments = Value::Object(args).to_string();
        }
        parsed.calls.push(call);
    }
    Ok(restored(parsed, names))
}

/// A Gemini call as it starts: the id given or generated, the thought signature kept.
pub(super) fn gemini_call(
    names: &NameMap,
    name: &str,
    id: Option<String>,
    position: usize,
    signature: Option<String>,
) -> ToolCallRequest {
    let generated = id.is_none();
    let id = id.unwrap_or_else(|| format!("gemini_call_{position}"));
    let mut call = ToolCallRequest::new(names.tool_name(name), id, "{}");
    if let Some(signature) = signature {
        call.provider_data.insert("thoughtSignature".to_owned(), Value::from(signature));
    }
    if generated {
        call.provider_data.insert("generatedId".to_owned(), Value::Bool(true));
    }
    call
}

/// `promptFeedback.blockReason`, when the prompt was blocked.
pub(super) fn gemini_block_reason(
    r: Reader,
    body: &Map<String, Value>,
    root: &Path<'_>,
) -> Result<Option<String>, ResponseError> {
    let feedback_path = root.key("promptFeedback");
    let Some(feedback) = r.opt_object(body.get("promptFeedback"), &feedback_path)? else {
        return Ok(None);
    };
    Ok(r.opt_string(feedback.get("blockReason"), &feedback_path.key("blockReason"))?.map(str::to_owned))
}

/// What one Gemini candidate (a whole response's, or one streamed chunk's) holds.
#[derive(Debug)]
pub(super) struct GeminiChunk {
    /// The text of the text parts that are not thoughts.
    pub text: String,
    /// `finishReason`.
    pub finish_reason: Option<String>,
    /// The `functionCall` parts, in order.
    pub calls: Vec<GeminiPart>,
}

/// The path of the `functionCall` of part `position` of the first candidate.
pub(super) fn gemini_call_path(position: usize) -> String {
    format!("$.candidates[0].content.parts[{position}].functionCall")
}

/// One `functionCall` part, read and checked.
#[derive(Debug)]
pub(super) struct GeminiPart {
    /// The part's position among the candidate's parts.
    pub position: usize,
    /// `name` (absent on Vertex's continuation parts).
    pub name: Option<String>,
    /// `id`.
    pub id: Option<String>,
    /// `args`.
    pub args: Option<Map<String, Value>>,
    /// Vertex's `partialArgs`.
    pub partial_args: Vec<PartialArg>,
    /// Vertex's `willContinue`: more of this call follows.
    pub will_continue: bool,
    /// The part's `thoughtSignature`.
    pub signature: Option<String>,
}

/// One of Vertex's `partialArgs`: a value at a JSON path of the arguments.
#[derive(Debug)]
pub(super) struct PartialArg {
    /// The JSON path as sent (`$.recipe.steps[0]`).
    pub json_path: String,
    /// The path's steps.
    pub steps: Vec<PathStep>,
    /// The value: from `stringValue`, `numberValue`, `boolValue` or `nullValue`; `None` when
    /// the entry holds none of them.
    pub value: Option<Value>,
    /// `willContinue`: a string value continues in the next entry for the same path.
    pub will_continue: bool,
    /// The entry's position in `partialArgs`.
    pub position: usize,
}

/// One step of a Vertex `jsonPath`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PathStep {
    /// `.key` or `['key']`.
    Key(String),
    /// `[index]`.
    Index(usize),
}

impl GeminiChunk {
    /// Reads one candidate at `path`.
    pub(super) fn read(r: Reader, candidate: &Value, path: &Path<'_>) -> Result<Self, ResponseError> {
        let candidate = r.object(Some(candidate), path)?;
        let finish_reason = r.opt_string(candidate.get("finishReason"), &path.key("finishReason"))?.map(str::to_owned);
        let content_path = path.key("content");
        let mut chunk = GeminiChunk { text: String::new(), finish_reason, calls: Vec::new() };
        let Some(content) = r.opt_object(candidate.get("content"), &content_path)? else {
            return Ok(chunk);
        };
        let parts_path = content_path.key("parts");
        for (i, part) in r.opt_array(content.get("parts"), &parts_path)?.iter().enumerate() {
            let part_path = parts_path.index(i);
            let part = r.object(Some(part), &part_path)?;
            let thought = r.opt_bool(part.get("thought"), &part_path.key("thought"))?.unwrap_or(false);
            if let Some(text) = r.opt_string(part.get("text"), &part_path.key("text"))? {
                if !thought {
                    chunk.text.push_str(text);
                }
            }
            let call_path = part_path.key("functionCall");
            let Some(function_call) = r.opt_object(part.get("functionCall"), &call_path)? else {
                continue;
            };
            let signature = r.opt_string(part.get("thoughtSignature"), &part_path.key("thoughtSignature"))?;
            chunk.calls.push(GeminiPart::read(r, function_call, &call_path, i, signature)?);
        }
        Ok(chunk)
    }
}

impl GeminiPart {
    fn read(
        r: Reader,
        call: &Map<String, Value>,
        path: &Path<'_>,
        position: usize,
        signature: Option<&str>,
    ) -> Result<Self, ResponseError> {
        let name = r.opt_string(call.get("name"), &path.key("name"))?.map(str::to_owned);
        let id = r.opt_string(call.get("id"), &path.key("id"))?.map(str::to_owned);
        let args = r.opt_object(call.get("args"), &path.key("args"))?.cloned();
        let will_continue = r.opt_bool(call.get("willContinue"), &path.key("willContinue"))?.unwrap_or(false);
        let partial_path = path.key("partialArgs");
        let mut partial_args = Vec::new();
        for (i, entry) in r.opt_array(call.get("partialArgs"), &partial_path)?.iter().enumerate() {
            partial_args.push(PartialArg::read(r, entry, &partial_path.index(i), i)?);
        }
        Ok(GeminiPart {
            position,
            name,
            id,
            args,
            partial_args,
            will_continue,
            signature: signature.map(str::to_owned),
        })
    }
}

impl PartialArg {
    fn read(r: Reader, entry: &Value, path: &Path<'_>, position: usize) -> Result<Self, ResponseError> {
        let entry = r.object(Some(entry), path)?;
        let json_path_path = path.key("jsonPath");
        let json_path = r.string(entry.get("jsonPath"), &json_path_path)?;
        let steps = parse_json_path(json_path)
            .ok_or_else(|| r.shape(&json_path_path, "a JSON path like `$.a.b[0]`", entry.get("jsonPath")))?;
        let will_continue = r.opt_bool(entry.get("willContinue"), &path.key("willContinue"))?.unwrap_or(false);
        let value = if let Some(text) = r.opt_string(entry.get("stringValue"), &path.key("stringValue"))? {
            Some(Value::from(text))
        } else if let Some(number) = entry.get("numberValue").filter(|v| !v.is_null()) {
            if !number.is_number() {
                return Err(r.shape(&path.key("numberValue"), "a number", Some(number)));
            }
            Some(number.clone())
        } else if let Some(flag) = r.opt_bool(entry.get("boolValue"), &path.key("boolValue"))? {
            Some(Value::Bool(flag))
        } else if entry.contains_key("nullValue") {
            Some(Value::Null)
        } else {
            None
        };
        Ok(PartialArg { json_path: json_path.to_owned(), steps, value, will_continue, position })
    }
}

/// The deepest `jsonPath` read: as deep as `serde_json` parses.
const MAX_PATH_STEPS: usize = 128;

/// The steps of a Vertex `jsonPath` below `$`: `.key`, `['key']`, `["key"]`, `[index]`.
/// `None` when it is not such a path, is `$` itself, or is deeper than [`MAX_PATH_STEPS`].
pub(super) fn parse_json_path(text: &str) -> Option<Vec<PathStep>> {
    let mut rest = text.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if steps.len() == MAX_PATH_STEPS {
            return None;
        }
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(PathStep::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            if let Some(quote) = after.chars().next().filter(|c| *c == '\'' || *c == '"') {
                let inner = &after[1..];
                let end = inner.find(quote)?;
                steps.push(PathStep::Key(inner[..end].to_owned()));
                rest = inner[end + 1..].strip_prefix(']')?;
            } else {
                let end = after.find(']')?;
                let digits = &after[..end];
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                steps.push(PathStep::Index(digits.parse().ok()?));
                rest = &after[end + 1..];
            }
        } else {
            return None;
        }
    }
    (!steps.is_empty()).then_some(steps)
}

/// MCP: a `tools/call` request, whole (`{"jsonrpc", "id", "method": "tools/call", "params"}`)
/// or its `params` alone (`{name, arguments}`). The arguments object is written as JSON text
/// (`{}` when absent); the call id is the JSON-RPC `id` (a number written as digits), empty
/// when only `params` is given (they carry no id).
pub fn mcp(request: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let call = mcp_call(Reader::response(Provider::Mcp), request, names)?;
    Ok(restored(ParsedCalls { calls: vec![call], text: String::new(), stop_reason: None }, names))
}

/// One MCP `tools/call` request, read with `r`.
pub(super) fn mcp_call(r: Reader, request: &Value, names: &NameMap) -> Result<ToolCallRequest, ResponseError> {
    let root = Path::Root;
    let body = r.object(Some(request), &root)?;
    let params_path = root.key("params");
    let (params, path, id) = if body.contains_key("method") {
        let method = r.string(body.get("method"), &root.key("method"))?;
        if method != "tools/call" {
            return Err(r.shape(&root.key("method"), "\"tools/call\"", body.get("method")));
        }
        let id = match body.get("id") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(id)) => id.clone(),
            Some(Value::Number(id)) => id.to_string(),
            other => return Err(r.shape(&root.key("id"), "a string or a number", other)),
        };
        (r.object(body.get("params"), &params_path)?, &params_path, id)
    } else {
        (body, &root, String::new())
    };
    let name = r.string(params.get("name"), &path.key("name"))?;
    let arguments = params.get("arguments").filter(|value| !value.is_null());
    let raw = match arguments {
        None => "{}".to_owned(),
        Some(Value::Object(_)) => arguments.map(Value::to_string).unwrap_or_default(),
        other => return Err(r.shape(&path.key("arguments"), "an object", other)),
    };
    Ok(ToolCallRequest::new(names.tool_name(name), id, raw))
}

/// A value that is there: absent and `null` both read as nothing.
fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|value| !value.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_read_keys_indexes_and_quoted_keys() {
        assert_eq!(
            parse_json_path("$.recipe.ingredients[0].name"),
            Some(vec![
                PathStep::Key("recipe".into()),
                PathStep::Key("ingredients".into()),
                PathStep::Index(0),
                PathStep::Key("name".into())
            ])
        );
        assert_eq!(parse_json_path("$['a.b'][12]"), Some(vec![PathStep::Key("a.b".into()), PathStep::Index(12)]));
        assert_eq!(parse_json_path(&format!("${}", ".a".repeat(128))).map(|steps| steps.len()), Some(128));
        assert_eq!(parse_json_path(&format!("${}", ".a".repeat(129))), None);
        for bad in
            ["", "$", "location", "$.", "$..a", "$[x]", "$[1", "$['a'", "$[-1]", "$.a[]", "$[99999999999999999999999]"]
        {
            assert_eq!(parse_json_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn paths_are_written_as_json_paths() {
        let root = Path::Root;
        let choices = root.key("choices");
        let first = choices.index(0);
        assert_eq!(first.key("message").to_string(), "$.choices[0].message");
        assert_eq!(root.to_string(), "$");
    }

    #[test]
    fn found_values_are_described_by_kind_and_text() {
        assert_eq!(describe(None), "nothing");
        assert_eq!(describe(Some(&Value::Null)), "null");
        assert_eq!(describe(Some(&Value::from("x"))), "a string \"x\"");
        assert_eq!(describe(Some(&Value::from(3))), "a number 3");
        assert_eq!(describe(Some(&serde_json::json!({"a": [1]}))), "an object {\"a\":[1]}");
    }
}
