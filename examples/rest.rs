//! REST tools from a TOML registry, called through the executor against a small weather API
//! this example serves itself on 127.0.0.1: a sloppy call recovered by the schema, a value that
//! tries to leave its path segment, and a 404 from the API.
//!
//! ```text
//! cargo run -p tool-examples --features rest --bin rest
//! ```

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tool_core::prelude::*;
use tool_core::rest::RestTools;

const REGISTRY: &str = r#"
[[tool]]
name = "weather.current"
description = "Current weather for a city."
base_url = "http://{address}/v1"
path = "/cities/{city}/weather"
query = ["units"]
timeout_ms = 2000
retries = 1
headers = { Authorization = "Bearer ${WEATHER_TOKEN}" }

[tool.parameters]
type = "object"
required = ["city"]
properties.city = { type = "string", description = "City name." }
properties.units = { type = "string", enum = ["metric", "imperial"], description = "Units." }
"#;

async fn weather(Path(city): Path<String>) -> Response {
    match city.as_str() {
        "Paris" | "Lyon" => Json(json!({"city": city, "celsius": 14.5, "sky": "clear"})).into_response(),
        other => (StatusCode::NOT_FOUND, format!("no station for `{other}`")).into_response(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(
        async move { axum::serve(listener, Router::new().route("/v1/cities/{city}/weather", get(weather))).await },
    );
    // The secret comes from the environment; a demo sets its own.
    if std::env::var_os("WEATHER_TOKEN").is_none() {
        std::env::set_var("WEATHER_TOKEN", "demo-token");
    }

    let tools = RestTools::new().load_toml(&REGISTRY.replace("{address}", &address.to_string()))?;
    let catalog = tools.into_iter().fold(ToolCatalog::builder(), |c, t| c.add_tool(t)).build()?;
    let executor = Executor::new(catalog);

    let calls = [
        // "Metric" for the enum token `metric`: recovered by the schema, with a warning.
        r#"{"city": "Paris", "units": "Metric"}"#,
        // A value that tries to climb out of its segment: it stays one (encoded) segment.
        r#"{"city": "../../admin"}"#,
        r#"{"city": "Oslo"}"#,
    ];
    for (i, arguments) in calls.iter().enumerate() {
        let record = executor.execute(ToolCallRequest::new("weather.current", i.to_string(), *arguments)).await;
        println!("\n{arguments} -> {:?}", record.status);
        for warning in record.warnings() {
            println!("  warning {}: {} ({})", warning.pointer(), warning.action(), warning.rule());
        }
        println!("  {}", record.model_text());
    }
    Ok(())
}
