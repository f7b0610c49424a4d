//! Our MCP server (`src/bin/mcp_test_server.rs`, over stdio) against the official MCP Python
//! SDK's client (`tests/python/mcp_client.py`, at the version pinned in
//! `tests/python/requirements.txt`): the list a page at a time, a call whose sloppy arguments
//! we recover, a refused call, an unknown tool, a tool error and structured output, each as
//! the Python client reads it.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};
use tool_tests::python::{run, sdk_python};

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_client.py");

/// What the Python client saw, run once for the tests of this file.
fn seen() -> &'static Value {
    static SEEN: OnceLock<Value> = OnceLock::new();
    SEEN.get_or_init(|| {
        let python = sdk_python(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap_or_else(|e| panic!("{e}"));
        let server = env!("CARGO_BIN_EXE_mcp_test_server");
        let stdout =
            run(Command::new(python).arg(CLIENT).arg(server), "mcp_client.py").unwrap_or_else(|e| panic!("{e}"));
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("mcp_client.py printed no JSON ({e}):\n{stdout}"))
    })
}

#[test]
fn the_python_client_lists_every_page_and_reads_the_input_schema() {
    let seen = seen();
    assert_eq!(
        seen["pages"],
        json!([["notes.add", "notes.count"], ["notes.fail", "notes.wait"], ["server.exit", "server.name"]])
    );
    assert_eq!(seen["add_schema"]["required"], json!(["text"]));
    assert_eq!(seen["add_schema"]["properties"]["priority"]["description"], "How urgent, 1 to 3.");
}

#[test]
fn sloppy_arguments_are_recovered_for_the_python_client() {
    assert_eq!(
        seen()["sloppy"],
        json!({"isError": false, "text": ["buy milk (priority 2)"], "structuredContent": null})
    );
}

#[test]
fn failures_reach_the_python_client_as_error_results_it_can_read() {
    let seen = seen();
    assert_eq!(
        seen["refused"]["text"],
        json!(["The arguments for `notes.add` were not accepted:\n- `text`: required, expected a string; it was missing.\nSend the corrected arguments to `notes.add` again."])
    );
    assert_eq!(
        seen["unknown"]["text"],
        json!(["There is no tool named `notes.ad`. The closest existing tools are: `notes.add`, `notes.fail`, `notes.wait`. Call one of them instead."])
    );
    assert_eq!(seen["failed"], json!({"isError": true, "text": ["the disk is full"], "structuredContent": null}));
    assert_eq!(seen["refused"]["isError"], true);
    assert_eq!(seen["unknown"]["isError"], true);
}

#[test]
fn structured_output_matches_the_exported_output_schema_for_the_python_client() {
    // `Json<Value>` declares no object root, so the schema and the content are both wrapped:
    // the Python SDK checks one against the other.
    assert_eq!(seen()["structured"]["structuredContent"], json!({"result": {"words": 3}}));
    assert_eq!(seen()["structured"]["isError"], false);
}
