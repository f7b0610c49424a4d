//! The executor: every call ends in a record, whatever the tool or the model does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_core::prelude::*;
use tool_core::{CallFailure, CallScope, CatalogBuilder, LogMessage};

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

/// Fails, with what went wrong upstream kept for the host.
#[tool]
fn upstream_fails() -> Result<String, ToolError> {
    Err(ToolError::new("The archive is unavailable.")
        .with_internal_detail("connect 10.0.0.7:5432: Connection refused (os error 111)"))
}

/// Sleeps on its thread (a blocking body, as a sync tool may have).
#[tool]
fn doze(millis: u64) -> String {
    std::thread::sleep(Duration::from_millis(millis));
    format!("dozed {millis}ms")
}

/// Names the thread it runs on.
#[tool]
fn where_sync() -> String {
    format!("{:?}", std::thread::current().id())
}

/// Names the thread it runs on, kept on the async worker.
#[tool(inline)]
fn where_inline() -> String {
    format!("{:?}", std::thread::current().id())
}

/// Works in small steps until the call is cancelled, then says it stopped.
#[tool]
fn grind(cancel: &CancellationToken, ctx: &ToolContext, gauge: &State<Gauge>) -> String {
    gauge.now.fetch_add(1, Ordering::SeqCst);
    while !cancel.is_cancelled() {
        std::thread::sleep(Duration::from_millis(5));
    }
    // What the tool saw, for the test to read after the record came back.
    gauge.peak.store(if ctx.is_cancelled() { 1000 } else { 0 }, Ordering::SeqCst);
    "stopped".to_owned()
}

/// Returns `bytes` bytes of text.
#[tool]
fn flood(bytes: usize) -> String {
    "é".repeat(bytes / 2)
}

/// Returns a structured result of `items` numbers.
#[tool]
fn flood_json(items: usize) -> serde_json::Value {
    json!({ "items": vec![7; items] })
}

/// Fails with a message of `bytes` bytes.
#[tool]
fn flood_error(bytes: usize) -> Result<String, ToolError> {
    Err(ToolError::new("x".repeat(bytes)).with_details(json!({ "items": vec![1; bytes] })))
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
    Executor::builder(tool_tests::declared_in(file!()))
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
async fn a_panic_becomes_a_failed_record_whose_message_the_model_does_not_read() {
    let secret = r#"{"reason": "open /home/ada/.ssh/id_ed25519: Permission denied (os error 13)"}"#;
    let record = executor().execute(call("explode", secret)).await;
    assert_eq!(record.status, CallStatus::Failed);
    let message = "boom: open /home/ada/.ssh/id_ed25519: Permission denied (os error 13)";
    assert_eq!(record.failure, Some(CallFailure::Panicked { message: message.into() }));
    assert_eq!(record.content.text, "The tool failed unexpectedly.");

    // The host may let the model read it.
    let executor = Executor::builder(tool_tests::declared_in(file!())).expose_error_details(true).build();
    let record = executor.execute(call("explode", r#"{"reason": "test"}"#)).await;
    assert_eq!(record.failure, Some(CallFailure::Panicked { message: "boom: test".into() }));
    assert_eq!(record.content.text, "The tool failed unexpectedly: boom: test");
}

#[tokio::test]
async fn an_internal_detail_stays_in_the_record_unless_the_host_exposes_it() {
    let record = executor().execute(call("upstream_fails", "{}")).await;
    assert_eq!(record.content.text, "The archive is unavailable.");
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.internal_detail(), Some("connect 10.0.0.7:5432: Connection refused (os error 111)"));
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["failure"]["error"]["internal_detail"], "connect 10.0.0.7:5432: Connection refused (os error 111)");

    let executor = Executor::builder(tool_tests::declared_in(file!())).expose_error_details(true).build();
    let record = executor.execute(call("upstream_fails", "{}")).await;
    assert_eq!(
        record.content.text,
        "The archive is unavailable.\nDetail: connect 10.0.0.7:5432: Connection refused (os error 111)"
    );
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
    let executor = Executor::builder(tool_tests::declared_in(file!())).timeout(Duration::from_millis(30)).build();
    let record = executor.execute(call("nap", r#"{"millis": 5000}"#)).await;
    assert_eq!(record.status, CallStatus::TimedOut);
    assert_eq!(record.failure, Some(CallFailure::TimedOut { after_ms: 30 }));
    assert_eq!(record.content.text, "The tool did not finish within 30 ms; it was stopped.");
    assert!(record.duration < Duration::from_secs(5));
}

#[tokio::test]
async fn a_tools_own_timeout_wins_over_the_executor_default() {
    let executor = Executor::builder(tool_tests::declared_in(file!())).timeout(Duration::from_secs(60)).build();
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
    let record = executor.execute_in(call("nap", r#"{"millis": 5000}"#), CallScope::new().cancel_on(&token)).await;
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
    // A limit the panic (on the blocking pool, with its backtrace printed) comes well within.
    let executor = Executor::builder(tool_tests::declared_in(file!())).timeout(Duration::from_secs(2)).build();
    let records = executor
        .execute_batch(vec![
            call("explode", r#"{"reason":"x"}"#),
            call("nap", r#"{"millis": 60000}"#),
            call("add", r#"{"a":1,"b":1}"#),
        ])
        .await;
    let statuses: Vec<CallStatus> = records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![CallStatus::Failed, CallStatus::TimedOut, CallStatus::Success]);
}

#[tokio::test]
async fn missing_shared_state_is_a_failed_call_that_names_the_type() {
    let executor = Executor::new(tool_tests::declared_in(file!()));
    let record = executor.execute(call("occupy", r#"{"slot": 1}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        "the tool `occupy` needs shared state `library::executor::Gauge`, which the host did not provide"
    );
}

#[tokio::test]
async fn a_sync_tool_that_blocks_past_the_limit_times_out_at_the_limit_and_the_runtime_goes_on() {
    // `#[tokio::test]` is a current-thread runtime: one worker for everything.
    let executor = Executor::builder(tool_tests::declared_in(file!())).timeout(Duration::from_millis(100)).build();
    let order = std::sync::Mutex::new(Vec::new());
    let dozing = async {
        let record = executor.execute(call("doze", r#"{"millis": 2000}"#)).await;
        order.lock().unwrap().push("doze");
        record
    };
    let meanwhile = async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        let record = executor.execute(call("add", r#"{"a": 1, "b": 2}"#)).await;
        order.lock().unwrap().push("add");
        record
    };
    let (dozed, added) = tokio::join!(dozing, meanwhile);
    assert_eq!(dozed.status, CallStatus::TimedOut);
    assert_eq!(dozed.failure, Some(CallFailure::TimedOut { after_ms: 100 }));
    assert_eq!(dozed.content.text, "The tool did not finish within 100 ms; it was stopped.");
    // The record came at the limit, not when the sleep ended.
    assert!(dozed.duration < Duration::from_millis(1500), "{:?}", dozed.duration);
    assert_eq!(added.content.text, "3");
    assert_eq!(*order.lock().unwrap(), ["add", "doze"]);
}

#[tokio::test]
async fn sync_tools_run_on_the_blocking_pool_unless_inline() {
    let executor = executor();
    let here = format!("{:?}", std::thread::current().id());
    let pooled = executor.execute(call("where_sync", "{}")).await;
    assert_eq!(pooled.status, CallStatus::Success);
    assert_ne!(pooled.content.text, here);
    let inline = executor.execute(call("where_inline", "{}")).await;
    assert_eq!(inline.content.text, here);
}

#[tokio::test]
async fn a_cancelled_sync_tool_gets_its_record_at_once_and_sees_the_token() {
    let executor = executor();
    let token = CancellationToken::new();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        canceller.cancel();
    });
    let record = executor.execute_in(call("grind", "{}"), CallScope::new().cancel_on(&token)).await;
    assert_eq!(record.status, CallStatus::Cancelled);
    assert_eq!(record.content.text, "The call was cancelled before the tool finished.");
    // The body, on its own thread, saw the cancellation through its injected token and context.
    let mut seen = 0;
    for _ in 0..200 {
        seen = executor_gauge_peak(&executor).await;
        if seen == 1000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(seen, 1000);
}

/// The `peak` the `grind` tool wrote into the executor's gauge.
async fn executor_gauge_peak(executor: &Executor) -> u64 {
    let record = executor.execute(call("gauge_peak", "{}")).await;
    record.content.text.parse().unwrap()
}

/// Reads the gauge's peak.
#[tool]
fn gauge_peak(gauge: &State<Gauge>) -> u64 {
    gauge.peak.load(Ordering::SeqCst) as u64
}

#[tokio::test]
async fn text_over_the_output_limit_is_cut_at_a_character_with_the_cut_said() {
    let executor = Executor::builder(tool_tests::declared_in(file!())).max_output_bytes(4097).build();
    let record = executor.execute(call("flood", r#"{"bytes": 10000}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
    // 4097 falls inside a two-byte `é`: the cut is at 4096.
    assert_eq!(record.content.text, format!("{}\n[output cut at 4097 bytes of 10000]", "é".repeat(2048)));
    let cut = record.output_cut.clone().unwrap();
    assert_eq!((cut.limit, cut.text_bytes, cut.structured_dropped, cut.metadata_dropped), (4097, 10000, false, false));
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(
        json["output_cut"],
        json!({
            "limit": 4097,
            "text_bytes": 10000,
            "structured_dropped": false,
            "metadata_dropped": false,
            "blocks_dropped": 0,
        })
    );

    // Under the limit nothing changes, and the record says nothing.
    let record = executor.execute(call("flood", r#"{"bytes": 4000}"#)).await;
    assert_eq!(record.content.text.len(), 4000);
    assert_eq!(record.output_cut, None);
    assert!(serde_json::to_value(&record).unwrap().get("output_cut").is_none());
}

#[tokio::test]
async fn a_structured_result_over_the_limit_is_dropped_and_its_text_cut() {
    let executor = Executor::builder(tool_tests::declared_in(file!())).max_output_bytes(2000).build();
    let record = executor.execute(call("flood_json", r#"{"items": 1000}"#)).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.structured, None);
    let whole = json!({ "items": vec![7; 1000] }).to_string();
    assert_eq!(
        record.content.text,
        format!(
            "{}\n[output cut at 2000 bytes of {}; structured result dropped: over 2000 bytes]",
            &whole[..2000],
            whole.len()
        )
    );
    assert_eq!(record.output_cut.as_ref().map(|c| c.structured_dropped), Some(true));
}

#[tokio::test]
async fn the_default_output_limit_is_a_mebibyte() {
    assert_eq!(tool_core::DEFAULT_MAX_OUTPUT_BYTES, 1 << 20);
    let record = executor().execute(call("flood", r#"{"bytes": 3000000}"#)).await;
    assert_eq!(record.content.text.len(), (1 << 20) + "\n[output cut at 1048576 bytes of 3000000]".len());
    assert!(record.content.text.ends_with("\n[output cut at 1048576 bytes of 3000000]"));
}

#[tokio::test]
async fn an_error_over_the_limit_is_cut_for_the_model_and_in_the_record() {
    let executor = Executor::builder(tool_tests::declared_in(file!())).max_output_bytes(1024).build();
    let record = executor.execute(call("flood_error", r#"{"bytes": 5000}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        format!("{}\n[output cut at 1024 bytes of 5000; structured result dropped: over 1024 bytes]", "x".repeat(1024))
    );
    assert_eq!(record.content.structured, None);
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(
        error.message(),
        format!("{}\n[cut at 1024 bytes of 5000]\n[details dropped: over 1024 bytes]", "x".repeat(1024))
    );
    assert_eq!(error.details(), None);
}

/// Logs one line and says whether anybody received it.
#[tool]
async fn log_once(ctx: &ToolContext) -> String {
    match ctx.log(LogLevel::Info, "started") {
        Ok(()) => "logged".to_owned(),
        Err(error) => format!("{}: {}", error.code().unwrap_or_default(), error.message()),
    }
}

#[tokio::test]
async fn a_tools_log_goes_to_the_scopes_sink_and_without_one_the_tool_is_told() {
    let catalog = CatalogBuilder::new().add_declared::<log_once>().build().unwrap();
    let executor = Executor::new(catalog);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let scope = CallScope::new().on_log(move |message| sink.lock().unwrap().push(message));
    let record = executor.execute_in(ToolCallRequest::new("log_once", "c1", "{}"), scope).await;
    assert_eq!(record.content.text, "logged");
    assert_eq!(
        *seen.lock().unwrap(),
        [LogMessage { level: LogLevel::Info, logger: "log_once".to_owned(), data: json!("started") }]
    );

    let record = executor.execute(ToolCallRequest::new("log_once", "c2", "{}")).await;
    assert_eq!(
        record.content.text,
        "no_log_receiver: `log_once` has nobody to send its log to: a call gets one over MCP, or from the host's \
         `CallScope::on_log`"
    );
}

#[tokio::test]
async fn a_batch_in_a_cancelled_scope_runs_none_of_its_calls() {
    let token = CancellationToken::new();
    token.cancel();
    let batch = vec![call("nap", r#"{"millis": 5000}"#), call("add", r#"{"a": 1, "b": 2}"#)];
    let records = executor().execute_batch_in(batch, CallScope::new().cancel_on(&token)).await;
    let statuses: Vec<CallStatus> = records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [CallStatus::Cancelled, CallStatus::Cancelled]);
    assert_eq!(records[0].failure, Some(CallFailure::Cancelled));
    assert_eq!(records[1].content.text, "The call was cancelled before the tool finished.");
}

#[tokio::test]
async fn a_batchs_calls_log_to_its_scopes_sink() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = std::sync::Arc::clone(&seen);
    let scope = CallScope::new().on_log(move |message: LogMessage| kept.lock().unwrap().push(message.data));
    let batch = vec![call("log_once", "{}"), call("log_once", "{}")];
    let records = executor().execute_batch_in(batch, scope).await;
    let texts: Vec<&str> = records.iter().map(|r| r.model_text()).collect();
    assert_eq!(texts, ["logged", "logged"]);
    assert_eq!(*seen.lock().unwrap(), [json!("started"), json!("started")]);
}

#[test]
fn a_front_ends_refusal_is_a_failed_record_whose_text_is_the_errors_message() {
    let error = ToolError::new("No conversation.").with_code("missing_conversation");
    let record = executor().refuse(call("add", r#"{"a": 1}"#), error);
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.content.text, "No conversation.");
    assert_eq!(record.request.raw_arguments, r#"{"a": 1}"#);
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("a tool error: {record:?}") };
    assert_eq!(error.code(), Some("missing_conversation"));
}

#[test]
fn a_records_status_follows_from_its_failure() {
    let failures = [
        (CallFailure::InvalidArguments, CallStatus::Failed),
        (CallFailure::UnknownTool { suggestions: Vec::new() }, CallStatus::Failed),
        (CallFailure::TimedOut { after_ms: 5 }, CallStatus::TimedOut),
        (CallFailure::Cancelled, CallStatus::Cancelled),
        (CallFailure::Denied { reason: "no".into() }, CallStatus::Denied),
        (CallFailure::TurnStopped { guardrail: "g".into(), call_id: "c".into() }, CallStatus::Stopped),
        (CallFailure::Rejected { guardrail: "g".into() }, CallStatus::Failed),
        (
            CallFailure::RateLimited { limit: "1 call per minute per tool".into(), retry_after_ms: 5 },
            CallStatus::Failed,
        ),
        (CallFailure::BudgetSpent { tries: 3, scope: tool_core::BudgetScope::Tool }, CallStatus::Failed),
    ];
    for (failure, status) in failures {
        assert_eq!(failure.status(), status, "{failure:?}");
    }
}
