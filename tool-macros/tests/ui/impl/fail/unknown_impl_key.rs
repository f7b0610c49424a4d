use tool_core::prelude::*;

#[derive(Default)]
struct Counter {
    total: u64,
}

#[tool(max_instance = 10)]
impl Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {
    // The companion type is there despite the error.
    let _ = ToolCatalog::builder().add_declared::<Counter_read>();
}
