use tool_core::prelude::*;

/// Deploy somewhere.
#[tool]
fn deploy(
    /// The region.
    #[param(header = "Region")]
    region: String,
    /// The fallback region.
    #[param(header = "region")]
    fallback: String,
) -> String {
    format!("{region} {fallback}")
}

fn main() {}
