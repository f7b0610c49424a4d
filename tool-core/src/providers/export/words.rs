//! What a dialect cannot say, in the words added to descriptions.

use serde_json::{Map, Value};

use super::node::is_free;

/// Appends `words` to the node's description.
pub(super) fn append_description(node: &mut Map<String, Value>, words: &str) {
    let current = node.get("description").and_then(Value::as_str).unwrap_or_default().trim_end().to_owned();
    let text = if current.is_empty() { capitalise(words) } else { format!("{current} ({words})") };
    node.insert("description".into(), text.into());
}

pub(super) fn capitalise(words: &str) -> String {
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A constraint in words the model reads: `minLength: 2`, `pattern: ^[a-z]+$`.
pub(super) fn constraint_words(keyword: &str, value: &Value) -> String {
    match (keyword, value) {
        ("pattern", Value::String(p)) => format!("pattern: {p}"),
        ("format", Value::String(f)) => format!("format: {f}"),
        ("uniqueItems", Value::Bool(true)) => "items must be unique".to_owned(),
        ("default", v) => format!("default: {v}"),
        ("examples", Value::Array(values)) => format!("examples: {}", join_values(values)),
        ("example", v) => format!("example: {v}"),
        ("enum", Value::Array(values)) => format!("one of {}", join_values(values)),
        ("const", v) => format!("always {v}"),
        (k, v) => format!("{k}: {v}"),
    }
}

pub(super) fn join_values(values: &[Value]) -> String {
    values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
}

/// A schema's kind in a few words, for descriptions.
pub(super) fn kind_words(schema: &Value) -> String {
    if is_free(schema) {
        return "any JSON values".to_owned();
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return target.rsplit('/').next().unwrap_or(target).to_owned();
    }
    match schema.get("type") {
        Some(Value::String(t)) => match t.as_str() {
            "string" => "strings",
            "integer" => "integers",
            "number" => "numbers",
            "boolean" => "booleans",
            "array" => "lists",
            "object" => "objects",
            other => other,
        }
        .to_owned(),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => "values".to_owned(),
    }
}
