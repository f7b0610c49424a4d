//! The diagnostic tools of the suite's `server-stateless` scenario (protocol 2026-07-28): a tool
//! that needs a client capability, and tools that change what the server lists while a client
//! listens (`subscriptions/listen`).

use std::sync::OnceLock;

use tool_core::ask::SamplingRequest;
use tool_core::mcp::{McpPrimitives, McpServer, Prompt, PromptMessage};
use tool_core::prelude::*;

/// What the list-changing tools change: the server (with the executor it serves) and its
/// primitives, set once `main` has built them.
static SERVED: OnceLock<(McpServer, Executor, McpPrimitives)> = OnceLock::new();

/// Hands the served server to the tools that change what it lists.
pub fn serving(server: McpServer, executor: Executor, primitives: McpPrimitives) {
    let _ = SERVED.set((server, executor, primitives));
}

fn served() -> Result<&'static (McpServer, Executor, McpPrimitives), ToolError> {
    SERVED.get().ok_or_else(|| ToolError::new("the server is not serving yet"))
}

/// Asks the client's model: a 2026-07-28 request that did not declare `sampling` is refused
/// with -32021 (Missing required client capability).
#[tool]
async fn test_missing_capability(ctx: &ToolContext) -> Result<String, ToolError> {
    let response = ctx.sample(SamplingRequest::new("Say hello.", 20)).await?;
    Ok(format!("The model said: {}", response.text_content()))
}

/// Serves the tools again, which tells every listener that the tool list changed.
#[tool]
async fn test_trigger_tool_change() -> Result<String, ToolError> {
    let (server, executor, _) = served()?;
    server.replace(executor.clone()).await.map_err(|e| ToolError::new(e.to_string()))?;
    Ok("The tool list changed.".to_owned())
}

/// Offers one more prompt, which tells every listener that the prompt list changed.
#[tool]
async fn test_trigger_prompt_change() -> Result<String, ToolError> {
    let (_, _, primitives) = served()?;
    primitives
        .add_prompt(
            Prompt::new("test_added_prompt", || Ok(vec![PromptMessage::user("A prompt added at run time.")]))
                .description("A prompt that a tool added"),
        )
        .await;
    Ok("The prompt list changed.".to_owned())
}
