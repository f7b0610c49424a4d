use tool_core::prelude::*;

/// Write a note.
#[tool(scopes = 3)]
fn write(text: String) -> String {
    text
}

/// Write another note.
#[tool(scopes("notes:write", "notes\"all"))]
fn write_more(text: String) -> String {
    text
}

/// Write a third note.
#[tool(scopes(""))]
fn write_again(text: String) -> String {
    text
}

fn main() {}
