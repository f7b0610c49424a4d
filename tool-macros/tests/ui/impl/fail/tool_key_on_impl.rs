use tool_core::prelude::*;

#[derive(Default)]
struct Counter {
    total: u64,
}

#[tool(name = "counter")]
impl Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {}
