use tool_core::prelude::*;

#[derive(Default)]
pub struct Wallet {
    balance: u64,
}

#[tool]
impl Wallet {
    /// Spend from the wallet.
    #[tool(approval = "Self::over")]
    fn spend(&mut self, amount: u64) -> u64 {
        self.balance -= amount;
        self.balance
    }

    /// Takes the instance, which the predicate does not get.
    fn over(&self, amount: &u64, _ctx: &ToolContext) -> bool {
        *amount > self.balance
    }
}

fn main() {}
