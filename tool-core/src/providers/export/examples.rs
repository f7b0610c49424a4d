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
        kept.push((i, arguments.to_wire(example)));
    }
    if kept.iter().any(|(i, wire)| *wire != definition.examples[*i]) {
        placed.notes.push(ConversionNote {
            pointer: String::new(),
            keyword: "examples".to_owned(),
            action: NoteAction::Rewritten,
            detail: format!(
                "sent with the arguments in the form {} receives them (the property names and JSON text of this report)",
                dialect.label()
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
        let which: Vec<String> = written.iter().map(ToString::to_string).collect();
        placed.notes.push(ConversionNote {
            pointer: String::new(),
            keyword: "examples".to_owned(),
            action: NoteAction::MovedToDescription,
            detail: format!("{} has no field for examples: example {} written into the description", dialect.label(), which.join(", ")),
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

fn dropped(detail: String) -> ConversionNote {
    ConversionNote { pointer: String::new(), keyword: "examples".to_owned(), action: NoteAction::Dropped, detail }
}
