use tool_core::prelude::*;

/// Tag things.
#[tool]
fn tag(
    /// The labels.
    #[param(header = "Labels")]
    labels: Vec<String>,
) -> String {
    labels.join(",")
}

fn main() {}
