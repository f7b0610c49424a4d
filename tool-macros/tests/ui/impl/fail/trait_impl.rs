use tool_core::prelude::*;

#[derive(Default)]
struct Counter {
    total: u64,
}

trait Read {
    fn read(&self) -> u64;
}

#[tool]
impl Read for Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {}
