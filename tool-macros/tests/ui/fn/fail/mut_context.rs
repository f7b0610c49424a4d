use tool_core::prelude::*;

/// Tell the call id.
#[tool]
fn call_id(ctx: &mut ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
