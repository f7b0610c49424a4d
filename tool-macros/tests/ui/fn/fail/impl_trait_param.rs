use tool_core::prelude::*;

/// Echo a value.
#[tool]
fn echo(value: impl ToString) -> String {
    value.to_string()
}

fn main() {}
