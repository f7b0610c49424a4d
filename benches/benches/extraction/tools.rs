//! The tools `benches/extraction.rs` measures, the derived structs with the same fields (the
//! limit), and the clean and messy arguments texts; shared with `examples/extract_loop.rs`.

#![allow(dead_code)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::prelude::*;

// ---- 1 parameter -------------------------------------------------------------------------

/// Fetches an issue by number.
#[tool]
pub fn get_issue(
    /// Issue number.
    number: u32,
) -> String {
    let _ = number;
    String::new()
}

#[derive(Deserialize)]
pub struct GetIssueArgs {
    number: u32,
}

pub const GET_ISSUE_CLEAN: &str = r#"{"number": 4211}"#;
pub const GET_ISSUE_MESSY: &str = r#"{"number": "4211"}"#;

// ---- 2 parameters ------------------------------------------------------------------------

/// Reads a file of the workspace.
#[tool]
pub fn read_file(
    /// Path relative to the workspace root.
    path: String,
    /// Stop after this many bytes.
    max_bytes: u64,
) -> String {
    let _ = (path, max_bytes);
    String::new()
}

#[derive(Deserialize)]
pub struct ReadFileArgs {
    path: String,
    max_bytes: u64,
}

pub const READ_FILE_CLEAN: &str = r#"{"path": "src/extract/fast_path.rs", "max_bytes": 65536}"#;
pub const READ_FILE_MESSY: &str = r#"{"path": "src/extract/fast_path.rs", "max_bytes": "65536"}"#;

// ---- 5 parameters ------------------------------------------------------------------------

/// Looks notes up.
#[tool]
pub fn search_notes(
    /// Keywords.
    query: String,
    /// At most this many.
    limit: Option<u32>,
    /// Only notes with these tags.
    tags: Vec<String>,
    /// Match the keywords exactly.
    exact: bool,
    /// Minimum score.
    threshold: f64,
) -> String {
    let _ = (query, limit, tags, exact, threshold);
    String::new()
}

#[derive(Deserialize)]
pub struct SearchNotesArgs {
    query: String,
    limit: Option<u32>,
    tags: Vec<String>,
    exact: bool,
    threshold: f64,
}

pub const SEARCH_NOTES_CLEAN: &str = r#"{"query": "agent state consistency", "limit": 5, "tags": ["rust", "agents", "notes"], "exact": true, "threshold": 0.25}"#;
/// `"5"` for the integer, the list as JSON text, `"true"` for the boolean.
pub const SEARCH_NOTES_MESSY: &str = r#"{"query": "agent state consistency", "limit": "5", "tags": "[\"rust\", \"agents\", \"notes\"]", "exact": "true", "threshold": 0.25}"#;

// ---- 8 parameters ------------------------------------------------------------------------

/// Where a parcel goes.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Address {
    /// Recipient's name.
    name: String,
    /// Street and number.
    street: String,
    /// City.
    city: String,
    /// Postal code.
    postcode: String,
    /// ISO 3166 country code.
    country: String,
}

/// One line of the parcel.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Item {
    /// Stock-keeping unit.
    sku: String,
    /// How many.
    quantity: u32,
    /// Weight of one, in kilograms.
    weight_kg: f64,
}

/// Delivery speed.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Service {
    Standard,
    Express,
    Overnight,
}

/// Books a shipment.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn create_shipment(
    /// Who receives it.
    recipient: Address,
    /// What is in the parcel.
    items: Vec<Item>,
    /// How fast.
    service: Service,
    /// Free-form labels.
    metadata: BTreeMap<String, String>,
    /// Declared value, for insurance.
    insured_value: Option<f64>,
    /// Whether the recipient must sign.
    signature_required: bool,
    /// Notes for the courier.
    instructions: Option<String>,
    /// The sender's reference.
    reference: String,
) -> String {
    let _ = (recipient, items, service, metadata, insured_value, signature_required, instructions, reference);
    String::new()
}

#[derive(Deserialize)]
pub struct CreateShipmentArgs {
    recipient: Address,
    items: Vec<Item>,
    service: Service,
    metadata: BTreeMap<String, String>,
    insured_value: Option<f64>,
    signature_required: bool,
    instructions: Option<String>,
    reference: String,
}

pub const CREATE_SHIPMENT_CLEAN: &str = r#"{"recipient": {"name": "Ada Lovelace", "street": "12 St James's Square", "city": "London", "postcode": "SW1Y 4JH", "country": "GB"}, "items": [{"sku": "BK-1843", "quantity": 2, "weight_kg": 0.8}, {"sku": "NT-0007", "quantity": 1, "weight_kg": 1.25}], "service": "express", "metadata": {"order": "A-10293", "channel": "web"}, "insured_value": 149.5, "signature_required": true, "instructions": "Leave with the concierge.", "reference": "PO-7781"}"#;
/// The enum token in the wrong case, `"true"` for the boolean, `"2"` for a nested integer.
pub const CREATE_SHIPMENT_MESSY: &str = r#"{"recipient": {"name": "Ada Lovelace", "street": "12 St James's Square", "city": "London", "postcode": "SW1Y 4JH", "country": "GB"}, "items": [{"sku": "BK-1843", "quantity": "2", "weight_kg": 0.8}, {"sku": "NT-0007", "quantity": 1, "weight_kg": 1.25}], "service": "Express", "metadata": {"order": "A-10293", "channel": "web"}, "insured_value": 149.5, "signature_required": "true", "instructions": "Leave with the concierge.", "reference": "PO-7781"}"#;
