//! The tool of the suite's `json-schema-2020-12` scenario: an input schema of JSON Schema
//! 2020-12 (`$schema`, `$defs` with an `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`,
//! `additionalProperties: false`), which MCP (SEP-1613, SEP-2106) asks servers to list as the
//! tool declares it. A schema written by hand, so the tool is built at run time
//! (`DynamicTool`): the MCP export keeps every keyword of it.

use serde_json::json;
use tool_core::prelude::*;
use tool_core::DynamicToolError;

/// `json_schema_2020_12_tool`, which says back the contact it was given.
pub fn json_schema_2020_12_tool() -> Result<DynamicTool, DynamicToolError> {
    DynamicTool::builder("json_schema_2020_12_tool")
        .description("Tool with JSON Schema 2020-12 features")
        .input_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }))
        .handler(|arguments, _ctx| async move {
            let name = arguments.get("name").and_then(|v| v.as_str()).unwrap_or("nobody");
            let reach = ["phone", "email"].into_iter().find_map(|key| arguments.get(key).and_then(|v| v.as_str()));
            format!("{name}, reached at {}", reach.unwrap_or("nowhere"))
        })
        .build()
}
