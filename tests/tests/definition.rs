//! What `#[tool]` derives from a declaration: name, description, parameter list, input and
//! output schema, metadata.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::{Cardinality, EnumConstraint, ToolParameter, ValueKind};

/// Search the memory store for fragments matching a query.
///
/// Returns at most `limit` summaries, best first.
#[tool(name = "memory.search", tags("memory"), category = "knowledge", version = "1.2.0", annotations(read_only))]
async fn memory_search(
    /// Keywords to look for.
    #[param(example = "agent state consistency")]
    query: String,
    /// Maximum number of fragments to return.
    #[param(range(min = 1, max = 50))]
    limit: Option<u32>,
    _ctx: &ToolContext,
) -> Result<Vec<String>, ToolError> {
    Ok(vec![query, limit.unwrap_or(3).to_string()])
}

#[test]
fn fn_form_derives_name_description_and_parameters() {
    let d = <memory_search as DeclaredTool>::definition();
    assert_eq!(d.name, "memory.search");
    assert_eq!(
        d.description,
        "Search the memory store for fragments matching a query.\n\nReturns at most `limit` summaries, best first."
    );
    assert_eq!(
        d.parameters,
        vec![
            ToolParameter {
                name: "query".into(),
                value_kind: ValueKind::String,
                cardinality: Cardinality::Single,
                required: true,
                description: "Keywords to look for.".into(),
                enum_constraint: None,
                example: Some(json!("agent state consistency")),
                default: None,
                strict: false,
            },
            ToolParameter {
                name: "limit".into(),
                value_kind: ValueKind::Integer,
                cardinality: Cardinality::Optional,
                required: false,
                description: "Maximum number of fragments to return.".into(),
                enum_constraint: None,
                example: None,
                default: None,
                strict: false,
            },
        ]
    );
    assert_eq!(d.tags, vec!["memory".to_owned()]);
    assert_eq!(d.category.as_deref(), Some("knowledge"));
    assert_eq!(d.version.as_deref(), Some("1.2.0"));
    assert_eq!(d.annotations.read_only, Some(true));
    assert_eq!(d.annotations.destructive, None);
    assert!(d.source.file.ends_with("definition.rs"), "{}", d.source);
}

#[test]
fn input_schema_is_an_object_with_required_and_constraints_and_no_injected_values() {
    let d = <memory_search as DeclaredTool>::definition();
    assert_eq!(
        d.input_schema,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords to look for.", "examples": ["agent state consistency"]},
                "limit": {
                    "type": ["integer", "null"],
                    "format": "uint32",
                    "minimum": 1,
                    "description": "Maximum number of fragments to return.",
                    "maximum": 50
                }
            },
            "required": ["query"]
        })
    );
    assert!(d.output_schema.is_none(), "a Vec<String> result declares no output schema");
}

/// How urgent something is.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    High,
}

/// A place.
#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
struct Place {
    /// Street and number.
    street: String,
    /// Postal code.
    zip: Option<String>,
}

/// A tree of labels (recursive).
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Node {
    label: String,
    children: Vec<Node>,
}

/// Exercise every kind of parameter.
///
/// # Arguments
///
/// * `priority` - How urgent it is.
/// * `labels` - Labels to attach,
///   one per entry.
#[tool]
#[allow(clippy::too_many_arguments)]
fn every_kind(
    priority: Priority,
    labels: Vec<Priority>,
    place: Option<Place>,
    scores: BTreeMap<String, f64>,
    anything: Value,
    #[param(default = 10)] page_size: u32,
    #[param(rename = "type", case_sensitive)] kind: Option<Priority>,
    r#match: bool,
    #[param(default)] tree: Option<Node>,
) -> String {
    format!("{priority:?} {labels:?} {place:?} {scores:?} {anything} {page_size} {kind:?} {match} {tree:?}", match = r#match)
}

#[test]
fn kinds_and_cardinalities_come_from_the_types() {
    let d = <every_kind as DeclaredTool>::definition();
    let summary: Vec<(&str, ValueKind, Cardinality, bool)> =
        d.parameters.iter().map(|p| (p.name.as_str(), p.value_kind, p.cardinality, p.required)).collect();
    assert_eq!(
        summary,
        vec![
            ("priority", ValueKind::EnumToken, Cardinality::Single, true),
            ("labels", ValueKind::EnumToken, Cardinality::List, true),
            ("place", ValueKind::Object, Cardinality::Optional, false),
            ("scores", ValueKind::Number, Cardinality::Map, true),
            ("anything", ValueKind::Any, Cardinality::Single, true),
            ("page_size", ValueKind::Integer, Cardinality::Single, false),
            ("type", ValueKind::EnumToken, Cardinality::Optional, false),
            ("match", ValueKind::Boolean, Cardinality::Single, true),
            ("tree", ValueKind::Object, Cardinality::Optional, false),
        ]
    );
    let allowed = EnumConstraint { allowed_values: vec!["low".into(), "high".into()], case_sensitive: false };
    assert_eq!(d.parameters[0].enum_constraint.as_ref(), Some(&allowed));
    assert_eq!(d.parameters[1].enum_constraint.as_ref(), Some(&allowed));
    assert_eq!(d.parameters[6].enum_constraint.as_ref().map(|e| e.case_sensitive), Some(true));
    assert_eq!(d.parameters[5].default, Some(json!(10)));
}

#[test]
fn rustdoc_arguments_section_describes_parameters_and_leaves_the_description() {
    let d = <every_kind as DeclaredTool>::definition();
    assert_eq!(d.description, "Exercise every kind of parameter.");
    assert_eq!(d.parameters[0].description, "How urgent it is.");
    assert_eq!(d.parameters[1].description, "Labels to attach, one per entry.");
    assert_eq!(d.parameters[2].description, "");
}

#[test]
fn schema_references_shared_types_once_and_marks_defaults_optional() {
    let d = <every_kind as DeclaredTool>::definition();
    let schema = &d.input_schema;
    assert_eq!(schema["required"], json!(["priority", "labels", "scores", "anything", "match"]));
    assert_eq!(
        schema["properties"]["priority"],
        json!({"$ref": "#/$defs/Priority", "description": "How urgent it is."})
    );
    assert_eq!(schema["properties"]["page_size"]["default"], json!(10));
    assert_eq!(schema["properties"]["anything"], json!(true));
    let defs = schema["$defs"].as_object().unwrap();
    assert_eq!(defs.keys().collect::<Vec<_>>(), vec!["Priority", "Place", "Node"]);
    assert_eq!(defs["Node"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
}

/// A forecast.
#[derive(Debug, Serialize, JsonSchema)]
struct Forecast {
    /// Degrees Celsius.
    celsius: f64,
}

/// Forecast the weather.
#[tool(description = "Forecast the weather for a city.", examples(r#"{"city": "Oslo"}"#), timeout_ms = 1500)]
fn forecast(city: String) -> Json<Forecast> {
    Json(Forecast { celsius: if city.is_empty() { 0.0 } else { 21.5 } })
}

#[test]
fn json_results_declare_an_output_schema_and_overrides_win_over_docs() {
    let d = <forecast as DeclaredTool>::definition();
    assert_eq!(d.description, "Forecast the weather for a city.");
    assert_eq!(d.examples, vec![json!({"city": "Oslo"})]);
    assert_eq!(d.timeout, Some(std::time::Duration::from_millis(1500)));
    assert_eq!(
        d.output_schema,
        Some(json!({
            "title": "Forecast",
            "description": "A forecast.",
            "type": "object",
            "properties": {"celsius": {"description": "Degrees Celsius.", "type": "number", "format": "double"}},
            "required": ["celsius"]
        }))
    );
}

#[doc = include_str!("data/described.md")]
#[tool]
fn described() -> &'static str {
    "ok"
}

#[test]
fn descriptions_can_come_from_included_files() {
    let d = <described as DeclaredTool>::definition();
    assert_eq!(d.description, "Report the status of the build farm.\n\nIncluded from a Markdown file.");
    assert_eq!(d.input_schema, json!({"type": "object", "properties": {}, "required": []}));
}

/// Check whether a meeting room is free.
#[tool]
struct CheckAvailability {
    /// Room name.
    room: String,
    /// Time range such as "15:00-16:00".
    #[param(pattern = "^[0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2}$", length(min = 11, max = 11))]
    time: String,
}

impl ToolRun for CheckAvailability {
    type Output = Result<Json<Place>, ToolError>;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        Ok(Json(Place { street: format!("{} {}", self.room, self.time), zip: None }))
    }
}

#[test]
fn struct_form_uses_snake_case_name_field_docs_and_run_output() {
    let d = <CheckAvailability as DeclaredTool>::definition();
    assert_eq!(d.name, "check_availability");
    assert_eq!(d.description, "Check whether a meeting room is free.");
    assert_eq!(
        d.input_schema["properties"]["time"],
        json!({
            "type": "string",
            "description": "Time range such as \"15:00-16:00\".",
            "pattern": "^[0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2}$",
            "minLength": 11,
            "maxLength": 11
        })
    );
    assert_eq!(d.output_schema.as_ref().map(|s| s["title"].clone()), Some(json!("Place")));
}

#[test]
fn the_definition_is_computed_once() {
    let first: *const ToolDefinition = <memory_search as DeclaredTool>::definition();
    let second: *const ToolDefinition = tool_tests::declared_in(file!()).definition("memory.search").unwrap();
    assert_eq!(first, second);
}

/// Declares a string newtype whose hand-written schema is `$schema`.
macro_rules! string_newtype {
    ($(#[$doc:meta])* $name:ident, $schema:tt) => {
        $(#[$doc])*
        #[derive(Debug, Deserialize)]
        struct $name(String);

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

string_newtype!(
    /// A timestamp whose schema says `format: date-time`.
    When, {"type": "string", "format": "date-time"}
);
string_newtype!(
    /// A link whose schema says `format: uri`.
    Link, {"type": "string", "format": "uri"}
);
string_newtype!(
    /// An attachment handle that names its kind with `x-value-kind`.
    Attachment, {"type": "string", "x-value-kind": "attachment_reference"}
);

/// Every row of the README's type table.
#[tool]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn type_table(
    letter: char,
    path: std::path::PathBuf,
    flag: bool,
    count: usize,
    ratio: f32,
    unique: std::collections::HashSet<String>,
    triple: [u8; 3],
    pair: (u32, String),
    when: When,
    link: Link,
    attachment: Attachment,
    maybe_list: Option<Vec<u32>>,
) -> String {
    let (when, link, attachment) = (when.0, link.0, attachment.0);
    format!("{letter}{path:?}{flag}{count}{ratio}{unique:?}{triple:?}{pair:?}{when}{link}{attachment}{maybe_list:?}")
}

#[test]
fn the_readme_type_table_holds() {
    let d = <type_table as DeclaredTool>::definition();
    let summary: Vec<(&str, ValueKind, Cardinality, bool)> =
        d.parameters.iter().map(|p| (p.name.as_str(), p.value_kind, p.cardinality, p.required)).collect();
    assert_eq!(
        summary,
        vec![
            ("letter", ValueKind::String, Cardinality::Single, true),
            ("path", ValueKind::String, Cardinality::Single, true),
            ("flag", ValueKind::Boolean, Cardinality::Single, true),
            ("count", ValueKind::Integer, Cardinality::Single, true),
            ("ratio", ValueKind::Number, Cardinality::Single, true),
            ("unique", ValueKind::String, Cardinality::List, true),
            ("triple", ValueKind::Integer, Cardinality::List, true),
            ("pair", ValueKind::Array, Cardinality::Single, true),
            ("when", ValueKind::Timestamp, Cardinality::Single, true),
            ("link", ValueKind::Uri, Cardinality::Single, true),
            ("attachment", ValueKind::AttachmentReference, Cardinality::Single, true),
            ("maybe_list", ValueKind::Integer, Cardinality::List, false),
        ]
    );
}
