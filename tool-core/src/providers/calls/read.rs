//! What one response holds, the errors of a response not in its provider's shape, and the
//! reader that checks each value and names its place as a JSON path.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{received_text, ToolCallRequest};
use crate::providers::dialect::Provider;
use crate::providers::names::NameMap;

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
pub(in crate::providers) fn provider_label(provider: Provider) -> &'static str {
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
pub(in crate::providers) fn describe(found: Option<&Value>) -> String {
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
pub(in crate::providers) enum Path<'a> {
    /// `$`.
    Root,
    /// `parent.key`.
    Key(&'a Path<'a>, &'a str),
    /// `parent[index]`.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The member `key` of this place.
    pub(in crate::providers) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The element `index` of this place.
    pub(in crate::providers) fn index(&'a self, index: usize) -> Path<'a> {
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
pub(in crate::providers) struct Reader {
    /// Whose response it is.
    pub provider: Provider,
    /// The streamed event's number, from 1; `None` for a whole response.
    pub event: Option<usize>,
}

impl Reader {
    /// A reader for a whole response.
    pub(in crate::providers) fn response(provider: Provider) -> Self {
        Reader { provider, event: None }
    }

    /// The error for `found` at `path` where `expected` belongs.
    pub(in crate::providers) fn shape(
        self,
        path: &Path<'_>,
        expected: &'static str,
        found: Option<&Value>,
    ) -> ResponseError {
        ResponseError::Shape {
            provider: self.provider,
            event: self.event,
            path: path.to_string(),
            expected,
            found: describe(found),
        }
    }

    /// An object that must be there.
    pub(in crate::providers) fn object<'v>(
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
    pub(in crate::providers) fn opt_object<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<Option<&'v Map<String, Value>>, ResponseError> {
        present(value).map(|value| self.object(Some(value), path)).transpose()
    }

    /// An array that must be there.
    pub(in crate::providers) fn array<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<&'v [Value], ResponseError> {
        match value {
            Some(Value::Array(items)) => Ok(items),
            other => Err(self.shape(path, "an array", other)),
        }
    }

    /// An array, or none (absent or `null` reads as empty).
    pub(in crate::providers) fn opt_array<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<&'v [Value], ResponseError> {
        Ok(present(value).map(|value| self.array(Some(value), path)).transpose()?.unwrap_or(&[]))
    }

    /// A string that must be there.
    pub(in crate::providers) fn string<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<&'v str, ResponseError> {
        match value {
            Some(Value::String(text)) => Ok(text),
            other => Err(self.shape(path, "a string", other)),
        }
    }

    /// A string, or nothing (absent or `null`).
    pub(in crate::providers) fn opt_string<'v>(
        self,
        value: Option<&'v Value>,
        path: &Path<'_>,
    ) -> Result<Option<&'v str>, ResponseError> {
        present(value).map(|value| self.string(Some(value), path)).transpose()
    }

    /// A boolean, or nothing (absent or `null`).
    pub(in crate::providers) fn opt_bool(
        self,
        value: Option<&Value>,
        path: &Path<'_>,
    ) -> Result<Option<bool>, ResponseError> {
        match present(value) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            other => Err(self.shape(path, "a boolean", other)),
        }
    }

    /// A non-negative integer that must be there.
    pub(in crate::providers) fn index(self, value: Option<&Value>, path: &Path<'_>) -> Result<u64, ResponseError> {
        value.and_then(Value::as_u64).ok_or_else(|| self.shape(path, "a non-negative integer", value))
    }

    /// A non-negative integer, or nothing (absent or `null`).
    pub(in crate::providers) fn opt_index(
        self,
        value: Option<&Value>,
        path: &Path<'_>,
    ) -> Result<Option<u64>, ResponseError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(found) => found.as_u64().map(Some).ok_or_else(|| self.shape(path, "a non-negative integer", value)),
        }
    }

    /// The provider's error, when `body` is an error object (`{"error": {...}}`) rather than a
    /// response. A `null` `error` (the Responses API sends one) is no error.
    pub(in crate::providers) fn provider_error(self, body: &Map<String, Value>) -> Result<(), ResponseError> {
        match body.get("error") {
            Some(Value::Object(error)) => Err(self.reported(error)),
            _ => Ok(()),
        }
    }

    /// The [`ResponseError::Provider`] for one error object: its `message`, and its kind from
    /// `type` (OpenAI, Anthropic), `status` (Gemini) or `code` (the Responses API).
    pub(in crate::providers) fn reported(self, error: &Map<String, Value>) -> ResponseError {
        let kind = ["type", "status", "code"].iter().find_map(|key| error.get(*key).and_then(Value::as_str));
        let message = match error.get("message") {
            Some(Value::String(message)) => message.clone(),
            _ => received_text(&Value::Object(error.clone())),
        };
        ResponseError::Provider { provider: self.provider, event: self.event, kind: kind.map(str::to_owned), message }
    }
}

/// The calls with their arguments in the declared form ([`NameMap::restore`]).
pub(super) fn restored(mut parsed: ParsedCalls, names: &NameMap) -> ParsedCalls {
    for call in &mut parsed.calls {
        names.restore(call);
    }
    parsed
}

/// A value that is there: absent and `null` both read as nothing.
fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|value| !value.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;

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
