//! Text results, errors, log messages and progress reports.

use std::time::Duration;

use tool_core::prelude::*;

/// Returns a line of text.
#[tool]
async fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, with a message for the model.
#[tool]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new("This tool intentionally returns an error for testing"))
}

/// Logs three messages at info level while it runs.
#[tool]
async fn test_tool_with_logging(ctx: &ToolContext) -> Result<String, ToolError> {
    ctx.log(LogLevel::Info, "Tool execution started")?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data")?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed")?;
    Ok("Tool with logging executed successfully".to_owned())
}

/// Reports its progress three times while it runs.
#[tool]
async fn test_tool_with_progress(ctx: &ToolContext) -> String {
    for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.report_progress(progress, Some(100.0), None);
    }
    "Tool with progress executed successfully".to_owned()
}
