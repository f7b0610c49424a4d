//! A tool's input schema compiled once into what conversion asks of it: per node, the declared
//! kind, whether `null` is allowed, the allowed tokens, and the nodes of its elements and
//! fields. References (`$ref`) are resolved at compile time, recursive types included, so
//! converting a value costs no schema lookups.
//!
//! The reading of the schema is the one [`crate::coerce`] documents: `$ref`s and a `null`
//! alternative (`type: [T, "null"]`, `anyOf: [X, null]`, a single `allOf`) are set aside, the
//! kind is the schema's one non-null `type`, and tokens come from `enum`, `const`, or
//! `oneOf`/`anyOf` branches that are each one token. An object's fields are its `properties`,
//! then its `patternProperties` (maps with integer keys: `^\\d+$`), then its
//! `additionalProperties`.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

use crate::shape::{enum_tokens, is_null_schema, primary_type, resolve, token_text};

/// The index of a node in its [`Plan`].
pub(crate) type NodeId = u32;

/// The declared kind of a value, as conversion reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
    /// No single declared type (any value, unions): nothing is converted by kind.
    Other,
}

/// The allowed tokens of an enum, with the texts conversion compares.
#[derive(Debug)]
pub(crate) struct Tokens {
    pub values: Vec<Value>,
    /// Each token as text (a string token's own text, other tokens as JSON).
    pub texts: Vec<String>,
    /// `one of: `a`, `b``, the expectation in warnings.
    pub expected: String,
}

/// What the elements or fields of a value are.
#[derive(Debug, Default)]
pub(crate) enum Children {
    #[default]
    None,
    /// Every element of a list.
    Items(NodeId),
    /// A tuple's elements, by position (elements beyond them are not converted).
    Prefix(Vec<NodeId>),
    /// An object's declared fields (name, node, whether required), the node of a field whose
    /// name matches a pattern (maps with integer keys), and the node of any other field (maps).
    Fields { properties: Vec<(String, NodeId, bool)>, patterns: Vec<(Regex, NodeId)>, additional: Option<NodeId> },
}

impl Children {
    /// The node of the field `key` of an object: a declared property, else the first pattern
    /// the name matches, else the node of any other field.
    pub(crate) fn field(&self, key: &str) -> Option<NodeId> {
        let Children::Fields { properties, patterns, additional } = self else { return None };
        match properties.iter().find(|(name, ..)| name == key) {
            Some((_, id, _)) => Some(*id),
            None => patterns.iter().find(|(pattern, _)| pattern.is_match(key)).map(|(_, id)| *id).or(*additional),
        }
    }
}

/// One schema node, compiled.
#[derive(Debug)]
pub(crate) struct Node {
    pub kind: Kind,
    pub nullable: bool,
    pub tokens: Option<Tokens>,
    pub children: Children,
}

impl Node {
    /// The node of the field `key`, when this node is an object conversion descends into.
    pub(crate) fn field(&self, key: &str) -> Option<NodeId> {
        match &self.children {
            fields @ Children::Fields { .. } if self.kind == Kind::Object && self.tokens.is_none() => fields.field(key),
            _ => None,
        }
    }

    /// The node of element `index`, when this node is a list conversion descends into.
    pub(crate) fn element(&self, index: usize) -> Option<NodeId> {
        if self.kind != Kind::Array || self.tokens.is_some() {
            return None;
        }
        match &self.children {
            Children::Items(id) => Some(*id),
            Children::Prefix(ids) => ids.get(index).copied(),
            _ => None,
        }
    }

    /// Whether conversion could change a value of this node at all.
    pub(crate) fn converts(&self) -> bool {
        self.nullable || self.tokens.is_some() || self.kind != Kind::Other
    }
}

/// A compiled input schema: node 0 is the arguments object.
#[derive(Debug)]
pub(crate) struct Plan {
    nodes: Vec<Node>,
}

impl Plan {
    pub(crate) const ROOT: NodeId = 0;

    /// Compiles `input_schema` (its `$defs` resolve references).
    pub(crate) fn compile(input_schema: &Value) -> Plan {
        let empty = Map::new();
        let defs = input_schema.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
        let mut compiler = Compiler { defs, nodes: Vec::new(), seen: HashMap::new() };
        compiler.node(input_schema);
        Plan { nodes: compiler.nodes }
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The node of the top-level parameter `name`.
    pub(crate) fn parameter(&self, name: &str) -> Option<NodeId> {
        self.node(Self::ROOT).field(name)
    }

    /// The names the arguments object declares.
    pub(crate) fn declares(&self, name: &str) -> bool {
        matches!(&self.node(Self::ROOT).children, Children::Fields { properties, .. } if properties.iter().any(|(n, ..)| n == name))
    }
}

struct Compiler<'a> {
    defs: &'a Map<String, Value>,
    nodes: Vec<Node>,
    /// Nodes already compiled, by the address of their schema (closes recursive types).
    seen: HashMap<*const Value, NodeId>,
}

impl<'a> Compiler<'a> {
    fn node(&mut self, schema: &'a Value) -> NodeId {
        let schema = resolve(schema, self.defs);
        if let Some(&id) = self.seen.get(&(schema as *const Value)) {
            return id;
        }
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX);
        self.seen.insert(schema as *const Value, id);
        self.nodes.push(Node { kind: Kind::Other, nullable: false, tokens: None, children: Children::None });
        let (declared, nullable) = self.declared(schema);
        let kind = match primary_type(declared) {
            Some("boolean") => Kind::Boolean,
            Some("integer") => Kind::Integer,
            Some("number") => Kind::Number,
            Some("string") => Kind::String,
            Some("array") => Kind::Array,
            Some("object") => Kind::Object,
            _ => Kind::Other,
        };
        let tokens = enum_tokens(declared, self.defs).map(|values| {
            let texts: Vec<String> = values.iter().map(token_text).collect();
            let expected = format!("one of: {}", texts.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", "));
            Tokens { values, texts, expected }
        });
        let children = match kind {
            Kind::Array => match (declared.get("prefixItems").and_then(Value::as_array), declared.get("items")) {
                (Some(prefix), _) => Children::Prefix(prefix.iter().map(|item| self.node(item)).collect()),
                (None, Some(items)) => Children::Items(self.node(items)),
                (None, None) => Children::None,
            },
            Kind::Object => {
                let required: Vec<&str> = match declared.get("required").and_then(Value::as_array) {
                    Some(names) => names.iter().filter_map(Value::as_str).collect(),
                    None => Vec::new(),
                };
                let properties = match declared.get("properties").and_then(Value::as_object) {
                    Some(properties) => properties
                        .iter()
                        .map(|(name, s)| (name.clone(), self.node(s), required.contains(&name.as_str())))
                        .collect(),
                    None => Vec::new(),
                };
                // A pattern that does not compile is ignored.
                let patterns = match declared.get("patternProperties").and_then(Value::as_object) {
                    Some(patterns) => patterns
                        .iter()
                        .filter_map(|(pattern, s)| Some((Regex::new(pattern).ok()?, s)))
                        .map(|(regex, s)| (regex, self.node(s)))
                        .collect(),
                    None => Vec::new(),
                };
                let additional = declared.get("additionalProperties").filter(|a| a.is_object()).map(|a| self.node(a));
                Children::Fields { properties, patterns, additional }
            }
            _ => Children::None,
        };
        self.nodes[id as usize] = Node { kind, nullable, tokens, children };
        id
    }

    /// Resolves references and a `null` alternative (`type: [T, "null"]`, `anyOf: [X, null]`).
    fn declared(&self, schema: &'a Value) -> (&'a Value, bool) {
        let schema = resolve(schema, self.defs);
        if let Some(Value::Array(types)) = schema.get("type") {
            if types.iter().any(|t| t == "null") {
                return (schema, true);
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                let non_null: Vec<&Value> =
                    branches.iter().filter(|b| !is_null_schema(resolve(b, self.defs))).collect();
                if non_null.len() + 1 == branches.len() && non_null.len() == 1 {
                    return (self.declared(non_null[0]).0, true);
                }
            }
        }
        if let Some(Value::Array(all)) = schema.get("allOf") {
            if all.len() == 1 {
                return self.declared(&all[0]);
            }
        }
        (schema, false)
    }
}
