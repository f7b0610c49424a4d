//! Definitions: hoisted to the root's `$defs`, and which ones recurse or are reachable.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::model::pointer;

/// The schema with every definition at the root's `$defs` (O7: OpenAI refuses nested `$defs`;
/// schemas from MCP servers and other generators nest them, or use draft-07's `definitions`),
/// and every `$ref` rewritten to point there. A name met twice gets a `_2`, `_3`... suffix.
pub(super) fn hoist_defs(schema: &Value) -> Value {
    let mut found = Vec::new();
    collect_defs(schema, "", &mut found);
    if found.iter().all(|(pointer, ..)| pointer.starts_with("#/$defs/") && !pointer["#/$defs/".len()..].contains('/')) {
        return schema.clone();
    }
    let mut defs = Map::new();
    let mut targets = BTreeMap::new();
    // Root definitions keep their names; nested ones take the next free one.
    found.sort_by_key(|(pointer, ..)| !pointer.starts_with("#/$defs/"));
    for (pointer, name, def) in &found {
        let mut unique = name.clone();
        let mut n = 2;
        while defs.contains_key(&unique) {
            unique = format!("{name}_{n}");
            n += 1;
        }
        defs.insert(unique.clone(), def.clone());
        targets.insert(pointer.clone(), format!("#/$defs/{}", pointer::escape(&unique)));
    }
    // A `#/$defs/X` that only a nested definition answers (generators that nest the definitions
    // and refer to them from the root) points to it.
    for (pointer, name, _) in &found {
        let root = format!("#/$defs/{}", pointer::escape(name));
        if !targets.contains_key(&root) {
            let target = targets[pointer].clone();
            targets.insert(root, target);
        }
    }
    let mut out = schema.clone();
    rewrite_refs(&mut out, &targets);
    for def in defs.values_mut() {
        rewrite_refs(def, &targets);
    }
    if let Value::Object(map) = &mut out {
        map.insert("$defs".into(), Value::Object(defs));
    }
    out
}

/// Every definition (`$defs` or `definitions`, at any depth): its pointer as a `$ref`, its name, itself.
fn collect_defs(node: &Value, at: &str, found: &mut Vec<(String, String, Value)>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                let child = pointer::child(at, key);
                match value {
                    Value::Object(defs) if key == "$defs" || key == "definitions" => {
                        for (name, def) in defs {
                            let place = pointer::child(&child, name);
                            found.push((format!("#{place}"), name.clone(), def.clone()));
                            collect_defs(def, &place, found);
                        }
                    }
                    _ => collect_defs(value, &child, found),
                }
            }
        }
        Value::Array(values) => {
            for (i, value) in values.iter().enumerate() {
                collect_defs(value, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

/// Drops every `$defs`/`definitions` and points each `$ref` in `targets` at its new place.
fn rewrite_refs(node: &mut Value, targets: &BTreeMap<String, String>) {
    match node {
        Value::Object(map) => {
            map.remove("$defs");
            map.remove("definitions");
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(target) if key == "$ref" => {
                        if let Some(new) = targets.get(target.as_str()) {
                            *target = new.clone();
                        }
                    }
                    other => rewrite_refs(other, targets),
                }
            }
        }
        Value::Array(values) => values.iter_mut().for_each(|v| rewrite_refs(v, targets)),
        _ => {}
    }
}

/// Definitions that reach themselves through `$ref`s.
pub(super) fn recursive_defs(defs: &Map<String, Value>) -> BTreeSet<String> {
    let edges: BTreeMap<&str, BTreeSet<String>> =
        defs.iter().map(|(name, def)| (name.as_str(), refs_in(def))).collect();
    let mut recursive = BTreeSet::new();
    for start in defs.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<String> = edges.get(start.as_str()).into_iter().flatten().cloned().collect();
        while let Some(next) = stack.pop() {
            if next == *start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(next.clone()) {
                stack.extend(edges.get(next.as_str()).into_iter().flatten().cloned());
            }
        }
    }
    recursive
}

/// The definition names a schema refers to (`#/$defs/Name`).
fn refs_in(schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_refs(schema, &mut out);
    out
}

fn collect_refs(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "$ref" {
                    if let Some(name) = value.as_str().and_then(|t| t.strip_prefix("#/$defs/")) {
                        out.insert(name.to_owned());
                    }
                } else {
                    collect_refs(value, out);
                }
            }
        }
        Value::Array(values) => values.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The definitions reachable from `root` (through other definitions too).
pub(super) fn referenced(root: &Value, defs: &Map<String, Value>) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut stack: Vec<String> = refs_in(root).into_iter().collect();
    while let Some(name) = stack.pop() {
        if used.insert(name.clone())
            && let Some(def) = defs.get(&name)
        {
            stack.extend(refs_in(def));
        }
    }
    used
}
