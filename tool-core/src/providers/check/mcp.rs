//! MCP's rules for a `tools/list` tool (rule `MCP`).

use serde_json::Value;

use super::fields::{check_keys, check_name, mcp_name_ok, quoted_list, root_is_object, MCP_NAME};
use super::schema::{Doc, Profile};
use super::violation::Out;
use crate::model::pointer;

/// An MCP `tools/list` tool.
pub(super) fn mcp_tool(tool: &Value, out: &mut Out) {
    let Some(top) = tool.as_object() else {
        return out.push("MCP", "", "a tool must be a JSON object");
    };
    let allowed =
        ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "execution", "_meta"];
    check_keys(top, "", "MCP", &allowed, out);
    check_name(top, "", "MCP", mcp_name_ok, MCP_NAME, out);
    if top.get("title").is_some_and(|t| !t.is_string()) {
        out.push("MCP", "/title", "`title` must be a string");
    }
    match top.get("inputSchema") {
        None => out.push("MCP", "", "`inputSchema` is missing"),
        Some(schema) => {
            if root_is_object(schema, "/inputSchema", "MCP", "`inputSchema`", out) {
                Doc::new(schema, "/inputSchema".to_owned(), Profile::Plain).check(out);
            }
        }
    }
    if let Some(schema) = top.get("outputSchema")
        && root_is_object(schema, "/outputSchema", "MCP", "`outputSchema`", out)
    {
        Doc::new(schema, "/outputSchema".to_owned(), Profile::Plain).check(out);
    }
    match top.get("annotations") {
        None => {}
        Some(Value::Object(annotations)) => {
            const HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
            for (key, value) in annotations {
                let pointer = pointer::child("/annotations", key);
                match key.as_str() {
                    "title" if !value.is_string() => out.push("MCP", pointer, "`title` must be a string"),
                    "title" => {}
                    hint if HINTS.contains(&hint) => {
                        if !value.is_boolean() {
                            out.push("MCP", pointer, format!("`{hint}` must be a boolean"));
                        }
                    }
                    _ => out.push(
                        "MCP",
                        pointer,
                        format!("unknown annotation `{key}`; expected one of `title`, {}", quoted_list(&HINTS)),
                    ),
                }
            }
        }
        Some(_) => out.push("MCP", "/annotations", "`annotations` must be an object"),
    }
}
