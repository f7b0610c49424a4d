//! Tool schemas: the settings every parameter schema is generated with ([`settings`],
//! [`generator`]), for a host that writes schemas of its own to match, and the keyword a custom
//! `JsonSchema` impl sets to pick a parameter's [`ValueKind`](crate::ValueKind)
//! ([`VALUE_KIND_KEYWORD`]).

// Layer 2: also what a schema says a value is (its shape: kind, cardinality, allowed values),
// and the conversion plan compiled from an input schema that extraction follows. Uses only the
// model.

pub(crate) mod plan;
pub(crate) mod shape;

pub use shape::VALUE_KIND_KEYWORD;

use schemars::generate::SchemaSettings;
use schemars::SchemaGenerator;
use serde_json::{Map, Value};

use crate::model::{EnumConstraint, SourceLocation, ToolDefinition, ToolParameter};
use shape::shape_of;

/// The settings every tool schema is generated with: JSON Schema 2020-12, the deserialize
/// contract (what the tool accepts), no `$schema` keyword.
pub fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().for_deserialize().with(|s| s.meta_schema = None)
}

/// A generator with [`settings`].
pub fn generator() -> SchemaGenerator {
    settings().into_generator()
}

/// Reads the parameter list off an object schema.
fn parameters_of(schema: &Value) -> Vec<ToolParameter> {
    let empty = Map::new();
    let definitions = schema.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .map(|(name, property)| {
            let shape = shape_of(property, definitions);
            ToolParameter {
                name: name.clone(),
                value_kind: shape.kind,
                cardinality: shape.cardinality,
                required: required.contains(&name.as_str()),
                description: property.get("description").and_then(Value::as_str).unwrap_or_default().to_owned(),
                enum_constraint: shape
                    .allowed_values
                    .map(|allowed_values| EnumConstraint { allowed_values, case_sensitive: false }),
                example: property.get("examples").and_then(|e| e.get(0)).cloned(),
                default: property.get("default").cloned(),
                strict: false,
            }
        })
        .collect()
}

impl ToolDefinition {
    /// A definition for a tool implemented by hand (`impl Tool for ..`): its parameters are
    /// read off `input_schema` (an object schema), as for a [`DynamicTool`](crate::DynamicTool);
    /// no tags, examples or annotations; the source is where this is called. The fields are
    /// public, to set the rest.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::ToolDefinition;
    ///
    /// let definition = ToolDefinition::new(
    ///     "clock.now",
    ///     "The current time.",
    ///     json!({"type": "object", "properties": {"zone": {"type": "string"}}, "required": []}),
    /// );
    /// assert_eq!(definition.parameters[0].name, "zone");
    /// assert!(!definition.parameters[0].required);
    /// ```
    #[track_caller]
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> ToolDefinition {
        let caller = std::panic::Location::caller();
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters: parameters_of(&input_schema),
            input_schema,
            output_schema: None,
            tags: Vec::new(),
            category: None,
            version: None,
            examples: Vec::new(),
            annotations: Default::default(),
            timeout: None,
            strict: false,
            defer: false,
            approval: crate::model::Approval::Never,
            sequential: false,
            task: crate::model::TaskSupport::Never,
            task_asks_first: false,
            icons: Vec::new(),
            scopes: Vec::new(),
            source: SourceLocation { file: caller.file().to_owned(), line: caller.line() },
        }
    }
}
