//! The tool model: what a tool is, as the catalog, the providers and the executor see it.
//!
//! Plain data only. How a definition is derived from Rust types lives in `shape` and `schema`;
//! how a call runs lives in `executor`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of value a parameter expects, the hint argument extraction converts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ValueKind {
    /// Text. Never promoted to a number or boolean.
    String,
    /// `true` / `false`.
    Boolean,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// A JSON object with declared fields.
    Object,
    /// A JSON array whose element kind is not known (a tuple or mixed list).
    Array,
    /// An ISO-8601 / RFC 3339 date or date-time.
    Timestamp,
    /// An absolute URI.
    Uri,
    /// One of a fixed set of tokens (see [`EnumConstraint`]).
    EnumToken,
    /// A reference to an attachment held by the host.
    AttachmentReference,
    /// Any JSON value (`serde_json::Value`).
    Any,
}

impl ValueKind {
    /// Its name in tables and documentation: `string`, `integer`, `enum`, ...
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::String => "string",
            ValueKind::Boolean => "boolean",
            ValueKind::Integer => "integer",
            ValueKind::Number => "number",
            ValueKind::Object => "object",
            ValueKind::Array => "array",
            ValueKind::Timestamp => "timestamp",
            ValueKind::Uri => "URI",
            ValueKind::EnumToken => "enum",
            ValueKind::AttachmentReference => "attachment",
            ValueKind::Any => "any",
        }
    }

    /// The noun used in messages to the model: "an integer", "a boolean", ...
    pub fn noun(self) -> &'static str {
        match self {
            ValueKind::String => "a string",
            ValueKind::Boolean => "a boolean",
            ValueKind::Integer => "an integer",
            ValueKind::Number => "a number",
            ValueKind::Object => "an object",
            ValueKind::Array => "an array",
            ValueKind::Timestamp => "an RFC 3339 timestamp string",
            ValueKind::Uri => "an absolute URI string",
            ValueKind::EnumToken => "one of the allowed values",
            ValueKind::AttachmentReference => "an attachment reference string",
            ValueKind::Any => "any JSON value",
        }
    }

    /// The plural noun, for lists and maps: "integers", "booleans", ...
    pub fn plural(self) -> &'static str {
        match self {
            ValueKind::String => "strings",
            ValueKind::Boolean => "booleans",
            ValueKind::Integer => "integers",
            ValueKind::Number => "numbers",
            ValueKind::Object => "objects",
            ValueKind::Array => "arrays",
            ValueKind::Timestamp => "RFC 3339 timestamp strings",
            ValueKind::Uri => "absolute URI strings",
            ValueKind::EnumToken => "allowed values",
            ValueKind::AttachmentReference => "attachment reference strings",
            ValueKind::Any => "JSON values",
        }
    }
}

/// How many values a parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    /// Exactly one value.
    Single,
    /// One value or none (`Option<T>`).
    Optional,
    /// A list of values (`Vec<T>`, sets, slices).
    List,
    /// String keys to values (`HashMap<String, T>`, `BTreeMap`).
    Map,
}

impl Cardinality {
    /// Its name in tables and documentation: `single`, `optional`, `list`, `map`.
    pub fn name(self) -> &'static str {
        match self {
            Cardinality::Single => "single",
            Cardinality::Optional => "optional",
            Cardinality::List => "list",
            Cardinality::Map => "map",
        }
    }
}

/// The allowed values of an enum-like parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnumConstraint {
    /// The tokens, as the model must send them.
    pub allowed_values: Vec<String>,
    /// Whether a token differing only in case is rejected rather than normalised.
    pub case_sensitive: bool,
}

/// One parameter of a tool, as seen by the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolParameter {
    /// The key in the arguments object (the wire name).
    pub name: String,
    /// The kind of the value, or of each element for lists and maps.
    pub value_kind: ValueKind,
    /// Single, optional, list or map.
    pub cardinality: Cardinality,
    /// Whether the model must send it.
    pub required: bool,
    /// What it means, for the model. Empty when the declaration has none.
    pub description: String,
    /// The allowed values, for enum tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enum_constraint: Option<EnumConstraint>,
    /// An example value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// The value used when the model leaves the parameter out, when one is declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Whether values for it must arrive exactly as declared (no lenient conversions).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
}

impl ToolParameter {
    /// What the parameter expects, in words the model understands: "a list of integers",
    /// "one of: `low`, `high`".
    pub fn expected(&self) -> String {
        let base = match (&self.enum_constraint, self.cardinality) {
            (Some(e), Cardinality::List) => format!("a list of values from: {}", quoted_list(&e.allowed_values)),
            (Some(e), _) => format!("one of: {}", quoted_list(&e.allowed_values)),
            (None, Cardinality::List) => format!("a list of {}", self.value_kind.plural()),
            (None, Cardinality::Map) => format!("an object whose values are {}", self.value_kind.plural()),
            (None, _) => self.value_kind.noun().to_owned(),
        };
        if self.cardinality == Cardinality::Optional {
            format!("{base}, or null")
        } else {
            base
        }
    }
}

fn quoted_list(values: &[String]) -> String {
    values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
}

/// MCP-style behaviour hints. `None` means "not declared" (MCP then assumes its defaults).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// It interacts with an open world of external entities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is declared.
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// Where a tool was declared, for reports about duplicates and invalid definitions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct SourceLocation {
    /// The source file, as `file!()` gives it, or a description for runtime-built tools.
    pub file: String,
    /// The line of the declaration.
    pub line: u32,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Whether a tool's calls wait for a person's approval before they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Approval {
    /// Calls run without asking (unless the executor's policy asks).
    #[default]
    Never,
    /// Every call waits for approval (`#[tool(requires_approval)]`).
    Always,
    /// The tool decides per call from its typed arguments (`#[tool(approval = "fn")]`), or its
    /// body asks ([`ToolError::approval_required`](crate::ToolError::approval_required)).
    ByArguments,
}

impl Approval {
    /// Whether calls run without asking.
    pub fn is_never(&self) -> bool {
        *self == Approval::Never
    }
}

/// Whether an MCP server answers a call of the tool with a task (the MCP tasks extension,
/// `io.modelcontextprotocol/tasks`): the client gets a task id at once and polls for the result,
/// instead of holding the request open while a long call runs (`#[tool(task)]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Every call is answered when it ends.
    #[default]
    Never,
    /// A call from a client that declared the tasks extension is answered with a task; other
    /// clients get the result when the call ends (`#[tool(task)]`).
    Optional,
    /// Only a client that declared the tasks extension may call it, and gets a task; another
    /// is refused with MCP's missing-capability error (`#[tool(task = "required")]`).
    Required,
}

impl TaskSupport {
    /// Whether every call is answered when it ends.
    pub fn is_never(&self) -> bool {
        *self == TaskSupport::Never
    }
}

/// An icon a client may show beside a tool (MCP 2025-11-25 `icons`): where it is, and
/// optionally its MIME type, its sizes and the theme it is drawn for.
///
/// `src` is an `https://` URL or a `data:image/..` URI: a client fetches or decodes it, so no
/// other scheme is accepted (a `javascript:` or `file:` URI is refused by the catalog, and an
/// imported tool's such icons are dropped).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolIcon {
    /// An `https://` URL or a `data:image/..` URI.
    pub src: String,
    /// The image's MIME type (`image/png`, `image/svg+xml`, ..), when the server's is missing
    /// or generic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes it is drawn at: `WxH` (`48x48`), or `any` for a scalable image.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// The theme it is drawn for, `light` or `dark`; any when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// The theme an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

impl ToolIcon {
    /// The most bytes an icon's `src` may have: a `data:` URI is sent in every tool list.
    pub const MAX_SRC_BYTES: usize = 32 * 1024;

    /// The icon at `src`.
    pub fn new(src: impl Into<String>) -> ToolIcon {
        ToolIcon { src: src.into(), mime_type: None, sizes: Vec::new(), theme: None }
    }

    /// The same icon, of MIME type `mime_type`.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> ToolIcon {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The same icon, drawn at `size` too (`48x48`, or `any`).
    pub fn size(mut self, size: impl Into<String>) -> ToolIcon {
        self.sizes.push(size.into());
        self
    }

    /// The same icon, drawn for `theme`.
    pub fn theme(mut self, theme: IconTheme) -> ToolIcon {
        self.theme = Some(theme);
        self
    }

    /// What is wrong with the icon, if anything: said for a person fixing it.
    pub fn problem(&self) -> Option<String> {
        let shown = crate::model::truncate(&self.src);
        if self.src.len() > Self::MAX_SRC_BYTES {
            return Some(format!(
                "has an icon of {} bytes: an icon's `src` may have at most {} (link a larger image by an `https://` URL)",
                self.src.len(),
                Self::MAX_SRC_BYTES
            ));
        }
        if let Some(why) = icon_src_problem(&self.src) {
            return Some(format!("has an icon `{shown}` that {why}"));
        }
        if let Some(mime) = self.mime_type.as_deref().filter(|mime| !is_image_type(mime)) {
            return Some(format!(
                "has an icon `{shown}` of MIME type `{}`: give an image type such as `image/png`",
                crate::model::truncate(mime)
            ));
        }
        if let Some(size) = self.sizes.iter().find(|size| !is_icon_size(size)) {
            return Some(format!(
                "has an icon `{shown}` of size `{}`: give `WxH` (such as `48x48`) or `any`",
                crate::model::truncate(size)
            ));
        }
        None
    }
}

/// Why `src` cannot be an icon's (it is neither an `https://` URL nor a `data:image/..` URI),
/// in words that follow "an icon `..` that".
fn icon_src_problem(src: &str) -> Option<&'static str> {
    let lower = src.get(..11).unwrap_or(src).to_ascii_lowercase();
    if lower.starts_with("https://") {
        return (src.len() == "https://".len() || src.chars().any(char::is_whitespace))
            .then_some("is no URL: give an `https://` URL without spaces");
    }
    if lower.starts_with("data:") {
        let media = src["data:".len()..].split([';', ',']).next().unwrap_or_default();
        return (!is_image_type(media) || !src.contains(','))
            .then_some("is no image: a `data:` icon is `data:image/<type>;base64,<data>`");
    }
    Some("is neither an `https://` URL nor a `data:image/..` URI, the two a client may load")
}

fn is_image_type(mime: &str) -> bool {
    mime.strip_prefix("image/").is_some_and(|subtype| {
        !subtype.is_empty() && subtype.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

fn is_icon_size(size: &str) -> bool {
    size == "any"
        || size.split_once('x').is_some_and(|(w, h)| {
            [w, h].iter().all(|n| !n.is_empty() && n.len() <= 5 && n.chars().all(|c| c.is_ascii_digit()))
        })
}

/// Everything the outside world knows about a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The unique name calls are matched by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The parameters in declaration order.
    pub parameters: Vec<ToolParameter>,
    /// The JSON Schema of the arguments object (root `type: object`, `required` always present).
    pub input_schema: Value,
    /// The JSON Schema of the structured result, when the tool returns one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Free-form tags, for filtering and grouping.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A category, for grouping in UIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The tool's own version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Example argument objects, each the arguments of one whole call: a catalog checks each
    /// against the input schema and the tool's own arguments (at most
    /// [`MAX_EXAMPLES`](Self::MAX_EXAMPLES), each at most
    /// [`MAX_EXAMPLE_BYTES`](Self::MAX_EXAMPLE_BYTES)); exports send them natively (Anthropic's
    /// `input_examples`) or folded into the description.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// MCP-style behaviour hints.
    #[serde(skip_serializing_if = "ToolAnnotations::is_empty")]
    pub annotations: ToolAnnotations,
    /// How long a call may run before the executor stops it, if the tool declares a limit.
    #[serde(skip_serializing_if = "Option::is_none", with = "duration_ms")]
    pub timeout: Option<std::time::Duration>,
    /// Whether its arguments must arrive exactly as declared (no repairs, no conversions).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// Whether the tool is left out of what a request sends up front, to be found by a tool
    /// search (`#[tool(defer)]`); a catalog's deferral policy may defer more.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub defer: bool,
    /// Whether a call waits for a person's approval before it runs (`#[tool(requires_approval)]`,
    /// `#[tool(approval = "fn")]`); an executor's policy may ask for approval of more.
    #[serde(skip_serializing_if = "Approval::is_never")]
    pub approval: Approval,
    /// Whether a call of the tool runs alone in its batch: the calls before it finish before it
    /// starts, and the calls after it start after it ends (`#[tool(sequential)]`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sequential: bool,
    /// Whether an MCP server answers a call with a task the client polls (`#[tool(task)]`).
    #[serde(skip_serializing_if = "TaskSupport::is_never")]
    pub task: TaskSupport,
    /// Whether a call answered with a task first runs in its request, its questions asked in
    /// the request's rounds (MCP 2026-07-28), and becomes the task where the tool calls
    /// [`ToolContext::continue_as_task`](crate::ToolContext::continue_as_task)
    /// (`#[tool(task(asks_first))]`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub task_asks_first: bool,
    /// Icons a client may show beside the tool (MCP `icons`; `#[tool(icons(".."))]`), at most
    /// [`MAX_ICONS`](Self::MAX_ICONS).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<ToolIcon>,
    /// The OAuth scopes a caller's access token must grant, every one, for a call of the tool
    /// over an MCP server protected by OAuth (`#[tool(scopes(..))]`); such a server lists the
    /// tool only to callers that have them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Where the tool was declared.
    pub source: SourceLocation,
}

impl ToolDefinition {
    /// Whether the tool calls another system to do its work: imported from an MCP server
    /// (its source `mcp:..`) or a REST tool (a source without a line that is not `(runtime)`).
    pub(crate) fn calls_out(&self) -> bool {
        self.source.line == 0 && self.source.file != "(runtime)"
    }

    /// The most examples a tool may have: a catalog refuses more, and an export sends no more
    /// (an example teaches a form; a few do, and each one costs the model's context).
    pub const MAX_EXAMPLES: usize = 16;

    /// The most icons a tool may have: a catalog refuses more.
    pub const MAX_ICONS: usize = 8;
    /// The longest example, in bytes of compact JSON: a catalog refuses a longer one, and an
    /// export leaves it out.
    pub const MAX_EXAMPLE_BYTES: usize = 4096;

    /// The parameter with this wire name.
    pub fn parameter(&self, name: &str) -> Option<&ToolParameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// Whether the tool carries this tag.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
}

mod duration_ms {
    use serde::Serializer;
    use std::time::Duration;

    pub fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_u128(d.as_millis()),
            None => s.serialize_none(),
        }
    }
}

/// Whether `name` is a valid tool name: `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
        _ => return false,
    }
    bytes.len() <= 64 && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_documented_pattern() {
        assert!(is_valid_tool_name("memory.search"));
        assert!(is_valid_tool_name("_x-1"));
        assert!(is_valid_tool_name(&"a".repeat(64)));
        assert!(!is_valid_tool_name(&"a".repeat(65)));
        assert!(!is_valid_tool_name("1abc"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("bad name"));
        assert!(!is_valid_tool_name("ünïcode"));
    }

    #[test]
    fn expected_text_names_kind_cardinality_and_values() {
        let mut p = ToolParameter {
            name: "limit".into(),
            value_kind: ValueKind::Integer,
            cardinality: Cardinality::Optional,
            required: false,
            description: String::new(),
            enum_constraint: None,
            example: None,
            default: None,
            strict: false,
        };
        assert_eq!(p.expected(), "an integer, or null");
        p.cardinality = Cardinality::List;
        p.required = true;
        assert_eq!(p.expected(), "a list of integers");
        p.cardinality = Cardinality::Single;
        p.value_kind = ValueKind::EnumToken;
        p.enum_constraint =
            Some(EnumConstraint { allowed_values: vec!["low".into(), "high".into()], case_sensitive: false });
        assert_eq!(p.expected(), "one of: `low`, `high`");
    }
}
