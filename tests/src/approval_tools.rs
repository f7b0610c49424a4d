//! Two runtime tools the approval tests share: one that asks for approval of every call, one
//! whose body asks when a payment is large.

use serde_json::{json, Map, Value};
use tool_core::{Approval, DynamicTool, ToolContext, ToolError};

/// `transfer(amount, to)`: every call waits for approval; the result says whether it was.
pub fn transfer() -> DynamicTool {
    DynamicTool::builder("transfer")
        .description("Send money.")
        .input_schema(json!({
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
            "required": ["amount", "to"]
        }))
        .approval(Approval::Always)
        .handler(|args: Map<String, Value>, ctx: ToolContext| async move {
            format!("sent {} to {} (approved: {})", args["amount"], args["to"].as_str().unwrap_or(""), ctx.approved())
        })
        .build()
        .expect("a valid tool")
}

/// `pay(amount)`: a payment over 1,000 waits for a person, asked from the tool's body.
pub fn pay() -> DynamicTool {
    DynamicTool::builder("pay")
        .description("Pay an invoice.")
        .input_schema(json!({
            "type": "object",
            "properties": {"amount": {"type": "integer"}},
            "required": ["amount"]
        }))
        .approval(Approval::ByArguments)
        .handler(|args: Map<String, Value>, ctx: ToolContext| async move {
            let amount = args["amount"].as_u64().unwrap_or(0);
            if amount > 1000 && !ctx.approved() {
                return Err(ToolError::approval_required(format!("a payment of {amount} is over 1000")));
            }
            Ok(format!("paid {amount}"))
        })
        .build()
        .expect("a valid tool")
}
