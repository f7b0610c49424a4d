//! The quickstart's tools, shared by the demo (`quickstart`) and the MCP server
//! (`mcp_server`): each binary that includes this module registers them in its catalog.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::prelude::*;

/// A fragment of remembered text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Fragment {
    /// Where it came from.
    pub source: String,
    /// The summary.
    pub summary: String,
}

/// The memory store the tools share.
pub struct MemoryStore {
    fragments: Vec<Fragment>,
}

/// Search the memory store for fragments matching a query.
///
/// Returns at most `limit` summaries, best first.
#[tool(name = "memory.search", tags("memory"), annotations(read_only))]
async fn memory_search(
    /// Keywords to look for.
    #[param(example = "agent state consistency")]
    query: String,
    /// Maximum number of fragments to return.
    #[param(range(min = 1, max = 50))]
    limit: Option<u32>,
    store: &State<MemoryStore>,
) -> Result<Json<Vec<String>>, ToolError> {
    let words: Vec<String> = query.to_lowercase().split_whitespace().map(str::to_owned).collect();
    let hits = store
        .fragments
        .iter()
        .filter(|f| words.iter().any(|w| f.summary.to_lowercase().contains(w)))
        .take(limit.unwrap_or(3) as usize)
        .map(|f| format!("{}: {}", f.source, f.summary))
        .collect();
    Ok(Json(hits))
}

/// How urgent a reminder is.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Today.
    High,
}

/// Set a reminder.
///
/// # Arguments
///
/// * `text` - What to be reminded of.
/// * `minutes` - In how many minutes.
/// * `priority` - How urgent it is.
#[tool(tags("reminders"), annotations(destructive = false, idempotent))]
fn set_reminder(text: String, minutes: u32, priority: Priority) -> String {
    format!("reminder in {minutes} min ({priority:?}): {text}")
}

/// Check whether a meeting room is free.
#[tool(tags("rooms"))]
pub struct CheckAvailability {
    /// Room name.
    pub room: String,
    /// Time range such as "15:00-16:00".
    pub time: String,
}

impl ToolRun for CheckAvailability {
    type Output = Result<String, ToolError>;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        if self.room.eq_ignore_ascii_case("atlas") {
            Ok(format!("{} is free at {}", self.room, self.time))
        } else {
            Err(ToolError::new(format!("there is no room named `{}`; rooms: Atlas", self.room)).with_code("not_found"))
        }
    }
}

/// Wait for a while, watching for cancellation.
#[tool(timeout_ms = 50)]
async fn slow_task(
    /// Seconds to wait.
    seconds: u64,
    cancel: &CancellationToken,
) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(seconds)) => "done".to_owned(),
        () = cancel.cancelled() => "stopped".to_owned(),
    }
}

/// The store the demo and the MCP server start with.
pub fn sample_store() -> MemoryStore {
    MemoryStore {
        fragments: vec![
            Fragment { source: "notes/agents.md".into(), summary: "Agent state consistency needs one writer".into() },
            Fragment { source: "notes/rust.md".into(), summary: "Rust async tools must be Send".into() },
        ],
    }
}
