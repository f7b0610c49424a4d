//! The providers' size limits: on one strict schema (OpenAI), on a request's strict tools
//! (Anthropic), and on a tool's description (OpenAI).

use serde_json::Value;

use super::report::ExportProblem;
use crate::model::ToolDefinition;
use crate::providers::dialect::Dialect;

/// A4: per request, at most 20 strict tools, 24 optional parameters and 16 parameters with a
/// union type (`anyOf`, a type list), counted over the top-level parameters of all tools.
pub(super) fn anthropic_strict_limits(definitions: &[&ToolDefinition]) -> Vec<ExportProblem> {
    let parameters = || {
        definitions.iter().flat_map(|d| {
            let required: Vec<&Value> =
                d.input_schema.get("required").and_then(Value::as_array).into_iter().flatten().collect();
            let properties = d.input_schema.get("properties").and_then(Value::as_object).into_iter().flatten();
            properties.map(move |(name, schema)| (required.iter().any(|r| *r == name), schema))
        })
    };
    let optional = parameters().filter(|(required, _)| !required).count();
    let unions = parameters()
        .filter(|(_, schema)| {
            schema.get("anyOf").is_some()
                || schema.get("oneOf").is_some()
                || schema.get("type").is_some_and(Value::is_array)
        })
        .count();
    let limits = [
        (definitions.len(), 20, "strict tools"),
        (optional, 24, "optional parameters"),
        (unions, 16, "parameters with a union type (`anyOf`, `oneOf` or a type list; `Option<T>` is one)"),
    ];
    limits
        .into_iter()
        .filter(|(count, max, _)| count > max)
        .map(|(count, max, what)| ExportProblem::RequestLimit {
            dialect: Dialect::Anthropic { strict: true }.label(),
            what,
            count,
            max,
        })
        .collect()
}

/// O8: the limits of a strict schema, as the construct that breaks one.
pub(super) fn openai_strict_limit(schema: &Value) -> Option<String> {
    #[derive(Default)]
    struct Count {
        properties: usize,
        enum_values: usize,
        text: usize,
        deepest: usize,
    }
    fn walk(schema: &Value, objects: usize, count: &mut Count) {
        match schema {
            Value::Object(map) => {
                let is_object = map.contains_key("properties");
                let objects = objects + usize::from(is_object);
                count.deepest = count.deepest.max(objects);
                if let Some(Value::Object(properties)) = map.get("properties") {
                    count.properties += properties.len();
                    count.text += properties.keys().map(String::len).sum::<usize>();
                }
                if let Some(Value::Array(values)) = map.get("enum") {
                    count.enum_values += values.len();
                    count.text += values.iter().filter_map(Value::as_str).map(str::len).sum::<usize>();
                }
                map.iter().filter(|(k, _)| *k != "enum").for_each(|(_, v)| walk(v, objects, count));
            }
            Value::Array(values) => values.iter().for_each(|v| walk(v, objects, count)),
            _ => {}
        }
    }
    let mut count = Count::default();
    walk(schema, 0, &mut count);
    // `$defs` sit under the root object; a definition's own nesting is counted from there.
    let limits = [
        (count.deepest, 10, "levels of nested objects"),
        (count.properties, 5000, "properties"),
        (count.enum_values, 1000, "enum values"),
        (count.text, 120_000, "characters of names and enum values"),
    ];
    limits.into_iter().find(|(n, max, _)| n > max).map(|(n, max, what)| format!("{n} {what} (at most {max})"))
}

/// The most characters a tool's description may have, where the dialect says: OpenAI refuses a
/// longer function description (`string_above_max_length`: "Expected a string with maximum
/// length 1024"), in Chat Completions and the Responses API alike. The others publish none.
pub(super) fn description_limit(dialect: Dialect) -> Option<usize> {
    match dialect {
        Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } => Some(1024),
        _ => None,
    }
}
