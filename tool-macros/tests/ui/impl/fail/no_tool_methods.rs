use tool_core::prelude::*;

#[derive(Default)]
struct Counter {
    total: u64,
}

#[tool]
impl Counter {
    /// Add to the counter.
    fn add(&mut self, by: u64) -> u64 {
        self.total += by;
        self.total
    }
}

fn main() {}
