use tool_core::prelude::*;

#[derive(Default)]
struct Counter {
    total: u64,
}

#[tool]
impl Counter {
    /// Read the counter.
    #[tool(blocking)]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {}
