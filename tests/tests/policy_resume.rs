//! A pending call outlives its process: stored as JSON by one process, answered and run by
//! another (this test binary run again, as a host restarted after a person decided).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};
use tool_core::policy::{ApprovalRule, Decision, PendingCall};
use tool_core::prelude::*;
use tool_core::Executor;

/// Remove a user's account.
#[tool(annotations(destructive))]
fn remove_account(
    /// The account's id.
    id: u64,
    /// Why, for the audit log.
    reason: Option<String>,
) -> String {
    format!("removed account {id} (pid {}): {}", std::process::id(), reason.unwrap_or_default())
}

fn executor() -> Executor {
    let catalog = ToolCatalog::builder().add_declared::<remove_account>().build().unwrap();
    Executor::builder(catalog).require_approval(ApprovalRule::destructive()).build()
}

const FILE: &str = "TOOL_POLICY_PENDING_FILE";
const DECISION: &str = "TOOL_POLICY_DECISION";
const TEST: &str = "a_pending_call_stored_by_one_process_is_answered_and_run_by_another";

/// This test's name as the test harness knows it: its module path without the crate's name.
fn test_name() -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{TEST}"),
        None => TEST.to_owned(),
    }
}

/// Runs this test again in a new process, as the second host; returns its record.
fn second_process(pending_file: &PathBuf, decision: &Decision) -> Value {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &test_name(), "--test-threads=1", "--quiet"])
        .env(FILE, pending_file)
        .env(DECISION, serde_json::to_string(decision).unwrap())
        .output()
        .unwrap();
    assert!(output.status.success(), "the second process failed: {}", String::from_utf8_lossy(&output.stderr));
    let written = std::fs::read_to_string(pending_file.with_extension("record.json")).unwrap();
    serde_json::from_str(&written).unwrap()
}

#[tokio::test]
async fn a_pending_call_stored_by_one_process_is_answered_and_run_by_another() {
    if let Ok(file) = std::env::var(FILE) {
        // The second process: the stored call, the person's decision, a new executor.
        let pending: PendingCall = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let decision: Decision = serde_json::from_str(&std::env::var(DECISION).unwrap()).unwrap();
        let record = executor().resume(pending, decision).await;
        let path = PathBuf::from(file).with_extension("record.json");
        std::fs::write(path, serde_json::to_string(&record).unwrap()).unwrap();
        return;
    }
    let dir = std::env::temp_dir().join(format!("tool-policy-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = executor()
        .execute(ToolCallRequest::new("remove_account", "call_7", r#"{"id": "42", "reason": "asked by the user"}"#))
        .await;
    assert_eq!(record.status, CallStatus::Pending);
    let pending = record.pending.unwrap();
    let file = dir.join("pending.json");
    std::fs::write(&file, serde_json::to_string_pretty(&pending).unwrap()).unwrap();

    let record = second_process(&file, &Decision::Approve);
    let text = record["content"]["text"].as_str().unwrap();
    assert_eq!(record["status"], "success");
    assert_eq!(text, format!("removed account 42 (pid {}): asked by the user", pid_in(text)));
    assert_ne!(pid_in(text), std::process::id(), "the tool ran in the second process");
    assert_eq!(record["request"]["call_id"], "call_7");
    assert_eq!(record["request"]["raw_arguments"], r#"{"id": "42", "reason": "asked by the user"}"#);
    assert_eq!(
        record["decisions"],
        json!([
            {"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule destructive"},
            {"stage": "approval", "by": "person", "outcome": "approved"}
        ])
    );

    let record = second_process(&file, &Decision::approve_with(json!({"id": 43})));
    assert_eq!(record["status"], "success");
    assert!(record["content"]["text"].as_str().unwrap().starts_with("removed account 43 (pid"));
    assert_eq!(record["original"]["raw_arguments"], r#"{"id": "42", "reason": "asked by the user"}"#);

    let record = second_process(&file, &Decision::deny("the account has open orders"));
    assert_eq!(record["status"], "denied");
    assert_eq!(record["content"]["text"], "This call of `remove_account` was denied: the account has open orders");
    assert_eq!(record["failure"], json!({"kind": "denied", "reason": "the account has open orders"}));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn pid_in(text: &str) -> u32 {
    let start = text.find("(pid ").unwrap() + 5;
    text[start..].split(')').next().unwrap().parse().unwrap()
}
