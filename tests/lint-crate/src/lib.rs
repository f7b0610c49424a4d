//! Tools of every form `#[tool]` accepts, in a crate that denies warnings, pedantic Clippy
//! lints and missing docs. It only has to compile cleanly.

#![deny(warnings, clippy::pedantic, missing_docs)]

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::prelude::*;

/// The shared store.
#[derive(Debug, Default)]
pub struct Store {
    notes: Vec<String>,
}

/// How urgent a reminder is.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever.
    #[default]
    Low,
    /// Today.
    High,
}

/// A structured result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    /// Where it came from.
    pub source: String,
    /// The score.
    pub score: f64,
}

/// A structured parameter.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Window {
    /// Start, in minutes.
    pub start: u32,
    /// End, in minutes.
    pub end: u32,
}

/// Search the store: async, injected state, every `#[param]` key, a `Json` result.
///
/// # Errors
///
/// When the query is blank.
#[tool(
    name = "notes.search",
    tags("notes", "search"),
    category = "notes",
    version = "1.0.0",
    examples(r#"{"query": "rust"}"#),
    annotations(read_only, destructive = false, idempotent, open_world = false, title = "Search notes"),
    timeout_ms = 2000,
    crate = "::tool_core"
)]
pub async fn search_notes(
    /// Keywords.
    #[param(example = "rust", length(min = 1, max = 100), pattern = "^[a-z ]+$")]
    query: String,
    /// At most this many.
    #[param(rename = "max", default = 5, range(min = 1, max = 50))]
    limit: u32,
    /// Minimum score.
    #[param(range(exclusive_min = 0.0, max = 1.0), default)]
    min_score: f64,
    /// Urgency filter.
    #[param(case_sensitive, default)]
    priority: Priority,
    /// Labels.
    #[param(description = "Labels to match.", default = vec!["all".to_owned()])]
    labels: Vec<String>,
    store: &State<Store>,
    cancel: &CancellationToken,
) -> Result<Json<Vec<Hit>>, ToolError> {
    if query.trim().is_empty() {
        return Err(ToolError::new("the query is blank").with_code("blank"));
    }
    tokio::time::sleep(Duration::from_millis(1)).await;
    let hits = store
        .notes
        .iter()
        .filter(|n| n.contains(query.as_str()) && !cancel.is_cancelled())
        .take(limit as usize)
        .map(|n| Hit { source: format!("{n} {priority:?} {labels:?}"), score: min_score })
        .collect();
    Ok(Json(hits))
}

/// Set a reminder: sync, rustdoc `# Arguments`.
///
/// # Arguments
///
/// * `text` - What to be reminded of.
/// * `minutes` - In how many minutes.
#[tool]
#[must_use]
pub fn set_reminder(text: String, minutes: Option<u32>) -> String {
    format!("{text} in {} min", minutes.unwrap_or(10))
}

/// Hash a text on the blocking pool.
#[tool(blocking)]
fn hash_text(
    /// The text.
    text: String,
    ctx: &ToolContext,
) -> u64 {
    let mut hash = 0u64;
    for byte in text.bytes().chain(ctx.call_id().bytes()) {
        hash = hash.wrapping_mul(31).wrapping_add(u64::from(byte));
    }
    hash
}

/// Tell the time: no parameters.
#[tool]
async fn what_time() -> &'static str {
    tokio::task::yield_now().await;
    "noon"
}

/// Do nothing.
#[tool]
fn nothing() {}

/// Plan a window, with raw identifiers.
#[tool]
fn plan(
    /// The window.
    r#window: Window,
    /// The kind.
    r#type: Option<String>,
) -> String {
    format!("{}-{} {}", window.start, window.end, r#type.unwrap_or_default())
}

#[doc = include_str!("../README.md")]
#[tool]
fn documented(
    /// A flag.
    flag: bool,
) -> bool {
    !flag
}

/// Sum sixteen numbers.
#[tool]
#[allow(clippy::too_many_arguments)]
fn sum16(
    alpha: u8,
    bravo: u8,
    charlie: u8,
    delta: u8,
    echo: u8,
    foxtrot: u8,
    golf: u8,
    hotel: u8,
    india: u8,
    juliet: u8,
    kilo: u8,
    lima: u8,
    mike: u8,
    november: u8,
    oscar: u8,
    papa: u8,
) -> u32 {
    [alpha, bravo, charlie, delta, echo, foxtrot, golf, hotel, india, juliet, kilo, lima, mike, november, oscar, papa]
        .iter()
        .map(|&x| u32::from(x))
        .sum()
}

/// Check whether a room is free: the struct form.
#[tool(tags("rooms"), annotations(read_only))]
pub struct CheckRoom {
    /// Room name.
    pub room: String,
    /// Time range such as "15:00-16:00".
    #[param(rename = "time_range", pattern = "^[0-9:-]+$")]
    pub time: String,
    /// Floor.
    #[param(range(min = 0, max = 40), default = 1)]
    pub floor: u8,
}

impl ToolRun for CheckRoom {
    type Output = Result<String, ToolError>;

    async fn run(self, ctx: &ToolContext) -> Self::Output {
        tokio::task::yield_now().await;
        Ok(format!("{} {} {} {}", self.room, self.time, self.floor, ctx.call_id()))
    }
}

/// Ping: a struct with no fields and a `Json` output.
#[tool(name = "ping")]
struct Ping {}

impl ToolRun for Ping {
    type Output = Json<Vec<u8>>;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        tokio::task::yield_now().await;
        Json(vec![1, 2, 3])
    }
}

/// Send money: `approval` deciding per call, `sequential`, whole-call examples.
#[tool(
    approval = "large_transfer",
    sequential,
    example(amount = 5, to = "ann"),
    example(amount = 5000, to = "bob", memo = json!({"why": "rent", "split": [1, -2.5, null]}))
)]
fn transfer(
    /// In cents.
    amount: u64,
    /// Who gets it.
    to: String,
    /// Why, as any JSON.
    memo: Option<serde_json::Value>,
) -> String {
    format!("{amount} {to} {memo:?}")
}

/// Whether a transfer waits for a person. The key takes each parameter by reference, which
/// these two pedantic lints would rather see by value.
#[allow(clippy::trivially_copy_pass_by_ref, clippy::ref_option)]
fn large_transfer(amount: &u64, to: &str, memo: &Option<serde_json::Value>, ctx: &ToolContext) -> bool {
    *amount > 1000 && memo.is_none() && to != ctx.call_id()
}

/// Wipe a room's bookings: `requires_approval` on a struct.
#[tool(requires_approval, sequential = false, example(room = "blue"))]
pub struct WipeRoom {
    /// Room name.
    pub room: String,
}

impl ToolRun for WipeRoom {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        tokio::task::yield_now().await;
        self.room
    }
}

/// Cancel bookings: `approval` on a struct, named through `Self`.
#[tool(approval = "Self::many")]
pub struct CancelBookings {
    /// How many.
    pub count: u32,
}

impl CancelBookings {
    fn many(&self, _ctx: &ToolContext) -> bool {
        self.count > 3
    }
}

impl ToolRun for CancelBookings {
    type Output = u32;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        tokio::task::yield_now().await;
        self.count
    }
}

/// The names of every tool above, from the global catalog.
///
/// # Panics
///
/// When the catalog is invalid.
#[must_use]
pub fn tool_names() -> Vec<String> {
    ToolCatalog::global().expect("a valid catalog").names().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_registered() {
        let names = tool_names();
        for name in [
            "notes.search",
            "set_reminder",
            "hash_text",
            "what_time",
            "nothing",
            "plan",
            "documented",
            "sum16",
            "transfer",
            "wipe_room",
            "cancel_bookings",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} missing from {names:?}");
        }
        assert!(<CheckRoom as DeclaredTool>::definition().parameter("time_range").is_some());
        assert!(<Ping as DeclaredTool>::definition().parameters.is_empty());
    }
}
