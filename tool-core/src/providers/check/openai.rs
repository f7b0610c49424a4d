//! OpenAI's rules: the Chat Completions and Responses tool shapes (O1, O2), the parameters'
//! root (O3), and strict mode's schemas (O4-O9).

use serde_json::{Map, Value};

use super::fields::{
    check_keys, check_name, mode, openai_anthropic_name_ok, quoted_list, root_is_object, OPENAI_ANTHROPIC_NAME,
};
use super::schema::{children, declared_types, for_each_node, is_object_node, Doc, Profile, STANDARD_FORMATS};
use super::violation::Out;
use crate::model::pointer;

/// OpenAI Chat Completions (`responses == false`) or Responses API.
pub(super) fn openai_tool(tool: &Value, strict: bool, responses: bool, out: &mut Out) {
    let Some(top) = tool.as_object() else {
        out.push("O2", "", "a tool must be a JSON object");
        return;
    };
    if responses {
        match top.get("type").and_then(Value::as_str) {
            Some("tool_search") => return tool_search(top, out),
            Some("namespace") => return namespace(top, strict, out),
            _ => {}
        }
    }
    if top.get("type") != Some(&Value::from("function")) {
        let expected = if responses { "\"function\", \"namespace\" or \"tool_search\"" } else { "\"function\"" };
        out.push("O2", "/type", format!("`type` must be {expected}"));
    }
    let (function, base) = if responses {
        check_keys(top, "", "O2", &["type", "name", "description", "parameters", "strict", "defer_loading"], out);
        if top.get("defer_loading").is_some_and(|deferred| !deferred.is_boolean()) {
            out.push("O2", "/defer_loading", "`defer_loading` must be a boolean");
        }
        (top, String::new())
    } else {
        check_keys(top, "", "O2", &["type", "function"], out);
        match top.get("function") {
            Some(Value::Object(function)) => {
                check_keys(function, "/function", "O2", &["name", "description", "parameters", "strict"], out);
                (function, "/function".to_owned())
            }
            Some(_) => return out.push("O2", "/function", "`function` must be an object"),
            None => return out.push("O2", "", "`function` is missing"),
        }
    };
    check_name(function, &base, "O1", openai_anthropic_name_ok, OPENAI_ANTHROPIC_NAME, out);
    match function.get("strict") {
        Some(Value::Bool(sent)) if *sent == strict => {}
        Some(Value::Bool(sent)) => {
            out.push("O2", format!("{base}/strict"), format!("`strict` is {sent}, but the dialect is {}", mode(strict)))
        }
        Some(_) => out.push("O2", format!("{base}/strict"), "`strict` must be a boolean"),
        None => out.push("O2", base.as_str(), format!("`strict` must be sent explicitly (`\"strict\": {strict}`)")),
    }
    let Some(parameters) = function.get("parameters") else {
        return out.push("O2", base.as_str(), "`parameters` is missing");
    };
    let base = format!("{base}/parameters");
    if !root_is_object(parameters, &base, "O3", "the parameters", out) {
        return;
    }
    for keyword in OPENAI_TOP_LEVEL {
        if parameters.get(keyword).is_some() {
            out.push("O3", format!("{base}/{keyword}"), format!("`{keyword}` is not allowed at the top level"));
        }
    }
    let doc = Doc::new(parameters, base, Profile::OpenAi { strict });
    doc.check(out);
    doc.openai_limits(out);
}

/// The Responses API's `{"type": "tool_search"}`: hosted, or run by the client with the
/// `parameters` it takes.
fn tool_search(top: &Map<String, Value>, out: &mut Out) {
    check_keys(top, "", "O2", &["type", "execution", "description", "parameters"], out);
    match top.get("execution") {
        None | Some(Value::Null) => {}
        Some(Value::String(execution)) if execution == "server" || execution == "client" => {}
        Some(other) => {
            out.push("O2", "/execution", format!("`execution` must be \"server\" or \"client\", not {other}"))
        }
    }
    if let Some(parameters) = top.get("parameters").filter(|p| !p.is_null()) {
        root_is_object(parameters, "/parameters", "O3", "the parameters", out);
    }
}

/// The Responses API's `{"type": "namespace", name, description, tools}`: each function inside
/// checked as a top-level one (`defer_loading` goes on them, not on the namespace).
fn namespace(top: &Map<String, Value>, strict: bool, out: &mut Out) {
    check_keys(top, "", "O2", &["type", "name", "description", "tools"], out);
    check_name(top, "", "O1", openai_anthropic_name_ok, OPENAI_ANTHROPIC_NAME, out);
    if !top.get("description").is_some_and(Value::is_string) {
        out.push("O2", "", "a namespace needs a `description`, which the model sees before it loads any function");
    }
    let Some(Value::Array(tools)) = top.get("tools") else {
        return out.push("O2", "/tools", "a namespace's `tools` must be an array of functions");
    };
    for (i, tool) in tools.iter().enumerate() {
        if tool.get("type").and_then(Value::as_str) != Some("function") {
            out.push("O2", format!("/tools/{i}/type"), "a namespace holds functions (`type` must be \"function\")");
            continue;
        }
        let mut inner = Out::default();
        openai_tool(tool, strict, true, &mut inner);
        for violation in inner.0 {
            out.push(violation.rule, format!("/tools/{i}{}", violation.pointer), violation.message);
        }
    }
}

/// O6: keywords of every node, of strings, of numbers, of arrays.
const OPENAI_STRICT_KEYWORDS: [&str; 11] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$defs",
    "$ref",
    "description",
];
const OPENAI_STRING_KEYWORDS: [&str; 2] = ["pattern", "format"];
const OPENAI_NUMBER_KEYWORDS: [&str; 5] = ["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
const OPENAI_ARRAY_KEYWORDS: [&str; 2] = ["minItems", "maxItems"];
/// O3: not at the top level.
const OPENAI_TOP_LEVEL: [&str; 6] = ["oneOf", "anyOf", "allOf", "enum", "const", "not"];
/// O9.
const OPENAI_STRIPPED: [&str; 3] = ["$schema", "title", "default"];
/// O8.
const OPENAI_MAX_PROPERTIES: usize = 5000;
const OPENAI_MAX_DEPTH: usize = 10;
const OPENAI_MAX_NAME_CHARS: usize = 120_000;
const OPENAI_MAX_ENUM_VALUES: usize = 1000;

impl Doc<'_> {
    pub(super) fn openai_node(&self, node: &Map<String, Value>, pointer: &str, strict: bool, out: &mut Out) {
        for key in OPENAI_STRIPPED {
            if node.contains_key(key) {
                out.push("O9", self.at(&pointer::child(pointer, key)), format!("`{key}` must be stripped"));
            }
        }
        if !strict {
            return;
        }
        let types = declared_types(node);
        let has = |t: &str| types.contains(&t);
        for key in node.keys().map(String::as_str) {
            let at = self.at(&pointer::child(pointer, key));
            let family = if key == "format" && !node["format"].as_str().is_some_and(|f| STANDARD_FORMATS.contains(&f)) {
                None // `FORMAT` says it.
            } else if OPENAI_STRING_KEYWORDS.contains(&key) {
                Some(("strings", has("string")))
            } else if OPENAI_NUMBER_KEYWORDS.contains(&key) {
                Some(("numbers", has("number") || has("integer")))
            } else if OPENAI_ARRAY_KEYWORDS.contains(&key) {
                Some(("arrays", has("array")))
            } else {
                None
            };
            match family {
                Some((kind, fits)) if !fits && !types.is_empty() => {
                    out.push("O6", at, format!("`{key}` applies to {kind}, and this node is {}", types.join(" or ")))
                }
                Some(_) => {}
                None if OPENAI_STRIPPED.contains(&key) || OPENAI_STRICT_KEYWORDS.contains(&key) || key == "format" => {}
                // O3 says it at the top level.
                None if pointer.is_empty() && OPENAI_TOP_LEVEL.contains(&key) => {}
                None => out.push("O6", at, format!("`{key}` is not supported in strict mode")),
            }
        }
        if node.get("items").is_some_and(Value::is_array) {
            out.push("O6", self.at(&format!("{pointer}/items")), "`items` must be one schema, not a list");
        }
        if is_object_node(node) {
            self.openai_object(node, pointer, out);
        }
        if let Some(Value::Array(list)) = node.get("type") {
            let non_null: Vec<&str> = list.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            if non_null.len() > 1 {
                out.push(
                    "O5",
                    self.at(&format!("{pointer}/type")),
                    format!("a type list is one type and \"null\"; found {}", quoted_list(&non_null)),
                );
            }
            let nullable = list.iter().any(|t| t == "null");
            if let Some(Value::Array(values)) = node.get("enum")
                && nullable
                && !values.contains(&Value::Null)
            {
                out.push("O5", self.at(&format!("{pointer}/enum")), "the type is nullable, so `enum` must list null");
            }
        }
        if let Some(reference) = node.get("$ref") {
            let at = self.at(&format!("{pointer}/$ref"));
            match reference.as_str() {
                Some(r) if r == "#" || r.starts_with("#/$defs/") => {}
                _ => out.push(
                    "O7",
                    at,
                    format!("`$ref` must be `#` or point into the root `$defs` (`#/$defs/...`), not {reference}"),
                ),
            }
            let siblings: Vec<&str> = node.keys().map(String::as_str).filter(|k| *k != "$ref").collect();
            if !siblings.is_empty() {
                out.push(
                    "O7",
                    self.at(pointer),
                    format!("a `$ref` node has no other keys; found {}", quoted_list(&siblings)),
                );
            }
        }
        if !pointer.is_empty() && node.contains_key("$defs") {
            out.push("O7", self.at(&format!("{pointer}/$defs")), "`$defs` is allowed only at the root");
        }
    }

    /// O4 (and O6's map-style `additionalProperties`) for one object node.
    fn openai_object(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        match node.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None => out.push("O4", self.at(pointer), "an object needs `\"additionalProperties\": false`"),
            Some(Value::Object(_)) => out.push(
                "O6",
                self.at(&format!("{pointer}/additionalProperties")),
                "map-style `additionalProperties` (a schema) is not supported in strict mode",
            ),
            Some(_) => out.push(
                "O4",
                self.at(&format!("{pointer}/additionalProperties")),
                "`additionalProperties` must be false",
            ),
        }
        let keys: Vec<&str> = match node.get("properties") {
            Some(Value::Object(properties)) => properties.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        };
        let required = match node.get("required") {
            None => Vec::new(),
            Some(Value::Array(list)) if list.iter().all(Value::is_string) => {
                list.iter().filter_map(Value::as_str).collect()
            }
            Some(_) => {
                return out.push(
                    "O4",
                    self.at(&format!("{pointer}/required")),
                    "`required` must be a list of property names",
                )
            }
        };
        let missing: Vec<&str> = keys.iter().copied().filter(|k| !required.contains(k)).collect();
        if !missing.is_empty() {
            let at = if node.contains_key("required") { format!("{pointer}/required") } else { pointer.to_owned() };
            out.push(
                "O4",
                self.at(&at),
                format!("`required` must list every property; missing {}", quoted_list(&missing)),
            );
        }
        let extra: Vec<&str> = required.iter().copied().filter(|k| !keys.contains(k)).collect();
        if !extra.is_empty() {
            out.push(
                "O4",
                self.at(&format!("{pointer}/required")),
                format!("`required` names what is not a property: {}", quoted_list(&extra)),
            );
        }
    }

    /// O8: sizes of the whole document, and how deep objects nest (through `$ref`s).
    fn openai_limits(&self, out: &mut Out) {
        let (mut properties, mut enum_values, mut chars) = (0usize, 0usize, 0usize);
        for_each_node(self.root, "", &mut |node, _| {
            if let Some(Value::Object(map)) = node.get("properties") {
                properties += map.len();
                chars += map.keys().map(|k| k.chars().count()).sum::<usize>();
            }
            if let Some(Value::Object(defs)) = node.get("$defs") {
                chars += defs.keys().map(|k| k.chars().count()).sum::<usize>();
            }
            if let Some(Value::Array(values)) = node.get("enum") {
                enum_values += values.len();
                chars += values.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum::<usize>();
            }
            if let Some(Value::String(value)) = node.get("const") {
                chars += value.chars().count();
            }
        });
        let root = self.at("");
        if properties > OPENAI_MAX_PROPERTIES {
            out.push("O8", root.as_str(), format!("{properties} properties; at most {OPENAI_MAX_PROPERTIES}"));
        }
        if enum_values > OPENAI_MAX_ENUM_VALUES {
            out.push("O8", root.as_str(), format!("{enum_values} enum values; at most {OPENAI_MAX_ENUM_VALUES}"));
        }
        if chars > OPENAI_MAX_NAME_CHARS {
            out.push(
                "O8",
                root.as_str(),
                format!(
                    "{chars} characters of property names, definition names, enum and const values; at most {}",
                    OPENAI_MAX_NAME_CHARS
                ),
            );
        }
        if let Some(pointer) = self.too_deep(self.root, "", 0, &mut Vec::new()) {
            out.push("O8", self.at(&pointer), format!("objects nest more than {OPENAI_MAX_DEPTH} levels deep here"));
        }
    }

    /// The first object node deeper than O8 allows, counting the root object as level 1 and
    /// following `$ref`s (each definition once per path, so recursion ends).
    fn too_deep(&self, schema: &Value, pointer: &str, level: usize, path: &mut Vec<String>) -> Option<String> {
        let Value::Object(node) = schema else { return None };
        let level = if is_object_node(node) { level + 1 } else { level };
        if level > OPENAI_MAX_DEPTH {
            return Some(pointer.to_owned());
        }
        if let Some(target) = node.get("$ref").and_then(Value::as_str).and_then(|r| self.resolve(r))
            && let (false, Some(schema)) = (path.contains(&target), self.root.pointer(&target))
        {
            path.push(target.clone());
            let found = self.too_deep(schema, &target, level, path);
            path.pop();
            if found.is_some() {
                return found;
            }
        }
        children(node, pointer)
            .into_iter()
            .filter(|(keyword, _, _)| !matches!(*keyword, "$defs" | "definitions"))
            .find_map(|(_, at, child)| self.too_deep(child, &at, level, path))
    }
}
