use tool_core::prelude::*;

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Counter {
    total: u64,
}

#[tool(shared_state, schema_version = 2, migrate = "upgrade")]
impl Counter {
    /// Add one to the counter.
    #[tool]
    fn add(&mut self) -> u64 {
        self.total += 1;
        self.total
    }

    /// Read the counter.
    #[tool]
    async fn read(&self) -> u64 {
        self.total
    }

    fn upgrade(from_version: u32, data: serde_json::Value) -> Result<Counter, ToolError> {
        match (from_version, data.as_u64()) {
            (1, Some(total)) => Ok(Counter { total }),
            _ => Err(ToolError::new("not a counter of version 1")),
        }
    }
}

fn main() {
    let catalog =
        ToolCatalog::builder().add_declared::<Counter_add>().add_declared::<Counter_read>().build().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let executor = Executor::new(catalog);
    let call = |name: &str| ToolCallRequest::new(name, "1", "{}").in_conversation("c");
    runtime.block_on(async {
        assert_eq!(executor.execute(call("counter.add")).await.content.text, "1");
        assert_eq!(executor.execute(call("counter.add")).await.content.text, "2");
        assert_eq!(executor.execute(call("counter.read")).await.content.text, "2");
        assert_eq!(executor.conversations().end("c").await, 1);
        assert_eq!(executor.execute(call("counter.read")).await.content.text, "0");
    });
}
