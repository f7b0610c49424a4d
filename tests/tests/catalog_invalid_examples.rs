//! A declared example that is no arguments object, or that the tool's input schema refuses,
//! makes the catalog invalid.

use tool_core::prelude::*;

/// Divide.
#[tool(examples(r#"{"a": 1}"#, "not json", r#"{"a": 1, "b": 2}"#))]
fn div(a: f64, b: f64) -> f64 {
    a / b
}

#[test]
fn examples_are_checked_against_the_tools_input_schema() {
    let error = ToolCatalog::global().unwrap_err();
    let file = file!();
    let line =
        include_str!("catalog_invalid_examples.rs").lines().position(|l| l.starts_with("#[tool(examples(")).unwrap()
            + 1;
    assert_eq!(
        error.to_string(),
        format!(
            "the tool catalog is invalid:\n\
             - the tool `div` (at {file}:{line}) has example 0 that its input schema refuses: at `(arguments)`: \"b\" is a required property\n\
             - the tool `div` (at {file}:{line}) has example 1 that is not a JSON object (\"not json\"): an example is the arguments object of one call"
        )
    );
}
