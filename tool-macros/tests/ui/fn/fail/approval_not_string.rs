use tool_core::prelude::*;

/// Send money.
#[tool(approval = large)]
fn transfer(
    /// In cents.
    amount: u64,
) -> String {
    amount.to_string()
}

fn large(amount: &u64, _ctx: &ToolContext) -> bool {
    *amount > 1000
}

fn main() {}
