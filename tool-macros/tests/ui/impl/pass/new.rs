use tool_core::prelude::*;

pub struct Counter {
    total: u64,
}

impl Counter {
    fn new() -> Counter {
        Counter { total: 5 }
    }
}

#[tool(new)]
impl Counter {
    /// Read the counter.
    #[tool]
    pub fn read(&self) -> u64 {
        self.total
    }
}

fn main() {
    let catalog = ToolCatalog::builder().add_declared::<Counter_read>().build().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let executor = Executor::new(catalog);
    let record = runtime.block_on(executor.execute(ToolCallRequest::new("counter.read", "1", "{}").in_conversation("c")));
    assert_eq!(record.content.text, "5");
}
