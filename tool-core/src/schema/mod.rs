//! Layer 2, schemas: how tool schemas are generated (schemars settings), what a schema says a
//! value is (its shape: kind, cardinality, allowed values), and the conversion plan compiled
//! from an input schema that extraction follows.
//!
//! Uses only the model.

pub(crate) mod plan;
pub(crate) mod shape;

use schemars::generate::SchemaSettings;
use schemars::SchemaGenerator;

/// The settings every tool schema is generated with: JSON Schema 2020-12, the deserialize
/// contract (what the tool accepts), no `$schema` keyword.
pub fn schema_settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().for_deserialize().with(|s| s.meta_schema = None)
}

/// A generator with [`schema_settings`].
pub fn schema_generator() -> SchemaGenerator {
    schema_settings().into_generator()
}
