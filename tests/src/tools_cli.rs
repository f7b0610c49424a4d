//! Running the `tools_cli` binary (tests/src/bin/tools_cli.rs) as a real process, for the
//! command line's tests. Included by path (`#[path]`): it uses `assert_cmd`, which only the
//! test targets depend on.

use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

/// `tools ARGS`, run to its end.
pub fn tools(args: &[&str]) -> Output {
    Command::cargo_bin("tools_cli").unwrap().args(args).output().unwrap()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// What `tools ARGS` printed, read as JSON, whatever its exit status.
#[allow(dead_code)] // Not every including test uses it.
pub fn json_out(args: &[&str]) -> Value {
    let output = tools(args);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&output)))
}

/// As [`json_out`], for a command that must succeed.
#[allow(dead_code)] // Not every including test uses it.
pub fn json_out_ok(args: &[&str]) -> Value {
    let output = tools(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&output)))
}

/// The output with the call's duration replaced by `N`.
#[allow(dead_code)] // Not every including test uses it.
pub fn without_duration(text: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix("status: ").and_then(|rest| rest.rfind(" in ").map(|at| (rest, at))) {
            Some((rest, at)) => format!("status: {} in N ms", &rest[..at]),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
