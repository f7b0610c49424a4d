use tool_core::prelude::*;

#[derive(Default)]
struct Counter {
    total: u64,
}

#[tool]
impl Counter {
    /// Take the counter.
    #[tool]
    fn take(self) -> u64 {
        self.total
    }
}

fn main() {}
