use tool_core::prelude::*;

/// Check whether a meeting room is free.
#[tool(name = "rooms.check", tags("rooms"), annotations(read_only))]
pub struct CheckAvailability {
    /// Room name.
    pub room: String,
    /// Time range such as "15:00-16:00".
    #[param(rename = "time_range", pattern = "^[0-9:-]+$")]
    pub time: String,
    /// Floor, when known.
    #[param(range(min = 0, max = 40))]
    pub floor: Option<u8>,
}

impl ToolRun for CheckAvailability {
    type Output = Result<String, ToolError>;

    async fn run(self, ctx: &ToolContext) -> Self::Output {
        Ok(format!("{} is free at {} ({:?}, {})", self.room, self.time, self.floor, ctx.call_id()))
    }
}

/// Ping.
#[tool]
struct Ping {}

impl ToolRun for Ping {
    type Output = &'static str;

    async fn run(self, _ctx: &ToolContext) -> &'static str {
        "pong"
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let d = <CheckAvailability as DeclaredTool>::definition();
    assert_eq!(d.name, "rooms.check");
    assert_eq!(d.description, "Check whether a meeting room is free.");
    let names: Vec<&str> = d.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["room", "time_range", "floor"]);
    assert_eq!(d.input_schema["required"], serde_json::json!(["room", "time_range"]));
    assert_eq!(d.input_schema["properties"]["floor"]["maximum"], 40);
    assert_eq!(d.annotations.read_only, Some(true));

    let ping = <Ping as DeclaredTool>::definition();
    assert_eq!(ping.name, "ping");
    assert!(ping.parameters.is_empty());

    let catalog = ToolCatalog::global().unwrap().clone();
    let executor = Executor::new(catalog);
    let record = executor
        .execute(ToolCallRequest::new("rooms.check", "c2", r#"{"room": "Atlas", "time_range": "15:00-16:00"}"#))
        .await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "Atlas is free at 15:00-16:00 (None, c2)");
    let record = executor.execute(ToolCallRequest::new("ping", "c3", "{}")).await;
    assert_eq!(record.content.text, "pong");
}
