//! What every tool object is checked for: its name, its keys, the root of its schema.

use serde_json::{Map, Value};

use super::violation::Out;
use crate::model::pointer;

/// OpenAI (O1) and Anthropic (A1).
pub(super) const OPENAI_ANTHROPIC_NAME: &str = "^[a-zA-Z0-9_-]{1,64}$";
/// Anthropic's property keys (A1).
pub(super) const ANTHROPIC_PROPERTY_KEY: &str = "^[a-zA-Z0-9_.-]{1,64}$";
/// Gemini (G1), at the older of the two documented lengths (64; newer docs say 128).
pub(super) const GEMINI_NAME: &str = "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$";
/// Gemini's parameter names in `parameters` (G1).
pub(super) const GEMINI_PARAMETER_NAME: &str = "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$";
/// MCP.
pub(super) const MCP_NAME: &str = "^[a-zA-Z0-9_.-]{1,128}$";

/// Whether `name` matches `^[first][rest]{..max-1}$` (or `^[rest]{1,max}$` without `first`).
fn name_matches(name: &str, first: Option<fn(char) -> bool>, rest: fn(char) -> bool, max: usize) -> bool {
    let mut chars = name.chars();
    let head_ok = match (chars.next(), first) {
        (None, _) => false,
        (Some(c), Some(first)) => first(c),
        (Some(c), None) => rest(c),
    };
    head_ok && chars.all(rest) && name.chars().count() <= max
}

pub(super) fn openai_anthropic_name_ok(name: &str) -> bool {
    name_matches(name, None, |c| c.is_ascii_alphanumeric() || c == '_' || c == '-', 64)
}

pub(super) fn anthropic_property_key_ok(key: &str) -> bool {
    name_matches(key, None, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'), 64)
}

pub(super) fn gemini_name_ok(name: &str) -> bool {
    name_matches(
        name,
        Some(|c| c.is_ascii_alphabetic() || c == '_'),
        |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
        64,
    )
}

pub(super) fn gemini_parameter_name_ok(name: &str) -> bool {
    name_matches(name, Some(|c| c.is_ascii_alphabetic() || c == '_'), |c| c.is_ascii_alphanumeric() || c == '_', 64)
}

pub(super) fn mcp_name_ok(name: &str) -> bool {
    name_matches(name, None, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'), 128)
}

/// Checks the `name` member of `object` (at `pointer`): present, a string, accepted by `ok`.
pub(super) fn check_name(
    object: &Map<String, Value>,
    pointer: &str,
    rule: &'static str,
    ok: fn(&str) -> bool,
    pattern: &str,
    out: &mut Out,
) {
    match object.get("name") {
        None => out.push(rule, pointer, "`name` is missing"),
        Some(Value::String(name)) if !ok(name) => {
            out.push(rule, format!("{pointer}/name"), format!("the name `{name}` does not match {pattern}"))
        }
        Some(Value::String(_)) => {}
        Some(_) => out.push(rule, format!("{pointer}/name"), "`name` must be a string"),
    }
}

/// Reports every key of `object` outside `allowed`, and a `description` that is not a string.
pub(super) fn check_keys(
    object: &Map<String, Value>,
    pointer: &str,
    rule: &'static str,
    allowed: &[&str],
    out: &mut Out,
) {
    for key in object.keys() {
        if !allowed.contains(&key.as_str()) {
            out.push(
                rule,
                pointer::child(pointer, key),
                format!("unknown key `{key}`; expected one of {}", quoted_list(allowed)),
            );
        }
    }
    if let Some(description) = object.get("description")
        && !description.is_string()
    {
        out.push(rule, format!("{pointer}/description"), "`description` must be a string");
    }
}

pub(super) fn mode(strict: bool) -> &'static str {
    if strict {
        "strict"
    } else {
        "not strict"
    }
}

pub(super) fn quoted_list(items: &[&str]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

/// Whether `schema` (at `pointer`) is a schema object at all; reports it under `rule` when it
/// is not, or when it lacks `"type": "object"`.
pub(super) fn root_is_object(schema: &Value, pointer: &str, rule: &'static str, what: &str, out: &mut Out) -> bool {
    root_is_object_spelled(schema, pointer, rule, what, false, out)
}

/// [`root_is_object`], accepting `OBJECT` too when `upper_case` (Gemini's `parameters`).
pub(super) fn root_is_object_spelled(
    schema: &Value,
    pointer: &str,
    rule: &'static str,
    what: &str,
    upper_case: bool,
    out: &mut Out,
) -> bool {
    let Some(object) = schema.as_object() else {
        out.push(rule, pointer, format!("{what} must be a JSON Schema object"));
        return false;
    };
    match object.get("type") {
        Some(Value::String(t)) if t == "object" || (upper_case && t == "OBJECT") => {}
        Some(other) => {
            out.push(rule, format!("{pointer}/type"), format!("{what} must have `\"type\": \"object\"`, not {other}"))
        }
        None => out.push(rule, pointer, format!("{what} must have `\"type\": \"object\"`")),
    }
    true
}
