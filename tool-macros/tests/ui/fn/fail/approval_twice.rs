use tool_core::prelude::*;

/// Send money.
#[tool(requires_approval, approval = "large")]
fn transfer(
    /// In cents.
    amount: u64,
) -> String {
    amount.to_string()
}

/// Send money the other way.
#[tool(approval = "large", requires_approval = false)]
fn refund(
    /// In cents.
    amount: u64,
) -> String {
    amount.to_string()
}

fn large(amount: &u64, _ctx: &ToolContext) -> bool {
    *amount > 1000
}

fn main() {}
