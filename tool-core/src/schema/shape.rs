//! Reads a parameter's value kind, cardinality and allowed values off its JSON Schema.
//!
//! The schema (schemars) is the one source of truth for a Rust type's shape, so the kind is
//! never guessed from a type's name: `Option<T>` is nullable, `Vec<T>` is an array, an enum is
//! an `enum`/`const` set. A type may name its kind outright with the `x-value-kind` keyword.

use serde_json::{Map, Value};

use crate::model::pointer;
use crate::model::{Cardinality, ValueKind};

/// The keyword a custom `JsonSchema` impl can set to pick a [`ValueKind`] explicitly,
/// e.g. `"x-value-kind": "attachment_reference"`.
pub const VALUE_KIND_KEYWORD: &str = "x-value-kind";

/// The shape of one parameter as read from its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The kind of the value, or of each element for lists and maps.
    pub kind: ValueKind,
    /// Single, optional, list or map.
    pub cardinality: Cardinality,
    /// Allowed tokens when the (element) kind is an enum.
    pub allowed_values: Option<Vec<String>>,
}

/// Classifies `schema`, resolving local `$ref`s against `defs`.
pub fn shape_of(schema: &Value, defs: &Map<String, Value>) -> Shape {
    let (base, nullable) = strip_null(resolve(schema, defs), defs);
    let (kind, cardinality, allowed_values) = match container_of(base, defs) {
        Container::List(items) => {
            let element = scalar_of(items, defs);
            (element.0, Cardinality::List, element.1)
        }
        Container::Map(values) => {
            let element = scalar_of(values, defs);
            (element.0, Cardinality::Map, element.1)
        }
        Container::Scalar => {
            let s = scalar_of(base, defs);
            (s.0, Cardinality::Single, s.1)
        }
    };
    let cardinality = if nullable && cardinality == Cardinality::Single { Cardinality::Optional } else { cardinality };
    Shape { kind, cardinality, allowed_values }
}

enum Container<'a> {
    List(&'a Value),
    Map(&'a Value),
    Scalar,
}

fn container_of<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> Container<'a> {
    if explicit_kind(schema).is_some() {
        return Container::Scalar;
    }
    match primary_type(schema) {
        Some("array") => match schema.get("items") {
            Some(items) if schema.get("prefixItems").is_none() => Container::List(resolve(items, defs)),
            _ => Container::Scalar,
        },
        Some("object") if schema.get("properties").is_none() => match schema.get("additionalProperties") {
            Some(values @ Value::Object(_)) => Container::Map(resolve(values, defs)),
            Some(Value::Bool(true)) => Container::Map(&Value::Bool(true)),
            _ => Container::Scalar,
        },
        _ => Container::Scalar,
    }
}

fn scalar_of(schema: &Value, defs: &Map<String, Value>) -> (ValueKind, Option<Vec<String>>) {
    let (schema, _) = strip_null(resolve(schema, defs), defs);
    if let Some(kind) = explicit_kind(schema) {
        return (kind, enum_values(schema, defs));
    }
    if let Some(values) = enum_values(schema, defs) {
        return (ValueKind::EnumToken, Some(values));
    }
    let kind = match primary_type(schema) {
        Some("string") => match schema.get("format").and_then(Value::as_str) {
            Some("date-time" | "date") => ValueKind::Timestamp,
            Some("uri" | "url" | "iri") => ValueKind::Uri,
            _ => ValueKind::String,
        },
        Some("integer") => ValueKind::Integer,
        Some("number") => ValueKind::Number,
        Some("boolean") => ValueKind::Boolean,
        Some("array") => ValueKind::Array,
        Some("object") => ValueKind::Object,
        _ if schema.get("properties").is_some() => ValueKind::Object,
        _ => ValueKind::Any,
    };
    (kind, None)
}

fn explicit_kind(schema: &Value) -> Option<ValueKind> {
    let kind = schema.get(VALUE_KIND_KEYWORD)?.as_str()?;
    Some(match kind {
        "string" => ValueKind::String,
        "boolean" => ValueKind::Boolean,
        "integer" => ValueKind::Integer,
        "number" => ValueKind::Number,
        "object" => ValueKind::Object,
        "array" => ValueKind::Array,
        "timestamp" => ValueKind::Timestamp,
        "uri" => ValueKind::Uri,
        "enum_token" => ValueKind::EnumToken,
        "attachment_reference" => ValueKind::AttachmentReference,
        "any" => ValueKind::Any,
        _ => return None,
    })
}

/// The single non-null `type` of a schema.
pub(crate) fn primary_type(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => {
            let mut non_null = types.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            let first = non_null.next();
            if non_null.next().is_some() {
                None
            } else {
                first
            }
        }
        _ => None,
    }
}

/// `enum: [...]`, or `oneOf`/`anyOf` branches that are each one constant.
fn enum_values(schema: &Value, defs: &Map<String, Value>) -> Option<Vec<String>> {
    enum_tokens(schema, defs).map(|tokens| tokens.iter().map(token_text).collect())
}

/// The allowed tokens of an `enum`, a `const`, or `oneOf`/`anyOf` branches that are each one.
pub(crate) fn enum_tokens(schema: &Value, defs: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return Some(values.iter().filter(|v| !v.is_null()).cloned().collect());
    }
    if let Some(c) = schema.get("const") {
        return Some(vec![c.clone()]);
    }
    let branches = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    let mut tokens = Vec::new();
    for branch in branches {
        let branch = resolve(branch, defs);
        if is_null_schema(branch) {
            continue;
        }
        tokens.extend(enum_tokens(branch, defs)?);
    }
    (!tokens.is_empty()).then_some(tokens)
}

/// A token as the model writes it: a string token's own text, any other token as JSON.
pub(crate) fn token_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The schema without its `null` alternative, when it has one.
pub(crate) fn without_null<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    strip_null(schema, defs).0
}

/// Removes a `null` alternative: `type: [T, "null"]`, or `anyOf: [X, {type: null}]`.
fn strip_null<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> (&'a Value, bool) {
    if let Some(Value::Array(types)) = schema.get("type")
        && types.iter().any(|t| t == "null")
    {
        return (schema, true);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let non_null: Vec<&Value> = branches.iter().filter(|b| !is_null_schema(resolve(b, defs))).collect();
            if non_null.len() == 1 && branches.len() == 2 {
                return (resolve(non_null[0], defs), true);
            }
            if non_null.len() < branches.len() {
                return (schema, true);
            }
        }
    }
    (schema, false)
}

pub(crate) fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").is_some_and(|t| t == "null") || schema.get("const").is_some_and(Value::is_null)
}

/// Follows local `#/$defs/...` references (a bounded number of hops, so cycles end).
pub(crate) fn resolve<'a>(mut schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    for _ in 0..16 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str) else { return schema };
        let Some(name) = target.strip_prefix("#/$defs/") else { return schema };
        match defs.get(pointer::unescape(name).as_ref()) {
            Some(next) => schema = next,
            None => return schema,
        }
    }
    schema
}

/// The range of the Rust integer type a schemars format names (`uint8`: 0..=255); `None` for
/// any other format. (`uint128` is cut at `i128::MAX`; no JSON number reaches it.)
pub(crate) fn integer_format_bounds(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "int128" => (i128::MIN, i128::MAX),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        "uint128" => (0, i128::MAX),
        _ => return None,
    })
}

/// Whether `format` is one schemars puts on numbers to name the Rust type (`uint32`, `double`):
/// not JSON Schema, and no constraint beyond the type.
pub(crate) fn is_numeric_format(format: &str) -> bool {
    matches!(format, "float" | "double") || integer_format_bounds(format).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(schema: Value) -> Shape {
        shape_of(&schema, &Map::new())
    }

    #[test]
    fn nullable_scalar_is_optional() {
        let s = shape(json!({"type": ["integer", "null"], "format": "uint32"}));
        assert_eq!((s.kind, s.cardinality), (ValueKind::Integer, Cardinality::Optional));
    }

    #[test]
    fn array_of_enum_is_list_of_tokens() {
        let s = shape(json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}));
        assert_eq!(
            s,
            Shape {
                kind: ValueKind::EnumToken,
                cardinality: Cardinality::List,
                allowed_values: Some(vec!["a".into(), "b".into()])
            }
        );
    }

    #[test]
    fn referenced_doc_enum_and_nullable_ref() {
        let defs =
            json!({"Mode": {"oneOf": [{"type": "string", "const": "fast"}, {"type": "string", "const": "slow"}]}});
        let defs = defs.as_object().unwrap();
        let s = shape_of(&json!({"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]}), defs);
        assert_eq!(
            s,
            Shape {
                kind: ValueKind::EnumToken,
                cardinality: Cardinality::Optional,
                allowed_values: Some(vec!["fast".into(), "slow".into()])
            }
        );
    }

    #[test]
    fn map_formats_and_any() {
        assert_eq!(
            shape(json!({"type": "object", "additionalProperties": {"type": "number"}})).cardinality,
            Cardinality::Map
        );
        assert_eq!(shape(json!({"type": "string", "format": "date-time"})).kind, ValueKind::Timestamp);
        assert_eq!(shape(json!({"type": "string", "format": "uri"})).kind, ValueKind::Uri);
        assert_eq!(shape(json!(true)).kind, ValueKind::Any);
        assert_eq!(
            shape(json!({"type": "string", "x-value-kind": "attachment_reference"})).kind,
            ValueKind::AttachmentReference
        );
        assert_eq!(shape(json!({"type": "array", "prefixItems": [{"type": "string"}]})).kind, ValueKind::Array);
    }
}
