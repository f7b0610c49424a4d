//! What only a request's whole tools list can break: two tools under one name, Anthropic's
//! deferral rules (A1) and its per-request limits on strict tools (A4).

use std::collections::BTreeSet;

use serde_json::Value;

use super::schema::for_each_node;
use super::violation::Out;
use crate::model::pointer;
use crate::providers::dialect::Dialect;

/// The name of each tool (or declaration), with the pointer of its `name` in the tools list.
fn tool_names(dialect: Dialect, tools: &[Value]) -> Vec<(String, String)> {
    let mut names = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let mut add = |object: &Value, pointer: String| {
            if let Some(name) = object.get("name").and_then(Value::as_str) {
                names.push((name.to_owned(), pointer));
            }
        };
        match dialect {
            Dialect::OpenAiChat { .. } => add(&tool["function"], format!("/{i}/function/name")),
            Dialect::Gemini | Dialect::GeminiJsonSchema => match tool.get("functionDeclarations") {
                Some(Value::Array(declarations)) => {
                    for (j, declaration) in declarations.iter().enumerate() {
                        add(declaration, format!("/{i}/functionDeclarations/{j}/name"));
                    }
                }
                _ => add(tool, format!("/{i}/name")),
            },
            Dialect::JsonSchema => {}
            _ => add(tool, format!("/{i}/name")),
        }
    }
    names
}

pub(super) fn duplicate_names(dialect: Dialect, tools: &[Value], out: &mut Out) {
    let rule = match dialect {
        Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } => "O1",
        Dialect::Anthropic { .. } => "A1",
        Dialect::Gemini | Dialect::GeminiJsonSchema => "G1",
        Dialect::Mcp => "MCP",
        Dialect::JsonSchema => return,
    };
    let names = tool_names(dialect, tools);
    for (k, (name, pointer)) in names.iter().enumerate() {
        if let Some((_, first)) = names[..k].iter().find(|(other, _)| other == name) {
            out.push(rule, pointer.as_str(), format!("the name `{name}` is already used at `{first}`"));
        }
    }
}

/// Anthropic's most deferred tools in one request.
const ANTHROPIC_MAX_DEFERRED: usize = 10_000;

/// Anthropic's deferral rules over a whole request (A1): at least one tool is not deferred, at
/// most 10,000 are.
pub(super) fn anthropic_deferral(tools: &[Value], out: &mut Out) {
    let deferred = tools.iter().filter(|tool| tool.get("defer_loading") == Some(&Value::Bool(true))).count();
    if !tools.is_empty() && deferred == tools.len() {
        out.push(
            "A1",
            "",
            "every tool is deferred (`defer_loading: true`); at least one must not be (the tool search tool)",
        );
    }
    if deferred > ANTHROPIC_MAX_DEFERRED {
        out.push("A1", "", format!("{deferred} deferred tools: at most {ANTHROPIC_MAX_DEFERRED} per request"));
    }
}

const ANTHROPIC_MAX_STRICT_TOOLS: usize = 20;
const ANTHROPIC_MAX_OPTIONAL: usize = 24;
const ANTHROPIC_MAX_UNION: usize = 16;

/// Anthropic's per-request limits on strict tools (A4), each reported once, at the first
/// thing over it.
pub(super) fn anthropic_request_limits(tools: &[Value], out: &mut Out) {
    let (mut strict_tools, mut optional, mut union) = (0, 0, 0);
    for (i, tool) in tools.iter().enumerate() {
        if tool.get("strict") != Some(&Value::Bool(true)) {
            continue;
        }
        strict_tools += 1;
        if strict_tools == ANTHROPIC_MAX_STRICT_TOOLS + 1 {
            out.push(
                "A4",
                format!("/{i}"),
                format!("strict tool number {strict_tools}: at most {ANTHROPIC_MAX_STRICT_TOOLS} per request"),
            );
        }
        let Some(schema) = tool.get("input_schema") else { continue };
        for_each_node(schema, "", &mut |node, pointer| {
            let Some(Value::Object(properties)) = node.get("properties") else { return };
            let required = string_set(node.get("required"));
            for (key, property) in properties {
                let at = format!("/{i}/input_schema{pointer}/properties/{}", pointer::escape(key));
                if !required.contains(key.as_str()) {
                    optional += 1;
                    if optional == ANTHROPIC_MAX_OPTIONAL + 1 {
                        out.push("A4", at.as_str(), over_limit("optional parameter", optional, ANTHROPIC_MAX_OPTIONAL));
                    }
                }
                if property.get("anyOf").is_some() || property.get("type").is_some_and(Value::is_array) {
                    union += 1;
                    if union == ANTHROPIC_MAX_UNION + 1 {
                        out.push("A4", at.as_str(), over_limit("union-typed parameter", union, ANTHROPIC_MAX_UNION));
                    }
                }
            }
        });
    }
}

fn over_limit(what: &str, number: usize, max: usize) -> String {
    format!("{what} number {number} of the strict tools: at most {max} per request")
}

fn string_set(value: Option<&Value>) -> BTreeSet<&str> {
    value.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}
