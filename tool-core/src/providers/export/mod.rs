//! Tool definitions out: each provider's exact request fragment.
//!
//! A tool's input schema (schemars, JSON Schema 2020-12) is rewritten once per dialect by one
//! walk, parameterised by what the dialect accepts. What the dialect cannot say is
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
//!
//! A tool's whole-call examples go where [`ExportOptions::examples`] says: Anthropic's
//! `input_examples`, else a line `Examples: {...}; {...}` appended to the description (within
//! OpenAI's 1,024 characters), written in the form the arguments go out in (the same
//! [`ArgumentMap`]; in OpenAI strict mode with each optional argument left out as null).

mod defs; // `$defs` hoisted to the root, recursion and reachability of definitions
mod dialect; // what each dialect accepts, as the walk's rules
mod examples; // a tool's whole-call examples: native, in the description, or not sent
mod keywords; // the keyword and format lists of each dialect
mod limits; // the providers' size limits on a schema and on a request
mod node; // what a schema node takes: any value, an object, null
mod report; // what an export produced, and why it failed
mod rewrite; // one node's keywords rewritten for the dialect
mod walk; // the walk over one tool's schema
mod words; // what a dialect cannot say, in the words added to descriptions

pub use examples::ExamplePlacement;
#[cfg(feature = "search")]
pub(crate) use report::request_fragment;
pub use report::{ConversionNote, ConversionReport, ExportError, ExportProblem, Exported, NoteAction};
pub(crate) use walk::mcp_wraps_output;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use self::defs::hoist_defs;
use self::limits::{anthropic_strict_limits, openai_strict_limit};
use self::walk::Walk;
use super::dialect::Dialect;
use super::names::{ArgumentMap, NameMap};
use crate::model::{ToolAnnotations, ToolDefinition};

/// Exports `tools` in `dialect`, in the order given.
///
/// ```
/// use serde_json::json;
/// use tool_core::prelude::*;
/// use tool_core::providers::export::export;
/// use tool_core::providers::Dialect;
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

/// What the host chooses about an export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportOptions {
    /// What to do when two tools would reach the provider under the same name.
    pub name_collisions: NameCollisions,
    /// Where the tools' examples go: natively where the dialect takes them, else into the
    /// description (the default), always into the description, or nowhere.
    pub examples: ExamplePlacement,
}

impl ExportOptions {
    /// These options, with `name_collisions` settled this way.
    pub fn name_collisions(mut self, name_collisions: NameCollisions) -> Self {
        self.name_collisions = name_collisions;
        self
    }

    /// These options, with the examples placed this way.
    pub fn examples(mut self, examples: ExamplePlacement) -> Self {
        self.examples = examples;
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
/// use tool_core::providers::export::{export_with, ExportOptions, NameCollisions};
/// use tool_core::providers::Dialect;
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
        match export_one(dialect, options.examples, definition, wire) {
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
    examples: ExamplePlacement,
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
    let placed = examples::place(dialect, examples, definition, &arguments, &parameters);
    walk.notes.extend(placed.notes);
    let description = placed.description;
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
            if let Some(examples) = placed.native {
                tool["input_examples"] = Value::Array(examples);
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
            let mut input =
                if no_parameters { json!({"type": "object", "additionalProperties": false}) } else { parameters };
            // A strict tool refuses unknown keys rather than dropping them: its object is closed.
            if let (true, Value::Object(root)) = (definition.strict, &mut input) {
                root.entry("additionalProperties").or_insert(Value::Bool(false));
            }
            tool.insert("inputSchema".into(), input);
            if let Some(output) = output {
                tool.insert("outputSchema".into(), output);
            }
            if let Some(annotations) = mcp_annotations(&definition.annotations) {
                tool.insert("annotations".into(), annotations);
            }
            if !definition.icons.is_empty() {
                tool.insert("icons".into(), serde_json::to_value(&definition.icons).unwrap_or_default());
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
