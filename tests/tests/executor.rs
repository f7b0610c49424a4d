//! The executor: every call ends in a record, whatever the tool or the model does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_core::prelude::*;
use tool_core::{CallFailure, CatalogBuilder};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Add two integers on the blocking pool.
#[tool(blocking)]
fn add_blocking(a: i64, b: i64) -> i64 {
    a + b
}

/// Echo the call id and the raw arguments the tool was called with.
#[tool]
async fn whoami(ctx: &ToolContext, request: &ToolCallRequest) -> String {
    format!("{} {}", ctx.call_id(), request.raw_arguments)
}

/// Always panics.
#[tool]
fn explode(reason: String) -> String {
    panic!("boom: {reason}")
}

/// Sleeps for a while, or until cancelled.
#[tool]
async fn nap(millis: u64, cancel: &CancellationToken) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(millis)) => format!("slept {millis}ms"),
        () = cancel.cancelled() => "woken".to_owned(),
    }
}

/// Sleeps, with a declared time limit of 20 ms.
#[tool(timeout_ms = 20)]
async fn short_fuse(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "finished".to_owned()
}

/// Counts how many calls run at once.
struct Gauge {
    now: AtomicUsize,
    peak: AtomicUsize,
}

/// Occupies a slot for a while, recording the peak concurrency.
#[tool]
async fn occupy(slot: u32, gauge: &State<Gauge>) -> u32 {
    let now = gauge.now.fetch_add(1, Ordering::SeqCst) + 1;
    gauge.peak.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(20 - u64::from(slot % 4) * 5)).await;
    gauge.now.fetch_sub(1, Ordering::SeqCst);
    slot
}

/// Fails with a coded error.
#[tool]
fn refuse(item: String) -> Result<String, ToolError> {
    Err(ToolError::new(format!("`{item}` is locked")).with_code("locked").with_details(json!({"item": item})))
}

fn executor() -> Executor {
    Executor::builder(ToolCatalog::global().unwrap().clone())
        .state(Gauge { now: AtomicUsize::new(0), peak: AtomicUsize::new(0) })
        .concurrency(3)
        .build()
}

fn call(name: &str, args: &str) -> ToolCallRequest {
    ToolCallRequest::new(name, "call_1", args)
}

#[tokio::test]
async fn a_successful_call_records_content_and_keeps_raw_arguments() {
    let raw = r#"{"a": 40, "b": 2}"#;
    let record = executor().execute(call("add", raw)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.text, "42");
    assert_eq!(record.content.structured, Some(json!(42)));
    assert_eq!(record.request.raw_arguments, raw);
    assert!(record.failure.is_none());
    assert!(record.warnings().is_empty());
}

#[tokio::test]
async fn blocking_and_injected_tools_run() {
    let executor = executor();
    assert_eq!(executor.execute(call("add_blocking", r#"{"a":1,"b":2}"#)).await.content.text, "3");
    let record = executor.execute(ToolCallRequest::new("whoami", "call_77", "{}")).await;
    assert_eq!(record.content.text, "call_77 {}");
}

#[tokio::test]
async fn an_unknown_tool_fails_with_the_closest_names() {
    let record = executor().execute(call("ad", "{}")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.failure,
        Some(CallFailure::UnknownTool { suggestions: vec!["add".into(), "add_blocking".into()] })
    );
    assert_eq!(
        record.content.text,
        "There is no tool named `ad`. The closest existing tools are: `add`, `add_blocking`. Call one of them instead."
    );

    // The arguments of a call for an unknown tool are still read, and kept.
    assert_eq!(record.warnings()[0].rule(), "tool_definition_missing");
    assert_eq!(record.request.arguments, Some(json!({})));

    let record = executor().execute(call("add-blocking", "{}")).await;
    assert_eq!(
        record.failure,
        Some(CallFailure::UnknownTool { suggestions: vec!["add_blocking".into(), "add".into()] })
    );
}

#[tokio::test]
async fn a_megabyte_tool_name_is_suggested_only_the_tools_it_starts_with_and_quoted_cut() {
    let name = format!("add{}", "x".repeat(1 << 20));
    let record = executor().execute(call(&name, "{}")).await;
    assert_eq!(record.failure, Some(CallFailure::UnknownTool { suggestions: vec!["add".into()] }));
    let cut = format!("add{}… (1048579 chars)", "x".repeat(117));
    assert_eq!(
        record.content.text,
        format!("There is no tool named `{cut}`. The closest existing tools are: `add`. Call one of them instead.")
    );
    // The record keeps the name as sent.
    assert_eq!(record.request.tool_name, name);

    let record = executor().execute(call(&"z".repeat(1 << 20), "{}")).await;
    assert_eq!(record.failure, Some(CallFailure::UnknownTool { suggestions: vec![] }));
    let cut = format!("{}… (1048576 chars)", "z".repeat(120));
    assert_eq!(record.content.text, format!("There is no tool named `{cut}`, and no tool has a name like it."));
}

#[tokio::test]
async fn refused_arguments_do_not_call_the_tool_and_name_field_expectation_and_value() {
    let raw = r#"{"a": "forty", "c": 1}"#;
    let record = executor().execute(call("add", raw)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.failure, Some(CallFailure::InvalidArguments));
    assert_eq!(
        record.content.text,
        "The arguments for `add` were not accepted:\n- `a`: expected an integer; got \"forty\".\n- `b`: required, expected an integer; it was missing.\nSend the corrected arguments to `add` again."
    );
    assert_eq!(record.request.raw_arguments, raw);
    assert_eq!(record.request.arguments, Some(json!({"a": "forty", "c": 1})));
    let errors = &record.request.parse_error.as_ref().unwrap().errors;
    assert_eq!(
        errors.iter().map(|e| (e.pointer.as_str(), e.rule.as_str())).collect::<Vec<_>>(),
        vec![("/a", "invalid_type"), ("/b", "missing_required")]
    );
    assert_eq!(record.warnings().len(), 1);
    assert_eq!(record.warnings()[0].rule(), "unknown_parameter");
    assert_eq!(record.content.structured.as_ref().unwrap()["errors"][0]["loc"], json!(["a"]));
}

#[tokio::test]
async fn invalid_json_is_an_error_that_keeps_the_text() {
    let record = executor().execute(call("add", r#"{"a": 1, "b": "#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    let error = &record.request.parse_error.as_ref().unwrap().errors[0];
    // The text ends inside the object: refused as truncated, never completed by a guess.
    assert_eq!(error.rule, "truncated_json");
    assert_eq!(error.received.as_deref(), Some(r#"{"a": 1, "b": "#));
    assert_eq!(
        record.content.text,
        "The arguments for `add` were not accepted:\n- arguments: expected a JSON object; got {\"a\": 1, \"b\":  (the text ends inside a value at line 1 column 15).\nSend the corrected arguments to `add` again."
    );
}

#[tokio::test]
async fn a_panic_becomes_a_failed_record() {
    let record = executor().execute(call("explode", r#"{"reason": "test"}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.failure, Some(CallFailure::Panicked { message: "boom: test".into() }));
    assert_eq!(record.content.text, "The tool failed unexpectedly: boom: test");
}

#[tokio::test]
async fn a_tool_error_keeps_its_code_and_details() {
    let record = executor().execute(call("refuse", r#"{"item": "vault"}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.content.text, "`vault` is locked");
    assert_eq!(record.content.structured, Some(json!({"item": "vault"})));
    match record.failure {
        Some(CallFailure::ToolError { error }) => assert_eq!(error.code(), Some("locked")),
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_executor_timeout_stops_a_slow_call() {
    let executor = Executor::builder(ToolCatalog::global().unwrap().clone()).timeout(Duration::from_millis(30)).build();
    let record = executor.execute(call("nap", r#"{"millis": 5000}"#)).await;
    assert_eq!(record.status, CallStatus::TimedOut);
    assert_eq!(record.failure, Some(CallFailure::TimedOut { after_ms: 30 }));
    assert_eq!(record.content.text, "The tool did not finish within 30ms; it was stopped.");
    assert!(record.duration < Duration::from_secs(5));
}

#[tokio::test]
async fn a_tools_own_timeout_wins_over_the_executor_default() {
    let executor = Executor::builder(ToolCatalog::global().unwrap().clone()).timeout(Duration::from_secs(60)).build();
    let record = executor.execute(call("short_fuse", r#"{"millis": 5000}"#)).await;
    assert_eq!(record.failure, Some(CallFailure::TimedOut { after_ms: 20 }));
}

#[tokio::test]
async fn cancelling_stops_the_call_and_records_it() {
    let executor = executor();
    let token = CancellationToken::new();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        canceller.cancel();
    });
    let record = executor.execute_cancellable(call("nap", r#"{"millis": 5000}"#), &token).await;
    assert_eq!(record.status, CallStatus::Cancelled);
    assert_eq!(record.failure, Some(CallFailure::Cancelled));
    assert_eq!(record.content.text, "The call was cancelled before the tool finished.");
}

#[tokio::test]
async fn a_batch_runs_concurrently_up_to_the_bound_and_keeps_request_order() {
    let executor = executor();
    let mut requests: Vec<ToolCallRequest> =
        (0..8).map(|i| ToolCallRequest::new("occupy", format!("c{i}"), format!(r#"{{"slot": {i}}}"#))).collect();
    requests.insert(3, call("missing_tool", "{}"));
    requests.insert(5, call("add", "not json"));
    let records = executor.execute_batch(requests).await;
    let ids: Vec<&str> = records.iter().map(|r| r.request.call_id.as_str()).collect();
    assert_eq!(ids, vec!["c0", "c1", "c2", "call_1", "c3", "call_1", "c4", "c5", "c6", "c7"]);
    let texts: Vec<&str> =
        records.iter().filter(|r| r.status == CallStatus::Success).map(|r| r.content.text.as_str()).collect();
    assert_eq!(texts, vec!["0", "1", "2", "3", "4", "5", "6", "7"]);
    assert_eq!(records[3].status, CallStatus::Failed);
    assert_eq!(records[5].status, CallStatus::Failed);
}

#[tokio::test]
async fn batch_concurrency_never_exceeds_the_bound() {
    // The gauge lives in the executor's environment; a runtime-built tool reads it back.
    let probe = DynamicTool::builder("peak")
        .description("Read the peak.")
        .handler(
            |_, ctx| async move { ctx.state::<Gauge>().map(|g| g.peak.load(Ordering::SeqCst) as u64).unwrap_or(0) },
        )
        .build()
        .unwrap();
    let catalog = CatalogBuilder::new().add_declared::<occupy>().add_tool(probe).build().unwrap();
    let executor = Executor::builder(catalog)
        .state(Gauge { now: AtomicUsize::new(0), peak: AtomicUsize::new(0) })
        .concurrency(3)
        .build();
    let requests =
        (0..12).map(|i| ToolCallRequest::new("occupy", format!("c{i}"), format!(r#"{{"slot": {i}}}"#))).collect();
    let records = executor.execute_batch(requests).await;
    assert!(records.iter().all(|r| r.status == CallStatus::Success));
    let peak = executor.execute(call("peak", "{}")).await;
    assert_eq!(peak.content.text, "3");
}

#[tokio::test]
async fn a_batch_survives_panics_and_timeouts_in_its_calls() {
    let executor = Executor::builder(ToolCatalog::global().unwrap().clone()).timeout(Duration::from_millis(30)).build();
    let records = executor
        .execute_batch(vec![
            call("explode", r#"{"reason":"x"}"#),
            call("nap", r#"{"millis": 5000}"#),
            call("add", r#"{"a":1,"b":1}"#),
        ])
        .await;
    let statuses: Vec<CallStatus> = records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![CallStatus::Failed, CallStatus::TimedOut, CallStatus::Success]);
}

#[tokio::test]
async fn missing_shared_state_is_a_failed_call_that_names_the_type() {
    let executor = Executor::new(ToolCatalog::global().unwrap().clone());
    let record = executor.execute(call("occupy", r#"{"slot": 1}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        "the tool `occupy` needs shared state `executor::Gauge`, which the host did not provide"
    );
}
