//! The call policy: approval and pending calls, guardrails, the retry budget, the repair
//! hook, backoff for transient failures, sequential calls and rate limits, each with its exact
//! record.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tool_tests::approval_tools::{pay, transfer};

use serde_json::{json, Map, Value};
use tool_core::policy::{input_async, output_async};
use tool_core::policy::{
    ApprovalReason, ApprovalRule, Backoff, Decision, GuardScope, GuardedCall, InputVerdict, Outcome, OutputVerdict,
    PendingCall, PolicyDecision, RateLimit, RetryBudget, Stage,
};
use tool_core::prelude::*;
use tool_core::state::Owner;
use tool_core::{BudgetScope, CallFailure, CatalogBuilder, DynamicTool, ErrorKind, ExecutionRecord, Executor};

/// Echo a text.
#[tool(tags("chat"))]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

/// Delete a file.
#[tool(annotations(destructive))]
fn delete_file(
    /// The path.
    path: String,
) -> String {
    format!("deleted {path}")
}

/// Book a table.
#[tool]
fn book(
    /// The day, `YYYY-MM-DD`.
    date: String,
) -> Result<String, ToolError> {
    if date.as_str() < "2026-01-01" {
        return Err(ToolError::retry(format!("the date must be in the future, and {date} is past")));
    }
    Ok(format!("booked {date}"))
}

/// Counts calls, for tools that fail a given number of times first.
#[derive(Default)]
struct Calls {
    n: AtomicUsize,
}

/// Read a key from a store that is sometimes unavailable.
#[tool(annotations(read_only))]
fn read_key(
    /// The key.
    key: String,
    /// How many calls fail before one succeeds.
    failures: usize,
    calls: &State<Calls>,
) -> Result<String, ToolError> {
    let n = calls.n.fetch_add(1, Ordering::SeqCst);
    if n < failures {
        return Err(ToolError::transient(format!("the store is unavailable (call {})", n + 1)));
    }
    Ok(format!("{key} = 42"))
}

/// Append a line to a log that is sometimes unavailable.
#[tool]
fn append_line(
    /// The line.
    line: String,
    calls: &State<Calls>,
) -> Result<String, ToolError> {
    calls.n.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::transient(format!("the log is unavailable; `{line}` was not written")))
}

fn catalog() -> ToolCatalog {
    CatalogBuilder::new()
        .add_declared::<echo>()
        .add_declared::<delete_file>()
        .add_declared::<book>()
        .add_declared::<read_key>()
        .add_declared::<append_line>()
        .add_tool(transfer())
        .add_tool(pay())
        .build()
        .unwrap()
}

fn call(tool: &str, id: &str, arguments: &str) -> ToolCallRequest {
    ToolCallRequest::new(tool, id, arguments)
}

fn decision(stage: Stage, by: &str, outcome: Outcome, message: Option<&str>) -> Value {
    let mut value = json!({"stage": stage, "by": by, "outcome": outcome});
    if let Some(message) = message {
        value["message"] = json!(message);
    }
    value
}

fn decisions(record: &ExecutionRecord) -> Value {
    serde_json::to_value(&record.decisions).unwrap()
}

#[tokio::test]
async fn a_tool_that_requires_approval_ends_pending_and_runs_once_approved() {
    let executor = Executor::new(catalog());
    let record = executor.execute(call("transfer", "c1", r#"{"amount": "250", "to": "bob"}"#)).await;
    assert_eq!(record.status, CallStatus::Pending);
    assert_eq!(record.failure, None);
    assert_eq!(
        record.model_text(),
        "`transfer` waits for a person's approval and has not run (the tool asks for approval of every call)."
    );
    let pending = record.pending.clone().unwrap();
    // Its id and expiry are random and the clock's (pinned in `pending_store`).
    let mut shown = serde_json::to_value(&*pending).unwrap();
    let shown_map = shown.as_object_mut().unwrap();
    assert_eq!(shown_map.remove("id"), Some(json!(pending.id)));
    assert_eq!(shown_map.remove("expires_at_ms"), Some(json!(pending.expires_at_ms)));
    assert_eq!(
        shown,
        json!({
            "request": {"tool_name": "transfer", "call_id": "c1", "raw_arguments": r#"{"amount": "250", "to": "bob"}"#},
            "arguments": {"amount": 250, "to": "bob"},
            "warnings": [{
                "pointer": "/amount", "rule": "string_to_integer", "expected": "an integer",
                "received": "\"250\"", "action": "converted to 250"
            }],
            "reasons": [{"kind": "declared"}]
        })
    );
    assert_eq!(
        decisions(&record),
        json!([decision(
            Stage::Approval,
            "approval",
            Outcome::Pending,
            Some("the tool asks for approval of every call")
        )])
    );

    // Stored as text, read back, approved.
    let stored = serde_json::to_string(&pending).unwrap();
    let pending: PendingCall = serde_json::from_str(&stored).unwrap();
    let record = executor.resume(pending, Decision::Approve).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.model_text(), "sent 250 to bob (approved: true)");
    assert_eq!(record.request.raw_arguments, r#"{"amount": "250", "to": "bob"}"#);
    assert_eq!(
        decisions(&record),
        json!([
            decision(Stage::Approval, "approval", Outcome::Pending, Some("the tool asks for approval of every call")),
            decision(Stage::Approval, "person", Outcome::Approved, None),
        ])
    );
}

#[tokio::test]
async fn edited_arguments_are_read_again_and_the_record_keeps_the_models_call() {
    let executor = Executor::new(catalog());
    let record = executor.execute(call("transfer", "c1", r#"{"amount": 900, "to": "bob"}"#)).await;
    let pending = *record.pending.unwrap();

    let record = executor.resume(pending.clone(), Decision::approve_with(json!({"amount": "90", "to": "bob"}))).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.model_text(), "sent 90 to bob (approved: true)");
    assert_eq!(record.request.raw_arguments, r#"{"amount":"90","to":"bob"}"#);
    assert_eq!(record.warnings()[0].rule(), "string_to_integer");
    assert_eq!(record.original.as_ref().unwrap().raw_arguments, r#"{"amount": 900, "to": "bob"}"#);
    assert_eq!(
        decisions(&record),
        json!([
            decision(Stage::Approval, "approval", Outcome::Pending, Some("the tool asks for approval of every call")),
            decision(
                Stage::Approval,
                "person",
                Outcome::Changed,
                Some(r#"approved with the arguments {"amount":"90","to":"bob"}"#)
            ),
        ])
    );

    // Edited arguments the tool refuses fail as a model's would (on a call of its own: a
    // pending call runs once).
    let record = executor.execute(call("transfer", "c1", r#"{"amount": 900, "to": "bob"}"#)).await;
    let pending = *record.pending.unwrap();
    let record = executor.resume(pending, Decision::approve_with(json!({"amount": "ninety"}))).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.failure, Some(CallFailure::InvalidArguments));
    assert!(
        record.model_text().starts_with("The arguments for `transfer` were not accepted:"),
        "{}",
        record.model_text()
    );
    assert_eq!(record.original.as_ref().unwrap().raw_arguments, r#"{"amount": 900, "to": "bob"}"#);
}

#[tokio::test]
async fn a_denied_call_gives_the_model_the_reason() {
    let executor = Executor::new(catalog());
    let pending = *executor.execute(call("transfer", "c1", r#"{"amount": 5, "to": "eve"}"#)).await.pending.unwrap();
    let record = executor.resume(pending, Decision::deny("eve is not a known payee")).await;
    assert_eq!(record.status, CallStatus::Denied);
    assert!(record.is_error());
    assert_eq!(record.failure, Some(CallFailure::Denied { reason: "eve is not a known payee".into() }));
    assert_eq!(record.model_text(), "This call of `transfer` was denied: eve is not a known payee");
    assert_eq!(record.request.arguments, Some(json!({"amount": 5, "to": "eve"})));
    assert_eq!(
        serde_json::to_value(Decision::deny("no")).unwrap(),
        json!({"decision": "deny", "reason": "no"}),
        "a decision from a web form reads as it is written"
    );
}

#[tokio::test]
async fn a_catalog_wide_rule_asks_for_approval_of_destructive_tools() {
    let executor = Executor::builder(catalog()).require_approval(ApprovalRule::destructive()).build();
    let record = executor.execute(call("delete_file", "c1", r#"{"path": "/tmp/a"}"#)).await;
    assert_eq!(record.status, CallStatus::Pending);
    assert_eq!(record.pending.as_ref().unwrap().reasons, vec![ApprovalReason::Rule { rule: "destructive".into() }]);
    assert_eq!(record.model_text(), "`delete_file` waits for a person's approval and has not run (rule destructive).");
    let record = executor.execute(call("echo", "c2", r#"{"text": "hi"}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
}

#[tokio::test]
async fn a_tool_deciding_from_its_arguments_asks_only_when_it_must() {
    let executor = Executor::new(catalog());
    let record = executor.execute(call("pay", "c1", r#"{"amount": 30}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "paid 30"));

    let record = executor.execute(call("pay", "c2", r#"{"amount": "5000"}"#)).await;
    assert_eq!(record.status, CallStatus::Pending);
    let pending = record.pending.clone().unwrap();
    assert_eq!(pending.reasons, vec![ApprovalReason::Asked { message: "a payment of 5000 is over 1000".into() }]);
    assert_eq!(pending.request.raw_arguments, r#"{"amount": "5000"}"#);
    assert_eq!(pending.arguments, json!({"amount": 5000}));
    let record = executor.resume(*pending, Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "paid 5000"));
}

#[tokio::test]
async fn an_approver_answers_at_once() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let executor = Executor::builder(catalog())
        .on_approval(move |pending: PendingCall| {
            seen.lock().unwrap().push(pending.call_id().to_owned());
            async move {
                match pending.arguments["to"].as_str() {
                    Some("bob") => Decision::Approve,
                    _ => Decision::deny("only bob"),
                }
            }
        })
        .build();
    let records = executor
        .execute_batch(vec![
            call("transfer", "c1", r#"{"amount": 1, "to": "bob"}"#),
            call("transfer", "c2", r#"{"amount": 1, "to": "eve"}"#),
            call("pay", "c3", r#"{"amount": 2000}"#),
        ])
        .await;
    let statuses: Vec<_> = records.iter().map(|r| (r.status, r.model_text().to_owned())).collect();
    assert_eq!(
        statuses,
        vec![
            (CallStatus::Success, "sent 1 to bob (approved: true)".to_owned()),
            (CallStatus::Denied, "This call of `transfer` was denied: only bob".to_owned()),
            (CallStatus::Denied, "This call of `pay` was denied: only bob".to_owned()),
        ]
    );
    let mut asked = asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(asked, ["c1", "c2", "c3"]);
    assert_eq!(
        decisions(&records[0]),
        json!([
            decision(Stage::Approval, "approval", Outcome::Pending, Some("the tool asks for approval of every call")),
            decision(Stage::Approval, "person", Outcome::Approved, None),
        ])
    );
}

#[tokio::test]
async fn a_batch_with_pending_calls_runs_the_others() {
    let executor = Executor::new(catalog());
    let records = executor
        .execute_batch(vec![
            call("echo", "c1", r#"{"text": "one"}"#),
            call("transfer", "c2", r#"{"amount": 1, "to": "bob"}"#),
            call("echo", "c3", r#"{"text": "three"}"#),
        ])
        .await;
    let statuses: Vec<_> = records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [CallStatus::Success, CallStatus::Pending, CallStatus::Success]);
    assert_eq!(records[2].model_text(), "three");
}

fn no_secrets(call: &GuardedCall) -> InputVerdict {
    match call.argument("text").and_then(Value::as_str) {
        Some(text) if text.contains("sk-") => {
            InputVerdict::reject("The text holds what looks like an API key; leave it out.")
        }
        _ => InputVerdict::allow(),
    }
}

fn no_root(call: &GuardedCall) -> InputVerdict {
    match call.argument("path").and_then(Value::as_str) {
        Some("/") => InputVerdict::stop_turn("deleting / ends the turn"),
        _ => InputVerdict::allow(),
    }
}

#[tokio::test]
async fn input_guardrails_allow_reject_or_stop_the_turn() {
    let executor = Executor::builder(catalog())
        .input_guardrail("no_secrets", GuardScope::tag("chat"), no_secrets)
        .input_guardrail("no_root", GuardScope::tool("delete_file"), no_root)
        .build();
    let record = executor.execute(call("echo", "c1", r#"{"text": "hello"}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(decisions(&record), json!([decision(Stage::InputGuardrail, "no_secrets", Outcome::Allowed, None)]));

    let record = executor.execute(call("echo", "c2", r#"{"text": "my key is sk-123"}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.failure, Some(CallFailure::Rejected { guardrail: "no_secrets".into() }));
    assert_eq!(record.model_text(), "The text holds what looks like an API key; leave it out.");

    // A stop halts the whole batch before any call runs.
    let records = executor
        .execute_batch(vec![
            call("echo", "c3", r#"{"text": "before"}"#),
            call("delete_file", "c4", r#"{"path": "/"}"#),
            call("echo", "c5", r#"{"text": "after"}"#),
        ])
        .await;
    let statuses: Vec<_> = records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [CallStatus::Stopped; 3]);
    assert!(records.iter().all(ExecutionRecord::stops_turn));
    assert_eq!(records[1].model_text(), "deleting / ends the turn");
    assert_eq!(
        records[0].model_text(),
        "The turn was stopped by the guardrail `no_root` at the call `c4`; this call did not run."
    );
    assert_eq!(
        records[2].failure,
        Some(CallFailure::TurnStopped { guardrail: "no_root".into(), call_id: "c4".into() })
    );
}

#[tokio::test]
async fn an_async_guardrail_reads_the_converted_arguments() {
    let executor = Executor::builder(catalog())
        .input_guardrail(
            "small_transfers",
            GuardScope::All,
            input_async(|call: GuardedCall| async move {
                #[derive(serde::Deserialize)]
                struct Amount {
                    amount: u64,
                }
                match call.arguments_as::<Amount>() {
                    Ok(Amount { amount }) if amount > 100 => InputVerdict::reject(format!("{amount} is over 100")),
                    _ => InputVerdict::allow(),
                }
            }),
        )
        .build();
    // "500" arrived as text; the guardrail reads the integer extraction made of it.
    let record = executor.execute(call("transfer", "c1", r#"{"amount": "500", "to": "bob"}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Failed, "500 is over 100"));
    // A refused call is not put to a person.
    assert_eq!(record.pending, None);
}

#[tokio::test]
async fn output_guardrails_replace_or_reject_a_result_and_the_record_keeps_it() {
    let executor = Executor::builder(catalog())
        .output_guardrail("redact", GuardScope::tag("chat"), |_: &GuardedCall, output: &ToolOutput| {
            match output.text.contains("secret") {
                true => OutputVerdict::replace(ToolOutput::text(output.text.replace("secret", "[redacted]"))),
                false => OutputVerdict::allow(),
            }
        })
        .output_guardrail(
            "no_deletions_reported",
            GuardScope::All,
            output_async(|_: GuardedCall, output: ToolOutput| async move {
                match output.text.starts_with("deleted") {
                    true => OutputVerdict::reject("The result was withheld."),
                    false => OutputVerdict::allow(),
                }
            }),
        )
        .build();
    let record = executor.execute(call("echo", "c1", r#"{"text": "the secret plan"}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "the [redacted] plan"));
    assert_eq!(record.original_output.as_ref().unwrap().text, "the secret plan");
    assert_eq!(
        decisions(&record),
        json!([
            decision(Stage::OutputGuardrail, "redact", Outcome::Replaced, None),
            decision(Stage::OutputGuardrail, "no_deletions_reported", Outcome::Allowed, None),
        ])
    );
    let record = executor.execute(call("delete_file", "c2", r#"{"path": "/tmp/x"}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Failed, "The result was withheld."));
    assert_eq!(record.failure, Some(CallFailure::Rejected { guardrail: "no_deletions_reported".into() }));
    assert_eq!(record.original_output.as_ref().unwrap().text, "deleted /tmp/x");
}

#[tokio::test]
async fn a_tool_asking_to_retry_tells_the_model_what_to_change_until_the_budget_is_spent() {
    let executor = Executor::builder(catalog()).retry_budget(RetryBudget::new(2, 10)).build();
    let past = |id: &str| call("book", id, r#"{"date": "2020-05-01"}"#).in_conversation("conv-1");
    let record = executor.execute(past("c1")).await;
    assert_eq!(record.status, CallStatus::Failed);
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.kind(), ErrorKind::Retry);
    assert_eq!(
        record.model_text(),
        "the date must be in the future, and 2020-05-01 is past\n\nFix this and call `book` again (try 1 of 2)."
    );
    let record = executor.execute(past("c2")).await;
    assert_eq!(
        record.model_text(),
        "the date must be in the future, and 2020-05-01 is past\n\nThis was the last try: `book` failed 2 times in a row \
         in this conversation, so it will not run again. Do not call it again; tell the user what went wrong."
    );
    assert_eq!(record.decisions.last().unwrap().outcome, Outcome::Exhausted);

    // Even a good call of `book` is refused now, in this conversation only.
    let good = call("book", "c3", r#"{"date": "2027-01-01"}"#);
    let record = executor.execute(good.clone().in_conversation("conv-1")).await;
    assert_eq!(record.failure, Some(CallFailure::BudgetSpent { tries: 2, scope: BudgetScope::Tool }));
    assert_eq!(
        record.model_text(),
        "`book` is not run again in this conversation: it failed 2 times in a row. Tell the user what went wrong \
         instead of calling it."
    );
    let record = executor.execute(good.clone().in_conversation("conv-2")).await;
    assert_eq!(record.status, CallStatus::Success);
    let record = executor.execute(call("echo", "c4", r#"{"text": "x"}"#).in_conversation("conv-1")).await;
    assert_eq!(record.status, CallStatus::Success, "other tools still run");

    // The host makes the budget whole again.
    executor.reset_policy(&Owner::new(None, Some("conv-1"))).await.unwrap();
    let record = executor.execute(good.in_conversation("conv-1")).await;
    assert_eq!(record.status, CallStatus::Success);
}

#[tokio::test]
async fn refused_arguments_count_and_a_success_starts_the_count_again() {
    let executor = Executor::builder(catalog()).retry_budget(RetryBudget::new(2, 3)).build();
    let bad = |id: &str| call("echo", id, r#"{"txt": 1, "extra": true}"#).in_conversation("c");
    assert_eq!(executor.execute(bad("1")).await.failure, Some(CallFailure::InvalidArguments));
    assert_eq!(
        executor.execute(call("echo", "2", r#"{"text": "ok"}"#).in_conversation("c")).await.status,
        CallStatus::Success
    );
    let record = executor.execute(bad("3")).await;
    assert!(!record.model_text().contains("last try"), "{}", record.model_text());
    let record = executor.execute(bad("4")).await;
    assert!(record.model_text().ends_with("This was the last try: `echo` failed 2 times in a row in this conversation, so it will not run again. Do not call it again; tell the user what went wrong."), "{}", record.model_text());

    // The conversation's budget counts every tool: three unknown or refused calls in a row.
    let executor = Executor::builder(catalog()).retry_budget(RetryBudget::new(5, 3)).build();
    for id in ["1", "2"] {
        executor.execute(call("ech", id, "{}").in_conversation("c")).await;
    }
    let record = executor.execute(bad("3")).await;
    assert!(record.model_text().ends_with("This was the last try: the tool calls of this conversation failed 3 times in a row, so no tool will run again. Do not call tools again; tell the user what went wrong."), "{}", record.model_text());
    let record = executor.execute(call("echo", "4", r#"{"text": "fine"}"#).in_conversation("c")).await;
    assert_eq!(record.failure, Some(CallFailure::BudgetSpent { tries: 3, scope: BudgetScope::Conversation }));
    assert_eq!(record.model_text(), "No tool runs again in this conversation: its tool calls failed 3 times in a row. Tell the user what went wrong.");
}

#[tokio::test]
async fn a_repair_hook_fixes_a_refused_call_and_the_record_keeps_both() {
    let executor = Executor::builder(catalog())
        .repair(|refused: tool_core::policy::RepairRequest| async move {
            match refused.request.tool_name.as_str() {
                // A retired name, mapped to its successor.
                "say" => Some(ToolCallRequest::new("echo", "ignored", refused.request.raw_arguments)),
                // A cheaper model would fix the arguments; here, the one wrong key.
                "book" => {
                    Some(ToolCallRequest::new("book", "ignored", refused.request.raw_arguments.replace("day", "date")))
                }
                _ => None,
            }
        })
        .build();
    let record = executor.execute(call("say", "c1", r#"{"text": "hi"}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "hi"));
    assert_eq!(record.request.tool_name, "echo");
    assert_eq!(record.request.call_id, "c1");
    assert_eq!(record.original.as_ref().unwrap().tool_name, "say");
    assert_eq!(
        decisions(&record),
        json!([decision(Stage::Repair, "repair", Outcome::Changed, Some("`say` repaired as `echo`"))])
    );

    let record = executor.execute(call("book", "c2", r#"{"day": "2027-02-03"}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "booked 2027-02-03"));
    assert_eq!(record.original.as_ref().unwrap().raw_arguments, r#"{"day": "2027-02-03"}"#);
    assert!(record.original.as_ref().unwrap().parse_error.is_some(), "the original keeps why it was refused");

    let record = executor.execute(call("echo", "c3", r#"{"words": "hi"}"#)).await;
    assert_eq!(record.failure, Some(CallFailure::InvalidArguments));
    assert_eq!(
        decisions(&record),
        json!([decision(Stage::Repair, "repair", Outcome::Rejected, Some("the hook made no repair"))])
    );
    assert_eq!(record.original, None);
}

#[tokio::test(start_paused = true)]
async fn a_transient_failure_of_an_idempotent_tool_is_run_again_with_backoff() {
    let executor = Executor::builder(catalog())
        .state(Calls::default())
        .backoff(Backoff::new(3, Duration::from_millis(100)).jitter(0.0))
        .build();
    let record = executor.execute(call("read_key", "c1", r#"{"key": "a", "failures": 2}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "a = 42"));
    assert_eq!(
        decisions(&record),
        json!([
            decision(
                Stage::Backoff,
                "backoff",
                Outcome::Retried,
                Some("try 1 failed: the store is unavailable (call 1); ran again after 100 ms")
            ),
            decision(
                Stage::Backoff,
                "backoff",
                Outcome::Retried,
                Some("try 2 failed: the store is unavailable (call 2); ran again after 200 ms")
            ),
        ])
    );
}

#[tokio::test(start_paused = true)]
async fn retries_end_at_the_limit_and_a_tool_not_idempotent_is_never_run_twice() {
    let calls = Arc::new(Calls::default());
    let executor = Executor::builder(catalog())
        .state(Calls::default())
        .backoff(Backoff::new(1, Duration::from_millis(100)))
        .build();
    let record = executor.execute(call("read_key", "c1", r#"{"key": "a", "failures": 5}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.model_text(), "the store is unavailable (call 2)");
    assert_eq!(record.decisions.len(), 1);

    let executor = Executor::builder(catalog()).state(Calls::default()).build();
    let record = executor.execute(call("append_line", "c2", r#"{"line": "x"}"#)).await;
    assert_eq!(record.model_text(), "the log is unavailable; `x` was not written");
    assert!(record.decisions.is_empty());
    drop(calls);
}

#[tokio::test(start_paused = true)]
async fn a_retry_that_would_outlast_the_calls_time_limit_is_not_made() {
    let executor = Executor::builder(catalog())
        .state(Calls::default())
        .timeout(Duration::from_millis(150))
        .backoff(Backoff::new(3, Duration::from_millis(100)).jitter(0.0))
        .build();
    let record = executor.execute(call("read_key", "c1", r#"{"key": "a", "failures": 5}"#)).await;
    assert_eq!(record.model_text(), "the store is unavailable (call 2)");
    assert_eq!(record.decisions.len(), 1, "100 ms fit in the limit, 200 ms more did not");
}

fn timeline_tool(name: &str, sequential: bool, log: Arc<Mutex<Vec<String>>>) -> DynamicTool {
    let tool = name.to_owned();
    let builder = DynamicTool::builder(name)
        .description("Wait, noting start and end.")
        .input_schema(json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}));
    let builder = if sequential { builder.sequential(true) } else { builder };
    builder
        .handler(move |args: Map<String, Value>, ctx: ToolContext| {
            let log = Arc::clone(&log);
            let tool = tool.clone();
            async move {
                let id = ctx.call_id().to_owned();
                log.lock().unwrap().push(format!("start {id}"));
                tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
                log.lock().unwrap().push(format!("end {id}"));
                format!("{tool} {id}")
            }
        })
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_sequential_call_runs_alone_in_its_batch_in_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let catalog = CatalogBuilder::new()
        .add_tool(timeline_tool("wait", false, Arc::clone(&log)))
        .add_tool(timeline_tool("migrate", true, Arc::clone(&log)))
        .build()
        .unwrap();
    let executor = Executor::new(catalog);
    let records = executor
        .execute_batch(vec![
            call("wait", "a", r#"{"ms": 30}"#),
            call("wait", "b", r#"{"ms": 10}"#),
            call("migrate", "m", r#"{"ms": 5}"#),
            call("wait", "c", r#"{"ms": 10}"#),
            call("wait", "d", r#"{"ms": 1}"#),
        ])
        .await;
    let texts: Vec<_> = records.iter().map(|r| r.model_text().to_owned()).collect();
    assert_eq!(texts, ["wait a", "wait b", "migrate m", "wait c", "wait d"]);
    assert_eq!(
        *log.lock().unwrap(),
        ["start a", "start b", "end b", "end a", "start m", "end m", "start c", "start d", "end d", "end c"]
    );
}

#[tokio::test(start_paused = true)]
async fn rate_limits_per_tool_and_per_conversation_refuse_with_when_to_try_again() {
    let executor = Executor::builder(catalog())
        .rate_limit(RateLimit::per_tool(2, Duration::from_secs(3600)).only(GuardScope::tool("echo")))
        .rate_limit(RateLimit::per_conversation(3, Duration::from_secs(60)))
        .build();
    let echo = |id: &str, conversation: &str| call("echo", id, r#"{"text": "x"}"#).in_conversation(conversation);
    assert_eq!(executor.execute(echo("1", "a")).await.status, CallStatus::Success);
    assert_eq!(executor.execute(echo("2", "b")).await.status, CallStatus::Success);
    let record = executor.execute(echo("3", "c")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.model_text(),
        "`echo` was not run: its rate limit (2 calls per hour per tool) is reached. Try again in 30 min."
    );
    assert_eq!(
        record.failure,
        Some(CallFailure::RateLimited { limit: "2 calls per hour per tool".into(), retry_after_ms: 1_800_000 })
    );

    // The conversation's limit counts every tool of conversation `a`.
    let book = |id: &str| call("book", id, r#"{"date": "2027-01-01"}"#).in_conversation("a");
    assert_eq!(executor.execute(book("4")).await.status, CallStatus::Success);
    assert_eq!(executor.execute(book("5")).await.status, CallStatus::Success);
    let record = executor.execute(book("6")).await;
    assert_eq!(
        record.model_text(),
        "`book` was not run: its rate limit (3 calls per minute per conversation) is reached. Try again in 20 s."
    );
    // A refused call took no place: after 20 s one call fits again.
    tokio::time::advance(Duration::from_secs(20)).await;
    assert_eq!(executor.execute(book("7")).await.status, CallStatus::Success);
    assert_eq!(executor.execute(book("8")).await.status, CallStatus::Failed);
}

#[test]
fn a_rate_limit_says_itself_in_words() {
    assert_eq!(RateLimit::per_tool(1, Duration::from_secs(1)).describe(), "1 call per second per tool");
    assert_eq!(
        RateLimit::per_tool_in_conversation(10, Duration::from_secs(90)).describe(),
        "10 calls per 90 s per tool in a conversation"
    );
    assert_eq!(
        RateLimit::per_conversation(5, Duration::from_secs(86_400)).describe(),
        "5 calls per day per conversation"
    );
}

#[test]
fn a_policy_decision_serializes_with_snake_case_names() {
    let decision: PolicyDecision =
        serde_json::from_value(json!({"stage": "input_guardrail", "by": "g", "outcome": "stopped"})).unwrap();
    assert_eq!(decision.stage, Stage::InputGuardrail);
    assert_eq!(decision.outcome, Outcome::Stopped);
    assert_eq!(decision.message, None);
}

#[tokio::test(start_paused = true)]
async fn a_persons_wait_does_not_count_against_the_calls_time_limit() {
    let executor = Executor::builder(catalog())
        .timeout(Duration::from_millis(50))
        .on_approval(|_: PendingCall| async {
            tokio::time::sleep(Duration::from_secs(600)).await;
            Decision::Approve
        })
        .build();
    let record = executor.execute(call("transfer", "c1", r#"{"amount": 1, "to": "bob"}"#)).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 1 to bob (approved: true)"));
}

#[tokio::test]
async fn a_call_cancelled_while_a_person_decides_ends_cancelled() {
    let cancel = CancellationToken::new();
    let executor =
        Executor::builder(catalog()).on_approval(|_: PendingCall| std::future::pending::<Decision>()).build();
    let running = executor
        .execute_in(call("transfer", "c1", r#"{"amount": 1, "to": "bob"}"#), CallScope::new().cancel_on(&cancel));
    let (record, ()) = tokio::join!(running, async { cancel.cancel() });
    assert_eq!(record.status, CallStatus::Cancelled);
    assert_eq!(record.model_text(), "The call was cancelled while it waited for approval.");
}

#[test]
fn the_markdown_export_says_which_tools_wait_for_approval_or_run_alone() {
    let catalog = CatalogBuilder::new()
        .add_tool(transfer())
        .add_tool(pay())
        .add_tool(timeline_tool("migrate", true, Arc::default()))
        .build()
        .unwrap();
    let markdown = tool_core::document::markdown(catalog.definitions());
    let facts: Vec<&str> = markdown.lines().filter(|line| line.starts_with("kind: ")).collect();
    assert_eq!(
        facts,
        [
            "kind: dynamic · runs alone in its batch",
            "kind: dynamic · some calls need a person's approval",
            "kind: dynamic · every call needs a person's approval",
        ],
        "{markdown}"
    );
}
