//! A pending call kept as JSON by one process, presented to another (this test binary run
//! again, as a host restarted after a person decided): it runs only through the store it waits
//! in. The second process's store (a memory store of its own) never held it, so it refuses the
//! call and runs nothing; the first process, whose store holds it, runs it once. Replicas that
//! share a store (Redis) resume each other's calls: `pending_store.rs`.

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
const TEST: &str = "a_pending_call_kept_as_json_runs_only_through_the_store_it_waits_in";

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
async fn a_pending_call_kept_as_json_runs_only_through_the_store_it_waits_in() {
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
    let executor = executor();
    let record = executor
        .execute(ToolCallRequest::new("remove_account", "call_7", r#"{"id": "42", "reason": "asked by the user"}"#))
        .await;
    assert_eq!(record.status, CallStatus::Pending);
    let pending = record.pending.unwrap();
    let file = dir.join("pending.json");
    std::fs::write(&file, serde_json::to_string_pretty(&pending).unwrap()).unwrap();

    // Another process, whose store never held the call: whatever the answer, nothing runs.
    let unknown = json!({"kind": "not_pending", "id": pending.id, "reason": "unknown"});
    for decision in [Decision::Approve, Decision::approve_with(json!({"id": 43})), Decision::deny("no")] {
        let record = second_process(&file, &decision);
        assert_eq!((&record["status"], &record["failure"]), (&json!("failed"), &unknown), "{decision:?}");
        assert_eq!(
            record["content"]["text"],
            format!(
                "No call of `remove_account` waits under the id `{}` for this principal and conversation, and nothing \
                 ran. Resume a pending call as the executor gave it, for the principal and the conversation that \
                 made it.",
                pending.id
            )
        );
    }

    // This process's store holds it: the JSON read back runs here, once.
    let kept: PendingCall = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let record = serde_json::to_value(executor.resume(kept.clone(), Decision::Approve).await).unwrap();
    assert_eq!(record["status"], "success");
    let text = record["content"]["text"].as_str().unwrap();
    assert_eq!(text, format!("removed account 42 (pid {}): asked by the user", std::process::id()));
    assert_eq!(record["request"]["call_id"], "call_7");
    assert_eq!(record["request"]["raw_arguments"], r#"{"id": "42", "reason": "asked by the user"}"#);
    assert_eq!(
        record["decisions"],
        json!([
            {"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule destructive"},
            {"stage": "approval", "by": "person", "outcome": "approved"}
        ])
    );
    let again = executor.resume(kept, Decision::deny("the account has open orders")).await;
    assert_eq!(
        serde_json::to_value(&again.failure).unwrap(),
        json!({"kind": "not_pending", "id": pending.id, "reason": "resumed"})
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
