use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::prelude::*;

/// How urgent.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever.
    #[default]
    Low,
    /// Now.
    High,
}

/// Find tickets.
#[tool]
#[allow(clippy::too_many_arguments)]
fn find_tickets(
    /// Words to search for.
    #[param(rename = "q", example = "login fails", length(min = 1, max = 200), pattern = "^[^<>]*$")]
    query: String,
    #[param(description = "Page size.", default = 20, range(min = 1, max = 100))]
    limit: u32,
    /// Minimum score.
    #[param(range(exclusive_min = 0.0, exclusive_max = 1.5), default = 0.5)]
    score: f64,
    /// Urgency.
    #[param(case_sensitive, default)]
    priority: Priority,
    /// Labels.
    #[param(default = vec!["open".to_owned()])]
    labels: Vec<String>,
    /// Offset, from the end when negative.
    #[param(range(min = -10, max = 10), example = -2)]
    offset: Option<i32>,
    /// The tenant, also in the `Mcp-Param-Tenant` header.
    #[param(header = "Tenant", default)]
    tenant: String,
) -> String {
    format!("{query} {limit} {score} {priority:?} {labels:?} {offset:?} {tenant}")
}

fn main() {
    let d = <find_tickets as DeclaredTool>::definition();
    let q = d.parameter("q").expect("renamed to q");
    assert!(d.parameter("query").is_none());
    assert_eq!(q.description, "Words to search for.");
    assert_eq!(q.example, Some(json!("login fails")));
    assert!(q.required);
    let props = &d.input_schema["properties"];
    assert_eq!(props["q"]["minLength"], 1);
    assert_eq!(props["q"]["maxLength"], 200);
    assert_eq!(props["q"]["pattern"], "^[^<>]*$");

    let limit = d.parameter("limit").unwrap();
    assert_eq!(limit.description, "Page size.");
    assert_eq!(limit.default, Some(json!(20)));
    assert!(!limit.required);
    assert_eq!(props["limit"]["minimum"], 1);
    assert_eq!(props["limit"]["maximum"], 100);

    assert_eq!(props["score"]["exclusiveMinimum"], 0.0);
    assert_eq!(props["score"]["exclusiveMaximum"], 1.5);
    assert_eq!(d.parameter("score").unwrap().default, Some(json!(0.5)));

    let priority = d.parameter("priority").unwrap();
    assert!(!priority.required);
    let allowed = priority.enum_constraint.as_ref().expect("an enum");
    assert!(allowed.case_sensitive);
    assert_eq!(allowed.allowed_values, ["low", "high"]);

    // `default = expr` with a non-literal: not required, no JSON default shown.
    let labels = d.parameter("labels").unwrap();
    assert!(!labels.required);
    assert_eq!(labels.default, None);

    assert_eq!(props["offset"]["minimum"], -10);
    assert_eq!(d.parameter("offset").unwrap().example, Some(json!(-2)));
    assert_eq!(props["tenant"]["x-mcp-header"], "Tenant");
    assert_eq!(d.input_schema["required"], json!(["q"]));

    // The defaults are used when the model leaves the parameters out.
    let (query, limit, score, priority, labels, offset, tenant) =
        find_tickets::extract(r#"{"q": "x"}"#).into_result().unwrap();
    assert_eq!((query.as_str(), limit, score), ("x", 20, 0.5));
    assert!(matches!(priority, Priority::Low));
    assert_eq!(labels, ["open"]);
    assert_eq!(offset, None);
    assert_eq!(tenant, "");
}
