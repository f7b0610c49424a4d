//! Gemini's rules: function declarations and names (G1), `parametersJsonSchema` (G2), and
//! `parameters`, the OpenAPI 3.0 subset (G3).

use serde_json::{Map, Value};

use super::fields::{
    check_keys, check_name, gemini_name_ok, gemini_parameter_name_ok, quoted_list, root_is_object_spelled, GEMINI_NAME,
    GEMINI_PARAMETER_NAME,
};
use super::schema::{Doc, Profile};
use super::violation::Out;
use crate::model::pointer;

/// A Gemini `{"functionDeclarations": [...]}` tool, or one declaration.
pub(super) fn gemini_tool(tool: &Value, profile: Profile, out: &mut Out) {
    match tool.get("functionDeclarations") {
        Some(Value::Array(declarations)) => {
            if let Some(top) = tool.as_object() {
                check_keys(top, "", "G1", &["functionDeclarations"], out);
            }
            for (i, declaration) in declarations.iter().enumerate() {
                gemini_declaration(declaration, &format!("/functionDeclarations/{i}"), profile, out);
            }
        }
        Some(_) => out.push("G1", "/functionDeclarations", "`functionDeclarations` must be an array"),
        None => gemini_declaration(tool, "", profile, out),
    }
}

fn gemini_declaration(declaration: &Value, pointer: &str, profile: Profile, out: &mut Out) {
    let Some(object) = declaration.as_object() else {
        return out.push("G1", pointer, "a function declaration must be a JSON object");
    };
    // `parameters` and `parametersJsonSchema` exclude each other: the one the dialect does not
    // send is an unknown key.
    let (parameters_key, response_key) = match profile {
        Profile::GeminiParameters => ("parameters", "response"),
        _ => ("parametersJsonSchema", "responseJsonSchema"),
    };
    check_keys(object, pointer, "G1", &["name", "description", parameters_key, response_key], out);
    check_name(object, pointer, "G1", gemini_name_ok, GEMINI_NAME, out);
    for key in [parameters_key, response_key] {
        if let Some(schema) = object.get(key) {
            let base = format!("{pointer}/{key}");
            let what = format!("`{key}`");
            let upper_case = profile == Profile::GeminiParameters;
            if key == parameters_key && !root_is_object_spelled(schema, &base, "G1", &what, upper_case, out) {
                continue;
            }
            Doc::new(schema, base, profile).check(out);
        }
    }
}

/// G2.
const GEMINI_JSON_SCHEMA_KEYWORDS: [&str; 21] = [
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

/// G3.
const GEMINI_PARAMETERS_KEYWORDS: [&str; 22] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "anyOf",
    "default",
    "example",
    "propertyOrdering",
];
const GEMINI_TYPES: [&str; 7] = ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"];

impl Doc<'_> {
    pub(super) fn gemini_parameters_node(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        for key in node.keys() {
            let at = self.at(&pointer::child(pointer, key));
            match key.as_str() {
                "$ref" | "$defs" | "definitions" => {
                    out.push("G3", at, format!("`{key}` is rejected in `parameters`; inline the definitions"))
                }
                k if GEMINI_PARAMETERS_KEYWORDS.contains(&k) => {}
                _ => out.push("G3", at, format!("unknown key `{key}` (Gemini: Unknown name \"{key}\")")),
            }
        }
        match node.get("type") {
            None => {}
            Some(Value::String(t)) if GEMINI_TYPES.iter().any(|g| g.eq_ignore_ascii_case(t)) => {}
            Some(Value::Array(_)) => out.push(
                "G3",
                self.at(&format!("{pointer}/type")),
                "`type` must be one type, not a list; say `\"nullable\": true` for null",
            ),
            Some(other) => out.push(
                "G3",
                self.at(&format!("{pointer}/type")),
                format!("`type` {other} is not one of {}", quoted_list(&GEMINI_TYPES)),
            ),
        }
        if let Some(Value::Array(values)) = node.get("enum") {
            for (i, value) in values.iter().enumerate().filter(|(_, v)| !v.is_string()) {
                out.push(
                    "G3",
                    self.at(&format!("{pointer}/enum/{i}")),
                    format!("enum values must be strings, not {value}"),
                );
            }
        }
        if node.get("items").is_some_and(Value::is_array) {
            out.push("G3", self.at(&format!("{pointer}/items")), "`items` must be one schema, not a list");
        }
        if let Some(Value::Object(properties)) = node.get("properties") {
            for key in properties.keys().filter(|k| !gemini_parameter_name_ok(k)) {
                out.push(
                    "G1",
                    self.at(&format!("{pointer}/properties/{}", pointer::escape(key))),
                    format!("the parameter name `{key}` does not match {GEMINI_PARAMETER_NAME}"),
                );
            }
        }
    }

    pub(super) fn gemini_json_schema_node(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        for key in node.keys().filter(|k| !GEMINI_JSON_SCHEMA_KEYWORDS.contains(&k.as_str())) {
            out.push(
                "G2",
                self.at(&pointer::child(pointer, key)),
                format!("`{key}` is not supported in `parametersJsonSchema`"),
            );
        }
        if node.contains_key("$ref") {
            let siblings: Vec<&str> = node.keys().map(String::as_str).filter(|k| !k.starts_with('$')).collect();
            if !siblings.is_empty() {
                out.push(
                    "G2",
                    self.at(pointer),
                    format!("a `$ref` node may carry only `$` keywords; found {}", quoted_list(&siblings)),
                );
            }
        }
    }
}
