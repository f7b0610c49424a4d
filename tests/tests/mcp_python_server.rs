//! Our MCP client (`McpImport`) against a server written with the official MCP Python SDK's
//! high-level API (`tests/python/mcp_server.py`, `MCPServer`, over stdio): its tools listed and
//! registered under a prefix, sloppy arguments converted here by its schemas before they are
//! sent, structured output, an error result, and a server that exits during a call.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tool_core::mcp::McpImport;
use tool_core::prelude::*;
use tool_core::CallFailure;
use tool_tests::python::sdk_python;

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_server.py");

async fn imported() -> (McpImport, Executor) {
    let python = sdk_python(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap_or_else(|e| panic!("{e}"));
    let imported = McpImport::command(python).arg(SERVER).prefix("py.").connect().await.unwrap();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    (imported, executor)
}

fn warnings(record: &ExecutionRecord) -> Vec<(&str, &str)> {
    record.warnings().iter().map(|w| (w.pointer(), w.rule())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_servers_tools_are_imported_with_their_schemas() {
    let Some(_) = tool_tests::external::python(
        "mcp_python_server::the_python_servers_tools_are_imported_with_their_schemas",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let (imported, executor) = imported().await;
    let names: Vec<&str> = executor.catalog().names().collect();
    assert_eq!(names, ["py.add", "py.die", "py.fail", "py.greet"]);
    let skipped = imported.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        (skipped[0].name.as_str(), skipped[0].reason.to_string().as_str()),
        (
            "files/read",
            "the tool name `py.files/read` is invalid: use 1-64 of `A-Z a-z 0-9 _ . -`, starting with a letter or `_`"
        )
    );
    let add = executor.catalog().definition("py.add").unwrap();
    assert_eq!(add.description, "Add two counts.");
    assert_eq!(
        add.output_schema,
        Some(json!({
            "properties": {
                "total": {"title": "Total", "type": "integer"},
                "unit": {"enum": ["items", "boxes"], "title": "Unit", "type": "string"}
            },
            "required": ["total", "unit"],
            "title": "Total",
            "type": "object"
        }))
    );
    let parameters: Vec<_> = add
        .parameters
        .iter()
        .map(|p| {
            let allowed = p.enum_constraint.as_ref().map(|e| e.allowed_values.clone());
            (p.name.as_str(), p.required, allowed, p.default.clone())
        })
        .collect();
    assert_eq!(
        parameters,
        [
            ("a", true, None, None),
            ("b", true, None, None),
            ("unit", false, Some(vec!["items".to_owned(), "boxes".to_owned()]), Some(json!("items")))
        ]
    );
    imported.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sloppy_arguments_are_converted_here_and_the_python_results_become_records() {
    let Some(_) = tool_tests::external::python(
        "mcp_python_server::sloppy_arguments_are_converted_here_and_the_python_results_become_records",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let (imported, executor) = imported().await;

    let record = executor.execute(ToolCallRequest::new("py.add", "1", r#"{"a": "2", "b": 3, "unit": "boxes"}"#)).await;
    assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    assert_eq!(warnings(&record), [("/a", "string_to_integer")]);
    assert_eq!(record.content.structured, Some(json!({"total": 5, "unit": "boxes"})));

    let record = executor.execute(ToolCallRequest::new("py.greet", "2", r#"{"name": "Ada", "times": "2"}"#)).await;
    assert_eq!(record.content.text, "hello Ada hello Ada");
    assert_eq!(record.content.structured, Some(json!({"result": "hello Ada hello Ada"})));
    assert_eq!(warnings(&record), [("/times", "string_to_integer")]);

    // Refused here, by the Python schema's enum: nothing is sent.
    let record = executor.execute(ToolCallRequest::new("py.add", "3", r#"{"a": 1, "b": 2, "unit": "crates"}"#)).await;
    assert_eq!(record.failure, Some(CallFailure::InvalidArguments));

    let record = executor.execute(ToolCallRequest::new("py.fail", "4", r#"{"reason": "no disk"}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.model_text(), "Error executing tool fail: cannot do that: no disk");
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("mcp_tool_error"));
    imported.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_server_that_exits_during_a_call_fails_it_and_is_started_again() {
    let Some(_) = tool_tests::external::python(
        "mcp_python_server::a_python_server_that_exits_during_a_call_fails_it_and_is_started_again",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    let (imported, executor) = imported().await;
    let record =
        tokio::time::timeout(Duration::from_secs(20), executor.execute(ToolCallRequest::new("py.die", "1", "{}")))
            .await
            .expect("the call of a server that exits ends");
    assert_eq!(record.status, CallStatus::Failed);
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("mcp_connection_lost"), "{}", record.model_text());

    let record = executor.execute(ToolCallRequest::new("py.greet", "2", r#"{"name": "Bo"}"#)).await;
    assert_eq!((record.status, record.content.text.as_str()), (CallStatus::Success, "hello Bo"));
    imported.close().await;
}
