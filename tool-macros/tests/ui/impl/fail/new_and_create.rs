use tool_core::prelude::*;

struct Counter {
    total: u64,
}

impl Counter {
    fn new() -> Counter {
        Counter { total: 0 }
    }

    async fn connect(_ctx: &ToolContext) -> Result<Counter, ToolError> {
        Ok(Counter::new())
    }
}

#[tool(new, create = "connect")]
impl Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {}
