//! Anthropic Messages: the `tool_use` blocks.

use serde_json::Value;

use super::read::{restored, ParsedCalls, Path, Reader, ResponseError};
use crate::model::ToolCallRequest;
use crate::providers::dialect::Provider;
use crate::providers::names::NameMap;

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
