use tool_core::prelude::*;

/// Send money.
#[tool(approval = "is_large")]
fn transfer(
    /// In cents.
    amount: u64,
) -> String {
    amount.to_string()
}

fn main() {}
