use tool_core::prelude::*;

/// Send money.
#[tool(approval = "too_few")]
fn transfer(
    /// In cents.
    amount: u64,
    /// Who gets it.
    to: String,
) -> String {
    format!("{amount} to {to}")
}

/// The recipient is left out.
fn too_few(amount: &u64, _ctx: &ToolContext) -> bool {
    *amount > 1000
}

/// Send money, again.
#[tool(approval = "wrong_type")]
fn transfer_again(
    /// In cents.
    amount: u64,
) -> String {
    amount.to_string()
}

/// Takes the amount as another type.
fn wrong_type(amount: &u32, _ctx: &ToolContext) -> bool {
    *amount > 1000
}

/// Send money, once more.
#[tool(approval = "no_answer")]
fn transfer_once_more(
    /// In cents.
    amount: u64,
) -> String {
    amount.to_string()
}

/// Returns nothing.
fn no_answer(_amount: &u64, _ctx: &ToolContext) {}

fn main() {}
