use tool_core::prelude::*;

#[derive(Default)]
pub struct Counter {
    total: u64,
}

impl Counter {
    async fn connect(_ctx: &ToolContext) -> Result<Counter, ToolError> {
        Ok(Counter { total: 1 })
    }

    async fn close(&mut self) {
        self.total = 0;
    }
}

#[tool(create = "connect", cleanup = "close", idle_timeout_ms = 60000, max_instances = 10)]
impl Counter {
    /// Add to the counter.
    #[tool(name = "counter.add", tags("counter"))]
    pub async fn add(
        &mut self,
        /// How much.
        #[param(range(min = 1))]
        by: u64,
        ctx: &ToolContext,
    ) -> Result<u64, ToolError> {
        let _ = ctx.call_id();
        self.total += by;
        Ok(self.total)
    }

    /// Read the counter.
    #[tool]
    pub fn read(&self) -> u64 {
        self.total
    }
}

fn main() {
    let catalog = ToolCatalog::builder().add_declared::<Counter_add>().add_declared::<Counter_read>().build().unwrap();
    assert_eq!(catalog.names().collect::<Vec<_>>(), ["counter.add", "counter.read"]);
}
