//! The `tools` command line for the provider-dialect tools and one tool with whole-call
//! examples, for `tests/tests/playground.rs`: the page lists a tool's examples and a click fills
//! the arguments with one. It needs the OAuth scope `docs:read`, for the playground's
//! `--scopes`.

use serde_json::json;
use tool_core::{DynamicTool, ToolOutput};

fn main() -> std::process::ExitCode {
    let search = DynamicTool::builder("docs.search")
        .description("Search the docs.")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "limit": {"type": "integer", "minimum": 1, "description": "How many hits."},
            },
            "required": ["query"],
        }))
        .example(json!({"query": "rust"}))
        .example(json!({"query": "tokio", "limit": 5}))
        .scope("docs:read")
        .handler(|arguments, _| async move { ToolOutput::text(format!("searched for {}", arguments["query"])) })
        .build()
        .expect("a valid tool");
    let catalog = tool_tests::dialect_tools::catalog().to_builder().add_tool(search).build().expect("a valid catalog");
    tool_core::cli::ToolsCli::new(tool_core::Executor::new(catalog)).run()
}
