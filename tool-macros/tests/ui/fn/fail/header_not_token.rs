use tool_core::prelude::*;

/// Deploy somewhere.
#[tool]
fn deploy(
    /// The region.
    #[param(header = "Cloud Region")]
    region: String,
    /// The zone.
    #[param(header = "")]
    zone: String,
) -> String {
    format!("{region} {zone}")
}

fn main() {}
