//! One schema document walked node by node: the rules of every dialect (`FORMAT`, `SCHEMA`),
//! the string formats each dialect takes, and the dispatch to each dialect's own rules.

use serde_json::{Map, Value};

use super::fields::quoted_list;
use super::violation::Out;
use crate::model::pointer;

/// The rules a schema document is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Profile {
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
pub(super) const STANDARD_FORMATS: [&str; 19] = [
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
pub(super) fn children<'a>(node: &'a Map<String, Value>, pointer: &str) -> Vec<(&'a str, String, &'a Value)> {
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
        } else if SCHEMA_MAP.contains(&keyword)
            && let Value::Object(map) = value
        {
            found.extend(map.iter().map(|(k, s)| (keyword, pointer::child(&at, k), s)));
        }
    }
    found
}

/// Calls `f` on every schema object of `schema` (the root first), with its pointer relative to
/// `pointer`.
pub(super) fn for_each_node(schema: &Value, pointer: &str, f: &mut dyn FnMut(&Map<String, Value>, &str)) {
    if let Value::Object(node) = schema {
        f(node, pointer);
        for (_, at, child) in children(node, pointer) {
            for_each_node(child, &at, f);
        }
    }
}

/// The JSON types a node declares (`type` as one name or a list); empty when it declares none.
pub(super) fn declared_types(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a node describes an object: declares the type, or has `properties`.
pub(super) fn is_object_node(node: &Map<String, Value>) -> bool {
    declared_types(node).iter().any(|t| t.eq_ignore_ascii_case("object")) || node.contains_key("properties")
}

/// One schema document (a tool's parameters, input or output schema) and where it sits in the
/// tool object.
pub(super) struct Doc<'a> {
    pub(super) root: &'a Value,
    /// Pointer of the document's root in the tool object.
    pub(super) base: String,
    pub(super) profile: Profile,
}

impl<'a> Doc<'a> {
    pub(super) fn new(root: &'a Value, base: String, profile: Profile) -> Self {
        Doc { root, base, profile }
    }

    /// The pointer in the tool object of `pointer` in the document.
    pub(super) fn at(&self, pointer: &str) -> String {
        format!("{}{pointer}", self.base)
    }

    /// Checks every node of the document.
    pub(super) fn check(&self, out: &mut Out) {
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
    pub(super) fn resolve(&self, reference: &str) -> Option<String> {
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
