//! Stateful tools: a shopping cart per conversation. Two conversations call the same tools;
//! each sees only its own cart; a batch of one conversation keeps its order; ending a
//! conversation runs the cart's cleanup.
//!
//! ```text
//! cargo run -p tool-examples --bin stateful
//! ```

use tool_core::prelude::*;

/// A shopping cart, one per conversation.
#[derive(Default)]
struct Cart {
    items: Vec<String>,
}

impl Cart {
    async fn checkout(&mut self) {
        println!("  cleanup: {} item(s) left in a cart", self.items.len());
    }
}

#[tool(cleanup = "checkout", idle_timeout_ms = 600_000, max_instances = 10_000)]
impl Cart {
    /// Put an item in the cart; returns the cart.
    #[tool]
    fn add(&mut self, item: String, quantity: Option<u32>) -> String {
        for _ in 0..quantity.unwrap_or(1) {
            self.items.push(item.clone());
        }
        self.items.join(", ")
    }

    /// How many items are in the cart.
    #[tool]
    fn count(&self) -> usize {
        self.items.len()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::new(ToolCatalog::global()?.clone());
    let add = |item: &str, quantity: &str| {
        ToolCallRequest::new("cart.add", item, format!(r#"{{"item": "{item}", "quantity": "{quantity}"}}"#))
    };
    // One batch, two conversations; each conversation's calls keep their order.
    let batch = vec![
        add("tea", "1").in_conversation("alice"),
        add("bread", "2").in_conversation("bob"),
        add("jam", "1").in_conversation("alice"),
        ToolCallRequest::new("cart.count", "n", "{}").in_conversation("bob"),
        ToolCallRequest::new("cart.count", "n", "{}"),
    ];
    for record in executor.execute_batch(batch).await {
        let conversation = record.request.conversation_id.as_deref().unwrap_or("(none)");
        println!("{conversation:>6} {} -> {:?}: {}", record.request.tool_name, record.status, record.model_text());
    }
    println!("live carts: {}", executor.conversations().live());
    println!("ending alice:");
    executor.conversations().end("alice").await;
    println!("live carts: {}", executor.conversations().live());
    Ok(())
}
