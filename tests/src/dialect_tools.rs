//! The tools of the provider-dialect tests (`provider_export.rs`, `xml.rs`): nested structs,
//! enums, options of scalars, enums and structs, lists of structs, maps, integer and float
//! widths, a tagged enum, a tuple, a recursive type, constraints, a tool without parameters and
//! dotted names. Each tool answers with its arguments as JSON, as it read them.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_core::prelude::*;

/// Where a parcel goes.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Address {
    /// Recipient's name.
    pub name: String,
    /// Street and number.
    pub street: String,
    /// Apartment, floor.
    pub line2: Option<String>,
    /// Postal code.
    pub postcode: Option<u32>,
}

/// One line of the parcel.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Item {
    /// Stock-keeping unit.
    pub sku: String,
    /// How many.
    pub quantity: u32,
    /// Weight of one, in kilograms.
    pub weight_kg: f64,
}

/// Delivery speed.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Service {
    Standard,
    Express,
}

/// Books a shipment.
#[tool(name = "shipment.create", annotations(destructive, title = "Create shipment"))]
#[allow(clippy::too_many_arguments)]
pub fn create_shipment(
    /// Who receives it.
    recipient: Address,
    /// Where to send it back if undeliverable.
    return_to: Option<Address>,
    /// What is in the parcel.
    items: Vec<Item>,
    /// How fast.
    service: Service,
    /// A faster service if available.
    upgrade: Option<Service>,
    /// Free-form labels.
    metadata: BTreeMap<String, String>,
    /// Declared value, for insurance.
    insured_value: Option<f64>,
    /// Sender's account.
    account: i64,
    /// The sender's reference.
    #[param(pattern = "^PO-[0-9]+$", length(min = 4, max = 12))]
    reference: String,
    /// Parcels in the shipment.
    #[param(range(min = 1, max = 20), default = 1)]
    parcels: u32,
) -> String {
    json!({"recipient": recipient, "return_to": return_to, "items": items, "service": service, "upgrade": upgrade,
        "metadata": metadata, "insured_value": insured_value, "account": account, "reference": reference,
        "parcels": parcels})
    .to_string()
}

/// A shape to draw.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Radius.
        radius: f64,
    },
    /// A square.
    Square {
        /// Side length.
        side: f64,
    },
}

/// Draws a shape at a point.
#[tool(name = "canvas_draw")]
pub fn canvas_draw(
    /// What to draw.
    shape: Shape,
    /// Where: x and y.
    at: (i32, i32),
    /// Opacity, above 0.
    #[param(range(min = 0.0, max = 1.0))]
    opacity: Option<f32>,
    /// Layer number.
    layer: Option<u8>,
) -> String {
    json!({"shape": shape, "at": at, "opacity": opacity, "layer": layer}).to_string()
}

/// A folder and what is in it.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Folder {
    /// Its name.
    pub name: String,
    /// The folders inside.
    pub children: Vec<Folder>,
}

/// Creates a tree of folders.
#[tool(name = "folders.create")]
pub fn create_folders(
    /// The top folder.
    root: Folder,
) -> String {
    json!({"root": root}).to_string()
}

/// The current time.
#[tool(name = "clock.now", annotations(read_only, idempotent))]
pub fn clock_now() -> String {
    String::new()
}

pub const TOOLS: [&str; 4] = ["shipment.create", "canvas_draw", "folders.create", "clock.now"];

/// The four tools, in a catalog of their own.
pub fn catalog() -> &'static ToolCatalog {
    static CATALOG: OnceLock<ToolCatalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        ToolCatalog::builder()
            .add_declared::<create_shipment>()
            .add_declared::<canvas_draw>()
            .add_declared::<create_folders>()
            .add_declared::<clock_now>()
            .build()
            .expect("the dialect tools make a valid catalog")
    })
}
