//! The providers' rules for tool definitions (OpenAI's, Anthropic's, Gemini's and MCP's; the rule
//! ids, such as `O1`, are listed in `docs/providers.md`), as
//! checkers over definitions in a dialect's wire form.
//!
//! An oracle, independent of the exporters: it reads the JSON a request would carry and
//! reports each broken rule as a [`Violation`] with the rule's id, a JSON pointer and a
//! message. It changes nothing and repairs nothing.
//!
//! Pointers name the offending keyword when one is there (`/function/parameters/format`), and
//! the node when something is missing from it (an object without `additionalProperties`).
//! Beyond the providers' own rules, two hold in every dialect: a `format` that is not one of
//! JSON Schema's (`uint32`, `int64`, `double`, ...: exports drop them) is rule `FORMAT`, and a
//! local `$ref` that points at nothing is rule `SCHEMA` (`O7` in OpenAI's strict mode).

use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::dialect::Dialect;
use crate::model::pointer;

/// One broken rule in one place.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Violation {
    /// The rule's id (`O4`, `A2`, `G3`, `MCP`), or `FORMAT` / `SCHEMA` for the rules of every
    /// dialect; `docs/providers.md` lists them.
    pub rule: &'static str,
    /// JSON pointer of the place: in the tool object for [`check_tool`], in the tools list for
    /// [`check_request`].
    pub pointer: String,
    /// What is wrong, and what the rule wants.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at `{}`: {}", self.rule, self.pointer, self.message)
    }
}

/// Checks one element of a request's tools list, in `dialect`'s shape, against the provider's
/// rules.
///
/// For [`Dialect::Gemini`] and [`Dialect::GeminiJsonSchema`] the element is either one
/// function declaration or a `{"functionDeclarations": [...]}` tool holding several. For
/// [`Dialect::JsonSchema`] it is the schema document itself.
pub fn check_tool(dialect: Dialect, tool: &Value) -> Vec<Violation> {
    let mut out = Out::default();
    match dialect {
        Dialect::OpenAiChat { strict } => openai_tool(tool, strict, false, &mut out),
        Dialect::OpenAiResponses { strict } => openai_tool(tool, strict, true, &mut out),
        Dialect::Anthropic { strict } => anthropic_tool(tool, strict, &mut out),
        Dialect::Gemini => gemini_tool(tool, Profile::GeminiParameters, &mut out),
        Dialect::GeminiJsonSchema => gemini_tool(tool, Profile::GeminiJsonSchema, &mut out),
        Dialect::Mcp => mcp_tool(tool, &mut out),
        Dialect::JsonSchema => Doc::new(tool, String::new(), Profile::Plain).check(&mut out),
    }
    out.0
}

/// Checks a request's whole tools list: every tool ([`check_tool`], pointers prefixed with the
/// tool's index), then what only the whole list can break.
///
/// - Two tools under one name (rule of the dialect's names: `O1`, `A1`, `G1`, `MCP`).
/// - Anthropic in strict mode (A4): at most 20 strict tools, 24 optional parameters and 16
///   parameters of a union type (`anyOf` or a type list), counted over every object of every
///   strict tool's schema.
///
/// OpenAI's size limits (O8) are per schema, as its documentation and its recorded error
/// messages state them, so [`check_tool`] applies them and nothing sums them across tools.
pub fn check_request(dialect: Dialect, tools: &[Value]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        violations.extend(
            check_tool(dialect, tool).into_iter().map(|v| Violation { pointer: format!("/{i}{}", v.pointer), ..v }),
        );
    }
    let mut out = Out::default();
    duplicate_names(dialect, tools, &mut out);
    if let Dialect::Anthropic { strict: true } = dialect {
        anthropic_request_limits(tools, &mut out);
    }
    violations.extend(out.0);
    violations
}

/// The violations found so far.
#[derive(Default)]
struct Out(Vec<Violation>);

impl Out {
    fn push(&mut self, rule: &'static str, pointer: impl Into<String>, message: impl Into<String>) {
        self.0.push(Violation { rule, pointer: pointer.into(), message: message.into() });
    }
}

// Names

/// OpenAI (O1) and Anthropic (A1).
const OPENAI_ANTHROPIC_NAME: &str = "^[a-zA-Z0-9_-]{1,64}$";
/// Anthropic's property keys (A1).
const ANTHROPIC_PROPERTY_KEY: &str = "^[a-zA-Z0-9_.-]{1,64}$";
/// Gemini (G1), at the older of the two documented lengths (64; newer docs say 128).
const GEMINI_NAME: &str = "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$";
/// Gemini's parameter names in `parameters` (G1).
const GEMINI_PARAMETER_NAME: &str = "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$";
/// MCP.
const MCP_NAME: &str = "^[a-zA-Z0-9_.-]{1,128}$";

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

fn openai_anthropic_name_ok(name: &str) -> bool {
    name_matches(name, None, |c| c.is_ascii_alphanumeric() || c == '_' || c == '-', 64)
}

fn anthropic_property_key_ok(key: &str) -> bool {
    name_matches(key, None, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'), 64)
}

fn gemini_name_ok(name: &str) -> bool {
    name_matches(
        name,
        Some(|c| c.is_ascii_alphabetic() || c == '_'),
        |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
        64,
    )
}

fn gemini_parameter_name_ok(name: &str) -> bool {
    name_matches(name, Some(|c| c.is_ascii_alphabetic() || c == '_'), |c| c.is_ascii_alphanumeric() || c == '_', 64)
}

fn mcp_name_ok(name: &str) -> bool {
    name_matches(name, None, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'), 128)
}

/// Checks the `name` member of `object` (at `pointer`): present, a string, accepted by `ok`.
fn check_name(
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
fn check_keys(object: &Map<String, Value>, pointer: &str, rule: &'static str, allowed: &[&str], out: &mut Out) {
    for key in object.keys() {
        if !allowed.contains(&key.as_str()) {
            out.push(
                rule,
                pointer::child(pointer, key),
                format!("unknown key `{key}`; expected one of {}", quoted_list(allowed)),
            );
        }
    }
    if let Some(description) = object.get("description") {
        if !description.is_string() {
            out.push(rule, format!("{pointer}/description"), "`description` must be a string");
        }
    }
}

fn mode(strict: bool) -> &'static str {
    if strict {
        "strict"
    } else {
        "not strict"
    }
}

fn quoted_list(items: &[&str]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

// Tool shapes

/// OpenAI Chat Completions (`responses == false`) or Responses API.
fn openai_tool(tool: &Value, strict: bool, responses: bool, out: &mut Out) {
    let Some(top) = tool.as_object() else {
        out.push("O2", "", "a tool must be a JSON object");
        return;
    };
    if top.get("type") != Some(&Value::from("function")) {
        out.push("O2", "/type", "`type` must be \"function\"");
    }
    let (function, base) = if responses {
        check_keys(top, "", "O2", &["type", "name", "description", "parameters", "strict"], out);
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

/// Anthropic Messages.
fn anthropic_tool(tool: &Value, strict: bool, out: &mut Out) {
    let Some(top) = tool.as_object() else {
        out.push("A1", "", "a tool must be a JSON object");
        return;
    };
    let allowed = ["name", "description", "input_schema", "strict", "eager_input_streaming", "cache_control"];
    check_keys(top, "", "A1", &allowed, out);
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
}

/// A Gemini `{"functionDeclarations": [...]}` tool, or one declaration.
fn gemini_tool(tool: &Value, profile: Profile, out: &mut Out) {
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

/// An MCP `tools/list` tool.
fn mcp_tool(tool: &Value, out: &mut Out) {
    let Some(top) = tool.as_object() else {
        return out.push("MCP", "", "a tool must be a JSON object");
    };
    let allowed =
        ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "execution", "_meta"];
    check_keys(top, "", "MCP", &allowed, out);
    check_name(top, "", "MCP", mcp_name_ok, MCP_NAME, out);
    if top.get("title").is_some_and(|t| !t.is_string()) {
        out.push("MCP", "/title", "`title` must be a string");
    }
    match top.get("inputSchema") {
        None => out.push("MCP", "", "`inputSchema` is missing"),
        Some(schema) => {
            if root_is_object(schema, "/inputSchema", "MCP", "`inputSchema`", out) {
                Doc::new(schema, "/inputSchema".to_owned(), Profile::Plain).check(out);
            }
        }
    }
    if let Some(schema) = top.get("outputSchema") {
        if root_is_object(schema, "/outputSchema", "MCP", "`outputSchema`", out) {
            Doc::new(schema, "/outputSchema".to_owned(), Profile::Plain).check(out);
        }
    }
    match top.get("annotations") {
        None => {}
        Some(Value::Object(annotations)) => {
            const HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
            for (key, value) in annotations {
                let pointer = pointer::child("/annotations", key);
                match key.as_str() {
                    "title" if !value.is_string() => out.push("MCP", pointer, "`title` must be a string"),
                    "title" => {}
                    hint if HINTS.contains(&hint) => {
                        if !value.is_boolean() {
                            out.push("MCP", pointer, format!("`{hint}` must be a boolean"));
                        }
                    }
                    _ => out.push(
                        "MCP",
                        pointer,
                        format!("unknown annotation `{key}`; expected one of `title`, {}", quoted_list(&HINTS)),
                    ),
                }
            }
        }
        Some(_) => out.push("MCP", "/annotations", "`annotations` must be an object"),
    }
}

/// Whether `schema` (at `pointer`) is a schema object at all; reports it under `rule` when it
/// is not, or when it lacks `"type": "object"`.
fn root_is_object(schema: &Value, pointer: &str, rule: &'static str, what: &str, out: &mut Out) -> bool {
    root_is_object_spelled(schema, pointer, rule, what, false, out)
}

/// [`root_is_object`], accepting `OBJECT` too when `upper_case` (Gemini's `parameters`).
fn root_is_object_spelled(
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

// Request-level rules

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

fn duplicate_names(dialect: Dialect, tools: &[Value], out: &mut Out) {
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

const ANTHROPIC_MAX_STRICT_TOOLS: usize = 20;
const ANTHROPIC_MAX_OPTIONAL: usize = 24;
const ANTHROPIC_MAX_UNION: usize = 16;

/// Anthropic's per-request limits on strict tools (A4), each reported once, at the first
/// thing over it.
fn anthropic_request_limits(tools: &[Value], out: &mut Out) {
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

// Schemas

/// The rules a schema document is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    /// JSON Schema 2020-12 with nothing more (MCP, plain JSON Schema).
    Plain,
    /// OpenAI `parameters` (O4-O9).
    OpenAi { strict: bool },
    /// Anthropic `input_schema` (A1 property keys, A4).
    Anthropic { strict: bool },
    /// Gemini `parameters`, the OpenAPI 3.0 subset (G1 parameter names, G3).
    GeminiParameters,
    /// Gemini `parametersJsonSchema` (G2).
    GeminiJsonSchema,
}

/// JSON Schema 2020-12's format vocabulary.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];
/// O6.
const OPENAI_STRICT_FORMATS: [&str; 9] =
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
/// A4.
const ANTHROPIC_STRICT_FORMATS: [&str; 10] =
    ["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
/// G3: string formats of `parameters`.
const GEMINI_PARAMETERS_FORMATS: [&str; 2] = ["enum", "date-time"];

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

/// Keywords whose value is one subschema.
const ONE_SCHEMA: [&str; 12] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
];
/// Keywords that say what kind of value a schema takes.
const KIND_KEYWORDS: [&str; 12] = [
    "type",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "enum",
    "const",
    "properties",
    "required",
    "items",
    "prefixItems",
    "nullable",
];
/// Keywords whose value is a list of subschemas.
const SCHEMA_LIST: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const SCHEMA_MAP: [&str; 5] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/// Keywords where `true`/`false` is a keyword value more than a schema of its own.
const BOOLEAN_VALUED: [&str; 4] =
    ["additionalProperties", "unevaluatedProperties", "unevaluatedItems", "additionalItems"];

/// Each subschema of `node`: (keyword, its pointer below `pointer`, the subschema).
fn children<'a>(node: &'a Map<String, Value>, pointer: &str) -> Vec<(&'a str, String, &'a Value)> {
    let mut found = Vec::new();
    for (keyword, value) in node {
        let keyword = keyword.as_str();
        let at = pointer::child(pointer, keyword);
        if keyword == "items" && value.is_array() || SCHEMA_LIST.contains(&keyword) {
            if let Value::Array(list) = value {
                found.extend(list.iter().enumerate().map(|(i, s)| (keyword, format!("{at}/{i}"), s)));
            }
        } else if ONE_SCHEMA.contains(&keyword) {
            found.push((keyword, at, value));
        } else if SCHEMA_MAP.contains(&keyword) {
            if let Value::Object(map) = value {
                found.extend(map.iter().map(|(k, s)| (keyword, pointer::child(&at, k), s)));
            }
        }
    }
    found
}

/// Calls `f` on every schema object of `schema` (the root first), with its pointer relative to
/// `pointer`.
fn for_each_node(schema: &Value, pointer: &str, f: &mut dyn FnMut(&Map<String, Value>, &str)) {
    if let Value::Object(node) = schema {
        f(node, pointer);
        for (_, at, child) in children(node, pointer) {
            for_each_node(child, &at, f);
        }
    }
}

/// The JSON types a node declares (`type` as one name or a list); empty when it declares none.
fn declared_types(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a node describes an object: declares the type, or has `properties`.
fn is_object_node(node: &Map<String, Value>) -> bool {
    declared_types(node).iter().any(|t| t.eq_ignore_ascii_case("object")) || node.contains_key("properties")
}

/// One schema document (a tool's parameters, input or output schema) and where it sits in the
/// tool object.
struct Doc<'a> {
    root: &'a Value,
    /// Pointer of the document's root in the tool object.
    base: String,
    profile: Profile,
}

impl<'a> Doc<'a> {
    fn new(root: &'a Value, base: String, profile: Profile) -> Self {
        Doc { root, base, profile }
    }

    /// The pointer in the tool object of `pointer` in the document.
    fn at(&self, pointer: &str) -> String {
        format!("{}{pointer}", self.base)
    }

    /// Checks every node of the document.
    fn check(&self, out: &mut Out) {
        self.visit(self.root, "", None, out);
    }

    fn visit(&self, schema: &Value, pointer: &str, via: Option<&str>, out: &mut Out) {
        match schema {
            Value::Object(node) => {
                self.node(node, pointer, out);
                for (keyword, at, child) in children(node, pointer) {
                    self.visit(child, &at, Some(keyword), out);
                }
            }
            Value::Bool(_) if via.is_some_and(|k| BOOLEAN_VALUED.contains(&k)) => {}
            Value::Bool(b) => {
                let rule = match self.profile {
                    Profile::OpenAi { strict: true } => Some("O6"),
                    Profile::Anthropic { strict: true } => Some("A4"),
                    Profile::GeminiParameters => Some("G3"),
                    _ => None,
                };
                if let Some(rule) = rule {
                    out.push(rule, self.at(pointer), format!("`{b}` as a schema is not supported here"));
                }
            }
            _ => out.push("SCHEMA", self.at(pointer), "a schema must be an object or a boolean"),
        }
    }

    /// The rules of one schema object.
    fn node(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        self.format(node, pointer, out);
        self.reference(node, pointer, out);
        self.declares_a_kind(node, pointer, out);
        match self.profile {
            Profile::Plain => {}
            Profile::OpenAi { strict } => self.openai_node(node, pointer, strict, out),
            Profile::Anthropic { strict } => self.anthropic_node(node, pointer, strict, out),
            Profile::GeminiParameters => self.gemini_parameters_node(node, pointer, out),
            Profile::GeminiJsonSchema => self.gemini_json_schema_node(node, pointer, out),
        }
    }

    /// O6, A4, G3: a schema that declares no kind of value (`{}`, a description alone) takes
    /// any value, which strict modes and Gemini's `parameters` cannot say.
    fn declares_a_kind(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        let (rule, place) = match self.profile {
            Profile::OpenAi { strict: true } | Profile::Anthropic { strict: true } => {
                (if matches!(self.profile, Profile::OpenAi { .. }) { "O6" } else { "A4" }, "strict mode")
            }
            Profile::GeminiParameters => ("G3", "`parameters`"),
            _ => return,
        };
        if !node.keys().any(|key| KIND_KEYWORDS.contains(&key.as_str())) {
            out.push(
                rule,
                self.at(pointer),
                format!("a schema that declares no type takes a value of any type, which {place} cannot say; send it as JSON text"),
            );
        }
        if self.profile == Profile::GeminiParameters
            && declared_types(node).iter().any(|t| t.eq_ignore_ascii_case("object"))
            && node.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty)
            && !pointer.is_empty()
        {
            out.push(
                "G3",
                self.at(pointer),
                "an object without properties (a map, a free-form object) cannot be declared in `parameters`; send it as JSON text",
            );
        }
    }

    /// `FORMAT` in every dialect, and the dialect's own list of formats.
    fn format(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        let Some(format) = node.get("format") else { return };
        let at = self.at(&format!("{pointer}/format"));
        let Some(format) = format.as_str() else {
            return out.push("FORMAT", at, "`format` must be a string");
        };
        // G3's `enum` format of strings is Gemini's own, and its `parameters` keep it.
        let gemini_enum = self.profile == Profile::GeminiParameters && format == "enum";
        if !STANDARD_FORMATS.contains(&format) && !gemini_enum {
            return out.push("FORMAT", at, format!("`{format}` is not a JSON Schema format; exports drop it"));
        }
        let (rule, allowed): (&'static str, &[&str]) = match self.profile {
            Profile::OpenAi { strict: true } => ("O6", &OPENAI_STRICT_FORMATS),
            Profile::Anthropic { strict: true } => ("A4", &ANTHROPIC_STRICT_FORMATS),
            Profile::GeminiParameters => {
                if !declared_types(node).iter().any(|t| t.eq_ignore_ascii_case("string")) {
                    return out.push("G3", at, format!("format `{format}` is allowed only on strings"));
                }
                ("G3", &GEMINI_PARAMETERS_FORMATS)
            }
            _ => return,
        };
        if !allowed.contains(&format) {
            out.push(rule, at, format!("format `{format}` is not supported; expected one of {}", quoted_list(allowed)));
        }
    }

    /// A local `$ref` must point at something (`O7` in OpenAI's strict mode, else `SCHEMA`).
    fn reference(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
        let Some(Value::String(reference)) = node.get("$ref") else { return };
        if reference.starts_with('#') && self.resolve(reference).is_none() {
            let rule = if self.profile == (Profile::OpenAi { strict: true }) { "O7" } else { "SCHEMA" };
            out.push(rule, self.at(&format!("{pointer}/$ref")), format!("`{reference}` points at nothing"));
        }
    }

    /// The document pointer a local `$ref` points at (`#`, `#/json/pointer` or `#anchor`).
    fn resolve(&self, reference: &str) -> Option<String> {
        let fragment = percent_decode(reference.strip_prefix('#')?);
        if fragment.is_empty() {
            return Some(String::new());
        }
        if fragment.starts_with('/') {
            return self.root.pointer(&fragment).map(|_| fragment);
        }
        let mut found = None;
        for_each_node(self.root, "", &mut |node, pointer| {
            if found.is_none() && node.get("$anchor").and_then(Value::as_str) == Some(fragment.as_str()) {
                found = Some(pointer.to_owned());
            }
        });
        found
    }

    fn openai_node(&self, node: &Map<String, Value>, pointer: &str, strict: bool, out: &mut Out) {
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
            if let Some(Value::Array(values)) = node.get("enum") {
                if nullable && !values.contains(&Value::Null) {
                    out.push(
                        "O5",
                        self.at(&format!("{pointer}/enum")),
                        "the type is nullable, so `enum` must list null",
                    );
                }
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
        if let Some(target) = node.get("$ref").and_then(Value::as_str).and_then(|r| self.resolve(r)) {
            if let (false, Some(schema)) = (path.contains(&target), self.root.pointer(&target)) {
                path.push(target.clone());
                let found = self.too_deep(schema, &target, level, path);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
        }
        children(node, pointer)
            .into_iter()
            .filter(|(keyword, _, _)| !matches!(*keyword, "$defs" | "definitions"))
            .find_map(|(_, at, child)| self.too_deep(child, &at, level, path))
    }

    fn anthropic_node(&self, node: &Map<String, Value>, pointer: &str, strict: bool, out: &mut Out) {
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
        if let Some(min) = node.get("minItems") {
            if !(min == 0 || min == 1) {
                out.push(
                    "A4",
                    self.at(&format!("{pointer}/minItems")),
                    format!("`minItems` may be only 0 or 1, not {min}"),
                );
            }
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
        if let Some(reference) = node.get("$ref") {
            if !reference.as_str().is_some_and(|r| r.starts_with('#')) {
                out.push(
                    "A4",
                    self.at(&format!("{pointer}/$ref")),
                    format!("`$ref` must be local (`#...`), not {reference}"),
                );
            }
        }
    }

    /// A4: no recursive schemas. A `$ref` is recursive when following it leads back to a place
    /// that holds it.
    fn anthropic_recursion(&self, out: &mut Out) {
        // Every local `$ref`: where it is, and what it points at.
        let mut edges: Vec<(String, String, String)> = Vec::new();
        for_each_node(self.root, "", &mut |node, pointer| {
            if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
                if let Some(target) = self.resolve(reference) {
                    edges.push((pointer.to_owned(), reference.to_owned(), target));
                }
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

    fn gemini_parameters_node(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
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

    fn gemini_json_schema_node(&self, node: &Map<String, Value>, pointer: &str, out: &mut Out) {
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

/// Decodes `%XX` escapes of a URI fragment (bytes that do not decode stay as they are).
fn percent_decode(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| fragment.to_owned())
}
