//! Strict out: after conversion, the declared constraints (bounds, lengths, patterns, formats,
//! item counts, allowed values) are enforced with the `jsonschema` crate, one validator per
//! tool, compiled on first use.
//!
//! The typed read already enforces types, required parameters and Rust ranges; this module
//! only adds what the schema declares beyond them, and says it in the model's words.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::model::rules;
use crate::model::{received_text, ArgumentError, ParseWarning};
use crate::schema::shape::{integer_format_bounds, is_numeric_format, token_text};

/// The constraint checks of one tool's input schema: a `jsonschema` validator, where the
/// schema declares anything the typed read does not enforce by itself.
pub(crate) struct Constraints {
    validator: Option<jsonschema::Validator>,
    /// Types are enforced here too (no typed read follows).
    untyped: bool,
    /// Whether there is anything to check; when there is not, clean input skips validation.
    pub(crate) constrained: bool,
}

impl Constraints {
    /// Compiles the checks of `input_schema`; `untyped` when no Rust type reads the arguments
    /// (a [`DynamicTool`](crate::DynamicTool)): the whole schema is enforced, types and allowed
    /// values too.
    pub(crate) fn compile(input_schema: &Value, untyped: bool) -> Constraints {
        let constrained = untyped || has_constraints(input_schema);
        let validator = if constrained {
            jsonschema::options()
                .should_validate_formats(true)
                .should_ignore_unknown_formats(true)
                .build(input_schema)
                .ok()
        } else {
            None
        };
        let constrained = constrained && validator.is_some();
        Constraints { validator, untyped, constrained }
    }

    /// The constraint violations in `arguments`, and the warnings for values kept as they are
    /// (a URI that is not absolute).
    pub(crate) fn check(&self, arguments: &Value) -> (Vec<ArgumentError>, Vec<ParseWarning>) {
        let (mut errors, mut warnings) = (Vec::new(), Vec::new());
        let Some(validator) = &self.validator else { return (errors, warnings) };
        for error in validator.iter_errors(arguments) {
            let pointer = error.instance_path().to_string();
            let received = received_text(error.instance());
            let kind = error.kind();
            match kind {
                // The typed read reports these, with better words (a dynamic tool's own read
                // reports missing parameters).
                ValidationErrorKind::Required { .. } => continue,
                ValidationErrorKind::Type { .. } if !self.untyped => continue,
                ValidationErrorKind::Format { format } if format == "uri" || format == "iri" => {
                    let expected = "an absolute URI";
                    let action = "kept the text as it is";
                    warnings.push(ParseWarning::new(&pointer, rules::URI_NOT_ABSOLUTE, expected, &received, action));
                    continue;
                }
                _ => {}
            }
            errors.push(ArgumentError {
                pointer,
                rule: if matches!(kind, ValidationErrorKind::Type { .. }) {
                    rules::INVALID_TYPE.to_owned()
                } else {
                    rule_of(kind.keyword())
                },
                expected: expected_of(kind),
                received: Some(received),
                detail: error.to_string(),
            });
        }
        (errors, warnings)
    }
}

/// `exclusiveMinimum` → `exclusive_minimum`.
fn rule_of(keyword: &str) -> String {
    let mut rule = String::with_capacity(keyword.len() + 2);
    for c in keyword.chars() {
        if c.is_ascii_uppercase() {
            rule.push('_');
            rule.push(c.to_ascii_lowercase());
        } else {
            rule.push(c);
        }
    }
    rule
}

fn expected_of(kind: &ValidationErrorKind) -> String {
    match kind {
        ValidationErrorKind::Minimum { limit } => format!("a number ≥ {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("a number ≤ {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("a number > {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("a number < {limit}"),
        ValidationErrorKind::MultipleOf { multiple_of, .. } => format!("a multiple of {multiple_of}"),
        ValidationErrorKind::MinLength { limit } => format!("text of at least {limit} characters"),
        ValidationErrorKind::MaxLength { limit } => format!("text of at most {limit} characters"),
        ValidationErrorKind::Pattern { pattern } => format!("text matching the pattern `{pattern}`"),
        ValidationErrorKind::MinItems { limit } => format!("a list of at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("a list of at most {limit} items"),
        ValidationErrorKind::UniqueItems => "a list without duplicate items".to_owned(),
        ValidationErrorKind::Enum { options } => match options.as_array() {
            Some(values) => {
                format!(
                    "one of: {}",
                    values.iter().map(|v| format!("`{}`", token_text(v))).collect::<Vec<_>>().join(", ")
                )
            }
            None => format!("one of: {options}"),
        },
        ValidationErrorKind::Constant { expected_value } => format!("exactly `{}`", token_text(expected_value)),
        ValidationErrorKind::Format { format } => format_noun(format),
        ValidationErrorKind::Type { kind } => {
            let names: Vec<String> = match kind {
                TypeKind::Single(single) => vec![single.to_string()],
                TypeKind::Multiple(set) => set.into_iter().map(|t| t.to_string()).collect(),
            };
            let words: Vec<&str> = names.iter().map(|name| type_noun(name)).collect();
            words.join(" or ")
        }
        other => format!("a value satisfying the schema ({other:?})"),
    }
}

/// A JSON type in the model's words, as the typed read says it.
fn type_noun(name: &str) -> &'static str {
    match name {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "a boolean",
        "array" => "a list",
        "object" => "an object",
        "null" => "null",
        _ => "a value",
    }
}

fn format_noun(format: &str) -> String {
    match format {
        "date-time" => "an RFC 3339 date-time such as `2026-11-21T09:30:00Z`".to_owned(),
        "date" => "a date such as `2026-11-21`".to_owned(),
        "time" => "a time such as `09:30:00Z`".to_owned(),
        "email" => "an email address".to_owned(),
        "uuid" => "a UUID such as `123e4567-e89b-12d3-a456-426614174000`".to_owned(),
        "ipv4" => "an IPv4 address".to_owned(),
        "ipv6" => "an IPv6 address".to_owned(),
        "hostname" => "a host name".to_owned(),
        other => format!("a `{other}` value"),
    }
}

/// The bound a Rust integer type has by itself (`u8`: 0..=255), which the typed read enforces.
fn natural_bound(format: Option<&str>, keyword: &str, limit: &Value) -> bool {
    let (Some(limit), Some((low, high))) = (limit.as_f64(), format.and_then(integer_format_bounds)) else {
        return false;
    };
    (keyword == "minimum" && limit == low as f64) || (keyword == "maximum" && limit == high as f64)
}

/// Whether any node of the schema declares a constraint beyond types, required and the Rust
/// types' own ranges.
fn has_constraints(schema: &Value) -> bool {
    declares_constraints(schema, false)
}

/// `field`: the node is a field's or an element's own schema. An `enum` there was written on the
/// field (`#[schemars(extend("enum" = ..))]` on a `String`), which no Rust type enforces; a Rust
/// enum's tokens sit at its definition or in a `oneOf` branch, and its tag is a `const`.
fn declares_constraints(schema: &Value, field: bool) -> bool {
    match schema {
        Value::Object(map) => {
            let format = map.get("format").and_then(Value::as_str);
            let declares = map.iter().any(|(keyword, value)| match keyword.as_str() {
                "minimum" | "maximum" => !natural_bound(format, keyword, value),
                "format" => value.as_str().is_some_and(|f| !is_numeric_format(f)),
                "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" | "minLength" | "maxLength" | "pattern"
                | "minItems" | "maxItems" | "uniqueItems" | "minProperties" | "maxProperties" => true,
                "enum" => field,
                _ => false,
            });
            declares
                || map.iter().any(|(keyword, value)| match keyword.as_str() {
                    "properties" | "$defs" => {
                        let is_field = keyword == "properties";
                        value.as_object().is_some_and(|m| m.values().any(|v| declares_constraints(v, is_field)))
                    }
                    "items" | "additionalProperties" => declares_constraints(value, true),
                    "prefixItems" => value.as_array().is_some_and(|a| a.iter().any(|v| declares_constraints(v, true))),
                    _ => declares_constraints(value, false),
                })
        }
        Value::Array(items) => items.iter().any(|v| declares_constraints(v, false)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rust_type_bounds_and_formats_are_not_constraints() {
        assert!(!has_constraints(&json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255})));
        assert!(!has_constraints(&json!({"properties": {"a": {"type": "number", "format": "double"}}})));
        assert!(has_constraints(&json!({"type": "integer", "format": "uint32", "minimum": 1})));
        assert!(has_constraints(&json!({"properties": {"t": {"type": "string", "format": "date-time"}}})));
        assert!(has_constraints(&json!({"$defs": {"X": {"type": "string", "pattern": "^a"}}})));
        // Allowed values written on a string field are a constraint; a Rust enum's are not.
        assert!(has_constraints(&json!({"properties": {"m": {"type": "string", "enum": ["a", "b"]}}})));
        assert!(has_constraints(&json!({"properties": {"m": {"type": "array", "items": {"enum": ["a"]}}}})));
        assert!(!has_constraints(&json!({
            "properties": {"k": {"$ref": "#/$defs/Kind"}, "s": {"$ref": "#/$defs/Shape"}},
            "$defs": {
                "Kind": {"type": "string", "enum": ["home", "work"]},
                "Shape": {"oneOf": [
                    {"type": "string", "enum": ["none"]},
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "circle"}}},
                ]},
            },
        })));
    }

    #[test]
    fn violations_name_the_bound_in_the_models_words() {
        let schema = json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
                "when": {"type": "string", "format": "date-time"},
                "link": {"type": "string", "format": "uri"},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": true}
            }
        });
        let checks = Constraints::compile(&schema, false);
        assert!(checks.constrained);
        let (errors, warnings) = checks.check(&json!({
            "limit": 80, "code": "abcd", "when": "tomorrow", "link": "docs/a.md", "tags": ["a", "a", "b"]
        }));
        let summary: Vec<(String, String, String)> =
            errors.iter().map(|e| (e.pointer.clone(), e.rule.clone(), e.expected.clone())).collect();
        assert_eq!(
            summary,
            vec![
                ("/limit".into(), "maximum".into(), "a number ≤ 50".into()),
                ("/code".into(), "max_length".into(), "text of at most 3 characters".into()),
                ("/code".into(), "pattern".into(), "text matching the pattern `^[A-Z]{3}$`".into()),
                ("/when".into(), "format".into(), "an RFC 3339 date-time such as `2026-11-21T09:30:00Z`".into()),
                ("/tags".into(), "max_items".into(), "a list of at most 2 items".into()),
                ("/tags".into(), "unique_items".into(), "a list without duplicate items".into()),
            ]
        );
        assert_eq!(errors[0].received.as_deref(), Some("80"));
        assert_eq!(warnings.len(), 1);
        assert_eq!((warnings[0].pointer(), warnings[0].rule()), ("/link", "uri_not_absolute"));
    }
}
