use tool_core::prelude::*;

/// Deploy somewhere.
#[tool]
fn deploy(
    /// The region.
    #[param(header = "Region")]
    region: Option<String>,
) -> String {
    region.unwrap_or_default()
}

fn main() {}
