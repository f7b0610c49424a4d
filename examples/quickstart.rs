//! Quickstart: declare a few tools, print the catalog with schemas, run recorded model tool
//! calls through the executor (one with a wrong argument, one for a tool that does not exist),
//! and print the execution records.

use std::time::Duration;

use serde_json::json;
use tool_core::prelude::*;
use tool_core::providers::calls::parse_response;
use tool_core::providers::export::export;
use tool_core::providers::results::{assistant_turn, results_turn};
use tool_core::providers::{Dialect, Provider};

#[path = "tools.rs"]
mod tools;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog = ToolCatalog::global()?;

    println!("== Catalog ({} tools, sorted by name) ==", catalog.len());
    for definition in catalog.definitions() {
        println!("\n# {}  ({})", definition.name, definition.source);
        println!("{}", definition.description);
        for p in &definition.parameters {
            println!(
                "  - {}: {:?} {:?}{} - {}",
                p.name,
                p.value_kind,
                p.cardinality,
                if p.required { ", required" } else { "" },
                p.description
            );
        }
        println!("input schema: {}", serde_json::to_string_pretty(&definition.input_schema)?);
        if let Some(output) = &definition.output_schema {
            println!("output schema: {}", serde_json::to_string(output)?);
        }
    }

    let executor =
        Executor::builder(catalog.clone()).timeout(Duration::from_secs(5)).state(tools::sample_store()).build();

    // Tool calls as a model sent them (name, call id, raw arguments).
    let calls = vec![
        ToolCallRequest::new("memory.search", "call_1", r#"{"query": "agent state", "limit": "2"}"#),
        ToolCallRequest::new(
            "set_reminder",
            "call_2",
            r#"{"text": "stand-up", "minutes": "soon", "priority": "urgent"}"#,
        ),
        ToolCallRequest::new("check_availability", "call_3", r#"{"room": "Atlas", "time": "15:00-16:00", "floor": 3}"#),
        ToolCallRequest::new("check_availability", "call_4", r#"{"room": "Nowhere", "time": "09:00-10:00"}"#),
        ToolCallRequest::new("memroy.search", "call_5", r#"{"query": "x"}"#),
        ToolCallRequest::new("slow_task", "call_6", r#"{"seconds": 30}"#),
    ];
    println!("\n== Execution records ==");
    for record in executor.execute_batch(calls).await {
        println!("{}", serde_json::to_string_pretty(&record)?);
    }

    // The same catalog through a provider: export, read the model's response, run, answer.
    println!("\n== Provider round trip (OpenAI Chat Completions, strict mode) ==");
    let exported = export(Dialect::OpenAiChat { strict: true }, catalog.definitions())?;
    let memory = exported.tools.iter().find(|t| t["function"]["name"] == "memory_search");
    println!("tool as sent: {}", serde_json::to_string_pretty(&memory)?);
    for (ours, theirs) in exported.names.renamed() {
        println!("name sent as: {ours} -> {theirs}");
    }
    // A response as OpenAI returns it: strict mode sends `null` for the optional `limit`.
    let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": null, "tool_calls": [{"id": "call_7", "type": "function",
            "function": {"name": "memory_search", "arguments": "{\"query\":\"rust\",\"limit\":null}"}}]}}]});
    let parsed = parse_response(Provider::OpenAiChat, &response, &exported.names)?;
    let records = executor.execute_batch(parsed.calls.clone()).await;
    let mut history = assistant_turn(Provider::OpenAiChat, &parsed.calls, &exported.names);
    history.extend(results_turn(Provider::OpenAiChat, &records, &exported.names));
    println!("messages to append: {}", serde_json::to_string_pretty(&history)?);
    Ok(())
}
