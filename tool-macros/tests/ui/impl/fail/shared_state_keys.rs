use tool_core::prelude::*;

#[derive(Default)]
pub struct Counter {
    total: u64,
}

#[tool(schema_version = 2, migrate = "upgrade")]
impl Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

#[derive(Default)]
pub struct Tally {
    total: u64,
}

#[tool(shared_state, schema_version = 0)]
impl Tally {
    /// Read the tally.
    #[tool]
    fn read(&self) -> u64 {
        self.total
    }
}

fn main() {}
