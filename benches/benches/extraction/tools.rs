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

// ---- 40 parameters -----------------------------------------------------------------------

// `page` and `page_size` are `i64` rather than `u32`: LLVM inlines a type's reader only while
// few tuples of the binary use it, so a 40-parameter tool reading `u32`s would move the
// 1-parameter tool's figures (its `u32` reader went out of line: 561 instructions, not 525),
// and the figures of the small tools are compared across commits.

/// Searches rental listings, with the many optional filters of a real search endpoint.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn search_listings(
    /// Free-text keywords.
    query: String,
    /// City to search in.
    city: String,
    /// District or neighbourhood.
    district: Option<String>,
    /// Postal code prefix.
    postcode: Option<String>,
    /// ISO 3166 country code.
    country: String,
    /// Lowest monthly price, in euros.
    min_price: Option<u32>,
    /// Highest monthly price, in euros.
    max_price: Option<u32>,
    /// At least this many bedrooms.
    min_bedrooms: Option<u32>,
    /// At most this many bedrooms.
    max_bedrooms: Option<u32>,
    /// At least this many bathrooms.
    min_bathrooms: Option<u32>,
    /// Smallest floor area, in square metres.
    min_area_m2: Option<f64>,
    /// Largest floor area, in square metres.
    max_area_m2: Option<f64>,
    /// Kinds of property to include.
    property_types: Vec<String>,
    /// Furnished or not; either when absent.
    furnished: Option<bool>,
    /// Only listings that accept pets.
    pets_allowed: bool,
    /// Only listings with parking.
    parking: bool,
    /// Only buildings with a lift.
    elevator: bool,
    /// Only listings with a balcony or terrace.
    balcony: bool,
    /// Only listings with a garden.
    garden: bool,
    /// Only listings with a pool.
    pool: bool,
    /// Only listings with air conditioning.
    air_conditioning: bool,
    /// Lowest floor (0 is the ground floor).
    min_floor: Option<i32>,
    /// Highest floor.
    max_floor: Option<i32>,
    /// Accepted energy ratings.
    energy_ratings: Vec<String>,
    /// Move-in date, YYYY-MM-DD.
    available_from: Option<String>,
    /// Shortest lease, in months.
    min_lease_months: Option<u32>,
    /// Longest lease, in months.
    max_lease_months: Option<u32>,
    /// Centre of a radius search.
    latitude: Option<f64>,
    /// Centre of a radius search.
    longitude: Option<f64>,
    /// Radius around the centre, in kilometres.
    radius_km: Option<f64>,
    /// Within walking distance of public transport.
    near_transit: bool,
    /// Longest commute to the workplace.
    max_commute_minutes: Option<u32>,
    /// Address of the workplace.
    workplace: Option<String>,
    /// Languages the landlord speaks.
    languages: Vec<String>,
    /// Only listings with verified landlords.
    verified_only: bool,
    /// Field to sort by.
    sort_by: String,
    /// Sort from highest to lowest.
    descending: bool,
    /// Page of results, from 1.
    page: i64,
    /// Results per page.
    page_size: i64,
    /// Currency for prices.
    currency: String,
) -> String {
    let _ = (
        query,
        city,
        district,
        postcode,
        country,
        min_price,
        max_price,
        min_bedrooms,
        max_bedrooms,
        min_bathrooms,
        min_area_m2,
        max_area_m2,
        property_types,
        furnished,
        pets_allowed,
        parking,
        elevator,
        balcony,
        garden,
        pool,
        air_conditioning,
        min_floor,
        max_floor,
        energy_ratings,
        available_from,
        min_lease_months,
        max_lease_months,
        latitude,
        longitude,
        radius_km,
        near_transit,
        max_commute_minutes,
        workplace,
        languages,
        verified_only,
        sort_by,
        descending,
        page,
        page_size,
        currency,
    );
    String::new()
}

#[derive(Deserialize)]
pub struct SearchListingsArgs {
    query: String,
    city: String,
    district: Option<String>,
    postcode: Option<String>,
    country: String,
    min_price: Option<u32>,
    max_price: Option<u32>,
    min_bedrooms: Option<u32>,
    max_bedrooms: Option<u32>,
    min_bathrooms: Option<u32>,
    min_area_m2: Option<f64>,
    max_area_m2: Option<f64>,
    property_types: Vec<String>,
    furnished: Option<bool>,
    pets_allowed: bool,
    parking: bool,
    elevator: bool,
    balcony: bool,
    garden: bool,
    pool: bool,
    air_conditioning: bool,
    min_floor: Option<i32>,
    max_floor: Option<i32>,
    energy_ratings: Vec<String>,
    available_from: Option<String>,
    min_lease_months: Option<u32>,
    max_lease_months: Option<u32>,
    latitude: Option<f64>,
    longitude: Option<f64>,
    radius_km: Option<f64>,
    near_transit: bool,
    max_commute_minutes: Option<u32>,
    workplace: Option<String>,
    languages: Vec<String>,
    verified_only: bool,
    sort_by: String,
    descending: bool,
    page: i64,
    page_size: i64,
    currency: String,
}

pub const SEARCH_LISTINGS_CLEAN: &str = r#"{"query": "sunny flat near a park", "city": "Lisbon", "district": "Alfama", "postcode": "1100", "country": "PT", "min_price": 800, "max_price": 1600, "min_bedrooms": 2, "max_bedrooms": 3, "min_bathrooms": 1, "min_area_m2": 65.0, "max_area_m2": 120.5, "property_types": ["apartment", "loft"], "furnished": true, "pets_allowed": true, "parking": false, "elevator": true, "balcony": true, "garden": false, "pool": false, "air_conditioning": true, "min_floor": 1, "max_floor": 6, "energy_ratings": ["A", "B", "C"], "available_from": "2026-01-15", "min_lease_months": 6, "max_lease_months": 24, "latitude": 38.7139, "longitude": -9.1334, "radius_km": 2.5, "near_transit": true, "max_commute_minutes": 30, "workplace": "Avenida da Liberdade 110", "languages": ["en", "pt"], "verified_only": true, "sort_by": "price", "descending": false, "page": 1, "page_size": 25, "currency": "EUR"}"#;
/// `"3"` for an integer, `"true"` for a boolean, a list sent as JSON text.
pub const SEARCH_LISTINGS_MESSY: &str = r#"{"query": "sunny flat near a park", "city": "Lisbon", "district": "Alfama", "postcode": "1100", "country": "PT", "min_price": 800, "max_price": 1600, "min_bedrooms": 2, "max_bedrooms": "3", "min_bathrooms": 1, "min_area_m2": 65.0, "max_area_m2": 120.5, "property_types": ["apartment", "loft"], "furnished": true, "pets_allowed": true, "parking": false, "elevator": "true", "balcony": true, "garden": false, "pool": false, "air_conditioning": true, "min_floor": 1, "max_floor": 6, "energy_ratings": "[\"A\", \"B\", \"C\"]", "available_from": "2026-01-15", "min_lease_months": 6, "max_lease_months": 24, "latitude": 38.7139, "longitude": -9.1334, "radius_km": 2.5, "near_transit": true, "max_commute_minutes": 30, "workplace": "Avenida da Liberdade 110", "languages": ["en", "pt"], "verified_only": true, "sort_by": "price", "descending": false, "page": 1, "page_size": 25, "currency": "EUR"}"#;
