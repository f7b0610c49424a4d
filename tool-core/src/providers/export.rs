//! Tool definitions out: each provider's exact request fragment.
//!
//! A tool's input schema (schemars, JSON Schema 2020-12) is rewritten once per dialect by one
//! walk, parameterised by what the dialect accepts ([`Rules`]). What the dialect cannot say is
//! moved into the description of the place it applies to (the providers' custom) or dropped,
//! and every such change is a [`ConversionNote`] in the tool's [`ConversionReport`]. The
//! original schema stays the one our validation enforces at call time, so nothing the report
//! lists goes unchecked. A construct a dialect cannot express at all (a recursive type for
//! Anthropic strict mode, two properties whose names meet once mapped) is an [`ExportError`]
//! naming the tool and the place.
//!
//! What a dialect cannot declare but can carry another way goes out that way, reversibly: a
//! free-form value or map where every object must be closed goes as JSON text, a property name
//! the provider refuses goes under a name it accepts. The [`NameMap`] keeps per tool where
//! ([`ArgumentMap`]), so that calls come back in the declared form.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::dialect::Dialect;
use super::names::{ArgumentMap, Mark, NameMap, NameRule, PropertyRule, Step};
use crate::model::pointer;
use crate::model::{ToolAnnotations, ToolDefinition};
use crate::schema::shape::{integer_format_bounds, is_numeric_format};

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

impl Exported {
    /// The part of the provider request that carries the tools: `{"tools": [...]}`, or for
    /// Gemini `{"tools": [{"functionDeclarations": [...]}]}`. For MCP this is the `tools/list`
    /// result.
    pub fn request_fragment(&self) -> Value {
        match self.dialect {
            Dialect::Gemini | Dialect::GeminiJsonSchema => json!({"tools": [{"functionDeclarations": self.tools}]}),
            _ => json!({"tools": self.tools}),
        }
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

impl Dialect {
    /// Every dialect, strict and not.
    pub const ALL: [Dialect; 10] = [
        Dialect::OpenAiChat { strict: false },
        Dialect::OpenAiChat { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::OpenAiResponses { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
        Dialect::JsonSchema,
    ];

    /// The dialect in words, for messages.
    pub fn label(self) -> &'static str {
        match self {
            Dialect::OpenAiChat { strict: true } => "OpenAI Chat Completions (strict)",
            Dialect::OpenAiChat { strict: false } => "OpenAI Chat Completions",
            Dialect::OpenAiResponses { strict: true } => "the OpenAI Responses API (strict)",
            Dialect::OpenAiResponses { strict: false } => "the OpenAI Responses API",
            Dialect::Anthropic { strict: true } => "Anthropic (strict)",
            Dialect::Anthropic { strict: false } => "Anthropic",
            Dialect::Gemini => "Gemini `parameters`",
            Dialect::GeminiJsonSchema => "Gemini `parametersJsonSchema`",
            Dialect::Mcp => "MCP",
            Dialect::JsonSchema => "JSON Schema",
        }
    }

    fn name_rule(self) -> NameRule {
        match self {
            Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } | Dialect::Anthropic { .. } => {
                NameRule::OPENAI_ANTHROPIC
            }
            Dialect::Gemini | Dialect::GeminiJsonSchema => NameRule::GEMINI,
            Dialect::Mcp | Dialect::JsonSchema => NameRule::MCP,
        }
    }

    fn rules(self) -> Rules {
        match self {
            Dialect::OpenAiChat { strict } | Dialect::OpenAiResponses { strict } if strict => Rules::OPENAI_STRICT,
            Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } => Rules::OPENAI,
            Dialect::Anthropic { strict: true } => Rules::ANTHROPIC_STRICT,
            Dialect::Anthropic { strict: false } => Rules::ANTHROPIC,
            Dialect::Gemini => Rules::GEMINI,
            Dialect::GeminiJsonSchema => Rules::GEMINI_JSON_SCHEMA,
            Dialect::Mcp => Rules::MCP,
            Dialect::JsonSchema => Rules::JSON_SCHEMA,
        }
    }
}

/// Exports `tools` in `dialect`, in the order given.
///
/// ```
/// use serde_json::json;
/// use tool_core::prelude::*;
/// use tool_core::providers::{export, Dialect};
///
/// let tool = DynamicTool::builder("memory.search")
///     .description("Search the memory store.")
///     .input_schema(json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}))
///     .handler(|_, _| async { ToolOutput::text("") })
///     .build()
///     .unwrap();
/// let exported = export(Dialect::OpenAiChat { strict: true }, [tool.definition()]).unwrap();
/// assert_eq!(exported.tools[0]["function"]["name"], "memory_search");
/// assert_eq!(exported.names.tool_name("memory_search"), "memory.search");
/// ```
pub fn export<'a>(
    dialect: Dialect,
    tools: impl IntoIterator<Item = &'a ToolDefinition>,
) -> Result<Exported, ExportError> {
    export_with(dialect, ExportOptions::default(), tools)
}

/// Whether a tool's output schema goes to MCP wrapped as `{"result": ..}`: MCP wants an object
/// root, so a schema that does not declare one is wrapped, and so is every structured result
/// of that tool (whatever its value), to match.
pub(crate) fn mcp_wraps_output(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) != Some("object")
}

/// What the host chooses about an export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportOptions {
    /// What to do when two tools would reach the provider under the same name.
    pub name_collisions: NameCollisions,
}

impl ExportOptions {
    /// These options, with `name_collisions` settled this way.
    pub fn name_collisions(mut self, name_collisions: NameCollisions) -> Self {
        self.name_collisions = name_collisions;
        self
    }
}

/// What to do when two tools would reach the provider under the same name (`flight.book` and
/// `flight_book` for OpenAI).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameCollisions {
    /// An [`ExportProblem::NameCollision`] naming both (the default).
    #[default]
    Refuse,
    /// The tool whose name had to change goes out with the first free `_2`, `_3`...
    /// (`flight_book_2`), cut to fit the provider's length; the [`NameMap`] maps it back and
    /// its [`ConversionReport`] says so. Two tools with the very same name are still refused.
    NumberedSuffix,
}

/// Exports `tools` in `dialect` as [`export`] does, with the host's `options`.
///
/// ```
/// use serde_json::json;
/// use tool_core::prelude::*;
/// use tool_core::providers::{export_with, Dialect, ExportOptions, NameCollisions};
///
/// let tool = |name: &str| {
///     DynamicTool::builder(name)
///         .description("Book a flight.")
///         .input_schema(json!({"type": "object", "properties": {}}))
///         .handler(|_, _| async { ToolOutput::text("") })
///         .build()
///         .unwrap()
/// };
/// let (dotted, plain) = (tool("flight.book"), tool("flight_book"));
/// let options = ExportOptions::default().name_collisions(NameCollisions::NumberedSuffix);
/// let exported =
///     export_with(Dialect::Anthropic { strict: false }, options, [dotted.definition(), plain.definition()]).unwrap();
/// assert_eq!(exported.tools[0]["name"], "flight_book_2");
/// assert_eq!(exported.names.tool_name("flight_book_2"), "flight.book");
/// assert_eq!(exported.names.tool_name("flight_book"), "flight_book");
/// ```
pub fn export_with<'a>(
    dialect: Dialect,
    options: ExportOptions,
    tools: impl IntoIterator<Item = &'a ToolDefinition>,
) -> Result<Exported, ExportError> {
    let rule = dialect.name_rule();
    let mut names = NameMap::identity();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut out = Vec::new();
    let mut reports = Vec::new();
    let definitions: Vec<&ToolDefinition> = tools.into_iter().collect();
    // Our own names claim their wire names first: `math_gcd` keeps its name, `math.gcd` collides.
    let mut order: Vec<&ToolDefinition> = definitions.iter().copied().filter(|d| rule.accepts(&d.name)).collect();
    order.extend(definitions.iter().copied().filter(|d| !rule.accepts(&d.name)));
    let mut wire_names: BTreeMap<&str, String> = BTreeMap::new();
    let mut suffixed: BTreeMap<&str, ConversionNote> = BTreeMap::new();
    for definition in order {
        let Some(mut wire) = rule.wire_name(&definition.name) else {
            problems.push(ExportProblem::NameTooLong {
                tool: definition.name.clone(),
                max: rule.max_len,
                dialect: dialect.label(),
            });
            continue;
        };
        let same_name = taken.get(&wire).is_some_and(|first| *first == definition.name);
        if let (Some(first), NameCollisions::NumberedSuffix, false) =
            (taken.get(&wire).cloned(), options.name_collisions, same_name)
        {
            let free = numbered(&wire, rule.max_len, |candidate| taken.contains_key(candidate));
            suffixed.insert(
                &definition.name,
                ConversionNote {
                    pointer: String::new(),
                    keyword: "name".to_owned(),
                    action: NoteAction::Rewritten,
                    detail: format!(
                        "sent as `{free}`: `{wire}`, what {} gets for `{}`, is the tool `{first}`'s",
                        dialect.label(),
                        definition.name
                    ),
                },
            );
            wire = free;
        }
        if let Some(first) = taken.get(&wire) {
            let (first, second) = if position(&definitions, first) < position(&definitions, &definition.name) {
                (first.clone(), definition.name.clone())
            } else {
                (definition.name.clone(), first.clone())
            };
            problems.push(ExportProblem::NameCollision { first, second, wire, dialect: dialect.label() });
            continue;
        }
        taken.insert(wire.clone(), definition.name.clone());
        names.insert(&definition.name, &wire);
        wire_names.insert(&definition.name, wire);
    }
    for definition in &definitions {
        let Some(wire) = wire_names.get(definition.name.as_str()) else { continue };
        match export_one(dialect, definition, wire) {
            Ok((tool, mut notes, arguments)) => {
                out.push(tool);
                names.insert_arguments(&definition.name, arguments);
                if let Some(note) = suffixed.remove(definition.name.as_str()) {
                    notes.insert(0, note);
                }
                if !notes.is_empty() {
                    reports.push(ConversionReport { tool: definition.name.clone(), wire_name: wire.clone(), notes });
                }
            }
            Err(mut more) => problems.append(&mut more),
        }
    }
    if dialect == (Dialect::Anthropic { strict: true }) {
        problems.extend(anthropic_strict_limits(&definitions));
    }
    if problems.is_empty() {
        Ok(Exported { dialect, tools: out, names, reports })
    } else {
        Err(ExportError { problems })
    }
}

/// A4: per request, at most 20 strict tools, 24 optional parameters and 16 parameters with a
/// union type (`anyOf`, a type list), counted over the top-level parameters of all tools.
fn anthropic_strict_limits(definitions: &[&ToolDefinition]) -> Vec<ExportProblem> {
    let parameters = || {
        definitions.iter().flat_map(|d| {
            let required: Vec<&Value> =
                d.input_schema.get("required").and_then(Value::as_array).into_iter().flatten().collect();
            let properties = d.input_schema.get("properties").and_then(Value::as_object).into_iter().flatten();
            properties.map(move |(name, schema)| (required.iter().any(|r| *r == name), schema))
        })
    };
    let optional = parameters().filter(|(required, _)| !required).count();
    let unions = parameters()
        .filter(|(_, schema)| {
            schema.get("anyOf").is_some()
                || schema.get("oneOf").is_some()
                || schema.get("type").is_some_and(Value::is_array)
        })
        .count();
    let limits = [
        (definitions.len(), 20, "strict tools"),
        (optional, 24, "optional parameters"),
        (unions, 16, "parameters with a union type (`anyOf`, `oneOf` or a type list; `Option<T>` is one)"),
    ];
    limits
        .into_iter()
        .filter(|(count, max, _)| count > max)
        .map(|(count, max, what)| ExportProblem::RequestLimit {
            dialect: Dialect::Anthropic { strict: true }.label(),
            what,
            count,
            max,
        })
        .collect()
}

/// `wire` with the first `_2`, `_3`... that `taken` does not hold, cut to fit `max_len`.
fn numbered(wire: &str, max_len: usize, taken: impl Fn(&str) -> bool) -> String {
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            // Wire names are ASCII: any byte is a character boundary.
            let keep = wire.len().min(max_len.saturating_sub(suffix.len()));
            format!("{}{suffix}", &wire[..keep])
        })
        .find(|candidate| !taken(candidate))
        .unwrap_or_default()
}

fn position(definitions: &[&ToolDefinition], name: &str) -> usize {
    definitions.iter().position(|d| d.name == name).unwrap_or(usize::MAX)
}

/// One tool in `dialect`, with the notes of what changed.
fn export_one(
    dialect: Dialect,
    definition: &ToolDefinition,
    wire: &str,
) -> Result<(Value, Vec<ConversionNote>, ArgumentMap), Vec<ExportProblem>> {
    let rules = dialect.rules();
    let input = hoist_defs(&definition.input_schema);
    let mut walk = Walk::new(dialect, rules, &definition.name, &input);
    let parameters = walk.root(&input);
    let mut arguments = std::mem::take(&mut walk.arguments);
    arguments.prune();
    let output = match dialect {
        Dialect::Mcp => definition.output_schema.as_ref().map(|schema| walk.output(schema)),
        _ => None,
    };
    if let (Dialect::OpenAiChat { strict: true } | Dialect::OpenAiResponses { strict: true }, Some(limit)) =
        (dialect, openai_strict_limit(&parameters))
    {
        walk.inexpressible("", limit);
    }
    if !walk.problems.is_empty() {
        return Err(walk.problems);
    }
    let no_parameters = definition.parameters.is_empty();
    let description = definition.description.clone();
    let name = wire.to_owned();
    let tool = match dialect {
        Dialect::OpenAiChat { strict } => json!({
            "type": "function",
            "function": {"name": name, "description": description, "parameters": parameters, "strict": strict},
        }),
        Dialect::OpenAiResponses { strict } => json!({
            "type": "function", "name": name, "description": description, "parameters": parameters, "strict": strict,
        }),
        Dialect::Anthropic { strict } => {
            let mut tool = json!({"name": name, "description": description, "input_schema": parameters});
            if strict {
                tool["strict"] = Value::Bool(true);
            }
            tool
        }
        Dialect::Gemini | Dialect::GeminiJsonSchema => {
            let mut tool = json!({"name": name, "description": description});
            // Gemini refuses an OBJECT without properties; a tool without parameters omits them.
            if !no_parameters {
                let key = if dialect == Dialect::Gemini { "parameters" } else { "parametersJsonSchema" };
                tool[key] = parameters;
            }
            tool
        }
        Dialect::Mcp => {
            let mut tool = Map::new();
            tool.insert("name".into(), name.into());
            if let Some(title) = &definition.annotations.title {
                tool.insert("title".into(), title.clone().into());
            }
            tool.insert("description".into(), description.into());
            let input =
                if no_parameters { json!({"type": "object", "additionalProperties": false}) } else { parameters };
            tool.insert("inputSchema".into(), input);
            if let Some(output) = output {
                tool.insert("outputSchema".into(), output);
            }
            if let Some(annotations) = mcp_annotations(&definition.annotations) {
                tool.insert("annotations".into(), annotations);
            }
            Value::Object(tool)
        }
        Dialect::JsonSchema => json!({"name": name, "description": description, "schema": parameters}),
    };
    Ok((tool, walk.notes, arguments))
}

fn mcp_annotations(annotations: &ToolAnnotations) -> Option<Value> {
    let mut out = Map::new();
    if let Some(title) = &annotations.title {
        out.insert("title".into(), title.clone().into());
    }
    let hints = [
        ("readOnlyHint", annotations.read_only),
        ("destructiveHint", annotations.destructive),
        ("idempotentHint", annotations.idempotent),
        ("openWorldHint", annotations.open_world),
    ];
    for (key, hint) in hints {
        if let Some(hint) = hint {
            out.insert(key.into(), hint.into());
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// How deep a schema may nest, and how many nodes its export may walk (definitions written out
/// in place count each time).
const MAX_DEPTH: usize = 64;
const MAX_NODES: usize = 20_000;

/// How a dialect treats `$ref`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Refs {
    /// Kept, siblings and all.
    Keep,
    /// Kept, but a `$ref` with siblings is replaced by its definition merged with them (O7).
    NoSiblings,
    /// Kept; only `$`-prefixed siblings are allowed (G2).
    DollarSiblings,
    /// Replaced by the definitions (G3); recursion is cut after one level.
    Inline,
}

/// What a dialect accepts, for the walk.
#[derive(Clone, Copy)]
struct Rules {
    /// The keywords kept (in any of the lists); `None` keeps any (after the fixed drops).
    allowed: Option<&'static [&'static [&'static str]]>,
    /// The string formats kept; `None` keeps any.
    formats: Option<&'static [&'static str]>,
    refs: Refs,
    /// Closed objects, every property required, optional ones nullable (OpenAI strict).
    all_required: bool,
    /// `additionalProperties: false` on every object (OpenAI and Anthropic strict).
    closed_objects: bool,
    /// Maps (`additionalProperties`) and values of any type cannot be declared: sent as JSON
    /// text.
    free_form_as_text: bool,
    /// `prefixItems` cannot be said: a tuple becomes a list of its element kinds.
    tuples_as_lists: bool,
    /// `oneOf` is sent as `anyOf`.
    one_of_as_any_of: bool,
    /// Null is `nullable: true` beside a single `type` (the OpenAPI subset).
    openapi_nullable: bool,
    /// `const` is sent as a one-value `enum`.
    const_as_enum: bool,
    /// Only string `enum` values are accepted.
    string_enums: bool,
    /// A recursive type cannot be expressed.
    no_recursion: bool,
    /// `minItems` above 1 cannot be said (Anthropic strict).
    min_items_up_to_one: bool,
    /// Custom `x-` keywords are dropped.
    drop_custom: bool,
    /// Keywords always moved into the description (O9: OpenAI strips `default`).
    into_description: &'static [&'static str],
    /// Property names must match `^[A-Za-z_][A-Za-z0-9_]{0,63}$` (G1) or `^[a-zA-Z0-9_.-]{1,64}$`
    /// (A1); the others go out under a name that does.
    property_names: Option<PropertyRule>,
}

/// The structure both strict modes accept (O6, A4).
const STRICT_STRUCTURE: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$defs",
    "$ref",
    "description",
    "pattern",
    "format",
];
const OPENAI_STRICT_KEYWORDS: &[&[&str]] = &[
    STRICT_STRUCTURE,
    &["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"],
];
const OPENAI_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
const ANTHROPIC_STRICT_KEYWORDS: &[&[&str]] = &[STRICT_STRUCTURE, &["allOf", "default", "minItems"]];
const ANTHROPIC_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
const GEMINI_KEYWORDS: &[&[&str]] = &[&[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "anyOf",
    "default",
    "example",
    "propertyOrdering",
]];
const GEMINI_FORMATS: &[&str] = &["enum", "date-time"];
const GEMINI_JSON_SCHEMA_KEYWORDS: &[&[&str]] = &[&[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
]];

impl Rules {
    const BASE: Rules = Rules {
        allowed: None,
        formats: None,
        refs: Refs::Keep,
        all_required: false,
        closed_objects: false,
        free_form_as_text: false,
        tuples_as_lists: false,
        one_of_as_any_of: false,
        openapi_nullable: false,
        const_as_enum: false,
        string_enums: false,
        no_recursion: false,
        min_items_up_to_one: false,
        drop_custom: true,
        into_description: &[],
        property_names: None,
    };
    const JSON_SCHEMA: Rules = Rules { drop_custom: false, ..Rules::BASE };
    const MCP: Rules = Rules::BASE;
    const OPENAI: Rules = Rules { refs: Refs::NoSiblings, into_description: &["default"], ..Rules::BASE };
    const OPENAI_STRICT: Rules = Rules {
        allowed: Some(OPENAI_STRICT_KEYWORDS),
        formats: Some(OPENAI_STRICT_FORMATS),
        refs: Refs::NoSiblings,
        all_required: true,
        closed_objects: true,
        free_form_as_text: true,
        tuples_as_lists: true,
        one_of_as_any_of: true,
        ..Rules::BASE
    };
    const ANTHROPIC: Rules = Rules { property_names: Some(PropertyRule::Anthropic), ..Rules::BASE };
    const ANTHROPIC_STRICT: Rules = Rules {
        allowed: Some(ANTHROPIC_STRICT_KEYWORDS),
        formats: Some(ANTHROPIC_STRICT_FORMATS),
        closed_objects: true,
        free_form_as_text: true,
        tuples_as_lists: true,
        one_of_as_any_of: true,
        no_recursion: true,
        min_items_up_to_one: true,
        property_names: Some(PropertyRule::Anthropic),
        ..Rules::BASE
    };
    const GEMINI: Rules = Rules {
        allowed: Some(GEMINI_KEYWORDS),
        formats: Some(GEMINI_FORMATS),
        refs: Refs::Inline,
        free_form_as_text: true,
        tuples_as_lists: true,
        one_of_as_any_of: true,
        openapi_nullable: true,
        const_as_enum: true,
        string_enums: true,
        property_names: Some(PropertyRule::Gemini),
        ..Rules::BASE
    };
    const GEMINI_JSON_SCHEMA: Rules = Rules {
        allowed: Some(GEMINI_JSON_SCHEMA_KEYWORDS),
        refs: Refs::DollarSiblings,
        one_of_as_any_of: true,
        const_as_enum: true,
        property_names: Some(PropertyRule::Gemini),
        ..Rules::BASE
    };
}

/// Keywords that constrain values: when a dialect cannot carry one, the model is told in the
/// description (and our validation still enforces it).
const CONSTRAINTS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
    "examples",
    "example",
    "const",
    "enum",
];

/// The bounds of the Rust integer type a schemars format names that tell a model something:
/// both for 8- and 16-bit types, and being unsigned (minimum 0) for wider ones.
fn telling_bounds(format: &str) -> Option<(Option<i128>, Option<i128>)> {
    let telling = |bound: i128| (bound == 0 || bound.unsigned_abs() <= u128::from(u16::MAX)).then_some(bound);
    integer_format_bounds(format).map(|(low, high)| (telling(low), telling(high)))
}

/// The walk over one tool's schema.
struct Walk<'d> {
    dialect: Dialect,
    rules: Rules,
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
    notes: Vec<ConversionNote>,
    problems: Vec<ExportProblem>,
    /// Where the walk is, as steps from the root or from the definition `def`: where an
    /// [`ArgumentMap`] entry goes.
    trail: Vec<Step>,
    def: Option<String>,
    arguments: ArgumentMap,
}

impl<'d> Walk<'d> {
    fn new(dialect: Dialect, rules: Rules, tool: &'d str, input: &Value) -> Self {
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
    fn mark(&mut self, mark: Mark) {
        self.arguments.record(self.def.as_deref(), &self.trail, mark);
    }

    /// Walks `schema` one `step` below where the walk is.
    fn below(&mut self, step: Step, schema: &Value, at: &str) -> Value {
        self.trail.push(step);
        let out = self.node(schema, at);
        self.trail.pop();
        out
    }

    fn takes(&self, keyword: &str) -> bool {
        self.rules.allowed.is_none_or(|lists| lists.iter().any(|list| list.contains(&keyword)))
    }

    fn note(&mut self, pointer: &str, keyword: &str, action: NoteAction, detail: impl Into<String>) {
        self.notes.push(ConversionNote {
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            action,
            detail: detail.into(),
        });
    }

    fn inexpressible(&mut self, pointer: &str, construct: impl Into<String>) {
        self.problems.push(ExportProblem::Inexpressible {
            tool: self.tool.to_owned(),
            dialect: self.dialect.label(),
            pointer: pointer.to_owned(),
            construct: construct.into(),
        });
    }

    /// The tool's input schema in the dialect.
    fn root(&mut self, schema: &Value) -> Value {
        let Some(map) = schema.as_object() else {
            self.inexpressible("", "a schema that is not an object");
            return Value::Null;
        };
        let mut body = map.clone();
        body.remove("$defs");
        body.remove("$schema");
        body.remove("title");
        if self.rules.no_recursion {
            if let Some(name) = self.recursive.iter().next().cloned() {
                self.inexpressible(&format!("/$defs/{name}"), format!("the recursive type `{name}`"));
            }
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
        if let Value::Object(map) = &mut out {
            if map.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty) && !self.rules.all_required {
                map.remove("required");
            }
        }
        out
    }

    /// An MCP output schema: its root must be an object, so any other is wrapped as `result`.
    fn output(&mut self, schema: &Value) -> Value {
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
    fn node(&mut self, schema: &Value, at: &str) -> Value {
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

        if let Some(target) = node.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            if let Some(done) = self.reference(&mut node, &target, at) {
                return done;
            }
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
        if let Some(items) = node.get("items").cloned() {
            if items.is_object() || items == Value::Bool(true) {
                node.insert("items".into(), self.below(Step::Items, &items, &format!("{at}/items")));
            }
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

    /// `$schema`, `title` and custom keywords.
    fn fixed_drops(&mut self, node: &mut Map<String, Value>, at: &str) {
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
    fn combinators(&mut self, node: &mut Map<String, Value>, at: &str) {
        if self.rules.one_of_as_any_of {
            // schemars' `oneOf` branches exclude each other (tags, disjoint kinds), so `anyOf` means
            // the same: no note.
            if let Some(one_of) = node.remove("oneOf") {
                node.insert("anyOf".into(), one_of);
            }
        }
        let allows_all_of = self.takes("allOf");
        if let Some(Value::Array(parts)) = node.get("allOf").cloned() {
            if parts.len() == 1 && !allows_all_of {
                node.remove("allOf");
                if let Value::Object(part) = &parts[0] {
                    for (key, value) in part {
                        node.entry(key.clone()).or_insert_with(|| value.clone());
                    }
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
    fn numeric_format(&mut self, node: &mut Map<String, Value>) {
        let Some(format) = node.get("format").and_then(Value::as_str).map(str::to_owned) else { return };
        if !is_numeric_format(&format) {
            return;
        }
        node.remove("format");
        if let Some((low, high)) = telling_bounds(&format) {
            if let Some(low) = low {
                if !node.contains_key("minimum") && !node.contains_key("exclusiveMinimum") {
                    node.insert("minimum".into(), json!(low as i64));
                }
            }
            if let Some(high) = high {
                if !node.contains_key("maximum") && !node.contains_key("exclusiveMaximum") {
                    node.insert("maximum".into(), json!(high as i64));
                }
            }
        }
    }

    /// Null: `nullable: true` in the OpenAPI subset, else left as JSON Schema says it.
    fn nullability(&mut self, node: &mut Map<String, Value>) {
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
    fn constants(&mut self, node: &mut Map<String, Value>, at: &str, moved: &mut Vec<String>) {
        if self.rules.const_as_enum {
            if let Some(value) = node.get("const").cloned() {
                if value.is_string() || !self.rules.string_enums {
                    node.remove("const");
                    node.insert("enum".into(), json!([value]));
                }
            }
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
    fn keywords(&mut self, node: &mut Map<String, Value>, at: &str, moved: &mut Vec<String>) {
        if let Some(format) = node.get("format").and_then(Value::as_str).map(str::to_owned) {
            if self.rules.formats.is_some_and(|formats| !formats.contains(&format.as_str())) {
                node.remove("format");
                let words = format!("format: {format}");
                self.note(
                    at,
                    "format",
                    NoteAction::MovedToDescription,
                    format!("\"{words}\" added to the description"),
                );
                moved.push(words);
            }
        }
        if self.rules.min_items_up_to_one {
            if let Some(min) = node.get("minItems").and_then(Value::as_u64) {
                if min > 1 {
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
            }
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
    fn tuple(&mut self, node: &mut Map<String, Value>, at: &str, moved: &mut Vec<String>) {
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
    fn goes_as_text(&self, node: &Map<String, Value>, at: &str) -> bool {
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
    fn map(&mut self, node: &mut Map<String, Value>, values: &Value, at: &str) {
        let words = format!("a JSON object as text, mapping names to {}", kind_words(values));
        self.as_json_text(node, at, "additionalProperties", "a map", &words);
    }

    /// A value of any type (`serde_json::Value`), which the dialect cannot declare.
    fn free_value(&mut self, schema: &Value, at: &str) -> Value {
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

/// O8: the limits of a strict schema, as the construct that breaks one.
fn openai_strict_limit(schema: &Value) -> Option<String> {
    #[derive(Default)]
    struct Count {
        properties: usize,
        enum_values: usize,
        text: usize,
        deepest: usize,
    }
    fn walk(schema: &Value, objects: usize, count: &mut Count) {
        match schema {
            Value::Object(map) => {
                let is_object = map.contains_key("properties");
                let objects = objects + usize::from(is_object);
                count.deepest = count.deepest.max(objects);
                if let Some(Value::Object(properties)) = map.get("properties") {
                    count.properties += properties.len();
                    count.text += properties.keys().map(String::len).sum::<usize>();
                }
                if let Some(Value::Array(values)) = map.get("enum") {
                    count.enum_values += values.len();
                    count.text += values.iter().filter_map(Value::as_str).map(str::len).sum::<usize>();
                }
                map.iter().filter(|(k, _)| *k != "enum").for_each(|(_, v)| walk(v, objects, count));
            }
            Value::Array(values) => values.iter().for_each(|v| walk(v, objects, count)),
            _ => {}
        }
    }
    let mut count = Count::default();
    walk(schema, 0, &mut count);
    // `$defs` sit under the root object; a definition's own nesting is counted from there.
    let limits = [
        (count.deepest, 10, "levels of nested objects"),
        (count.properties, 5000, "properties"),
        (count.enum_values, 1000, "enum values"),
        (count.text, 120_000, "characters of names and enum values"),
    ];
    limits.into_iter().find(|(n, max, _)| n > max).map(|(n, max, what)| format!("{n} {what} (at most {max})"))
}

/// Whether a schema takes a value of any type (`true`, or only annotations).
fn is_free(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(map) => map.keys().all(|k| k == "description" || k == "title" || k.starts_with("x-")),
        _ => false,
    }
}

fn is_object_node(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

/// Whether `schema` already takes `null` (a type list with it, or an `anyOf` branch).
fn accepts_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => return true,
        _ => {}
    }
    schema.get("anyOf").and_then(Value::as_array).is_some_and(|branches| branches.iter().any(accepts_null))
        || schema.get("nullable") == Some(&Value::Bool(true))
}

/// Appends `words` to the node's description.
fn append_description(node: &mut Map<String, Value>, words: &str) {
    let current = node.get("description").and_then(Value::as_str).unwrap_or_default().trim_end().to_owned();
    let text = if current.is_empty() { capitalise(words) } else { format!("{current} ({words})") };
    node.insert("description".into(), text.into());
}

fn capitalise(words: &str) -> String {
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A constraint in words the model reads: `minLength: 2`, `pattern: ^[a-z]+$`.
fn constraint_words(keyword: &str, value: &Value) -> String {
    match (keyword, value) {
        ("pattern", Value::String(p)) => format!("pattern: {p}"),
        ("format", Value::String(f)) => format!("format: {f}"),
        ("uniqueItems", Value::Bool(true)) => "items must be unique".to_owned(),
        ("default", v) => format!("default: {v}"),
        ("examples", Value::Array(values)) => format!("examples: {}", join_values(values)),
        ("example", v) => format!("example: {v}"),
        ("enum", Value::Array(values)) => format!("one of {}", join_values(values)),
        ("const", v) => format!("always {v}"),
        (k, v) => format!("{k}: {v}"),
    }
}

fn join_values(values: &[Value]) -> String {
    values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
}

/// A schema's kind in a few words, for descriptions.
fn kind_words(schema: &Value) -> String {
    if is_free(schema) {
        return "any JSON values".to_owned();
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return target.rsplit('/').next().unwrap_or(target).to_owned();
    }
    match schema.get("type") {
        Some(Value::String(t)) => match t.as_str() {
            "string" => "strings",
            "integer" => "integers",
            "number" => "numbers",
            "boolean" => "booleans",
            "array" => "lists",
            "object" => "objects",
            other => other,
        }
        .to_owned(),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => "values".to_owned(),
    }
}

/// The schema with every definition at the root's `$defs` (O7: OpenAI refuses nested `$defs`;
/// schemas from MCP servers and other generators nest them, or use draft-07's `definitions`),
/// and every `$ref` rewritten to point there. A name met twice gets a `_2`, `_3`... suffix.
fn hoist_defs(schema: &Value) -> Value {
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
fn recursive_defs(defs: &Map<String, Value>) -> BTreeSet<String> {
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
fn referenced(root: &Value, defs: &Map<String, Value>) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut stack: Vec<String> = refs_in(root).into_iter().collect();
    while let Some(name) = stack.pop() {
        if used.insert(name.clone()) {
            if let Some(def) = defs.get(&name) {
                stack.extend(refs_in(def));
            }
        }
    }
    used
}
