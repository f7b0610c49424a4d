//! The catalog: collected at link time, sorted, validated, and buildable by hand.

use serde_json::json;
use tool_core::prelude::*;
use tool_core::{CatalogBuilder, CatalogProblem};

/// Zeta comes last.
#[tool(tags("greek"))]
fn zeta() -> &'static str {
    "z"
}

/// Alpha comes first.
#[tool(tags("greek", "first"))]
fn alpha() -> &'static str {
    "a"
}

/// Multiply two numbers.
#[tool(name = "math.mul", tags("math"), examples(r#"{"a": 2, "b": 3}"#))]
fn mul(a: f64, b: f64) -> f64 {
    a * b
}

#[test]
fn the_global_catalog_holds_every_linked_tool_sorted_by_name() {
    let catalog = ToolCatalog::global().unwrap();
    assert_eq!(catalog.names().collect::<Vec<_>>(), vec!["alpha", "math.mul", "zeta"]);
    assert_eq!(catalog.get("math.mul").unwrap().definition().description, "Multiply two numbers.");
    assert!(catalog.get("mul").is_none());
    assert!(std::ptr::eq(ToolCatalog::global().unwrap(), catalog), "collected once");
}

fn echo_tool() -> DynamicTool {
    DynamicTool::builder("echo")
        .description("Echo the text back.")
        .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
        .handler(|args, _ctx| async move { args["text"].as_str().unwrap_or_default().to_owned() })
        .build()
        .unwrap()
}

#[test]
fn builders_add_remove_and_filter() {
    let only_greek = ToolCatalog::global().unwrap().to_builder().retain_tagged("greek").remove("zeta").build().unwrap();
    assert_eq!(only_greek.names().collect::<Vec<_>>(), vec!["alpha"]);

    let dynamic = echo_tool();
    let mixed =
        CatalogBuilder::new().add_declared::<mul>().add_tool(dynamic).retain(|d| !d.name.is_empty()).build().unwrap();
    assert_eq!(mixed.names().collect::<Vec<_>>(), vec!["echo", "math.mul"]);
    assert!(mixed.definition("echo").unwrap().parameters[0].required);
}

#[tokio::test]
async fn runtime_built_tools_run_through_the_same_executor() {
    let dynamic = echo_tool();
    let executor = Executor::new(CatalogBuilder::new().add_tool(dynamic).build().unwrap());
    let ok = executor.execute(ToolCallRequest::new("echo", "c1", r#"{"text": "hi"}"#)).await;
    assert_eq!(ok.content.text, "hi");
    let missing = executor.execute(ToolCallRequest::new("echo", "c2", "{}")).await;
    assert_eq!(
        missing.content.text,
        "The arguments for `echo` were not accepted:\n- `text`: required, expected a string; it was missing.\nSend the corrected arguments to `echo` again."
    );
}

#[test]
fn invalid_definitions_are_reported_all_at_once() {
    let no_description =
        DynamicTool::builder("quiet").handler(|_, _| async { "" }).source("tools.toml", 3).build().unwrap();
    let bad_schema = DynamicTool::builder("loose")
        .description("Loose schema.")
        .input_schema(json!({"type": "array", "required": ["ghost"]}))
        .handler(|_, _| async { "" })
        .source("tools.toml", 9)
        .build()
        .unwrap();
    let error = CatalogBuilder::new().add_tool(no_description).add_tool(bad_schema).build().unwrap_err();
    assert_eq!(
        error.to_string(),
        "the tool catalog is invalid:\n\
         - the tool `loose` (at tools.toml:9) has an input schema whose root is not `type: object`\n\
         - the tool `loose` (at tools.toml:9) lists \"ghost\" as required but has no such property\n\
         - the tool `quiet` (at tools.toml:3) has an empty description: write a doc comment on it or `description = \"...\"`"
    );
}

#[test]
fn duplicate_names_in_a_builder_report_both_sources() {
    let make = |line| {
        DynamicTool::builder("twin")
            .description("Twin.")
            .handler(|_, _| async { "" })
            .source("a.toml", line)
            .build()
            .unwrap()
    };
    let error = CatalogBuilder::new().add_tool(make(1)).add_tool(make(2)).build().unwrap_err();
    assert_eq!(
        error.problems,
        vec![CatalogProblem::DuplicateName {
            name: "twin".into(),
            locations: vec![
                tool_core::SourceLocation { file: "a.toml".into(), line: 1 },
                tool_core::SourceLocation { file: "a.toml".into(), line: 2 }
            ],
        }]
    );
}

#[test]
fn declared_examples_are_stored_in_the_definition() {
    let catalog = ToolCatalog::global().unwrap();
    assert_eq!(catalog.definition("math.mul").unwrap().examples, vec![json!({"a": 2, "b": 3})]);
}

#[test]
fn runtime_tool_names_are_validated() {
    let error = DynamicTool::builder("bad name").description("x").handler(|_, _| async { "" }).build().err().unwrap();
    assert_eq!(
        error.to_string(),
        "the tool name `bad name` is invalid: use 1-64 of `A-Z a-z 0-9 _ . -`, starting with a letter or `_`"
    );
    let error = DynamicTool::builder("ok").description("x").build().err().unwrap();
    assert_eq!(error.to_string(), "the tool `ok` has no handler: call `.handler(..)` before `.build()`");
}
