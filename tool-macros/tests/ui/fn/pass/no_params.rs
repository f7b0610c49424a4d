use tool_core::prelude::*;

/// Tell the time of day.
#[tool]
fn what_time() -> String {
    "noon".to_owned()
}

/// Do nothing, returning unit.
#[tool]
async fn nothing() {}

fn main() {
    let definition = <what_time as DeclaredTool>::definition();
    assert_eq!(definition.name, "what_time");
    assert!(definition.parameters.is_empty());
    assert_eq!(definition.input_schema["type"], "object");
    assert_eq!(definition.input_schema["required"], serde_json::json!([]));
    assert!(<nothing as DeclaredTool>::definition().parameters.is_empty());
}
