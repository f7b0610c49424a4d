use tool_core::prelude::*;

/// Count the words of a text, on the blocking pool.
#[tool(blocking)]
fn count_words(
    /// The text.
    text: String,
    ctx: &ToolContext,
) -> String {
    assert!(tokio::runtime::Handle::try_current().is_ok());
    format!("{} words in {}", text.split_whitespace().count(), ctx.call_id())
}

#[tokio::main]
async fn main() {
    let definition = <count_words as DeclaredTool>::definition();
    assert_eq!(definition.name, "count_words");
    assert_eq!(definition.parameters.len(), 1);
    assert_eq!(definition.parameters[0].name, "text");

    let catalog = ToolCatalog::builder().add_declared::<count_words>().build().unwrap();
    let record =
        Executor::new(catalog).execute(ToolCallRequest::new("count_words", "c7", r#"{"text": "a b c"}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "3 words in c7");
}
