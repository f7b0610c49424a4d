//! The walk over one tool's schema: nodes, references, properties, definitions.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::defs::{recursive_defs, referenced};
use super::dialect::{Refs, Rules};
use super::node::{accepts_null, is_free, is_object_node};
use super::report::{ConversionNote, ExportProblem, NoteAction};
use super::words::{append_description, capitalise};
use crate::model::pointer;
use crate::providers::dialect::Dialect;
use crate::wire::{ArgumentMap, Mark, Step};

/// How deep a schema may nest, and how many nodes its export may walk (definitions written out
/// in place count each time).
const MAX_DEPTH: usize = 64;
const MAX_NODES: usize = 20_000;

/// The walk over one tool's schema.
pub(super) struct Walk<'d> {
    pub(super) dialect: Dialect,
    pub(super) rules: Rules,
    tool: &'d str,
    /// The root's `$defs`, for resolving.
    defs: Map<String, Value>,
    /// Definitions that reach themselves through `$ref`s.
    recursive: BTreeSet<String>,
    /// Definitions being inlined, outermost first (for [`Refs::Inline`]).
    inlining: Vec<String>,
    /// Nodes walked so far, and how deep the walk is: a schema from outside (an MCP server) may
    /// nest without end or multiply when written out in place; past the limits it is an error.
    walked: usize,
    depth: usize,
    pub(super) notes: Vec<ConversionNote>,
    pub(super) problems: Vec<ExportProblem>,
    /// Where the walk is, as steps from the root or from the definition `def`: where an
    /// [`ArgumentMap`] entry goes.
    trail: Vec<Step>,
    def: Option<String>,
    pub(super) arguments: ArgumentMap,
}

impl<'d> Walk<'d> {
    pub(super) fn new(dialect: Dialect, rules: Rules, tool: &'d str, input: &Value) -> Self {
        let defs = input.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
        let recursive = recursive_defs(&defs);
        Walk {
            dialect,
            rules,
            tool,
            defs,
            recursive,
            inlining: Vec::new(),
            walked: 0,
            depth: 0,
            notes: Vec::new(),
            problems: Vec::new(),
            trail: Vec::new(),
            def: None,
            arguments: ArgumentMap::default(),
        }
    }

    /// Records in the tool's [`ArgumentMap`] what was done where the walk is.
    pub(super) fn mark(&mut self, mark: Mark) {
        self.arguments.record(self.def.as_deref(), &self.trail, mark);
    }

    /// Walks `schema` one `step` below where the walk is.
    pub(super) fn below(&mut self, step: Step, schema: &Value, at: &str) -> Value {
        self.trail.push(step);
        let out = self.node(schema, at);
        self.trail.pop();
        out
    }

    pub(super) fn takes(&self, keyword: &str) -> bool {
        self.rules.allowed.is_none_or(|lists| lists.iter().any(|list| list.contains(&keyword)))
    }

    pub(super) fn note(&mut self, pointer: &str, keyword: &str, action: NoteAction, detail: impl Into<String>) {
        self.notes.push(ConversionNote {
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            action,
            detail: detail.into(),
        });
    }

    pub(super) fn inexpressible(&mut self, pointer: &str, construct: impl Into<String>) {
        self.problems.push(ExportProblem::Inexpressible {
            tool: self.tool.to_owned(),
            dialect: self.dialect.label(),
            pointer: pointer.to_owned(),
            construct: construct.into(),
        });
    }

    /// The tool's input schema in the dialect.
    pub(super) fn root(&mut self, schema: &Value) -> Value {
        let Some(map) = schema.as_object() else {
            self.inexpressible("", "a schema that is not an object");
            return Value::Null;
        };
        let mut body = map.clone();
        body.remove("$defs");
        let dialect = body.remove("$schema").filter(|_| self.rules.keeps_dialect);
        body.remove("title");
        if self.rules.no_recursion
            && let Some(name) = self.recursive.iter().next().cloned()
        {
            self.inexpressible(&format!("/$defs/{name}"), format!("the recursive type `{name}`"));
        }
        let mut out = self.node(&Value::Object(body), "");
        if self.rules.refs != Refs::Inline {
            let mut defs = Map::new();
            for (name, def) in self.defs.clone() {
                self.def = Some(name.clone());
                let converted = self.node(&def, &pointer::child("/$defs", &name));
                defs.insert(name, converted);
            }
            self.def = None;
            // Only the definitions still referred to (merging `$ref` siblings may inline some).
            let used = referenced(&out, &defs);
            defs.retain(|name, _| used.contains(name));
            if let (Value::Object(map), false) = (&mut out, defs.is_empty()) {
                map.insert("$defs".into(), Value::Object(defs));
            }
        }
        if let Value::Object(map) = &mut out
            && map.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty)
            && !self.rules.all_required
        {
            map.remove("required");
        }
        if let (Some(dialect), Value::Object(map)) = (dialect, &mut out) {
            map.insert("$schema".into(), dialect);
        }
        out
    }

    /// An MCP output schema: its root must be an object, so any other is wrapped as `result`.
    pub(super) fn output(&mut self, schema: &Value) -> Value {
        let is_object = !mcp_wraps_output(schema);
        let mut defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut body = schema.as_object().cloned().unwrap_or_default();
        body.remove("$defs");
        body.remove("$schema");
        body.remove("title");
        // Output schemas describe what the tool returns: nothing comes back through them.
        let arguments = std::mem::take(&mut self.arguments);
        let saved = std::mem::replace(&mut self.defs, defs.clone());
        let converted = self.node(&Value::Object(body), "");
        for (name, def) in defs.iter_mut() {
            *def = self.node(def, &pointer::child("/$defs", name));
        }
        self.defs = saved;
        self.arguments = arguments;
        let mut out = if is_object {
            converted
        } else {
            json!({"type": "object", "properties": {"result": converted}, "required": ["result"]})
        };
        if let (Value::Object(map), false) = (&mut out, defs.is_empty()) {
            map.insert("$defs".into(), Value::Object(defs));
        }
        out
    }

    /// One schema node: its keywords filtered and rewritten for the dialect, its children walked.
    pub(super) fn node(&mut self, schema: &Value, at: &str) -> Value {
        self.walked += 1;
        if self.depth >= MAX_DEPTH || self.walked > MAX_NODES {
            // Said once: the walk stops descending from here on.
            if !self.problems.iter().any(
                |p| matches!(p, ExportProblem::Inexpressible { construct, .. } if construct.starts_with("a schema")),
            ) {
                self.inexpressible(
                    at,
                    format!(
                        "a schema deeper than {MAX_DEPTH} levels or larger than {MAX_NODES} nodes once written out"
                    ),
                );
            }
            return Value::Null;
        }
        self.depth += 1;
        let out = self.node_within_limits(schema, at);
        self.depth -= 1;
        out
    }

    fn node_within_limits(&mut self, schema: &Value, at: &str) -> Value {
        if is_free(schema) && self.rules.free_form_as_text {
            if !at.is_empty() {
                return self.free_value(schema, at);
            }
            if self.rules.closed_objects {
                self.inexpressible(at, "a value of any type (strict mode needs every shape declared)");
            }
        }
        let Some(source) = schema.as_object() else { return schema.clone() };
        let mut node = source.clone();

        if let Some(target) = node.get("$ref").and_then(Value::as_str).map(str::to_owned)
            && let Some(done) = self.reference(&mut node, &target, at)
        {
            return done;
        }

        let mut moved: Vec<String> = Vec::new();
        self.fixed_drops(&mut node, at);
        self.combinators(&mut node, at);
        self.numeric_format(&mut node);
        self.nullability(&mut node);
        self.constants(&mut node, at, &mut moved);
        self.keywords(&mut node, at, &mut moved);

        if self.goes_as_text(&node, at) {
            let values = node.get("additionalProperties").cloned().unwrap_or(Value::Bool(true));
            self.map(&mut node, &values, at);
            return Value::Object(node);
        }

        // Children.
        if let Some(Value::Object(properties)) = node.get("properties").cloned() {
            self.properties(&mut node, &properties, at);
        }
        if let Some(items) = node.get("items").cloned()
            && (items.is_object() || items == Value::Bool(true))
        {
            node.insert("items".into(), self.below(Step::Items, &items, &format!("{at}/items")));
        }
        if node.contains_key("prefixItems") {
            self.tuple(&mut node, at, &mut moved);
        }
        match node.get("additionalProperties").cloned() {
            Some(values @ Value::Object(_)) if self.takes("additionalProperties") && !self.rules.free_form_as_text => {
                let walked = self.below(Step::Values, &values, &format!("{at}/additionalProperties"));
                node.insert("additionalProperties".into(), walked);
            }
            Some(Value::Bool(false)) if self.takes("additionalProperties") => {}
            Some(Value::Bool(false)) => {
                node.remove("additionalProperties");
            }
            Some(_) if self.rules.closed_objects || !self.takes("additionalProperties") => {
                node.remove("additionalProperties");
                self.note(
                    at,
                    "additionalProperties",
                    NoteAction::Dropped,
                    format!(
                        "{} does not accept other keys here; unknown keys are dropped with a warning at call time",
                        self.dialect.label()
                    ),
                );
            }
            _ => {}
        }
        if self.rules.closed_objects && is_object_node(&node) && !node.contains_key("additionalProperties") {
            node.insert("additionalProperties".into(), Value::Bool(false));
        }
        if self.rules.all_required && is_object_node(&node) {
            self.all_required(&mut node);
        }
        if !moved.is_empty() {
            append_description(&mut node, &moved.join("; "));
        }
        Value::Object(node)
    }

    /// A `$ref` node: kept, merged with its siblings, or inlined. `Some` when it is done.
    fn reference(&mut self, node: &mut Map<String, Value>, target: &str, at: &str) -> Option<Value> {
        let name = target.strip_prefix("#/$defs/").map(str::to_owned);
        let siblings: Vec<String> = node.keys().filter(|k| *k != "$ref").cloned().collect();
        let keep = match self.rules.refs {
            Refs::Keep => true,
            Refs::NoSiblings => siblings.is_empty(),
            Refs::DollarSiblings => siblings.iter().all(|k| k.starts_with('$')),
            Refs::Inline => false,
        };
        if keep {
            if let Some(name) = name {
                self.mark(Mark::Ref(name));
            }
            if siblings.is_empty() {
                return Some(Value::Object(node.clone()));
            }
            // The siblings (a field's description, default...) get the keyword rules; the
            // definition itself is walked under `$defs`.
            let mut moved = Vec::new();
            self.fixed_drops(node, at);
            self.keywords(node, at, &mut moved);
            if !moved.is_empty() {
                append_description(node, &moved.join("; "));
            }
            return Some(Value::Object(node.clone()));
        }
        let Some(name) = name else {
            self.inexpressible(at, format!("the reference `{target}`"));
            return Some(Value::Object(node.clone()));
        };
        let Some(def) = self.defs.get(&name).and_then(Value::as_object).cloned() else {
            self.inexpressible(at, format!("the unresolved reference `{target}`"));
            return Some(Value::Object(node.clone()));
        };
        if self.rules.refs == Refs::Inline && self.inlining.contains(&name) {
            // Recursion: one level down it travels as JSON text (an object without properties
            // is refused), which extraction parses back by the declared type.
            let description = def.get("description").and_then(Value::as_str).unwrap_or_default();
            let words = format!("a `{name}` as JSON text, with the same fields as the enclosing `{name}`");
            let words = if description.is_empty() { capitalise(&words) } else { format!("{description} ({words})") };
            self.note(
                at,
                "$ref",
                NoteAction::Rewritten,
                format!("recursion into `{name}` cut: one level down it is sent as JSON text"),
            );
            self.mark(Mark::JsonText);
            let mut cut = Map::new();
            cut.insert("type".into(), "string".into());
            cut.insert("description".into(), words.into());
            if let Some(nullable) = node.get("nullable") {
                cut.insert("nullable".into(), nullable.clone());
            }
            return Some(Value::Object(cut));
        }
        node.remove("$ref");
        let mut merged = def.clone();
        // The place's own keywords win over the definition's (a field's description over the type's).
        for (key, value) in node.iter() {
            merged.insert(key.clone(), value.clone());
        }
        // Writing a definition out in place loses nothing: no note.
        if self.rules.refs == Refs::Inline {
            self.inlining.push(name.clone());
        }
        let out = self.node(&Value::Object(merged), at);
        if self.rules.refs == Refs::Inline {
            self.inlining.pop();
        }
        Some(out)
    }

    /// The properties walked, each under a name the provider accepts; `required` and
    /// `propertyOrdering` follow the names.
    fn properties(&mut self, node: &mut Map<String, Value>, properties: &Map<String, Value>, at: &str) {
        let mut out = Map::new();
        // The provider's name to the declared one.
        let mut sent: BTreeMap<String, String> = BTreeMap::new();
        for (key, value) in properties {
            let child = format!("{at}/properties/{}", pointer::escape(key));
            let walked = self.below(Step::Property(key.clone()), value, &child);
            let wire = self.property_name(key, &child);
            if let Some(first) = sent.get(&wire) {
                self.problems.push(ExportProblem::PropertyCollision {
                    tool: self.tool.to_owned(),
                    pointer: at.to_owned(),
                    first: first.clone(),
                    second: key.clone(),
                    wire,
                    dialect: self.dialect.label(),
                });
                continue;
            }
            sent.insert(wire.clone(), key.clone());
            out.insert(wire, walked);
        }
        let renamed: BTreeMap<&str, &str> =
            sent.iter().filter(|(wire, key)| wire != key).map(|(wire, key)| (key.as_str(), wire.as_str())).collect();
        if !renamed.is_empty() {
            for list in ["required", "propertyOrdering"] {
                if let Some(Value::Array(names)) = node.get_mut(list) {
                    for name in names.iter_mut() {
                        if let Some(wire) = name.as_str().and_then(|key| renamed.get(key)) {
                            *name = Value::from(*wire);
                        }
                    }
                }
            }
        }
        node.insert("properties".into(), Value::Object(out));
    }

    /// OpenAI strict: every property required; the optional ones accept null instead.
    fn all_required(&mut self, node: &mut Map<String, Value>) {
        let required: BTreeSet<String> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        let Some(Value::Object(properties)) = node.get_mut("properties") else {
            node.insert("properties".into(), json!({}));
            node.insert("required".into(), json!([]));
            return;
        };
        let mut all = Vec::new();
        for (key, schema) in properties.iter_mut() {
            all.push(Value::String(key.clone()));
            if !required.contains(key) && !accepts_null(schema) {
                let mut inner = std::mem::take(schema);
                let description = inner.as_object_mut().and_then(|m| m.remove("description"));
                let mut wrapper = Map::new();
                if let Some(description) = description {
                    wrapper.insert("description".into(), description);
                }
                wrapper.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                *schema = Value::Object(wrapper);
            }
        }
        node.insert("required".into(), Value::Array(all));
    }

    /// The name property `key` (at `pointer`) goes out under: itself, or one the provider
    /// accepts, noted and recorded so that calls come back under `key`.
    fn property_name(&mut self, key: &str, pointer: &str) -> String {
        let Some(rule) = self.rules.property_names.filter(|rule| !rule.accepts(key)) else {
            return key.to_owned();
        };
        let wire = rule.wire_name(key);
        self.note(
            pointer,
            "properties",
            NoteAction::Rewritten,
            format!(
                "the property name `{key}` sent as `{wire}`: {} does not accept it; calls come back under `{key}`",
                self.dialect.label()
            ),
        );
        self.mark(Mark::Renamed { wire: wire.clone(), declared: key.to_owned() });
        wire
    }
}

/// Whether a tool's output schema goes to MCP wrapped as `{"result": ..}`: MCP wants an object
/// root, so a schema that does not declare one is wrapped, and so is every structured result
/// of that tool (whatever its value), to match.
pub(crate) fn mcp_wraps_output(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) != Some("object")
}
