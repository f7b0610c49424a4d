//! Tasks (the MCP tasks extension, `io.modelcontextprotocol/tasks`): a client that declared the
//! extension gets a task for a call of a `#[tool(task)]` tool and polls it; any other client
//! gets the result when the call ends. The tools are ordinary tools: the server decides.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::ask::Elicitation;
use tool_core::prelude::*;

/// Greets someone, at once.
#[tool]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then says it is done.
#[tool(task)]
async fn slow_compute(
    /// How long to work, in seconds.
    seconds: f64,
    /// A name for the job, repeated in the result.
    #[param(default)]
    label: String,
) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
    format!("computed {label} in {seconds} seconds")
}

/// A job that fails after a second; it runs only as a task.
#[tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("The job failed: its input was missing.").with_code("job_failed"))
}

/// A job that breaks: its task fails with a protocol error.
#[tool(task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("the job broke")
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Deletes a file once the user confirms.
#[tool(task)]
async fn confirm_delete(
    /// The file to delete.
    filename: String,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>(format!("Delete {filename}?")).await?;
    Ok(match answer {
        Elicitation::Accepted { value: Confirm { confirm: true }, .. } => format!("deleted {filename}"),
        Elicitation::Accepted { .. } | Elicitation::Declined | Elicitation::Cancelled => format!("kept {filename}"),
    })
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Name {
    name: String,
}

/// Asks two questions at once.
#[tool(task)]
async fn multi_input(ctx: &ToolContext) -> Result<String, ToolError> {
    let (first, second) = tokio::join!(ctx.elicit::<Name>("The first name?"), ctx.elicit::<Name>("The second name?"));
    let name = |answer: Elicitation<Name>| match answer {
        Elicitation::Accepted { value, .. } => value.name,
        Elicitation::Declined | Elicitation::Cancelled => "nobody".to_owned(),
    };
    Ok(format!("{} and {}", name(first?), name(second?)))
}

/// Asks the user's name in the request's rounds, then becomes a task that greets them.
#[tool(task(required, asks_first))]
async fn test_tool_with_task(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = match ctx.elicit_keyed::<Name>("user_name", "What is your name?").await? {
        Elicitation::Accepted { value, .. } => value.name,
        Elicitation::Declined | Elicitation::Cancelled => "nobody".to_owned(),
    };
    // What follows runs as the task, once.
    ctx.continue_as_task().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}! The task is done."))
}
