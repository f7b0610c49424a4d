//! Execution records rendered as each provider's tool-result messages, and the assistant's
//! tool-call turn rendered back into the conversation history.
//!
//! A failed call (unknown tool, refused arguments, a tool error, a panic, a timeout, a
//! cancellation) is an ordinary result carrying the provider's error flag and the record's
//! model-facing text, so the model can read what went wrong and try again. Nothing here sends
//! anything or fails: every record has a rendering in every provider's shape.
//!
//! Tool names go out under the provider's name for them ([`NameMap::wire_name`]); call ids
//! and what the provider attached to a call ([`ToolCallRequest::provider_data`]) go back
//! unchanged.

use std::borrow::Borrow;

use serde_json::{json, Map, Value};

use super::dialect::Provider;
use super::export::mcp_wraps_output;
use super::names::NameMap;
use crate::executor::ExecutionRecord;
use crate::model::ToolCallRequest;

/// `provider_data` key of the Responses API's output item id (`fc_...`).
const RESPONSES_ITEM_ID: &str = "id";
/// `provider_data` key of Gemini's thought signature, as Gemini names it on the part.
const THOUGHT_SIGNATURE: &str = "thoughtSignature";
/// `provider_data` key set to `true` when Gemini sent no call id and the parser made one up.
const GENERATED_ID: &str = "generatedId";

/// One result item for `record`, in `provider`'s shape.
///
/// - OpenAI Chat: the message `{"role":"tool","tool_call_id","content"}`.
/// - OpenAI Responses: the input item `{"type":"function_call_output","call_id","output"}`.
/// - Anthropic: the content block `{"type":"tool_result","tool_use_id","content"}`, with
///   `"is_error":true` on failure (left out on success, as the recorded requests of
///   Anthropic's own SDK do).
/// - Gemini: the part `{"functionResponse":{"name","id"?,"response"}}`; `response` is the
///   structured output when it is an object, else `{"output": text}`, and `{"error": text}`
///   on failure. The `id` is left out when Gemini sent none.
/// - MCP: the `tools/call` result `{"content":[{"type":"text","text"}],"structuredContent"?,
///   "isError"}`. A structured output that is not an object goes out as `{"result": value}`
///   (MCP 2025-11-25 wants an object), and the text block then carries the JSON of
///   `structuredContent`. A failure carries no `structuredContent`: a client checks it against
///   the tool's output schema, which an error does not follow.
///
/// On failure every provider gets the record's text, which is already the message written for
/// the model.
pub fn result_message(provider: Provider, record: &ExecutionRecord, names: &NameMap) -> Value {
    let request = &*record.request;
    let text = record.content.text.as_str();
    match provider {
        Provider::OpenAiChat => json!({ "role": "tool", "tool_call_id": request.call_id, "content": text }),
        Provider::OpenAiResponses => {
            json!({ "type": "function_call_output", "call_id": request.call_id, "output": text })
        }
        Provider::Anthropic => {
            let mut block = json!({ "type": "tool_result", "tool_use_id": request.call_id, "content": text });
            if record.is_error() {
                block["is_error"] = Value::Bool(true);
            }
            block
        }
        Provider::Gemini => {
            let response = match &record.content.structured {
                _ if record.is_error() => json!({ "error": text }),
                Some(object @ Value::Object(_)) => object.clone(),
                _ => json!({ "output": text }),
            };
            let mut function_response = Map::new();
            function_response.insert("name".into(), names.wire_name(&request.tool_name).into());
            if let Some(id) = gemini_call_id(request) {
                function_response.insert("id".into(), id.into());
            }
            function_response.insert("response".into(), response);
            // The thought signature stays on the functionCall part it came with (see
            // `assistant_turn`); Gemini's docs show the function response parts without one.
            json!({ "functionResponse": function_response })
        }
        Provider::Mcp => mcp_result(record, None),
    }
}

/// What to append to the conversation after running one assistant turn's calls: the results of
/// `records`, in their order.
///
/// OpenAI Chat gets one `tool` message per record and the Responses API one
/// `function_call_output` item per record. Anthropic gets one `user` message holding every
/// `tool_result` block, and Gemini one `user` content holding every `functionResponse` part
/// (both providers want all the results of a turn together). MCP has no conversation: each
/// record is the result of its own `tools/call`, one per record. No records, no messages.
pub fn results_turn(provider: Provider, records: &[ExecutionRecord], names: &NameMap) -> Vec<Value> {
    let items = records.iter().map(|record| result_message(provider, record, names));
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Mcp => items.collect(),
        Provider::Anthropic | Provider::Gemini if records.is_empty() => Vec::new(),
        Provider::Anthropic => vec![json!({ "role": "user", "content": items.collect::<Vec<_>>() })],
        Provider::Gemini => vec![json!({ "role": "user", "parts": items.collect::<Vec<_>>() })],
    }
}

/// The assistant's tool-call turn as it goes back into the conversation history, for
/// providers whose history the host keeps itself.
///
/// - OpenAI Chat: one `{"role":"assistant","content":null,"tool_calls":[...]}` message, the
///   arguments as the raw text the model sent.
/// - OpenAI Responses: one `function_call` item per call, with the item's `id` when the
///   provider gave one, and the raw arguments text.
/// - Anthropic: one `{"role":"assistant","content":[{"type":"tool_use",...}]}` message.
/// - Gemini: one `{"role":"model","parts":[{"functionCall":...}]}` content; each part gets
///   back the `thoughtSignature` it came with, unchanged.
/// - MCP: there is no assistant turn; one `tools/call` request's `params` (`{"name",
///   "arguments"}`) per call, for a host that forwards the calls to an MCP server.
///
/// Anthropic, Gemini and MCP take the arguments as an object: the request's `arguments` (what
/// extraction read the values from) when it has them and they are in the form the provider saw
/// (not a tool whose arguments `names` restored to the declared form), else the raw text
/// parsed, else the raw
/// text repaired as [`extract::untyped`](crate::extract::untyped) repairs it. Raw text that not
/// even the repair reads as an object becomes `{}`, because these providers refuse anything
/// but an object; the text itself is still in the call's record. No calls, no turn.
pub fn assistant_turn<C: Borrow<ToolCallRequest>>(provider: Provider, calls: &[C], names: &NameMap) -> Vec<Value> {
    if calls.is_empty() {
        return Vec::new();
    }
    let calls = calls.iter().map(Borrow::borrow);
    match provider {
        Provider::OpenAiChat => {
            let tool_calls: Vec<Value> = calls
                .map(|call| {
                    json!({
                        "id": call.call_id,
                        "type": "function",
                        "function": { "name": names.wire_name(&call.tool_name), "arguments": call.raw_arguments },
                    })
                })
                .collect();
            vec![json!({ "role": "assistant", "content": null, "tool_calls": tool_calls })]
        }
        Provider::OpenAiResponses => calls
            .map(|call| {
                let mut item = Map::new();
                item.insert("type".into(), "function_call".into());
                if let Some(id) = call.provider_data.get(RESPONSES_ITEM_ID) {
                    item.insert("id".into(), id.clone());
                }
                item.insert("call_id".into(), call.call_id.clone().into());
                item.insert("name".into(), names.wire_name(&call.tool_name).into());
                item.insert("arguments".into(), call.raw_arguments.clone().into());
                Value::Object(item)
            })
            .collect(),
        Provider::Anthropic => {
            let content: Vec<Value> = calls
                .map(|call| {
                    json!({
                        "type": "tool_use",
                        "id": call.call_id,
                        "name": names.wire_name(&call.tool_name),
                        "input": arguments_object(call, names),
                    })
                })
                .collect();
            vec![json!({ "role": "assistant", "content": content })]
        }
        Provider::Gemini => {
            let parts: Vec<Value> = calls
                .map(|call| {
                    let mut function_call = Map::new();
                    function_call.insert("name".into(), names.wire_name(&call.tool_name).into());
                    function_call.insert("args".into(), Value::Object(arguments_object(call, names)));
                    if let Some(id) = gemini_call_id(call) {
                        function_call.insert("id".into(), id.into());
                    }
                    let mut part = Map::new();
                    part.insert("functionCall".into(), Value::Object(function_call));
                    // "You must return this signature in the exact part where it was received":
                    // https://ai.google.dev/gemini-api/docs/thought-signatures (a part-level
                    // sibling of `functionCall`; with parallel calls only the first part has one).
                    if let Some(signature) = call.provider_data.get(THOUGHT_SIGNATURE) {
                        part.insert(THOUGHT_SIGNATURE.into(), signature.clone());
                    }
                    Value::Object(part)
                })
                .collect();
            vec![json!({ "role": "model", "parts": parts })]
        }
        Provider::Mcp => calls
            .map(|call| json!({ "name": names.wire_name(&call.tool_name), "arguments": arguments_object(call, names) }))
            .collect(),
    }
}

/// The call id to send Gemini, unless Gemini sent none and the parser made this one up.
fn gemini_call_id(request: &ToolCallRequest) -> Option<&str> {
    let generated = request.provider_data.get(GENERATED_ID) == Some(&Value::Bool(true));
    (!generated).then_some(request.call_id.as_str())
}

/// The call's arguments as an object, losing as little as possible (see [`assistant_turn`]).
/// For a tool whose arguments went out other than declared, `arguments` hold the declared form
/// (`NameMap::restore`), not what the model wrote: its own text is replayed.
fn arguments_object(request: &ToolCallRequest, names: &NameMap) -> Map<String, Value> {
    if let (Some(Value::Object(arguments)), None) = (&request.arguments, names.arguments(&request.tool_name)) {
        return arguments.clone();
    }
    if let Ok(Value::Object(parsed)) = serde_json::from_str::<Value>(&request.raw_arguments) {
        return parsed;
    }
    crate::extract::untyped(&request.raw_arguments).value.unwrap_or_default()
}

/// The MCP `tools/call` result of `record`, for a tool whose exported output schema is
/// `output_schema`: its structured content is wrapped as `{"result": ..}` exactly when the
/// export wrapped the schema, so that a client checking one against the other agrees. Without
/// the schema, a value that is not an object is wrapped. The call's parse warnings, if any, are
/// in `_meta` under [`MCP_WARNINGS_META`], so a client sees what was repaired.
pub fn mcp_result(record: &ExecutionRecord, output_schema: Option<&Value>) -> Value {
    let mut result = mcp_result_body(record, output_schema);
    if !record.warnings().is_empty() {
        result["_meta"] = json!({ MCP_WARNINGS_META: record.warnings() });
    }
    result
}

/// The `_meta` key of an MCP result that lists the call's parse warnings.
pub const MCP_WARNINGS_META: &str = "tool-core/parse_warnings";

fn mcp_result_body(record: &ExecutionRecord, output_schema: Option<&Value>) -> Value {
    let text = record.content.text.as_str();
    let wrapped = |value: &Value| output_schema.map_or(!value.is_object(), mcp_wraps_output);
    let structured = match &record.content.structured {
        Some(_) if record.is_error() => None,
        Some(value) if wrapped(value) => Some(json!({ "result": value })),
        Some(value) => Some(value.clone()),
        None => None,
    };
    match structured {
        Some(structured) => json!({
            "content": [{ "type": "text", "text": structured.to_string() }],
            "structuredContent": structured,
            "isError": false,
        }),
        None => json!({
            "content": [{ "type": "text", "text": text }],
            "isError": record.is_error(),
        }),
    }
}
