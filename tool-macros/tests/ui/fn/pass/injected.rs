use tool_core::prelude::*;

/// The shared store.
pub struct Store {
    greeting: String,
}

/// Greet someone, using every injected value.
#[tool]
async fn greet(
    ctx: &ToolContext,
    /// Who to greet.
    name: String,
    cancel: &CancellationToken,
    store: &State<Store>,
) -> String {
    assert!(!cancel.is_cancelled());
    format!("{} {name} ({})", store.greeting, ctx.call_id())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let definition = <greet as DeclaredTool>::definition();
    // Injected values never reach the schema.
    let names: Vec<&str> = definition.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["name"]);
    assert_eq!(definition.input_schema["properties"].as_object().unwrap().len(), 1);

    let catalog = ToolCatalog::builder().add_declared::<greet>().build().unwrap();
    let executor = Executor::builder(catalog).state(Store { greeting: "hello".to_owned() }).build();
    let record = executor.execute(ToolCallRequest::new("greet", "call_9", r#"{"name": "Ada"}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "hello Ada (call_9)");
}
