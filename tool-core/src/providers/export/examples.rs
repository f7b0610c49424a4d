//! A tool's whole-call examples in an export: sent natively where the dialect takes them
//! (Anthropic's `input_examples`), else written into the description, in the form the provider
//! receives the arguments in.

use serde_json::Value;

use super::limits::description_limit;
use super::report::{ConversionNote, NoteAction};
use crate::model::ToolDefinition;
use crate::providers::dialect::Dialect;
use crate::wire::ArgumentMap;

/// Where an export puts a tool's examples ([`ToolDefinition::examples`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExamplePlacement {
    /// In the dialect's own field where it has one (Anthropic's `input_examples`), else
    /// appended to the description as a line `Examples: {...}; {...}` (the default).
    #[default]
    NativeWherePossible,
    /// Appended to the description in every dialect, Anthropic's too.
    InDescription,
    /// Not sent.
    Never,
}

/// What a tool's examples became in one dialect.
pub(super) struct Placed {
    /// The examples for the dialect's own field, when it gets them there.
    pub(super) native: Option<Vec<Value>>,
    /// The description, with the examples appended when they go there.
    pub(super) description: String,
    /// What the model sees differently from the declaration.
    pub(super) notes: Vec<ConversionNote>,
}

/// Places the examples of `definition` for `dialect`: at most
/// [`ToolDefinition::MAX_EXAMPLES`], each a JSON object of at most
/// [`ToolDefinition::MAX_EXAMPLE_BYTES`] (a catalog refuses the others; a definition exported
/// without a catalog has them left out here), mapped as `arguments` maps the arguments.
pub(super) fn place(
    dialect: Dialect,
    placement: ExamplePlacement,
    definition: &ToolDefinition,
    arguments: &ArgumentMap,
    parameters: &Value,
) -> Placed {
    let mut placed = Placed { native: None, description: definition.description.clone(), notes: Vec::new() };
    if placement == ExamplePlacement::Never || definition.examples.is_empty() {
        return placed;
    }
    let mut kept = Vec::new();
    for (i, example) in definition.examples.iter().enumerate() {
        if i == ToolDefinition::MAX_EXAMPLES {
            placed.notes.push(dropped(format!(
                "examples {i} to {} left out: at most {} examples are sent",
                definition.examples.len() - 1,
                ToolDefinition::MAX_EXAMPLES
            )));
            break;
        }
        if !example.is_object() {
            placed.notes.push(dropped(format!("example {i} left out: it is not a JSON object")));
            continue;
        }
        let bytes = example.to_string().len();
        if bytes > ToolDefinition::MAX_EXAMPLE_BYTES {
            placed.notes.push(dropped(format!(
                "example {i} left out: {bytes} bytes of JSON, more than the {} an example may have",
                ToolDefinition::MAX_EXAMPLE_BYTES
            )));
            continue;
        }
        let mut wire = arguments.to_wire(example);
        if dialect.rules().all_required {
            fill_nulls(parameters, parameters, &mut wire, 0);
        }
        kept.push((i, wire));
    }
    let rewritten: Vec<usize> =
        kept.iter().filter(|(i, wire)| *wire != definition.examples[*i]).map(|(i, _)| *i).collect();
    if !rewritten.is_empty() {
        placed.notes.push(ConversionNote {
            pointer: String::new(),
            keyword: "examples".to_owned(),
            action: NoteAction::Rewritten,
            detail: format!(
                "{} written as {} takes the arguments: with the property names and JSON text this report says{}",
                indices(&rewritten),
                dialect.label(),
                if dialect.rules().all_required { ", and null for each optional argument left out" } else { "" }
            ),
        });
    }
    if kept.is_empty() {
        return placed;
    }
    if placement == ExamplePlacement::NativeWherePossible && matches!(dialect, Dialect::Anthropic { .. }) {
        placed.native = Some(kept.into_iter().map(|(_, example)| example).collect());
        return placed;
    }
    fold(dialect, &mut placed, kept);
    placed
}

/// Appends the line `Examples: {...}; {...}` to the description, with as many examples, in
/// order, as keep it within the dialect's limit on a description.
fn fold(dialect: Dialect, placed: &mut Placed, kept: Vec<(usize, Value)>) {
    let limit = description_limit(dialect);
    let opening = if placed.description.is_empty() { "Examples: " } else { "\n\nExamples: " };
    let mut line = String::new();
    let mut written = Vec::new();
    let mut over = Vec::new();
    for (i, example) in kept {
        let text = example.to_string();
        let separator = if line.is_empty() { opening } else { "; " };
        let length = placed.description.chars().count() + line.chars().count() + separator.len() + text.chars().count();
        if limit.is_some_and(|limit| length > limit) {
            over.push((i, length));
            continue;
        }
        line.push_str(separator);
        line.push_str(&text);
        written.push(i);
    }
    if !written.is_empty() {
        placed.description.push_str(&line);
        placed.notes.push(ConversionNote {
            pointer: String::new(),
            keyword: "examples".to_owned(),
            action: NoteAction::MovedToDescription,
            detail: format!(
                "{} has no field for examples: {} written into the description",
                dialect.label(),
                indices(&written)
            ),
        });
    }
    for (i, length) in over {
        placed.notes.push(dropped(format!(
            "example {i} left out: with it the description would have {length} characters, more than the {} {} takes",
            limit.unwrap_or_default(),
            dialect.label()
        )));
    }
}

/// `example 0`, `examples 0 and 1`, `examples 0, 1 and 2`.
fn indices(indices: &[usize]) -> String {
    let words: Vec<String> = indices.iter().map(ToString::to_string).collect();
    match words.as_slice() {
        [one] => format!("example {one}"),
        [rest @ .., last] => format!("examples {} and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

/// How deep [`fill_nulls`] descends: examples are at most 4 KiB, so real ones are far shallower.
const MAX_FILL_DEPTH: usize = 64;

/// Where every property is required and the optional ones nullable (OpenAI strict), an example
/// that leaves an optional argument out is not what the model may write: each nullable
/// property missing from an object of `value` is written as null, at any depth that `schema`
/// (the schema sent, with `root` holding its `$defs`) describes.
fn fill_nulls(schema: &Value, root: &Value, value: &mut Value, depth: usize) {
    if depth > MAX_FILL_DEPTH {
        return;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => match root.get("$defs").and_then(|defs| defs.get(name)) {
            Some(def) => def,
            None => return,
        },
        None => schema,
    };
    if let Some(Value::Array(branches)) = schema.get("anyOf") {
        let fits = |branch: &&Value| match value {
            Value::Object(object) => branch
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|properties| object.keys().all(|key| properties.contains_key(key))),
            Value::Array(_) => branch.get("items").is_some(),
            _ => false,
        };
        if let Some(branch) = branches.iter().find(fits) {
            fill_nulls(branch, root, value, depth + 1);
        }
        return;
    }
    match value {
        Value::Object(object) => {
            let Some(Value::Object(properties)) = schema.get("properties") else { return };
            for (name, property) in properties {
                match object.get_mut(name) {
                    Some(child) => fill_nulls(property, root, child, depth + 1),
                    None if takes_null(property, root) => {
                        object.insert(name.clone(), Value::Null);
                    }
                    None => {}
                }
            }
        }
        Value::Array(elements) => {
            if let Some(items) = schema.get("items") {
                for element in elements {
                    fill_nulls(items, root, element, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Whether `schema` takes null: `"type": [.., "null"]`, or a `{"type": "null"}` branch.
fn takes_null(schema: &Value, root: &Value) -> bool {
    let null = |schema: &Value| match schema.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    };
    let schema = match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => root.get("$defs").and_then(|defs| defs.get(name)).unwrap_or(schema),
        None => schema,
    };
    null(schema) || schema.get("anyOf").and_then(Value::as_array).is_some_and(|branches| branches.iter().any(null))
}

fn dropped(detail: String) -> ConversionNote {
    ConversionNote { pointer: String::new(), keyword: "examples".to_owned(), action: NoteAction::Dropped, detail }
}
