//! What an export produced, and why it failed.

use std::fmt;

use serde::Serialize;
use serde_json::{json, Value};

use crate::providers::dialect::Dialect;
use crate::providers::names::NameMap;

/// What an export produced: the tools in the dialect's form, the names it changed, and per
/// tool what the dialect could not say.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Exported {
    /// The dialect the tools are in.
    #[serde(skip)]
    pub dialect: Dialect,
    /// One entry per tool, in the order given, in the dialect's shape.
    pub tools: Vec<Value>,
    /// The names sent in place of ours; hand it to the call parsers.
    pub names: NameMap,
    /// One report per tool that needed a change the model will see (tools exported unchanged
    /// have none).
    pub reports: Vec<ConversionReport>,
}

/// The part of a request that carries `tools`, in `dialect` (see [`Exported::request_fragment`]).
pub(crate) fn request_fragment(dialect: Dialect, tools: &[Value]) -> Value {
    match dialect {
        Dialect::Gemini | Dialect::GeminiJsonSchema => json!({"tools": [{"functionDeclarations": tools}]}),
        _ => json!({"tools": tools}),
    }
}

impl Exported {
    /// The part of the provider request that carries the tools: `{"tools": [...]}`, or for
    /// Gemini `{"tools": [{"functionDeclarations": [...]}]}`. For MCP this is the `tools/list`
    /// result.
    pub fn request_fragment(&self) -> Value {
        request_fragment(self.dialect, &self.tools)
    }

    /// The report for the tool named `tool` (our name), if it needed one.
    pub fn report(&self, tool: &str) -> Option<&ConversionReport> {
        self.reports.iter().find(|r| r.tool == tool)
    }
}

/// What one tool's export changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ConversionReport {
    /// Our name of the tool.
    pub tool: String,
    /// The name the provider sees.
    pub wire_name: String,
    /// Each change, in schema order.
    pub notes: Vec<ConversionNote>,
}

/// One change an export made to a tool's schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConversionNote {
    /// JSON pointer of the place in the tool's input schema (ours, before the export).
    pub pointer: String,
    /// The keyword or construct concerned (`minLength`, `$ref`, `additionalProperties`...).
    pub keyword: String,
    /// What the export did.
    pub action: NoteAction,
    /// In words, what the dialect got instead.
    pub detail: String,
}

/// What an export did with a keyword the dialect cannot carry as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NoteAction {
    /// Left out, and written into the description of the place instead.
    MovedToDescription,
    /// Left out; it tells the model nothing the rest of the schema does not.
    Dropped,
    /// Said another way the dialect accepts (`oneOf` as `anyOf`, a map as JSON text, a
    /// tuple as a list).
    Rewritten,
}

/// Why tools could not be exported in a dialect; every problem is listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ExportError {
    /// Each problem, in tool order.
    pub problems: Vec<ExportProblem>,
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        write!(f, "the tools cannot be exported: {}", lines.join("; "))
    }
}

/// One reason a tool cannot be exported in a dialect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportProblem {
    /// The dialect cannot express a construct of the tool's schema.
    #[error("tool `{tool}`: {construct} at `{pointer}` cannot be expressed in {dialect}")]
    Inexpressible {
        /// Our name of the tool.
        tool: String,
        /// The dialect, in words.
        dialect: &'static str,
        /// JSON pointer of the place in the tool's input schema.
        pointer: String,
        /// What the dialect cannot express.
        construct: String,
    },
    /// Two tools would reach the provider under the same name.
    #[error("tools `{first}` and `{second}` would both be sent as `{wire}` to {dialect}; rename one")]
    NameCollision {
        /// The first tool, in export order.
        first: String,
        /// The second.
        second: String,
        /// The name both map to.
        wire: String,
        /// The dialect, in words.
        dialect: &'static str,
    },
    /// The tools together exceed a per-request limit of the dialect.
    #[error("{dialect} takes at most {max} {what} per request; these tools have {count}")]
    RequestLimit {
        /// The dialect, in words.
        dialect: &'static str,
        /// What is counted.
        what: &'static str,
        /// How many the tools have.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// Two properties of one object would reach the provider under the same name.
    #[error("tool `{tool}`: the properties `{first}` and `{second}` {} would both be sent as `{wire}` to {dialect}; rename one", place(.pointer))]
    PropertyCollision {
        /// Our name of the tool.
        tool: String,
        /// JSON pointer of the object in the tool's input schema.
        pointer: String,
        /// The first property, in schema order.
        first: String,
        /// The second.
        second: String,
        /// The name both map to.
        wire: String,
        /// The dialect, in words.
        dialect: &'static str,
    },
    /// A tool's name cannot be made acceptable to the provider.
    #[error("tool `{tool}`: the name is longer than the {max} characters {dialect} accepts")]
    NameTooLong {
        /// Our name of the tool.
        tool: String,
        /// The longest name accepted.
        max: usize,
        /// The dialect, in words.
        dialect: &'static str,
    },
}

/// Where an object is, for messages: `at the top level`, or `in `/properties/x``.
fn place(pointer: &str) -> String {
    if pointer.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("in `{pointer}`")
    }
}
