//! The walk over a value by its schema node: whole arguments objects (the tree path), one value
//! (the single pass), wrappers around the arguments, keys in the wrong case, nulls for absent
//! fields, lists, objects and enums with data.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::json_text::{decode_text, write_decoded};
use super::scalar::{push_json, scalar_change, token_change, Change, Composite, Token};
use super::text::{texts_capacity, write_texts};
use crate::extract::keys::{folded_name, unknown_key};
use crate::model::pointer;
use crate::model::rules;
use crate::model::ToolParameter;
use crate::model::{ArgumentError, ParseWarning};
use crate::schema::plan::{Children, Kind, NodeId, Plan, Tag, Tokens, Variants};

/// What conversion did: the warnings for what it changed, and, under the strict policy, the
/// errors for what it would have changed.
#[derive(Default)]
pub(crate) struct Converted {
    pub warnings: Vec<ParseWarning>,
    pub refused: Vec<ArgumentError>,
}

/// Converts the top-level parameters of `object` by the compiled schema, in the order they
/// arrived. With `strict`, nothing is changed: each conversion that would have applied is
/// refused (so is any conversion inside a parameter declared `strict`).
pub(crate) fn coerce_arguments(
    object: &mut Map<String, Value>,
    plan: &Plan,
    parameters: &[ToolParameter],
    strict: bool,
) -> Converted {
    let mut coercer = Coercer { plan, path: String::new(), strict, out: Converted::default() };
    coercer.unwrap_wrapper(object);
    // Arguments that take any key (a runtime-built tool's `additionalProperties`) keep them as
    // they came. A refused rename is reported once, as that (the caller skips it among the
    // unknown keys).
    if plan.node(Plan::ROOT).closed() {
        let names: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
        coercer.normalize_names(object, &names);
    }
    if let Children::Fields { properties, .. } = &plan.node(Plan::ROOT).children {
        let optional = |key: &str| {
            properties.iter().find(|(name, ..)| name == key).filter(|(.., required)| !required).map(|(_, id, _)| *id)
        };
        let strict_of = |key: &str| strict || parameters.iter().any(|p| p.name == key && p.strict);
        coercer.nulls_as_absent(object, optional, strict_of);
    }
    let declared: Vec<(String, NodeId)> =
        object.keys().filter_map(|name| plan.parameter(name).map(|id| (name.clone(), id))).collect();
    for (name, node) in declared {
        if let Some(value) = object.get_mut(&name) {
            let parameter = parameters.iter().find(|p| p.name == name);
            let case_sensitive = parameter.and_then(|p| p.enum_constraint.as_ref()).is_some_and(|e| e.case_sensitive);
            coercer.strict = strict || parameter.is_some_and(|p| p.strict);
            coercer.enter(&name);
            coercer.value(value, node, case_sensitive);
            coercer.leave();
        }
    }
    coercer.out
}

/// Converts one value the single pass met at `pointer` (schema node `node`), exactly as
/// [`coerce_arguments`] converts it in the tree; the warnings are appended to `warnings`.
pub(crate) fn convert_node(
    plan: &Plan,
    node: NodeId,
    pointer: String,
    value: &mut Value,
    (strict, case_sensitive): (bool, bool),
    warnings: Vec<ParseWarning>,
) -> Converted {
    let out = Converted { warnings, refused: Vec::new() };
    let mut coercer = Coercer { plan, path: pointer, strict, out };
    coercer.value(value, node, case_sensitive);
    coercer.out
}

/// Whether the single pass may take a value met at a deferred node as it is: when no node the
/// tree path could pick for it would change it (see [`Children::Deferred`]). The value is left
/// changed when it may not.
pub(crate) fn settled(plan: &Plan, node: NodeId, value: &mut Value) -> bool {
    let Children::Deferred { candidates, .. } = &plan.node(node).children else { return false };
    !candidates.is_empty()
        && candidates.iter().all(|&candidate| {
            let out = Converted::default();
            let mut coercer = Coercer { plan, path: String::new(), strict: false, out };
            // As in the tree: a parameter's case sensitivity does not reach an object's fields.
            coercer.value(value, candidate, false);
            coercer.out.warnings.is_empty()
        })
}

/// What a wrapped arguments object should have been: the expectation of `wrapper_unwrapped`.
const WRAPPER_KEYS_HINT: &str = "the parameters at the top level";

struct Coercer<'a> {
    plan: &'a Plan,
    /// The JSON pointer of the value being converted.
    path: String,
    /// Refuse conversions instead of applying them.
    strict: bool,
    out: Converted,
}

impl<'a> Coercer<'a> {
    fn enter(&mut self, segment: &str) {
        pointer::push(&mut self.path, segment);
    }

    fn leave(&mut self) {
        let cut = self.path.rfind('/').unwrap_or(0);
        self.path.truncate(cut);
    }

    /// Replaces `value` with `new` and records the warning; under the strict policy leaves it
    /// and records the refusal instead. Returns whether the value was replaced.
    fn apply(
        &mut self,
        value: &mut Value,
        new: Value,
        rule: &'static str,
        expected: impl Into<Cow<'static, str>>,
        verb: &str,
    ) -> bool {
        let capacity = texts_capacity(if let Value::String(text) = &*value { Some(text.as_str()) } else { None });
        let received = |out: &mut String| push_json(out, value);
        let action = |out: &mut String| {
            out.push_str(verb);
            out.push(' ');
            push_json(out, &new);
        };
        if !self.record(rule, expected.into(), capacity, |out| write_texts(out, received, action)) {
            return false;
        }
        *value = new;
        true
    }

    /// Records the warning for a change at the current path, its texts written after the
    /// pointer by `texts` (in a string of `capacity` more bytes); under the strict policy the
    /// refusal instead. Returns whether the change applies.
    fn record(
        &mut self,
        rule: &'static str,
        expected: Cow<'static, str>,
        capacity: usize,
        texts: impl FnOnce(&mut String) -> [usize; 2],
    ) -> bool {
        let at = pointer::cut(&self.path);
        let mut out = String::with_capacity(at.len() + capacity);
        out.push_str(&at);
        let splits = texts(&mut out);
        let warning = ParseWarning::from_texts(out, splits, rule, expected);
        if self.strict {
            self.out.refused.push(refusal(&warning));
            return false;
        }
        self.out.warnings.push(warning);
        true
    }

    /// `{"arguments": {...}}`, `{"_": {...}}`, or a call's envelope `{"name": "search",
    /// "arguments": {...}}`: when no key is declared and exactly one of them holds an object
    /// (or JSON text of one) with only declared parameters, that object is the real arguments.
    /// The other keys are named in the warning's action, as dropped.
    fn unwrap_wrapper(&mut self, object: &mut Map<String, Value>) {
        if object.is_empty() || object.keys().any(|key| self.plan.declares(key)) {
            return;
        }
        let fits = |inner: &Value| {
            let inner_object = match inner {
                Value::Object(map) => Some(map.clone()),
                Value::String(text) => match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(map)) => Some(map),
                    _ => None,
                },
                _ => None,
            };
            inner_object.filter(|map| !map.is_empty() && map.keys().all(|k| self.plan.declares(k)))
        };
        let mut fitting = object.iter().filter_map(|(key, inner)| fits(inner).map(|map| (key, map)));
        let (Some((key, inner_object)), None) = (fitting.next(), fitting.next()) else { return };
        let key = key.clone();
        let dropped: Vec<String> = object.keys().filter(|k| **k != key).map(|k| format!("`{k}`")).collect();
        let verb = if dropped.is_empty() {
            "used as the arguments:".to_owned()
        } else {
            format!("dropped {}; used as the arguments:", dropped.join(", "))
        };
        self.enter(&key);
        let mut whole = Value::Object(std::mem::take(object));
        let unwrapped = Value::Object(inner_object);
        self.apply(&mut whole, unwrapped, rules::WRAPPER_UNWRAPPED, WRAPPER_KEYS_HINT, &verb);
        self.leave();
        if let Value::Object(map) = whole {
            *object = map;
        }
    }

    /// Keys that name a declared parameter but for case and separators (`max_bytes`, `MaxBytes`
    /// or `max-bytes` for `maxBytes`) are read as that parameter, when exactly one parameter
    /// matches and it did not also arrive under its own name.
    ///
    /// Returns the keys whose rename the strict policy refused.
    fn normalize_names<'n>(&mut self, object: &mut Map<String, Value>, names: &[&'n str]) -> HashSet<String> {
        let renames: Vec<(String, &'n str)> = object
            .keys()
            .filter(|key| !names.contains(&key.as_str()))
            .filter_map(|key| {
                let name = folded_name(key, names.iter().copied()).filter(|name| !object.contains_key(*name))?;
                Some((key.clone(), name))
            })
            .collect();
        // Two keys for one parameter (`MaxBytes` and `max_bytes`): neither is renamed.
        let mut keys_for: HashMap<&str, usize> = HashMap::new();
        for (_, name) in &renames {
            *keys_for.entry(name).or_default() += 1;
        }
        let renames: Vec<(String, &'n str)> =
            renames.iter().filter(|(_, name)| keys_for.get(name) == Some(&1)).cloned().collect();
        if renames.is_empty() {
            return HashSet::new();
        }
        let (mut applied, mut refused) = (HashMap::new(), HashSet::new());
        for (key, name) in &renames {
            self.enter(key);
            let expected = format!("the declared name `{name}`");
            let renamed =
                self.record(rules::PARAMETER_NAME_NORMALIZED, expected.into(), key.len() + name.len() + 16, |out| {
                    let received = |out: &mut String| {
                        out.push('`');
                        out.push_str(key);
                        out.push('`');
                    };
                    let action = |out: &mut String| {
                        out.push_str("read as `");
                        out.push_str(name);
                        out.push('`');
                    };
                    write_texts(out, received, action)
                });
            self.leave();
            if renamed {
                applied.insert(key.as_str(), *name);
            } else {
                refused.insert(key.clone());
            }
        }
        if !applied.is_empty() {
            *object = std::mem::take(object)
                .into_iter()
                .map(|(key, value)| match applied.get(key.as_str()) {
                    Some(name) => ((*name).to_owned(), value),
                    None => (key, value),
                })
                .collect();
        }
        refused
    }

    fn value(&mut self, value: &mut Value, id: NodeId, case_sensitive: bool) {
        let plan = self.plan;
        if let Some(token) = Token::of(value) {
            match scalar_change(plan, id, &token, case_sensitive) {
                Ok(Some(change)) => return self.apply_change(value, change),
                Ok(None) => return,
                Err(Composite) => {}
            }
        }
        let node = plan.node(id);
        if value.is_null() || node.tokens.is_some() {
            return;
        }
        match node.kind {
            Kind::Array => self.array(value, &node.children, case_sensitive),
            Kind::Object => self.object(value, &node.children),
            Kind::Enum => {
                if let Children::Variants(variants) = &node.children {
                    self.variants(value, variants, case_sensitive);
                }
            }
            _ => {}
        }
    }

    /// Converts a scalar `value` to one of `tokens` (see [`token_change`]).
    fn enum_token(&mut self, value: &mut Value, tokens: &Tokens, case_sensitive: bool) {
        let change = Token::of(value).and_then(|token| token_change(tokens, &token, case_sensitive));
        if let Some(change) = change {
            self.apply_change(value, change);
        }
    }

    /// Applies a scalar's `change` to `value`, as [`Coercer::apply`] does.
    fn apply_change(&mut self, value: &mut Value, change: Change<'_>) {
        let Some(token) = Token::of(value) else { return };
        let capacity = token.texts_capacity();
        if self.record(change.rule, change.expected.clone(), capacity, |out| change.write(&token, out)) {
            *value = change.new.into_value();
        }
    }

    fn array(&mut self, value: &mut Value, children: &Children, case_sensitive: bool) {
        match value {
            Value::Array(_) => {}
            Value::String(text) => match decode_text(text) {
                Some(decoded @ Value::Array(_)) => {
                    if !self.decoded(value, decoded) {
                        return;
                    }
                }
                _ => {
                    if !self.wrap(value) {
                        return;
                    }
                }
            },
            Value::Object(_) | Value::Number(_) | Value::Bool(_) => {
                if !self.wrap(value) {
                    return;
                }
            }
            Value::Null => return,
        }
        let Value::Array(items) = value else { return };
        let mut index = String::new();
        for (i, item) in items.iter_mut().enumerate() {
            let item_node = match children {
                Children::Items(id) => *id,
                Children::Prefix(ids) => match ids.get(i) {
                    Some(id) => *id,
                    None => break,
                },
                _ => break,
            };
            index.clear();
            index.push_str(itoa::Buffer::new().format(i));
            self.enter(&index);
            self.value(item, item_node, case_sensitive);
            self.leave();
        }
    }

    /// Replaces JSON text with the `decoded` value, as [`Coercer::apply`] does.
    fn decoded(&mut self, value: &mut Value, decoded: Value) -> bool {
        let Value::String(text) = value else { return false };
        let expected = if decoded.is_array() { "an array" } else { "an object" };
        let capacity = Token::Text(text).texts_capacity();
        if !self.record(rules::JSON_STRING_DECODED, Cow::Borrowed(expected), capacity, |out| write_decoded(text, out)) {
            return false;
        }
        *value = decoded;
        true
    }

    fn wrap(&mut self, value: &mut Value) -> bool {
        let wrapped = Value::Array(vec![value.clone()]);
        self.apply(value, wrapped, rules::SCALAR_WRAPPED, "an array", "wrapped in a one-element list:")
    }

    /// Whether the value is an object, once JSON text inside a string is decoded.
    fn decoded_object(&mut self, value: &mut Value) -> bool {
        if let Value::String(text) = value {
            match decode_text(text) {
                Some(decoded @ Value::Object(_)) => return self.decoded(value, decoded),
                _ => return false,
            }
        }
        value.is_object()
    }

    /// An object's fields, converted in the order they arrived. Where the object declares its
    /// fields (a struct, not a map), a key that names one but for case and separators is read as
    /// it, and any other key is dropped (the type would drop it silently), each with a warning.
    fn object(&mut self, value: &mut Value, children: &Children) {
        if !self.decoded_object(value) {
            return;
        }
        let Value::Object(map) = value else { return };
        let Children::Fields { properties, closed, .. } = children else { return };
        let names: Vec<&str> =
            if *closed { properties.iter().map(|(name, ..)| name.as_str()).collect() } else { Vec::new() };
        // A key whose rename the strict policy refused is reported once, as that.
        let refused = if *closed { self.normalize_names(map, &names) } else { HashSet::new() };
        let optional = |key: &str| {
            properties.iter().find(|(name, ..)| name == key).filter(|(.., required)| !required).map(|(_, id, _)| *id)
        };
        let strict = self.strict;
        self.nulls_as_absent(map, optional, |_| strict);
        // One pass that converts the fields and drops the unknown keys, in the order they
        // arrived (removing keys one at a time would move the rest of the map each time).
        map.retain(|key, field| match children.field(key) {
            Some(node) => {
                self.enter(key);
                self.value(field, node, false);
                self.leave();
                true
            }
            None => !(*closed && !refused.contains(key.as_str()) && self.unknown_field(key, &names)),
        });
    }

    /// Records the warning for the key `key` the object at the current path does not declare
    /// (or, under the strict policy, the refusal). Returns whether the key is dropped.
    fn unknown_field(&mut self, key: &str, declared: &[&str]) -> bool {
        self.enter(key);
        let warning = unknown_key(&pointer::cut(&self.path), key, declared, "fields");
        self.leave();
        if self.strict {
            self.out.refused.push(refusal(&warning));
            return false;
        }
        self.out.warnings.push(warning);
        true
    }
}

impl Coercer<'_> {
    /// An enum with data: converted by the variant it names (see [`Variants`]). A variant's name
    /// is a token of the enum, converted at the enum's place whether it arrives as the value or
    /// as the one key of an external tag's object (the single pass reads both the same way).
    fn variants(&mut self, value: &mut Value, variants: &Variants, case_sensitive: bool) {
        let plan = self.plan;
        match &variants.tag {
            Tag::External => {
                if !value.is_object() {
                    self.enum_token(value, &variants.names, case_sensitive);
                    if variants.names.values.contains(value) || !self.decoded_object(value) {
                        return;
                    }
                }
                let Value::Object(map) = value else { return };
                let Some(key) = map.keys().next().filter(|_| map.len() == 1).cloned() else { return };
                let mut name = Value::String(key.clone());
                self.enum_token(&mut name, &variants.names, case_sensitive);
                let Value::String(name) = name else { return };
                if name != key
                    && let Some(content) = map.remove(&key)
                {
                    map.insert(name.clone(), content);
                }
                if let (Some(node), Some(content)) = (variants.variant(&name), map.get_mut(&name)) {
                    self.enter(&name);
                    self.value(content, node, false);
                    self.leave();
                }
            }
            Tag::Field { name: tag, node: tag_node, .. } => {
                if !self.decoded_object(value) {
                    return;
                }
                let Value::Object(map) = value else { return };
                if let Some(tag_value) = map.get_mut(tag) {
                    self.enter(tag);
                    self.value(tag_value, *tag_node, false);
                    self.leave();
                }
                let variant = map.get(tag).and_then(Value::as_str).and_then(|name| variants.variant(name));
                if let Some(node) = variant {
                    self.object(value, &plan.node(node).children);
                }
            }
        }
    }

    /// `null` for an optional field whose type has no null (a defaulted parameter, a
    /// `#[serde(default)]` field): the field is read as absent, so its default applies. OpenAI's
    /// strict mode makes every field required and the optional ones nullable, so this is how
    /// such a model leaves a field out.
    fn nulls_as_absent(
        &mut self,
        map: &mut Map<String, Value>,
        optional: impl Fn(&str) -> Option<NodeId>,
        strict_of: impl Fn(&str) -> bool,
    ) {
        let plan = self.plan;
        let absent: Vec<String> = map
            .iter()
            .filter(|(key, value)| {
                value.is_null()
                    && optional(key).is_some_and(|id| !plan.node(id).nullable && plan.node(id).kind != Kind::Other)
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in absent {
            self.enter(&key);
            let action = "removed the field: it is optional, so it is read as absent and its default applies";
            let texts = |out: &mut String| write_texts(out, |out| out.push_str("null"), |out| out.push_str(action));
            let expected = Cow::Borrowed("a value, or the field left out");
            let strict = std::mem::replace(&mut self.strict, strict_of(&key));
            if self.record(rules::NULL_AS_ABSENT, expected, 4 + action.len(), texts) {
                map.remove(&key);
            }
            self.strict = strict;
            self.leave();
        }
    }
}

/// Under the strict policy, the change lenient extraction would have made (its `warning`), as
/// an error that says so.
#[cold]
pub(crate) fn refusal(warning: &ParseWarning) -> ArgumentError {
    ArgumentError {
        pointer: warning.pointer().to_owned(),
        rule: warning.rule().to_owned(),
        expected: warning.expected().to_owned(),
        received: Some(warning.received().to_owned()),
        detail: format!("refused by the strict policy; lenient extraction would have {}", warning.action()),
    }
}
