//! Our MCP server (`src/bin/mcp_test_server.rs`, over stdio and over streamable HTTP) against
//! the official MCP Python SDK's client (`tests/python/mcp_client.py`, at the version pinned in
//! `tests/python/requirements.txt`): the list a page at a time, a call whose sloppy arguments
//! we recover (with the warning in the result's `_meta`), a refused call, an unknown tool, a
//! tool error, structured output, progress, and a call the client abandons, each as the Python
//! client reads it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::{json, Value};
use tool_tests::python::{run, sdk_python};

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_client.py");
const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

fn client(transport: &str, target: &str) -> Value {
    let python = sdk_python(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap_or_else(|e| panic!("{e}"));
    let stdout = run(Command::new(python).arg(CLIENT).arg(transport).arg(target), "mcp_client.py")
        .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("mcp_client.py printed no JSON ({e}):\n{stdout}"))
}

/// What the Python client saw over stdio and over streamable HTTP, run once for the tests of
/// this file.
fn seen() -> &'static [(&'static str, Value)] {
    static SEEN: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    SEEN.get_or_init(|| {
        let stdio = client("stdio", SERVER);
        let mut server = Command::new(SERVER).args(["--http", "127.0.0.1:0"]).stdout(Stdio::piped()).spawn().unwrap();
        let mut url = String::new();
        BufReader::new(server.stdout.take().unwrap()).read_line(&mut url).unwrap();
        let http = client("http", url.trim());
        let _ = server.kill();
        let _ = server.wait();
        vec![("stdio", stdio), ("http", http)]
    })
}

#[test]
fn the_python_client_lists_every_page_and_reads_the_input_schema() {
    let Some(_) = tool_tests::external::python(
        "mcp_python::the_python_client_lists_every_page_and_reads_the_input_schema",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    for (transport, seen) in seen() {
        assert_eq!(
            seen["pages"],
            json!([
                ["notes.add", "notes.count"],
                ["notes.fail", "notes.wait"],
                ["server.exit", "server.name"],
                ["server.waiting"]
            ]),
            "over {transport}"
        );
        assert_eq!(seen["add_schema"]["required"], json!(["text"]), "over {transport}");
        assert_eq!(seen["add_schema"]["properties"]["priority"]["description"], "How urgent, 1 to 3.");
    }
}

#[test]
fn sloppy_arguments_are_recovered_for_the_python_client_and_the_warning_is_in_the_meta() {
    let Some(_) = tool_tests::external::python(
        "mcp_python::sloppy_arguments_are_recovered_for_the_python_client_and_the_warning_is_in_the_meta",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    for (transport, seen) in seen() {
        assert_eq!(
            seen["sloppy"],
            json!({
                "isError": false,
                "text": ["buy milk (priority 2)"],
                "structuredContent": null,
                "meta": {"tool-core/parse_warnings": [{
                    "pointer": "/priority",
                    "rule": "string_to_integer",
                    "expected": "an integer",
                    "received": "\"2\"",
                    "action": "converted to 2"
                }]}
            }),
            "over {transport}"
        );
    }
}

#[test]
fn failures_reach_the_python_client_as_error_results_it_can_read() {
    let Some(_) = tool_tests::external::python(
        "mcp_python::failures_reach_the_python_client_as_error_results_it_can_read",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    for (transport, seen) in seen() {
        assert_eq!(
            (&seen["refused"]["isError"], &seen["refused"]["text"]),
            (
                &json!(true),
                &json!(["The arguments for `notes.add` were not accepted:\n- `text`: required, expected a string; it was missing.\nSend the corrected arguments to `notes.add` again."])
            ),
            "over {transport}"
        );
        assert_eq!(
            (&seen["unknown"]["isError"], &seen["unknown"]["text"]),
            (
                &json!(true),
                &json!(["There is no tool named `notes.ad`. The closest existing tools are: `notes.add`, `notes.fail`, `notes.wait`. Call one of them instead."])
            ),
            "over {transport}"
        );
        assert_eq!(
            seen["failed"],
            json!({"isError": true, "text": ["the disk is full"], "structuredContent": null, "meta": null}),
            "over {transport}"
        );
    }
}

#[test]
fn structured_output_matches_the_exported_output_schema_for_the_python_client() {
    let Some(_) = tool_tests::external::python(
        "mcp_python::structured_output_matches_the_exported_output_schema_for_the_python_client",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    // `Json<Value>` declares no object root, so the schema and the content are both wrapped:
    // the Python SDK checks one against the other.
    for (transport, seen) in seen() {
        assert_eq!(seen["structured"]["structuredContent"], json!({"result": {"words": 3}}), "over {transport}");
        assert_eq!(seen["structured"]["isError"], false, "over {transport}");
    }
}

#[test]
fn the_python_client_receives_progress_and_its_cancellation_stops_the_tool() {
    let Some(_) = tool_tests::external::python(
        "mcp_python::the_python_client_receives_progress_and_its_cancellation_stops_the_tool",
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    ) else {
        return;
    };
    for (transport, seen) in seen() {
        assert_eq!(seen["waited"]["text"], json!(["waited 3 steps"]), "over {transport}");
        assert_eq!(
            seen["progress"],
            json!([[1.0, 3.0, "step 1"], [2.0, 3.0, "step 2"], [3.0, 3.0, "step 3"]]),
            "over {transport}"
        );
        // Running while the call was out, stopped once the client abandoned it.
        assert_eq!(seen["running_during"], json!([["1"]]), "over {transport}");
        assert_eq!(seen["running_after_cancel"], json!(["0"]), "over {transport}");
    }
}
