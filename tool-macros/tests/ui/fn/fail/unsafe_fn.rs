use tool_core::prelude::*;

/// Read memory.
#[tool]
unsafe fn peek(address: u64) -> u64 {
    address
}

fn main() {}
