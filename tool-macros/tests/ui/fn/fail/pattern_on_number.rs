use tool_core::prelude::*;

/// Fetch a page.
#[tool]
fn fetch_page(
    /// Page number.
    #[param(pattern = "^[0-9]+$")]
    page: u32,
) -> String {
    page.to_string()
}

fn main() {}
