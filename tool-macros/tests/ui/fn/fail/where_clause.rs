use tool_core::prelude::*;

/// Echo a value.
#[tool]
fn echo(value: String) -> String
where
    String: Clone,
{
    value
}

fn main() {}
