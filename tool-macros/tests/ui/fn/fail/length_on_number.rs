use tool_core::prelude::*;

/// Fetch a page.
#[tool]
fn fetch_page(
    /// Page number.
    #[param(length(max = 3))]
    page: u32,
) -> String {
    page.to_string()
}

fn main() {}
