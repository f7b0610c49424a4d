//! The formats a catalog can be written in, and the rendering of each.

use std::fmt;
use std::str::FromStr;

use serde_json::{json, Value};

use super::kind::tool_kind;
use super::markdown::markdown;
use crate::model::ToolDefinition;
use crate::providers::export::{export, ExportError};
use crate::providers::Dialect;

/// A format a catalog can be written in.
///
/// Non-exhaustive: `Format::Xml` exists only with the `xml` feature, and a crate that matches
/// on formats must still compile when another crate in the build turns that feature on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// One JSON document: every tool's definition (parameter list, schema, metadata, examples,
    /// output schema).
    Json,
    /// Markdown documentation: one section per tool.
    Markdown,
    /// A provider dialect's tool list (its request fragment).
    Dialect(Dialect),
    /// The XML protocol's `<functions>` block (feature `xml`).
    #[cfg(feature = "xml")]
    Xml,
}

/// Every format, by the name the command line and file names use; `xml` with the `xml` feature.
pub const FORMATS: &[(&str, Format)] = &[
    ("json", Format::Json),
    ("markdown", Format::Markdown),
    ("openai", Format::Dialect(Dialect::OpenAiChat { strict: false })),
    ("openai-strict", Format::Dialect(Dialect::OpenAiChat { strict: true })),
    ("responses", Format::Dialect(Dialect::OpenAiResponses { strict: false })),
    ("responses-strict", Format::Dialect(Dialect::OpenAiResponses { strict: true })),
    ("anthropic", Format::Dialect(Dialect::Anthropic { strict: false })),
    ("anthropic-strict", Format::Dialect(Dialect::Anthropic { strict: true })),
    ("gemini", Format::Dialect(Dialect::Gemini)),
    ("gemini-json-schema", Format::Dialect(Dialect::GeminiJsonSchema)),
    ("mcp", Format::Dialect(Dialect::Mcp)),
    #[cfg(feature = "xml")]
    ("xml", Format::Xml),
];

impl Format {
    /// The format's name (`openai-strict`).
    pub fn name(self) -> &'static str {
        FORMATS.iter().find(|(_, f)| *f == self).map_or("json-schema", |(name, _)| name)
    }

    /// The file name `export --out` writes it to (`openai-strict.json`, `tools.md`).
    pub fn file_name(self) -> String {
        match self {
            Format::Json => "tools.json".to_owned(),
            Format::Markdown => "tools.md".to_owned(),
            #[cfg(feature = "xml")]
            Format::Xml => "functions.xml".to_owned(),
            Format::Dialect(_) => format!("{}.json", self.name()),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        FORMATS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f).ok_or_else(|| {
            let names: Vec<&str> = FORMATS.iter().map(|(n, _)| *n).collect();
            format!("no format named `{name}`; the formats: {}", names.join(", "))
        })
    }
}

/// `tools` written in `format`, ending with a line break. JSON is pretty-printed with its keys
/// in a fixed order, so the same tools always give the same text.
pub fn render<'a>(format: Format, tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Result<String, ExportError> {
    let tools: Vec<&ToolDefinition> = tools.into_iter().collect();
    let mut text = match format {
        Format::Json => pretty(&json!({ "tools": tools.iter().map(|t| definition_json(t)).collect::<Vec<_>>() })),
        Format::Markdown => markdown(tools.iter().copied()),
        Format::Dialect(dialect) => pretty(&export(dialect, tools.iter().copied())?.request_fragment()),
        #[cfg(feature = "xml")]
        Format::Xml => crate::xml::functions_block(tools.iter().copied())?,
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// One tool as the JSON document writes it: its definition, with where it comes from as
/// `kind`.
pub fn definition_json(tool: &ToolDefinition) -> Value {
    let mut value = serde_json::to_value(tool).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("kind".into(), tool_kind(tool).into());
    }
    value
}
