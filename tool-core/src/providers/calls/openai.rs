//! OpenAI: Chat Completions' `tool_calls` and the Responses API's `function_call` items.

use serde_json::{Map, Value};

use super::read::{restored, ParsedCalls, Path, Reader, ResponseError};
use crate::model::ToolCallRequest;
use crate::providers::dialect::Provider;
use crate::providers::names::NameMap;

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
pub(in crate::providers) fn chat_content(
    r: Reader,
    content: Option<&Value>,
    path: &Path<'_>,
) -> Result<String, ResponseError> {
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
/// `arguments`; the item's `id` goes to `provider_data["id"]`, its `namespace`, when it has
/// one, to `provider_data["namespace"]`, and the name is read in that namespace:
/// [`NameMap::namespaced_tool_name`]), the text of the `message`
/// items' `output_text` parts; reasoning, tool search (`tool_search_call`,
/// `tool_search_output`: read by `search::read_response`) and other items are left out. The stop reason is the
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
pub(in crate::providers) fn responses_call(
    r: Reader,
    item: &Map<String, Value>,
    path: &Path<'_>,
    names: &NameMap,
) -> Result<ToolCallRequest, ResponseError> {
    let call_id = r.string(item.get("call_id"), &path.key("call_id"))?;
    let name = r.string(item.get("name"), &path.key("name"))?;
    let arguments = r.string(item.get("arguments"), &path.key("arguments"))?;
    let item_id = r.opt_string(item.get("id"), &path.key("id"))?;
    let namespace = r.opt_string(item.get("namespace"), &path.key("namespace"))?;
    let mut call = ToolCallRequest::new(names.namespaced_tool_name(namespace, name), call_id, arguments);
    if let Some(item_id) = item_id {
        call.provider_data.insert("id".to_owned(), Value::from(item_id));
    }
    if let Some(namespace) = namespace {
        call.provider_data.insert("namespace".to_owned(), Value::from(namespace));
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
pub(in crate::providers) fn responses_stop_reason(
    r: Reader,
    response: &Map<String, Value>,
    path: &Path<'_>,
) -> Result<Option<String>, ResponseError> {
    let status = r.opt_string(response.get("status"), &path.key("status"))?;
    if status == Some("incomplete") {
        let details_path = path.key("incomplete_details");
        if let Some(details) = r.opt_object(response.get("incomplete_details"), &details_path)?
            && let Some(reason) = r.opt_string(details.get("reason"), &details_path.key("reason"))?
        {
            return Ok(Some(reason.to_owned()));
        }
    }
    Ok(status.map(str::to_owned))
}
