use tool_core::prelude::*;

/// Purge old records.
#[tool(approval = "Purge::wide")]
pub struct Purge {
    /// Records older than this go.
    days: u32,
}

impl Purge {
    /// Takes the field, not the struct.
    fn wide(days: &u32, _ctx: &ToolContext) -> bool {
        *days < 7
    }
}

impl ToolRun for Purge {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        self.days.to_string()
    }
}

fn main() {}
