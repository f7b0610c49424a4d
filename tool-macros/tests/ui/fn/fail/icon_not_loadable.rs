use tool_core::prelude::*;

/// Draw a shape.
#[tool(icons("javascript:alert(1)"))]
fn draw(shape: String) -> String {
    shape
}

/// Draw another shape.
#[tool(icons("https://example.com/a.svg", "http://example.com/b.svg"))]
fn draw_more(shape: String) -> String {
    shape
}

/// Draw a third shape.
#[tool(icons = "https://example.com/c.svg")]
fn draw_again(shape: String) -> String {
    shape
}

fn main() {}
