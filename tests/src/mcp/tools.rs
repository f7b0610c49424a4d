//! The tools the MCP tests serve: included (`#[path]`) by the stdio test server and by the
//! in-process tests, so that each registers them in its own binary only.

use serde_json::{json, Value};
use tool_core::prelude::*;

/// Add a note.
#[tool(name = "notes.add")]
pub fn add_note(
    /// The note.
    text: String,
    /// How urgent, 1 to 3.
    priority: Option<u32>,
) -> String {
    format!("{text} (priority {})", priority.unwrap_or(1))
}

/// Always fails.
#[tool(name = "notes.fail")]
pub fn fail_note() -> Result<String, ToolError> {
    Err(ToolError::new("the disk is full"))
}

/// Count words.
#[tool(name = "notes.count")]
pub fn count_words(
    /// The text.
    text: String,
) -> Json<Value> {
    Json(json!({"words": text.split_whitespace().count()}))
}

/// How many `notes.wait` calls are running now.
pub static WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts a running `notes.wait` until it ends or is stopped.
struct Waiting;

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Wait a number of steps of 10 ms, reporting progress after each.
#[tool(name = "notes.wait")]
pub async fn wait_note(
    /// How many steps.
    steps: u32,
    ctx: &ToolContext,
) -> String {
    WAITING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let _waiting = Waiting;
    for step in 1..=steps {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        ctx.report_progress(f64::from(step), Some(f64::from(steps)), Some(&format!("step {step}")));
    }
    format!("waited {steps} steps")
}
