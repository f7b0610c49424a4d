use tool_core::prelude::*;

/// Read a file.
#[tool]
fn read_file(file: std::fs::File) -> String {
    format!("{file:?}")
}

fn main() {}
