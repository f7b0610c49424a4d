use schemars::JsonSchema;
use serde::Serialize;
use tool_core::prelude::*;

/// One search hit.
#[derive(Serialize, JsonSchema)]
pub struct Hit {
    /// Where.
    pub source: String,
}

/// Search the store.
#[tool(description = "Search the store for fragments.", timeout_ms = 250, crate = "::tool_core")]
pub struct MemorySearch {
    /// Keywords.
    #[param(example = "agents", length(min = 1))]
    pub query: String,
    /// Max hits.
    #[param(default = 3)]
    pub limit: u32,
    pub r#type: Option<String>,
}

impl ToolRun for MemorySearch {
    type Output = Json<Vec<Hit>>;

    async fn run(self, _ctx: &ToolContext) -> Self::Output {
        let n = self.limit as usize;
        Json((0..n).map(|i| Hit { source: format!("{}#{i}", self.query) }).collect())
    }
}

fn main() {
    let d = <MemorySearch as DeclaredTool>::definition();
    assert_eq!(d.name, "memory_search");
    assert_eq!(d.description, "Search the store for fragments.");
    assert_eq!(d.timeout, Some(std::time::Duration::from_millis(250)));
    assert_eq!(d.parameter("limit").unwrap().default, Some(serde_json::json!(3)));
    assert!(d.parameter("type").is_some());
    assert_eq!(d.output_schema.as_ref().unwrap()["type"], "array");
    let (query, limit, kind) = MemorySearch::extract(r#"{"query": "a"}"#).into_result().unwrap();
    assert_eq!((query.as_str(), limit, kind), ("a", 3, None));
}
