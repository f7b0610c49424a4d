use tool_core::prelude::*;

/// Echo a value.
#[tool]
fn echo(value: String) -> impl std::fmt::Display {
    value
}

fn main() {}
