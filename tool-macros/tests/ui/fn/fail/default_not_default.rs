use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct Window {
    pub start: u32,
    pub end: u32,
}

/// Plan a task.
#[tool]
fn plan(
    /// When.
    #[param(default)]
    window: Window,
) -> String {
    format!("{}-{}", window.start, window.end)
}

fn main() {}
