//! What a schema node takes: a value of any type, an object, null.

use serde_json::{Map, Value};

/// Whether a schema takes a value of any type (`true`, or only annotations).
pub(super) fn is_free(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(map) => map.keys().all(|k| k == "description" || k == "title" || k.starts_with("x-")),
        _ => false,
    }
}

pub(super) fn is_object_node(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

/// Whether `schema` already takes `null` (a type list with it, or an `anyOf` branch).
pub(super) fn accepts_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => return true,
        _ => {}
    }
    schema.get("anyOf").and_then(Value::as_array).is_some_and(|branches| branches.iter().any(accepts_null))
        || schema.get("nullable") == Some(&Value::Bool(true))
}
