//! Calls as a provider sent them, back in the declared form.
//!
//! An export sends some tools under another name (a provider refuses the dot of
//! `memory.search`) and some arguments other than declared (a property name the provider
//! refuses, a value it cannot declare sent as JSON text). [`NameMap`] keeps both, per tool, so
//! that a call that comes back reads as declared ([`NameMap::restore`]); the executor runs a
//! call as a provider sent it through it (`Executor::execute_with_names`). Users name these
//! types as `providers::names::{NameMap, ArgumentMap}`: they sit this low so that the executor
//! can use them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::pointer;
use crate::model::rules;
use crate::model::{received_text, ParseWarning, ToolCallRequest};

/// Which of our tool names go out under another name, and back; and per tool, how its
/// arguments went out ([`ArgumentMap`]).
///
/// Built by an export; hand it to the call parsers (or to
/// [`Executor::execute_with_names`](crate::Executor::execute_with_names)) so that calls come
/// back under the names the catalog knows, with the arguments in their declared form. Names it
/// does not hold map to themselves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NameMap {
    /// Our name to the provider's.
    to_wire: BTreeMap<String, String>,
    /// The provider's name to ours.
    to_tool: BTreeMap<String, String>,
    /// Per tool (our name), how its arguments went out, when not as declared.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    arguments: BTreeMap<String, ArgumentMap>,
    /// Tools sent inside a namespace (the Responses API's `namespace` tools): per namespace,
    /// the name inside it to ours. Calls come back as the namespace and that name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    namespaced: BTreeMap<String, BTreeMap<String, String>>,
}

impl NameMap {
    /// A map that renames nothing.
    pub fn identity() -> Self {
        NameMap::default()
    }

    /// Records that `tool` goes out as `wire` (an export does this; hosts that export by hand can too).
    pub fn insert(&mut self, tool: &str, wire: &str) {
        if tool != wire {
            self.to_wire.insert(tool.to_owned(), wire.to_owned());
            self.to_tool.insert(wire.to_owned(), tool.to_owned());
        }
    }

    /// The name the provider sees for our tool `tool`.
    pub fn wire_name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.to_wire.get(tool).map_or(tool, String::as_str)
    }

    /// Our tool name for the name `wire` a provider sent back.
    pub fn tool_name<'a>(&'a self, wire: &'a str) -> &'a str {
        self.to_tool.get(wire).map_or(wire, String::as_str)
    }

    /// Whether nothing is changed: no tool renamed or sent inside a namespace, no arguments
    /// sent other than declared.
    pub fn is_empty(&self) -> bool {
        self.to_wire.is_empty() && self.arguments.is_empty() && self.namespaced.is_empty()
    }

    /// Records that `tool` goes out inside the namespace `namespace` as `wire` (the Responses
    /// API's `{"type":"namespace"}` tools; a call to it comes back as `namespace` and `wire`).
    pub fn insert_namespaced(&mut self, tool: &str, namespace: &str, wire: &str) {
        self.namespaced.entry(namespace.to_owned()).or_default().insert(wire.to_owned(), tool.to_owned());
    }

    /// Our tool name for a call that came back as `wire` in `namespace` (when the provider
    /// named one): the tool sent there under that name, else [`tool_name`](Self::tool_name)
    /// of `wire` (the Responses API also names a top-level function's own name as its
    /// namespace).
    pub fn namespaced_tool_name<'a>(&'a self, namespace: Option<&str>, wire: &'a str) -> &'a str {
        namespace
            .and_then(|namespace| self.namespaced.get(namespace))
            .and_then(|names| names.get(wire))
            .map_or_else(|| self.tool_name(wire), String::as_str)
    }

    /// The namespace and the name inside it that `tool` (our name) goes out as, if it goes
    /// out inside a namespace.
    pub fn namespace_of(&self, tool: &str) -> Option<(&str, &str)> {
        self.namespaced.iter().find_map(|(namespace, names)| {
            names.iter().find(|(_, ours)| *ours == tool).map(|(wire, _)| (namespace.as_str(), wire.as_str()))
        })
    }

    /// The renamed tools: (our name, the provider's name), in our names' order.
    pub fn renamed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.to_wire.iter().map(|(tool, wire)| (tool.as_str(), wire.as_str()))
    }

    /// How the arguments of `tool` (our name) went out, when not as declared.
    pub fn arguments(&self, tool: &str) -> Option<&ArgumentMap> {
        self.arguments.get(tool)
    }

    /// Records how the arguments of `tool` (our name) went out; an empty map is not kept.
    pub fn insert_arguments(&mut self, tool: &str, arguments: ArgumentMap) {
        if arguments.is_empty() {
            self.arguments.remove(tool);
        } else {
            self.arguments.insert(tool.to_owned(), arguments);
        }
    }

    /// Turns a call as the provider sent it into the declared form: the tool under our name,
    /// and, for a tool whose arguments went out other than declared, the arguments with the
    /// declared property names and the JSON text decoded, in `request.arguments` (the executor
    /// reads the values from there). `raw_arguments` stays as the provider sent it.
    ///
    /// A request that already has `arguments`, or a `parse_error`, keeps them; arguments text
    /// that is no object even once repaired is left to extraction to report. Applying it twice
    /// changes nothing more.
    pub fn restore(&self, request: &mut ToolCallRequest) {
        let tool = self.tool_name(&request.tool_name);
        if tool != request.tool_name {
            request.tool_name = tool.to_owned();
        }
        let Some(map) = self.arguments.get(&request.tool_name) else { return };
        if request.arguments.is_some() || request.parse_error.is_some() {
            return;
        }
        let Ok(repaired) = crate::extract::repair::repair_arguments(&request.raw_arguments) else { return };
        let mut arguments = Value::Object(repaired.value);
        request.parse_warnings.extend(repaired.warnings);
        map.restore(&mut arguments, &mut request.parse_warnings);
        request.arguments = Some(arguments);
    }
}

/// How one tool's arguments went out, for reading a call back in the declared form: the
/// property names sent in place of the declared ones, and the places whose value went out as
/// JSON text, at any depth (struct fields, list elements, map values, union branches,
/// definitions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArgumentMap {
    root: WireNode,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    defs: BTreeMap<String, WireNode>,
}

/// One place of the schema: what changed there, and below.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
struct WireNode {
    /// The value went out as JSON text.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    json_text: bool,
    /// The provider's property name to the declared one.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    renamed: BTreeMap<String, String>,
    /// Below each declared property.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    properties: BTreeMap<String, WireNode>,
    /// Below each list element.
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Box<WireNode>>,
    /// Below each map value.
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Box<WireNode>>,
    /// The definitions this place is (a `$ref` kept by the dialect).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    refs: BTreeSet<String>,
}

/// One step from a place of the schema to a place below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// The declared property.
    Property(String),
    /// A list element (`items`, a tuple's `prefixItems`).
    Items,
    /// A map value (`additionalProperties`).
    Values,
}

/// What the export did at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mark {
    /// The object's property `declared` went out as `wire`.
    Renamed { wire: String, declared: String },
    /// The value went out as JSON text.
    JsonText,
    /// The place is the definition `name`, kept as a `$ref`.
    Ref(String),
}

/// How deep restoring descends; `serde_json` parses no deeper.
const MAX_RESTORE_DEPTH: usize = 128;

impl ArgumentMap {
    /// Whether the arguments went out as declared.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty() && self.root == WireNode::default()
    }

    /// Records what the export did at `steps` below the root, or below the definition `def`.
    pub(crate) fn record(&mut self, def: Option<&str>, steps: &[Step], mark: Mark) {
        let mut node = match def {
            Some(name) => self.defs.entry(name.to_owned()).or_default(),
            None => &mut self.root,
        };
        for step in steps {
            node = match step {
                Step::Property(key) => node.properties.entry(key.clone()).or_default(),
                Step::Items => node.items.get_or_insert_with(Box::default),
                Step::Values => node.values.get_or_insert_with(Box::default),
            };
        }
        match mark {
            Mark::Renamed { wire, declared } => {
                node.renamed.insert(wire, declared);
            }
            Mark::JsonText => node.json_text = true,
            Mark::Ref(name) => {
                node.refs.insert(name);
            }
        }
    }

    /// Drops the definitions no place refers to, and the references to definitions that
    /// changed nothing.
    pub(crate) fn prune(&mut self) {
        fn keep(node: &mut WireNode, changed: &BTreeSet<String>) -> bool {
            node.refs.retain(|name| changed.contains(name));
            node.properties.retain(|_, child| keep(child, changed));
            if node.items.as_deref_mut().is_some_and(|child| !keep(child, changed)) {
                node.items = None;
            }
            if node.values.as_deref_mut().is_some_and(|child| !keep(child, changed)) {
                node.values = None;
            }
            *node != WireNode::default()
        }
        // A definition that only refers to definitions that change nothing changes nothing:
        // repeat until no more drop out.
        loop {
            let before: BTreeSet<String> = self.defs.keys().cloned().collect();
            let mut defs = std::mem::take(&mut self.defs);
            defs.retain(|_, node| keep(node, &before));
            self.defs = defs;
            if self.defs.len() == before.len() {
                break;
            }
        }
        let names: BTreeSet<String> = self.defs.keys().cloned().collect();
        keep(&mut self.root, &names);
    }

    /// Turns `arguments` as the provider sent them into the declared form: property names
    /// mapped back, JSON text decoded. JSON text that is not JSON stays a string, with the
    /// warning `json_text_undecoded`.
    pub fn restore(&self, arguments: &mut Value, warnings: &mut Vec<ParseWarning>) {
        let mut pointer = String::new();
        self.restore_at(&[&self.root], arguments, &mut pointer, warnings, 0);
    }

    /// `nodes`: every description of this place (union branches and definitions merged).
    fn restore_at(
        &self,
        nodes: &[&WireNode],
        value: &mut Value,
        pointer: &mut String,
        warnings: &mut Vec<ParseWarning>,
        depth: usize,
    ) {
        let mut all = Vec::new();
        let mut seen = BTreeSet::new();
        for node in nodes {
            self.expand(node, &mut all, &mut seen);
        }
        if all.is_empty() || depth > MAX_RESTORE_DEPTH {
            return;
        }
        if all.iter().any(|node| node.json_text) {
            if let Value::String(text) = value {
                match serde_json::from_str::<Value>(text) {
                    Ok(decoded) => *value = decoded,
                    Err(_) => warnings.push(ParseWarning::new(
                        pointer,
                        rules::JSON_TEXT_UNDECODED,
                        "JSON text",
                        &received_text(&Value::String(text.clone())),
                        "kept as a string: the value went out as JSON text, and this text is not JSON",
                    )),
                }
            }
            // Inside the text the model wrote the declared form: nothing more to map.
            return;
        }
        match value {
            Value::Object(object) => {
                let entries = std::mem::take(object);
                let sent: BTreeSet<String> = entries.keys().cloned().collect();
                let mut restored = Map::with_capacity(entries.len());
                for (key, mut child) in entries {
                    let declared = all.iter().find_map(|node| node.renamed.get(&key)).cloned();
                    // A declared name the model also sent as it is keeps its own value.
                    let name = match declared {
                        Some(declared) if !sent.contains(&declared) => declared,
                        _ => key,
                    };
                    let below: Vec<&WireNode> =
                        all.iter().filter_map(|node| node.properties.get(&name).or(node.values.as_deref())).collect();
                    if !below.is_empty() {
                        let len = pointer.len();
                        pointer::push(pointer, &name);
                        self.restore_at(&below, &mut child, pointer, warnings, depth + 1);
                        pointer.truncate(len);
                    }
                    restored.insert(name, child);
                }
                *object = restored;
            }
            Value::Array(elements) => {
                let below: Vec<&WireNode> = all.iter().filter_map(|node| node.items.as_deref()).collect();
                if below.is_empty() {
                    return;
                }
                for (i, element) in elements.iter_mut().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    self.restore_at(&below, element, pointer, warnings, depth + 1);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// `arguments` in the declared form as the provider receives them: the export's renamed
    /// property names in place of the declared ones, and the places that go out as JSON text
    /// written as JSON text. What [`restore`](Self::restore) undoes; an export sends a tool's
    /// examples through it, so that an example shows the form the model must write.
    pub(crate) fn to_wire(&self, arguments: &Value) -> Value {
        self.to_wire_at(&[&self.root], arguments, 0)
    }

    /// `nodes`: every description of this place (union branches and definitions merged).
    fn to_wire_at(&self, nodes: &[&WireNode], value: &Value, depth: usize) -> Value {
        let mut all = Vec::new();
        let mut seen = BTreeSet::new();
        for node in nodes {
            self.expand(node, &mut all, &mut seen);
        }
        if all.is_empty() || depth > MAX_RESTORE_DEPTH {
            return value.clone();
        }
        if all.iter().any(|node| node.json_text) {
            return Value::String(value.to_string());
        }
        match value {
            Value::Object(object) => {
                let mut out = Map::with_capacity(object.len());
                for (name, child) in object {
                    let wire = all
                        .iter()
                        .find_map(|node| node.renamed.iter().find(|(_, declared)| *declared == name))
                        .map_or(name, |(wire, _)| wire);
                    let below: Vec<&WireNode> =
                        all.iter().filter_map(|node| node.properties.get(name).or(node.values.as_deref())).collect();
                    let child =
                        if below.is_empty() { child.clone() } else { self.to_wire_at(&below, child, depth + 1) };
                    out.insert(wire.clone(), child);
                }
                Value::Object(out)
            }
            Value::Array(elements) => {
                let below: Vec<&WireNode> = all.iter().filter_map(|node| node.items.as_deref()).collect();
                if below.is_empty() {
                    return value.clone();
                }
                Value::Array(elements.iter().map(|element| self.to_wire_at(&below, element, depth + 1)).collect())
            }
            _ => value.clone(),
        }
    }

    /// `node` and the definitions it refers to, each once.
    fn expand<'a>(&'a self, node: &'a WireNode, out: &mut Vec<&'a WireNode>, seen: &mut BTreeSet<&'a str>) {
        out.push(node);
        for name in &node.refs {
            if seen.insert(name.as_str())
                && let Some(def) = self.defs.get(name)
            {
                self.expand(def, out, seen);
            }
        }
    }
}
