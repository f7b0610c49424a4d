use tool_core::prelude::*;

/// Search the notes for a query.
#[tool]
async fn search_notes(
    /// Keywords to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> Result<Vec<String>, ToolError> {
    tokio::task::yield_now().await;
    Ok(vec![format!("{query}:{}", limit.unwrap_or(3))])
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let definition = <search_notes as DeclaredTool>::definition();
    assert_eq!(definition.name, "search_notes");
    assert_eq!(definition.description, "Search the notes for a query.");
    assert_eq!(definition.parameters.len(), 2);
    assert!(definition.parameters[0].required);
    assert!(!definition.parameters[1].required);
    assert_eq!(definition.input_schema["required"], serde_json::json!(["query"]));

    let catalog = ToolCatalog::builder().add_declared::<search_notes>().build().unwrap();
    let record = Executor::new(catalog)
        .execute(ToolCallRequest::new("search_notes", "call_1", r#"{"query": "rust", "limit": 5}"#))
        .await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, r#"["rust:5"]"#);
}
