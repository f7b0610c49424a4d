//! The README's tour, whole: declare a tool, execute a messy call, hold a call for a person's
//! approval, read and execute a small open model's answer, export the catalog for two providers, keep a rarely used tool out of the
//! request until a search finds it, serve the catalog over MCP and call it through MCP.
//!
//! ```text
//! cargo run -p tool-examples --features mcp --bin tour
//! ```
//!
//! Every Rust block of the README is an excerpt of this file, line for line
//! (`tests/tests/readme.rs` checks it), so what the README shows compiles and runs.

use tool_core::prelude::*;

/// Search the notes for a query.
///
/// Returns at most `limit` titles, best first.
#[tool(name = "notes.search", annotations(read_only))]
async fn notes_search(
    /// Keywords to look for.
    query: String,
    /// How many titles to return.
    #[param(range(min = 1, max = 20))]
    limit: Option<u32>,
) -> Vec<String> {
    (1..=limit.unwrap_or(3)).map(|i| format!("{query} #{i}")).collect()
}

/// The forecast for a city: temperature, rain and wind.
#[tool(name = "weather.forecast", defer)]
fn weather_forecast(
    /// The city.
    city: String,
) -> String {
    format!("{city}: rain at noon")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    execute().await?;
    ask_a_person_first().await?;
    small_open_model().await?;
    export_for_providers()?;
    search_when_needed().await?;
    serve_over_mcp().await?;
    Ok(())
}

async fn execute() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::new(ToolCatalog::global()?.clone());

    // What models send: Python literals, a number as text, a misspelt key, a code fence.
    let messy = "```json\n{'query': 'rust', 'limit': '2', 'lang': 'en',}\n```";
    let record = executor.execute(ToolCallRequest::new("notes.search", "call_1", messy)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, r#"["rust #1","rust #2"]"#);
    let rules: Vec<&str> = record.warnings().iter().map(|w| w.rule()).collect();
    assert_eq!(
        rules,
        ["code_fence_removed", "python_literal", "trailing_comma_removed", "string_to_integer", "unknown_parameter"]
    );

    // What cannot be read is refused before the tool runs, with a message for the model.
    let record = executor.execute(ToolCallRequest::new("notes.search", "call_2", r#"{"limit": "many"}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        "The arguments for `notes.search` were not accepted:
- `query`: required, expected a string; it was missing.
- `limit`: expected an integer, or null; got \"many\".
Send the corrected arguments to `notes.search` again."
    );
    println!("{}", record.content.text);
    Ok(())
}

async fn ask_a_person_first() -> Result<(), Box<dyn std::error::Error>> {
    use tool_core::policy::{ApprovalRule, Decision};

    let executor = Executor::builder(ToolCatalog::global()?.clone()).require_approval(ApprovalRule::all()).build();
    let record = executor.execute(ToolCallRequest::new("notes.search", "call_5", r#"{"query": "rust"}"#)).await;
    assert_eq!(record.status, CallStatus::Pending); // nothing ran: store the call, ask a person
    let stored = serde_json::to_string(&record.pending)?; // resumable once, here or by a replica sharing the store
    let record = executor.resume(serde_json::from_str(&stored)?, Decision::Approve).await;
    assert_eq!(record.content.text, r#"["rust #1","rust #2","rust #3"]"#);
    Ok(())
}

async fn small_open_model() -> Result<(), Box<dyn std::error::Error>> {
    use tool_core::open_models::{CallForm, OpenModelParser};

    // Llama 3.2 3B writes Python calls between its own special tokens, numbers often quoted.
    let answer = "<|python_tag|>[notes.search(query='rust', limit=\"2\")]<|eot_id|>";
    let executor = Executor::new(ToolCatalog::global()?.clone());
    let parser = OpenModelParser::new(executor.catalog()).form(CallForm::Python);
    let turn = parser.parse_and_execute(&executor, answer).await;
    assert_eq!(turn.records[0].content.text, r#"["rust #1","rust #2"]"#);
    assert_eq!(turn.records[0].warnings()[0].rule(), "string_to_integer");
    // The result goes back as Llama reads results: an `ipython` turn.
    let output = r#"{"output": "[\"rust #1\",\"rust #2\"]"}"#;
    assert_eq!(turn.results, format!("<|start_header_id|>ipython<|end_header_id|>\n\n{output}<|eot_id|>"));
    Ok(())
}

fn export_for_providers() -> Result<(), Box<dyn std::error::Error>> {
    use tool_core::providers::{export::export, Dialect};

    let catalog = ToolCatalog::global()?;
    let openai = export(Dialect::OpenAiChat { strict: true }, catalog.definitions())?;
    let anthropic = export(Dialect::Anthropic { strict: false }, catalog.definitions())?;
    // OpenAI refuses dots in names: the tool goes out as `notes_search`, and `openai.names`
    // maps the model's calls back to `notes.search`.
    assert_eq!(openai.tools[0]["function"]["name"], "notes_search");
    assert_eq!(anthropic.tools[0]["name"], "notes_search");
    println!("{}", serde_json::to_string_pretty(&openai.tools[0])?);
    Ok(())
}

async fn search_when_needed() -> Result<(), Box<dyn std::error::Error>> {
    use tool_core::providers::Dialect;
    use tool_core::search::{Discovered, RequestTools, SearchRequest, SearchToolBuilder};

    // The names a request's `tools` carries (OpenAI Chat Completions' form).
    fn sent<'a>(tools: &'a RequestTools) -> Vec<&'a str> {
        tools.tools.iter().filter_map(|tool| tool["function"]["name"].as_str()).collect()
    }

    // `weather.forecast` is `#[tool(defer)]`: requests leave it out until `search_tools` finds it.
    let catalog = ToolCatalog::global()?;
    let search = SearchToolBuilder::new(catalog.deferred()).build()?;
    let dialect = Dialect::OpenAiChat { strict: true };
    let request = SearchRequest::builder(catalog, search.definition(), dialect).build()?;
    let mut discovered = Discovered::new(); // kept with the conversation
    assert_eq!(sent(&request.tools(&discovered)), ["notes_search", "search_tools"]);

    let executor = Executor::new(catalog.to_builder().add_tool(search).build()?);
    let call = ToolCallRequest::new("search_tools", "call_4", r#"{"query": "will it rain in Lyon?"}"#);
    discovered.record("search_tools", &executor.execute(call).await);
    // What was found goes at the end: the start of the request, and the provider's cache of it, stay.
    assert_eq!(sent(&request.tools(&discovered)), ["notes_search", "search_tools", "weather_forecast"]);
    Ok(())
}

async fn serve_over_mcp() -> Result<(), Box<dyn std::error::Error>> {
    use tool_core::mcp::{McpImport, McpServer};

    // Serve the catalog over streamable HTTP on 127.0.0.1 (`serve_stdio()` for a child process).
    let server = McpServer::new(Executor::new(ToolCatalog::global()?.clone()))?;
    let running = server.http().bearer_token("s3cret").start().await?;

    // Any MCP client can call it; here, this crate's own import, as another host would.
    let remote = McpImport::http(running.url()).bearer_token("s3cret").prefix("remote.").connect().await?;
    let catalog = remote.add_to(ToolCatalog::builder()).build()?;
    let call = ToolCallRequest::new("remote.notes.search", "call_3", r#"{"query": "mcp", "limit": 1}"#);
    let record = Executor::new(catalog).execute(call).await;
    assert_eq!(record.content.text, r#"{"result":["mcp #1"]}"#); // its structured content
    running.shutdown().await;
    Ok(())
}
