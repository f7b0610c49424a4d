//! Anthropic's rules: the tool shape and names (A1), the input schema's root (A2), and strict
//! tool use (A4).

use serde_json::{Map, Value};

use super::fields::{
    anthropic_property_key_ok, check_keys, check_name, mode, openai_anthropic_name_ok, root_is_object,
    ANTHROPIC_PROPERTY_KEY, OPENAI_ANTHROPIC_NAME,
};
use super::schema::{for_each_node, is_object_node, Doc, Profile};
use super::violation::Out;
use crate::model::pointer;

/// Anthropic Messages.
pub(super) fn anthropic_tool(tool: &Value, strict: bool, out: &mut Out) {
    let Some(top) = tool.as_object() else {
        out.push("A1", "", "a tool must be a JSON object");
        return;
    };
    if let Some(Value::String(kind)) = top.get("type")
        && let Some(name) = search_tool_name(kind)
    {
        return search_tool(top, name, out);
    }
    let allowed = [
        "name",
        "description",
        "input_schema",
        "strict",
        "eager_input_streaming",
        "cache_control",
        "defer_loading",
        "input_examples",
    ];
    check_keys(top, "", "A1", &allowed, out);
    match top.get("defer_loading") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) if top.contains_key("cache_control") => out.push(
            "A1",
            "/cache_control",
            "a deferred tool (`defer_loading: true`) cannot carry `cache_control`: put it on a tool that is not deferred",
        ),
        Some(Value::Bool(true)) => {}
        Some(_) => out.push("A1", "/defer_loading", "`defer_loading` must be a boolean"),
    }
    check_name(top, "", "A1", openai_anthropic_name_ok, OPENAI_ANTHROPIC_NAME, out);
    match (top.get("strict"), strict) {
        (Some(Value::Bool(true)), true) | (Some(Value::Bool(false)) | None, false) => {}
        (None, true) => out.push("A1", "", "a strict tool needs `\"strict\": true`"),
        (Some(Value::Bool(sent)), _) => {
            out.push("A1", "/strict", format!("`strict` is {sent}, but the dialect is {}", mode(strict)))
        }
        (Some(_), _) => out.push("A1", "/strict", "`strict` must be a boolean"),
    }
    let Some(schema) = top.get("input_schema") else {
        return out.push("A1", "", "`input_schema` is missing");
    };
    if !root_is_object(schema, "/input_schema", "A2", "`input_schema`", out) {
        return;
    }
    for keyword in ANTHROPIC_TOP_LEVEL {
        if schema.get(keyword).is_some() {
            out.push("A2", format!("/input_schema/{keyword}"), format!("`{keyword}` is not allowed at the top level"));
        }
    }
    let doc = Doc::new(schema, "/input_schema".to_owned(), Profile::Anthropic { strict });
    doc.check(out);
    if strict {
        doc.anthropic_recursion(out);
    }
    if let Some(examples) = top.get("input_examples") {
        input_examples(examples, schema, out);
    }
}

/// A1: `input_examples` is a list of argument objects, each valid against the tool's
/// `input_schema` (the API refuses the request otherwise).
fn input_examples(examples: &Value, schema: &Value, out: &mut Out) {
    let Some(examples) = examples.as_array() else {
        return out.push("A1", "/input_examples", "`input_examples` must be a list of argument objects");
    };
    let validator = jsonschema::options().should_ignore_unknown_formats(true).build(schema).ok();
    for (i, example) in examples.iter().enumerate() {
        let at = format!("/input_examples/{i}");
        if !example.is_object() {
            out.push("A1", at, "an example must be an object of arguments");
            continue;
        }
        let Some(validator) = &validator else { continue };
        for error in validator.iter_errors(example) {
            out.push(
                "A1",
                format!("{at}{}", error.instance_path()),
                format!("the example does not match `input_schema`: {error}"),
            );
        }
    }
}

/// The name Anthropic's tool-search server tool of type `kind` must have, if it is one
/// (the dated type, or its undated alias).
fn search_tool_name(kind: &str) -> Option<&'static str> {
    match kind {
        "tool_search_tool_regex_20251119" | "tool_search_tool_regex" => Some("tool_search_tool_regex"),
        "tool_search_tool_bm25_20251119" | "tool_search_tool_bm25" => Some("tool_search_tool_bm25"),
        _ => None,
    }
}

/// Anthropic's tool-search server tool: its keys, its fixed name, and never deferred.
fn search_tool(top: &Map<String, Value>, name: &str, out: &mut Out) {
    check_keys(top, "", "A1", &["type", "name", "allowed_callers", "cache_control", "defer_loading", "strict"], out);
    match top.get("name") {
        Some(Value::String(sent)) if sent == name => {}
        Some(other) => out.push("A1", "/name", format!("the tool search tool's name must be `{name}`, not {other}")),
        None => out.push("A1", "", "`name` is missing"),
    }
    if top.get("defer_loading") == Some(&Value::Bool(true)) {
        out.push("A1", "/defer_loading", "the tool search tool itself must not be deferred");
    }
}

/// A2: not at the top level.
const ANTHROPIC_TOP_LEVEL: [&str; 3] = ["oneOf", "anyOf", "allOf"];
/// A4: what strict tool use supports.
const ANTHROPIC_STRICT_KEYWORDS: [&str; 18] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "default",
    "pattern",
    "format",
    "minItems",
    "description",
    "title",
];

impl Doc<'_> {
    pub(super) fn anthropic_node(&self, node: &Map<String, Value>, pointer: &str, strict: bool, out: &mut Out) {
        if let Some(Value::Object(properties)) = node.get("properties") {
            for key in properties.keys().filter(|k| !anthropic_property_key_ok(k)) {
                out.push(
                    "A1",
                    self.at(&format!("{pointer}/properties/{}", pointer::escape(key))),
                    format!("the property key `{key}` does not match {ANTHROPIC_PROPERTY_KEY}"),
                );
            }
        }
        if !strict {
            return;
        }
        // A2 says it for the top level's combinators.
        let said = |k: &str| pointer.is_empty() && ANTHROPIC_TOP_LEVEL.contains(&k);
        for key in node.keys().filter(|k| !ANTHROPIC_STRICT_KEYWORDS.contains(&k.as_str()) && !said(k)) {
            out.push("A4", self.at(&pointer::child(pointer, key)), format!("`{key}` is not supported in strict mode"));
        }
        if is_object_node(node) {
            match node.get("additionalProperties") {
                Some(Value::Bool(false)) => {}
                None => out.push("A4", self.at(pointer), "an object needs `\"additionalProperties\": false`"),
                Some(_) => out.push(
                    "A4",
                    self.at(&format!("{pointer}/additionalProperties")),
                    "`additionalProperties` must be false",
                ),
            }
        }
        if let Some(min) = node.get("minItems")
            && !(min == 0 || min == 1)
        {
            out.push(
                "A4",
                self.at(&format!("{pointer}/minItems")),
                format!("`minItems` may be only 0 or 1, not {min}"),
            );
        }
        if let Some(Value::Array(values)) = node.get("enum") {
            for (i, value) in values.iter().enumerate() {
                if value.is_object() || value.is_array() {
                    out.push(
                        "A4",
                        self.at(&format!("{pointer}/enum/{i}")),
                        "enum values must be strings, numbers, booleans or null",
                    );
                }
            }
        }
        if let Some(Value::Array(branches)) = node.get("allOf") {
            for (i, branch) in branches.iter().enumerate() {
                if branch.get("$ref").is_some() {
                    out.push("A4", self.at(&format!("{pointer}/allOf/{i}/$ref")), "`allOf` may not hold a `$ref`");
                }
            }
        }
        if let Some(reference) = node.get("$ref")
            && !reference.as_str().is_some_and(|r| r.starts_with('#'))
        {
            out.push(
                "A4",
                self.at(&format!("{pointer}/$ref")),
                format!("`$ref` must be local (`#...`), not {reference}"),
            );
        }
    }

    /// A4: no recursive schemas. A `$ref` is recursive when following it leads back to a place
    /// that holds it.
    fn anthropic_recursion(&self, out: &mut Out) {
        // Every local `$ref`: where it is, and what it points at.
        let mut edges: Vec<(String, String, String)> = Vec::new();
        for_each_node(self.root, "", &mut |node, pointer| {
            if let Some(reference) = node.get("$ref").and_then(Value::as_str)
                && let Some(target) = self.resolve(reference)
            {
                edges.push((pointer.to_owned(), reference.to_owned(), target));
            }
        });
        let within = |place: &str, tree: &str| place == tree || place.starts_with(&format!("{tree}/"));
        for (place, reference, target) in &edges {
            // Everything reachable from the target, through the `$ref`s inside what is reached.
            let mut reached = vec![target.clone()];
            let mut i = 0;
            while i < reached.len() {
                for (from, _, to) in &edges {
                    if within(from, &reached[i]) && !reached.contains(to) {
                        reached.push(to.clone());
                    }
                }
                i += 1;
            }
            if reached.iter().any(|tree| within(place, tree)) {
                out.push(
                    "A4",
                    self.at(&format!("{place}/$ref")),
                    format!("recursive schema: `{reference}` leads back here; strict mode does not support recursion"),
                );
            }
        }
    }
}
