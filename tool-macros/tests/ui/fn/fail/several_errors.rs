use tool_core::prelude::*;

// Every mistake of one item is reported at once, each at its own token. The function and its
// companion type are still emitted, so `main` below gets no follow-on error.
#[tool(nmae = "search", timeout_ms = "5s", strict = 3)]
fn search(
    #[param(rename = 7)]
    (a, b): (String, String),
    query: impl ToString,
    ctx: &mut ToolContext,
) -> String {
    let _ = ctx;
    format!("{a}{b}{}", query.to_string())
}

fn main() {
    let _ = ToolCatalog::builder().add_declared::<search>();
}
