//! A tool whose input schema uses JSON Schema 2020-12's `$schema`, `$defs` and
//! `additionalProperties`, which MCP (SEP-1613) asks servers to keep in what they list.

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::prelude::*;

/// A postal address.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(rename = "address")]
pub struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// Tool with JSON Schema 2020-12 features
#[tool]
async fn json_schema_2020_12_tool(name: Option<String>, address: Option<Address>) -> String {
    let street = address.as_ref().and_then(|a| a.street.as_deref()).unwrap_or("");
    let city = address.as_ref().and_then(|a| a.city.as_deref()).unwrap_or("");
    format!("{} lives at {street}, {city}", name.as_deref().unwrap_or("nobody"))
}
