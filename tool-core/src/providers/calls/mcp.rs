//! MCP: a `tools/call` request, whole or its `params` alone.

use serde_json::Value;

use super::read::{restored, ParsedCalls, Path, Reader, ResponseError};
use crate::model::ToolCallRequest;
use crate::providers::dialect::Provider;
use crate::providers::names::NameMap;

/// MCP: a `tools/call` request, whole (`{"jsonrpc", "id", "method": "tools/call", "params"}`)
/// or its `params` alone (`{name, arguments}`). The arguments object is written as JSON text
/// (`{}` when absent); the call id is the JSON-RPC `id` (a number written as digits), empty
/// when only `params` is given (they carry no id).
pub fn mcp(request: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    let call = mcp_call(Reader::response(Provider::Mcp), request, names)?;
    Ok(restored(ParsedCalls { calls: vec![call], text: String::new(), stop_reason: None }, names))
}

/// One MCP `tools/call` request, read with `r`.
pub(in crate::providers) fn mcp_call(
    r: Reader,
    request: &Value,
    names: &NameMap,
) -> Result<ToolCallRequest, ResponseError> {
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
