//! A tool's input schema compiled once into what conversion asks of it: per node, the declared
//! kind, whether `null` is allowed, the allowed tokens, and the nodes of its elements and
//! fields. References (`$ref`) are resolved at compile time, recursive types included, so
//! converting a value costs no schema lookups.
//!
//! The reading of the schema is the one [`crate::extract::convert`] documents: `$ref`s and a `null`
//! alternative (`type: [T, "null"]`, `anyOf: [X, null]`, a single `allOf`) are set aside, the
//! kind is the schema's one non-null `type`, and tokens come from `enum`, `const`, or
//! `oneOf`/`anyOf` branches that are each one token. An object's fields are its `properties`,
//! then its `patternProperties` (maps with integer keys: `^\d+$`), then its
//! `additionalProperties`. An enum with data is a `oneOf` whose branches say how serde tags the
//! variant (see [`Variants`]); conversion descends into the variant a value names.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

use crate::schema::shape::{enum_tokens, is_null_schema, primary_type, resolve, token_text};

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
    /// An enum with data, as serde tags it (see [`Variants`]): a token or an object, by the variant.
    Enum,
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

impl Tokens {
    fn new(values: Vec<Value>) -> Tokens {
        let texts: Vec<String> = values.iter().map(token_text).collect();
        let expected = format!("one of: {}", texts.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", "));
        Tokens { values, texts, expected }
    }
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
    /// `closed` when the object takes no key beyond its `properties` (a struct: serde would drop
    /// any other key), not when it declares `additionalProperties` (`true` or a schema) or
    /// `patternProperties`, nor when it declares no `properties` at all (a free-form object).
    Fields {
        properties: Vec<(String, NodeId, bool)>,
        patterns: Vec<(Regex, NodeId)>,
        additional: Option<NodeId>,
        closed: bool,
    },
    /// An enum's variants (boxed: most nodes have none, and a node stays small).
    Variants(Box<Variants>),
    /// The value is converted by one of `candidates`, which a value beside it picks (a field of
    /// an internally or adjacently tagged enum: the tag picks the variant). The tree path knows
    /// the tag; the single pass does not keep it, so it takes such a value as it is only when no
    /// candidate would change it, and otherwise leaves the call to the tree path. The values
    /// inside it have the node `inner`: deferred with no candidates (its own `inner`), never
    /// converted by the single pass.
    Deferred { candidates: Vec<NodeId>, inner: NodeId },
}

impl Children {
    /// The node of the field `key` of an object: a declared property, else the first pattern
    /// the name matches, else the node of any other field.
    pub(crate) fn field(&self, key: &str) -> Option<NodeId> {
        let Children::Fields { properties, patterns, additional, .. } = self else { return None };
        match properties.iter().find(|(name, ..)| name == key) {
            Some((_, id, _)) => Some(*id),
            None => patterns.iter().find(|(pattern, _)| pattern.is_match(key)).map(|(_, id)| *id).or(*additional),
        }
    }
}

/// An enum with data, as schemars writes serde's tagging: a `oneOf` whose branches are
///
/// * externally tagged (serde's default): a unit variant is its name as a token (`"asap"`), a
///   data variant an object whose one key is its name (`{"within": {"hours": 4}}`);
/// * internally or adjacently tagged (`#[serde(tag = "type")]`, with `content = "c"`): each
///   variant an object whose field `tag` holds its name (`{"type": "within", "hours": 4}`,
///   `{"t": "within", "c": {"hours": 4}}`).
///
/// Untagged enums (`anyOf`) are not variants: which branch a value is would be a guess.
#[derive(Debug)]
pub(crate) struct Variants {
    /// Every variant's name, as the tokens a name is converted by (the case rule of enum tokens).
    pub names: Tokens,
    pub tag: Tag,
    /// Each variant that has a node, by name: for external tagging the node of a data variant's
    /// content, for a tag field the node of the whole object.
    pub nodes: Vec<(String, NodeId)>,
}

/// Where an enum's value names its variant.
#[derive(Debug)]
pub(crate) enum Tag {
    /// The token itself, or the one key of the object.
    External,
    /// The field `name` (its node: a string whose tokens are the names). The other fields are
    /// converted by the named variant's node, so theirs is deferred: `fields` for the fields a
    /// variant declares, `other` for any other.
    Field { name: String, node: NodeId, fields: Vec<(String, NodeId)>, other: NodeId },
}

impl Variants {
    /// The node of a variant, by its exact name.
    pub(crate) fn variant(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().find(|(n, _)| n == name).map(|(_, id)| *id)
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
    /// The node of the field `key`, when this node is an object conversion descends into: an
    /// object's field, an externally tagged variant's content (`key` is its name), a tag field,
    /// or a deferred node (see [`Children::Deferred`]).
    pub(crate) fn field(&self, key: &str) -> Option<NodeId> {
        match &self.children {
            fields @ Children::Fields { .. } if self.kind == Kind::Object && self.tokens.is_none() => fields.field(key),
            Children::Variants(variants) => match &variants.tag {
                // An externally tagged variant's content is under its name.
                Tag::External => variants.variant(key),
                Tag::Field { name, node, .. } if name == key => Some(*node),
                Tag::Field { fields, other, .. } => {
                    Some(fields.iter().find(|(name, _)| name == key).map_or(*other, |(_, id)| *id))
                }
            },
            Children::Deferred { inner, .. } => Some(*inner),
            _ => None,
        }
    }

    /// The node of element `index`, when this node is a list conversion descends into.
    pub(crate) fn element(&self, index: usize) -> Option<NodeId> {
        if let Children::Deferred { inner, .. } = self.children {
            return Some(inner);
        }
        if self.kind != Kind::Array || self.tokens.is_some() {
            return None;
        }
        match &self.children {
            Children::Items(id) => Some(*id),
            Children::Prefix(ids) => ids.get(index).copied(),
            _ => None,
        }
    }

    /// The names of the fields this object declares, when it takes no other key (see
    /// [`Children::Fields`]).
    pub(crate) fn closed_fields(&self) -> Option<Vec<&str>> {
        match &self.children {
            Children::Fields { properties, .. } if self.closed() => {
                Some(properties.iter().map(|(name, ..)| name.as_str()).collect())
            }
            _ => None,
        }
    }

    /// Whether this object takes no key beyond the fields it declares (see [`Children::Fields`]).
    pub(crate) fn closed(&self) -> bool {
        self.kind == Kind::Object
            && self.tokens.is_none()
            && matches!(self.children, Children::Fields { closed: true, .. })
    }

    /// Whether conversion could change a value of this node at all.
    pub(crate) fn converts(&self) -> bool {
        self.nullable || self.tokens.is_some() || self.kind != Kind::Other || self.deferred()
    }

    /// Whether the node of this value depends on a value beside it (see [`Children::Deferred`]).
    pub(crate) fn deferred(&self) -> bool {
        matches!(self.children, Children::Deferred { .. })
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
        let mut compiler = Compiler { defs, nodes: Vec::new(), seen: HashMap::new(), deferred: None };
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
    /// The [`Children::Deferred`] node without candidates, once an enum needs it.
    deferred: Option<NodeId>,
}

impl<'a> Compiler<'a> {
    fn node(&mut self, schema: &'a Value) -> NodeId {
        let schema = resolve(schema, self.defs);
        if let Some(&id) = self.seen.get(&(schema as *const Value)) {
            return id;
        }
        let id = self.push();
        self.seen.insert(schema as *const Value, id);
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
        let tokens = enum_tokens(declared, self.defs).map(Tokens::new);
        let (kind, children) = match kind {
            Kind::Array => {
                let children = match (declared.get("prefixItems").and_then(Value::as_array), declared.get("items")) {
                    (Some(prefix), _) => Children::Prefix(prefix.iter().map(|item| self.node(item)).collect()),
                    (None, Some(items)) => Children::Items(self.node(items)),
                    (None, None) => Children::None,
                };
                (kind, children)
            }
            Kind::Object => (kind, self.fields(&[declared])),
            Kind::Other if tokens.is_none() => match self.variants(declared) {
                Some(variants) => (Kind::Enum, Children::Variants(Box::new(variants))),
                None => (kind, Children::None),
            },
            _ => (kind, Children::None),
        };
        self.nodes[id as usize] = Node { kind, nullable, tokens, children };
        id
    }

    /// A new node, filled in by the caller.
    fn push(&mut self) -> NodeId {
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX);
        self.nodes.push(Node { kind: Kind::Other, nullable: false, tokens: None, children: Children::None });
        id
    }

    /// The fields of an object whose keywords are in `parts` (the first declaring a field wins).
    fn fields(&mut self, parts: &[&'a Value]) -> Children {
        let required: Vec<&str> = parts
            .iter()
            .filter_map(|part| part.get("required")?.as_array())
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut properties: Vec<(String, NodeId, bool)> = Vec::new();
        let mut patterns = Vec::new();
        let mut additional = None;
        for part in parts {
            for (name, s) in part.get("properties").and_then(Value::as_object).into_iter().flatten() {
                if !properties.iter().any(|(n, ..)| n == name) {
                    properties.push((name.clone(), self.node(s), required.contains(&name.as_str())));
                }
            }
            // A pattern that does not compile is ignored.
            for (pattern, s) in part.get("patternProperties").and_then(Value::as_object).into_iter().flatten() {
                if let Ok(regex) = Regex::new(pattern) {
                    patterns.push((regex, self.node(s)));
                }
            }
            if additional.is_none() {
                additional = part.get("additionalProperties").filter(|a| a.is_object()).map(|a| self.node(a));
            }
        }
        let declares = parts.iter().any(|part| part.get("properties").is_some_and(Value::is_object));
        let open = parts.iter().any(|part| {
            part.get("patternProperties").is_some()
                || matches!(part.get("additionalProperties"), Some(Value::Bool(true) | Value::Object(_)))
        });
        Children::Fields { properties, patterns, additional, closed: declares && !open }
    }

    /// The variants of an enum with data, when `schema` is one (see [`Variants`]).
    fn variants(&mut self, schema: &'a Value) -> Option<Variants> {
        let branches: Vec<&'a Value> = schema.get("oneOf")?.as_array()?.iter().map(|b| self.own(b)).collect();
        if let Some((name, names)) = tag_field(&branches, self.defs) {
            let values: Vec<Value> = names.into_iter().map(Value::String).collect();
            // The tag field: a string, one of the names.
            let node = self.push();
            self.nodes[node as usize].kind = Kind::String;
            self.nodes[node as usize].tokens = Some(Tokens::new(values.clone()));
            let names = Tokens::new(values);
            let nodes: Vec<(String, NodeId)> =
                names.texts.iter().cloned().zip(&branches).map(|(n, b)| (n, self.branch(b))).collect();
            // Every other field a variant declares, with the nodes the variants convert it by.
            let other = self.unpicked();
            let mut fields: Vec<(String, NodeId)> = Vec::new();
            for (_, branch) in &nodes {
                let Children::Fields { properties, .. } = &self.nodes[*branch as usize].children else { continue };
                let declared: Vec<String> = properties.iter().map(|(field, ..)| field.clone()).collect();
                for field in declared {
                    if field == name || fields.iter().any(|(f, _)| *f == field) {
                        continue;
                    }
                    let candidates =
                        nodes.iter().filter_map(|(_, b)| self.nodes[*b as usize].children.field(&field)).collect();
                    let id = self.push();
                    self.nodes[id as usize].children = Children::Deferred { candidates, inner: other };
                    fields.push((field, id));
                }
            }
            return Some(Variants { names, tag: Tag::Field { name, node, fields, other }, nodes });
        }
        let (names, data) = external(&branches, self.defs)?;
        let nodes = data.into_iter().map(|(name, content)| (name, self.node(content))).collect();
        Some(Variants { names: Tokens::new(names.into_iter().map(Value::String).collect()), tag: Tag::External, nodes })
    }

    /// The deferred node without candidates (see [`Children::Deferred`]).
    fn unpicked(&mut self) -> NodeId {
        if let Some(id) = self.deferred {
            return id;
        }
        let id = self.push();
        self.nodes[id as usize].children = Children::Deferred { candidates: Vec::new(), inner: id };
        *self.deferred.insert(id)
    }

    /// A branch's own keywords: the branch itself when it declares properties (beside a `$ref`,
    /// as schemars writes an internally tagged newtype variant), else what it refers to.
    fn own(&self, branch: &'a Value) -> &'a Value {
        if branch.get("properties").is_some() {
            branch
        } else {
            resolve(branch, self.defs)
        }
    }

    /// The node of a tagged variant's object: its own fields, then those of the type its `$ref`
    /// names (an internally tagged newtype variant: `{"properties": {"type": ...}, "$ref": ...}`).
    fn branch(&mut self, branch: &'a Value) -> NodeId {
        if branch.get("$ref").is_none() {
            return self.node(branch);
        }
        let target = self.declared(resolve(branch, self.defs)).0;
        let id = self.push();
        let children = self.fields(&[branch, target]);
        self.nodes[id as usize] = Node { kind: Kind::Object, nullable: false, tokens: None, children };
        id
    }

    /// Resolves references and a `null` alternative (`type: [T, "null"]`, `anyOf: [X, null]`).
    fn declared(&self, schema: &'a Value) -> (&'a Value, bool) {
        let schema = resolve(schema, self.defs);
        if let Some(Value::Array(types)) = schema.get("type")
            && types.iter().any(|t| t == "null")
        {
            return (schema, true);
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
        if let Some(Value::Array(all)) = schema.get("allOf")
            && all.len() == 1
        {
            return self.declared(&all[0]);
        }
        (schema, false)
    }
}

/// The field every branch names its variant in, with each branch's name (in branch order):
/// a required property that is one string constant in every branch, a different one in each.
fn tag_field(branches: &[&Value], defs: &Map<String, Value>) -> Option<(String, Vec<String>)> {
    let candidates = branches.first()?.get("properties")?.as_object()?;
    'candidates: for candidate in candidates.keys() {
        let mut names: Vec<String> = Vec::with_capacity(branches.len());
        for branch in branches {
            let required = branch.get("required").and_then(Value::as_array);
            let name = branch.get("properties").and_then(|p| p.get(candidate)).and_then(|s| string_constant(s, defs));
            match name {
                Some(name)
                    if primary_type(branch) == Some("object")
                        && required.is_some_and(|r| r.iter().any(|n| n == candidate.as_str()))
                        && !names.iter().any(|n| n == name) =>
                {
                    names.push(name.to_owned());
                }
                _ => continue 'candidates,
            }
        }
        return Some((candidate.clone(), names));
    }
    None
}

/// The unit variants' names and the data variants' (name, content schema), when every branch is
/// either string tokens or an object with one required property and no other; at least one is.
#[allow(clippy::type_complexity)]
fn external<'a>(branches: &[&'a Value], defs: &Map<String, Value>) -> Option<(Vec<String>, Vec<(String, &'a Value)>)> {
    let mut names: Vec<String> = Vec::new();
    let mut data = Vec::new();
    for branch in branches {
        if let Some(tokens) = enum_tokens(branch, defs) {
            for token in tokens {
                names.push(token.as_str()?.to_owned());
            }
            continue;
        }
        let properties = branch.get("properties")?.as_object()?;
        let mut properties = properties.iter();
        let ((name, content), None) = (properties.next()?, properties.next()) else { return None };
        let required = branch.get("required")?.as_array()?;
        if primary_type(branch) != Some("object")
            || branch.get("additionalProperties") != Some(&Value::Bool(false))
            || !required.iter().any(|r| r == name.as_str())
        {
            return None;
        }
        names.push(name.clone());
        data.push((name.clone(), content));
    }
    // Each name says one variant.
    let unique = names.iter().enumerate().all(|(i, name)| !names[..i].contains(name));
    (!data.is_empty() && unique).then_some((names, data))
}

/// The one string a schema allows (`const`, or an `enum` of one).
fn string_constant<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> Option<&'a str> {
    let schema = resolve(schema, defs);
    match (schema.get("const"), schema.get("enum").and_then(Value::as_array).map(Vec::as_slice)) {
        (Some(Value::String(name)), _) => Some(name),
        (None, Some([Value::String(name)])) => Some(name),
        _ => None,
    }
}
