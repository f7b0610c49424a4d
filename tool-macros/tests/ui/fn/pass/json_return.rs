use schemars::JsonSchema;
use serde::Serialize;
use tool_core::prelude::*;

/// A weather report.
#[derive(Serialize, JsonSchema)]
pub struct Weather {
    /// Degrees Celsius.
    pub celsius: f64,
    /// Sky.
    pub sky: String,
}

/// The weather in a city.
#[tool]
async fn weather(
    /// The city.
    city: String,
) -> Result<Json<Weather>, ToolError> {
    if city.is_empty() {
        return Err(ToolError::new("no city").with_code("bad_city"));
    }
    Ok(Json(Weather { celsius: 21.5, sky: format!("clear over {city}") }))
}

/// Plain text has no output schema.
#[tool]
fn plain() -> String {
    String::new()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let d = <weather as DeclaredTool>::definition();
    let output = d.output_schema.as_ref().expect("Json<T> declares an output schema");
    assert_eq!(output["properties"]["celsius"]["type"], "number");
    assert_eq!(output["required"], serde_json::json!(["celsius", "sky"]));
    assert!(<plain as DeclaredTool>::definition().output_schema.is_none());

    let catalog = ToolCatalog::builder().add_declared::<weather>().build().unwrap();
    let record = Executor::new(catalog).execute(ToolCallRequest::new("weather", "c1", r#"{"city": "Oslo"}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.structured, Some(serde_json::json!({"celsius": 21.5, "sky": "clear over Oslo"})));
}
