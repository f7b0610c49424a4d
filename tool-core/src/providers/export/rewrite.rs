//! One node's keywords rewritten for the dialect: what it cannot say moved into the
//! description, said another way, or dropped.

use serde_json::{json, Map, Value};

use super::keywords::CONSTRAINTS;
use super::report::NoteAction;
use super::walk::Walk;
use super::words::{append_description, constraint_words, join_values, kind_words};
use crate::schema::shape::{integer_format_bounds, is_numeric_format};
use crate::wire::{Mark, Step};

/// The bounds of the Rust integer type a schemars format names that tell a model something:
/// both for 8- and 16-bit types, and being unsigned (minimum 0) for wider ones.
fn telling_bounds(format: &str) -> Option<(Option<i128>, Option<i128>)> {
    let telling = |bound: i128| (bound == 0 || bound.unsigned_abs() <= u128::from(u16::MAX)).then_some(bound);
    integer_format_bounds(format).map(|(low, high)| (telling(low), telling(high)))
}

impl Walk<'_> {
    /// `$schema`, `title` and custom keywords.
    pub(super) fn fixed_drops(&mut self, node: &mut Map<String, Value>, at: &str) {
        node.remove("$schema");
        if self.rules.allowed.is_none() || !self.takes("title") {
            node.remove("title");
        }
        if self.rules.drop_custom {
            let custom: Vec<String> = node.keys().filter(|k| k.starts_with("x-")).cloned().collect();
            for key in custom {
                node.remove(&key);
                self.note(at, &key, NoteAction::Dropped, "a custom keyword no provider reads");
            }
        }
    }

    /// `oneOf` as `anyOf`; `allOf` of one schema merged into the node.
    pub(super) fn combinators(&mut self, node: &mut Map<String, Value>, at: &str) {
        if self.rules.one_of_as_any_of {
            // schemars' `oneOf` branches exclude each other (tags, disjoint kinds), so `anyOf` means
            // the same: no note.
            if let Some(one_of) = node.remove("oneOf") {
                node.insert("anyOf".into(), one_of);
            }
        }
        let allows_all_of = self.takes("allOf");
        if let Some(Value::Array(parts)) = node.get("allOf").cloned()
            && parts.len() == 1
            && !allows_all_of
        {
            node.remove("allOf");
            if let Value::Object(part) = &parts[0] {
                for (key, value) in part {
                    node.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = node.get(keyword).cloned() {
                let walked: Vec<Value> = branches
                    .iter()
                    .enumerate()
                    .map(|(i, branch)| self.node(branch, &format!("{at}/{keyword}/{i}")))
                    .collect();
                node.insert(keyword.into(), Value::Array(walked));
            }
        }
    }

    /// schemars' `uint32`, `int64`, `double`...: their meaning kept as `minimum`/`maximum`,
    /// the format dropped.
    pub(super) fn numeric_format(&mut self, node: &mut Map<String, Value>) {
        let Some(format) = node.get("format").and_then(Value::as_str).map(str::to_owned) else { return };
        if !is_numeric_format(&format) {
            return;
        }
        node.remove("format");
        if let Some((low, high)) = telling_bounds(&format) {
            if let Some(low) = low
                && !node.contains_key("minimum")
                && !node.contains_key("exclusiveMinimum")
            {
                node.insert("minimum".into(), json!(low as i64));
            }
            if let Some(high) = high
                && !node.contains_key("maximum")
                && !node.contains_key("exclusiveMaximum")
            {
                node.insert("maximum".into(), json!(high as i64));
            }
        }
    }

    /// Null: `nullable: true` in the OpenAPI subset, else left as JSON Schema says it.
    pub(super) fn nullability(&mut self, node: &mut Map<String, Value>) {
        if !self.rules.openapi_nullable {
            return;
        }
        if let Some(Value::Array(types)) = node.get("type").cloned() {
            let others: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
            let nullable = others.len() < types.len();
            match others.as_slice() {
                [single] => {
                    node.insert("type".into(), single.clone());
                    if nullable {
                        node.insert("nullable".into(), Value::Bool(true));
                    }
                }
                _ => {
                    // Several types: one `anyOf` branch each.
                    node.remove("type");
                    let branches: Vec<Value> = others.iter().map(|t| json!({"type": t})).collect();
                    node.insert("anyOf".into(), Value::Array(branches));
                    if nullable {
                        node.insert("nullable".into(), Value::Bool(true));
                    }
                }
            }
        }
        if let Some(Value::Array(branches)) = node.get("anyOf").cloned() {
            // A branch walked already says null as `nullable: true` alone.
            let is_null = |b: &Value| {
                b.get("type").and_then(Value::as_str) == Some("null")
                    || (b.get("nullable") == Some(&Value::Bool(true)) && b.get("type").is_none())
            };
            let others: Vec<Value> = branches.iter().filter(|b| !is_null(b)).cloned().collect();
            if others.len() < branches.len() {
                node.insert("nullable".into(), Value::Bool(true));
                if let [single] = others.as_slice() {
                    node.remove("anyOf");
                    if let Value::Object(single) = single {
                        for (key, value) in single {
                            if key == "description" && node.contains_key("description") {
                                continue;
                            }
                            node.insert(key.clone(), value.clone());
                        }
                    }
                } else {
                    node.insert("anyOf".into(), Value::Array(others));
                }
            }
        }
        if node.get("type").and_then(Value::as_str) == Some("null") {
            node.remove("type");
            node.insert("nullable".into(), Value::Bool(true));
        }
    }

    /// `const` as a one-value `enum`; non-string enums where only strings are accepted.
    pub(super) fn constants(&mut self, node: &mut Map<String, Value>, at: &str, moved: &mut Vec<String>) {
        if self.rules.const_as_enum
            && let Some(value) = node.get("const").cloned()
            && (value.is_string() || !self.rules.string_enums)
        {
            node.remove("const");
            node.insert("enum".into(), json!([value]));
        }
        if self.rules.string_enums {
            if let Some(Value::Array(values)) = node.get("enum").cloned() {
                let values: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
                if values.iter().all(Value::is_string) {
                    node.insert("enum".into(), Value::Array(values));
                } else {
                    node.remove("enum");
                    let words = format!("one of {}", join_values(&values));
                    self.note(
                        at,
                        "enum",
                        NoteAction::MovedToDescription,
                        format!("only string values are accepted: \"{words}\" added to the description"),
                    );
                    moved.push(words);
                }
            }
            if let Some(value) = node.remove("const") {
                let words = format!("always {value}");
                self.note(at, "const", NoteAction::MovedToDescription, format!("\"{words}\" added to the description"));
                moved.push(words);
            }
        }
    }

    /// Keywords and formats the dialect does not take: into the description, or dropped.
    pub(super) fn keywords(&mut self, node: &mut Map<String, Value>, at: &str, moved: &mut Vec<String>) {
        if let Some(format) = node.get("format").and_then(Value::as_str).map(str::to_owned)
            && self.rules.formats.is_some_and(|formats| !formats.contains(&format.as_str()))
        {
            node.remove("format");
            let words = format!("format: {format}");
            self.note(at, "format", NoteAction::MovedToDescription, format!("\"{words}\" added to the description"));
            moved.push(words);
        }
        if self.rules.min_items_up_to_one
            && let Some(min) = node.get("minItems").and_then(Value::as_u64)
            && min > 1
        {
            node.remove("minItems");
            let words = format!("minItems: {min}");
            self.note(
                at,
                "minItems",
                NoteAction::MovedToDescription,
                format!("only 0 or 1 are accepted: \"{words}\" added to the description"),
            );
            moved.push(words);
        }
        let keys: Vec<String> = node.keys().cloned().collect();
        for key in keys {
            let always_moved = self.rules.into_description.contains(&key.as_str());
            if !always_moved && (self.takes(&key) || key == "nullable" && self.rules.openapi_nullable) {
                continue;
            }
            // Children are walked by the caller; these keywords are settled there.
            if matches!(key.as_str(), "prefixItems" | "additionalProperties" | "properties" | "items") {
                continue;
            }
            let Some(value) = node.remove(&key) else { continue };
            if (key == "exclusiveMinimum" || key == "exclusiveMaximum") && self.exclusive_bound(node, &key, &value) {
                continue;
            }
            if CONSTRAINTS.contains(&key.as_str()) {
                let words = constraint_words(&key, &value);
                self.note(at, &key, NoteAction::MovedToDescription, format!("\"{words}\" added to the description"));
                moved.push(words);
            } else {
                self.note(at, &key, NoteAction::Dropped, format!("{} does not accept `{key}`", self.dialect.label()));
            }
        }
    }

    /// An exclusive bound on an integer, said as the inclusive one it equals; whether it was.
    fn exclusive_bound(&mut self, node: &mut Map<String, Value>, key: &str, value: &Value) -> bool {
        let integer = node.get("type").and_then(Value::as_str) == Some("integer");
        let Some(bound) = value.as_i64() else { return false };
        let (inclusive, new) = if key == "exclusiveMinimum" {
            ("minimum", bound.saturating_add(1))
        } else {
            ("maximum", bound.saturating_sub(1))
        };
        if !integer || !self.takes(inclusive) || node.contains_key(inclusive) {
            return false;
        }
        // The same bound for integers: no note.
        node.insert(inclusive.into(), json!(new));
        true
    }

    /// `prefixItems` (a tuple): kept, or a list of the element kinds with its length.
    pub(super) fn tuple(&mut self, node: &mut Map<String, Value>, at: &str, moved: &mut Vec<String>) {
        let Some(Value::Array(items)) = node.remove("prefixItems") else { return };
        let walked: Vec<Value> = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.below(Step::Items, item, &format!("{at}/prefixItems/{i}")))
            .collect();
        if !self.rules.tuples_as_lists {
            node.insert("prefixItems".into(), Value::Array(walked));
            return;
        }
        let mut kinds: Vec<Value> = Vec::new();
        for item in &walked {
            if !kinds.contains(item) {
                kinds.push(item.clone());
            }
        }
        let same_kind = kinds.len() == 1;
        let items = if same_kind { kinds.remove(0) } else { json!({"anyOf": kinds}) };
        node.insert("items".into(), items);
        let takes_length = self.takes("maxItems") && self.takes("minItems") && !self.rules.min_items_up_to_one;
        if !(same_kind && takes_length) {
            // The positions matter, or the length cannot be said: the model is told in words.
            let kinds: Vec<String> = walked.iter().map(kind_words).collect();
            let words = format!("exactly {} items, in this order: {}", walked.len(), kinds.join(", "));
            self.note(
                at,
                "prefixItems",
                NoteAction::Rewritten,
                format!("a tuple sent as a list; \"{words}\" added to the description"),
            );
            moved.push(words);
        }
        let len = json!(walked.len());
        if self.takes("minItems") && !self.rules.min_items_up_to_one {
            node.insert("minItems".into(), len.clone());
        } else {
            node.remove("minItems");
        }
        if self.takes("maxItems") {
            node.insert("maxItems".into(), len);
        } else {
            node.remove("maxItems");
        }
    }

    /// Whether an object node below the root must go as JSON text: the dialect cannot declare
    /// a map, nor an object that takes keys beside its properties where every object is
    /// closed.
    pub(super) fn goes_as_text(&self, node: &Map<String, Value>, at: &str) -> bool {
        if !self.rules.free_form_as_text || at.is_empty() {
            return false;
        }
        match node.get("additionalProperties") {
            Some(Value::Object(_)) => true,
            Some(Value::Bool(true)) => self.rules.closed_objects || !node.contains_key("properties"),
            _ => false,
        }
    }

    /// A map the dialect cannot declare (strict modes close every object; Gemini refuses an
    /// object without properties).
    pub(super) fn map(&mut self, node: &mut Map<String, Value>, values: &Value, at: &str) {
        let words = format!("a JSON object as text, mapping names to {}", kind_words(values));
        self.as_json_text(node, at, "additionalProperties", "a map", &words);
    }

    /// A value of any type (`serde_json::Value`), which the dialect cannot declare.
    pub(super) fn free_value(&mut self, schema: &Value, at: &str) -> Value {
        let mut node = schema.as_object().cloned().unwrap_or_default();
        self.as_json_text(&mut node, at, "type", "a value of any type", "any JSON value, as JSON text");
        Value::Object(node)
    }

    /// The node becomes a string holding `what` as JSON text, said in its description and the
    /// report; the [`ArgumentMap`] records it, so that the call's text is decoded back before
    /// extraction.
    fn as_json_text(&mut self, node: &mut Map<String, Value>, at: &str, keyword: &str, what: &str, words: &str) {
        node.retain(|key, _| key == "description" || key == "nullable");
        node.insert("type".into(), "string".into());
        append_description(node, words);
        self.note(
            at,
            keyword,
            NoteAction::Rewritten,
            format!("{what} sent as JSON text: {} cannot declare one", self.dialect.label()),
        );
        self.mark(Mark::JsonText);
    }
}
