use tool_core::prelude::*;

struct Counter {
    total: u64,
}

// Every mistake of the block and of its methods is reported at once. The block and the
// companion types are still emitted, so `main` below gets no follow-on error.
#[tool(name = "counter", idle_timeout_ms = "1m", new = 2)]
impl Counter {
    /// Read the counter.
    #[tool(create = "connect", timout_ms = 5)]
    fn read(self) -> u64 {
        self.total
    }

    #[tool]
    fn reset(&mut self) {
        self.total = 0;
    }
}

fn main() {
    let _ = ToolCatalog::builder().add_declared::<Counter_read>().add_declared::<Counter_reset>();
}
