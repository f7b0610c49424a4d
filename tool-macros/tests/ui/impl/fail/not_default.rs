use tool_core::prelude::*;

struct Counter {
    total: u64,
}

#[tool]
impl Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {}
