//! A tool's search document: what the catalog knows about it, in fields of different weight.

use serde::Serialize;
use serde_json::Value;

use crate::model::ToolDefinition;

/// A part of a tool's search document. Each has its own weight
/// ([`SearchOptions::weight`](super::SearchOptions::weight)); a match says which it was in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SearchField {
    /// The name split into words (`memory.search`, `getWeather`), and the annotations' title.
    Name,
    /// The description.
    Description,
    /// The parameters' names, at any depth of the input schema.
    Parameters,
    /// The parameters' descriptions and titles.
    ParameterDescriptions,
    /// The values a parameter takes (enums, constants) and the strings of the examples.
    Values,
    /// The tags and the category.
    Tags,
}

impl SearchField {
    /// Every field, in the order of the bits that record them.
    pub const ALL: [SearchField; 6] = [
        SearchField::Name,
        SearchField::Description,
        SearchField::Parameters,
        SearchField::ParameterDescriptions,
        SearchField::Values,
        SearchField::Tags,
    ];

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The field's name, as in the JSON of a match.
    pub fn name(self) -> &'static str {
        match self {
            SearchField::Name => "name",
            SearchField::Description => "description",
            SearchField::Parameters => "parameters",
            SearchField::ParameterDescriptions => "parameter_descriptions",
            SearchField::Values => "values",
            SearchField::Tags => "tags",
        }
    }
}

/// The most bytes of text taken from one tool: a remote server's definitions are read too, and
/// a description of megabytes must not cost megabytes of index.
pub(crate) const MAX_TEXT_BYTES: usize = 16 * 1024;

/// The most schema nodes visited in one tool's input schema.
const MAX_SCHEMA_NODES: usize = 512;

/// Calls `each` with every text of `definition` and the field it belongs to, bounded by
/// [`MAX_TEXT_BYTES`] in all.
pub(crate) fn texts<'a>(definition: &'a ToolDefinition, mut each: impl FnMut(SearchField, &'a str)) {
    let mut budget = MAX_TEXT_BYTES;
    let mut give = |field: SearchField, text: &'a str| {
        if budget == 0 || text.is_empty() {
            return;
        }
        let text = cut(text, budget);
        budget -= text.len();
        each(field, text);
    };
    give(SearchField::Name, &definition.name);
    if let Some(title) = &definition.annotations.title {
        give(SearchField::Name, title);
    }
    for tag in &definition.tags {
        give(SearchField::Tags, tag);
    }
    if let Some(category) = &definition.category {
        give(SearchField::Tags, category);
    }
    give(SearchField::Description, &definition.description);
    let mut nodes = 0;
    schema_texts(&definition.input_schema, &mut nodes, &mut give);
    for example in &definition.examples {
        value_strings(example, &mut nodes, &mut |s| give(SearchField::Values, s));
    }
}

/// The names, descriptions and values of a schema's properties, at any depth, through
/// `items`, `anyOf`/`oneOf`/`allOf` and `$defs`.
fn schema_texts<'a>(schema: &'a Value, nodes: &mut usize, give: &mut impl FnMut(SearchField, &'a str)) {
    *nodes += 1;
    let Some(object) = schema.as_object() else { return };
    if *nodes > MAX_SCHEMA_NODES {
        return;
    }
    // One pass over the keys: a schema node is read once, whatever keywords it has.
    for (key, value) in object {
        match (key.as_str(), value) {
            // The root's description repeats the tool's; its title is the type's name.
            ("description" | "title", Value::String(text)) if *nodes > 1 => {
                give(SearchField::ParameterDescriptions, text);
            }
            ("enum", Value::Array(values)) => {
                for value in values {
                    value_strings(value, nodes, &mut |s| give(SearchField::Values, s));
                }
            }
            ("const", Value::String(value)) => give(SearchField::Values, value),
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties {
                    give(SearchField::Parameters, name);
                    schema_texts(property, nodes, give);
                }
            }
            ("items" | "additionalProperties" | "not", Value::Object(_)) => schema_texts(value, nodes, give),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(inner)) => {
                for schema in inner {
                    schema_texts(schema, nodes, give);
                }
            }
            ("$defs" | "definitions", Value::Object(defs)) => {
                for schema in defs.values() {
                    schema_texts(schema, nodes, give);
                }
            }
            _ => {}
        }
    }
}

/// The strings in a value, at any depth.
fn value_strings<'a>(value: &'a Value, nodes: &mut usize, give: &mut impl FnMut(&'a str)) {
    *nodes += 1;
    if *nodes > MAX_SCHEMA_NODES {
        return;
    }
    match value {
        Value::String(s) => give(s),
        Value::Array(items) => items.iter().for_each(|v| value_strings(v, nodes, give)),
        Value::Object(map) => map.values().for_each(|v| value_strings(v, nodes, give)),
        _ => {}
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends at a character boundary.
pub(crate) fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
