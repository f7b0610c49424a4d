//! Arguments built to make extraction slow: hundreds of thousands of distinct keys, at the top
//! level, in a nested object, for a runtime-built tool and for a tool that does not exist. Each
//! call gets its record, refused by the default limits with an error that names the limit, or
//! read in full when the host raises them; large arguments are read under the call's time limit
//! and cancellation.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::{ArgumentError, CallFailure};

/// Echo a text.
#[tool]
fn echo(
    /// The text.
    text: String,
) -> usize {
    text.len()
}

#[derive(Deserialize, JsonSchema)]
struct Options {
    name: String,
}

/// Take options.
#[tool]
fn configure(
    /// The options.
    options: Options,
) -> String {
    options.name
}

const KEYS: usize = 300_000;

/// `{first, "k0": 0, "k1": 0, ...}` with `n` keys after `first` (300,000 of them are 3.5 MB).
fn keys(first: &str, n: usize) -> String {
    let mut out = format!("{{{first}");
    for i in 0..n {
        out.push_str(&format!(",\"k{i}\":0"));
    }
    out.push('}');
    out
}

fn dynamic(timeout: Option<Duration>) -> DynamicTool {
    let mut builder = DynamicTool::builder("lookup")
        .description("Looks a city up.")
        .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
        .handler(|args, _| async move { args.len() });
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder.build().unwrap()
}

fn catalog(keys_per_object: Option<usize>) -> ToolCatalog {
    let builder = ToolCatalog::builder().add_declared::<echo>().add_declared::<configure>().add_tool(dynamic(None));
    match keys_per_object {
        Some(keys) => builder.max_keys_per_object(keys).build().unwrap(),
        None => builder.build().unwrap(),
    }
}

fn run(executor: &Executor, tool: &str, raw: &str) -> ExecutionRecord {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(executor.execute(ToolCallRequest::new(tool, "call_1", raw)))
}

fn only_error(record: &ExecutionRecord) -> ArgumentError {
    let errors = &record.request.parse_error.as_ref().expect("refused").errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors[0].clone()
}

const TOO_MANY_DETAIL: &str =
    "an object of the arguments has more than 10000 keys, the limit (`max_keys_per_object`; the \
                               host raises it with `CatalogBuilder::max_keys_per_object`)";

#[test]
fn three_hundred_thousand_keys_are_refused_by_the_default_limit_naming_it() {
    let executor = Executor::new(catalog(None));
    let top = keys("\"text\":\"a\"", KEYS);
    let nested = format!("{{\"options\":{}}}", keys("\"name\":\"a\"", KEYS));
    for (tool, raw, pointer) in [("echo", &top, ""), ("configure", &nested, "/options"), ("lookup", &top, "")] {
        let record = run(&executor, tool, raw);
        assert_eq!(record.status, CallStatus::Failed, "{tool}");
        assert_eq!(record.failure, Some(CallFailure::InvalidArguments));
        assert_eq!(record.request.raw_arguments, *raw, "the raw arguments are kept");
        assert_eq!(record.warnings(), &[]);
        let error = only_error(&record);
        assert_eq!((error.pointer.as_str(), error.rule.as_str()), (pointer, "too_many_keys"));
        assert_eq!(error.expected, "an object of at most 10000 keys");
        assert_eq!(error.received.as_deref(), Some("an object of more than 10000 keys"));
        assert_eq!(error.detail, TOO_MANY_DETAIL);
    }
    let record = run(&executor, "echo", &top);
    assert_eq!(
        record.model_text(),
        "The arguments for `echo` were not accepted:\n- arguments: expected an object of at most 10000 keys; got an \
         object of more than 10000 keys (an object of the arguments has more than 10000 keys, the limit \
         (`max_keys_per_object`; the host raises it with `CatalogBuilder::max_keys_per_object`)).\nSend the \
         corrected arguments to `echo` again."
    );
    // A tool that does not exist: the same refusal, in the record of the unknown tool.
    let record = run(&executor, "nope", &keys("\"a\":0", KEYS));
    assert!(matches!(record.failure, Some(CallFailure::UnknownTool { .. })), "{:?}", record.failure);
    assert_eq!(record.warnings().iter().map(|w| w.rule()).collect::<Vec<_>>(), ["tool_definition_missing"]);
    assert_eq!(only_error(&record).rule, "too_many_keys");
}

#[test]
fn keys_over_the_default_limit_are_read_in_full_when_the_host_raises_it() {
    let executor = Executor::new(catalog(Some(KEYS + 1)));
    let unknown = |i: usize| format!("/k{i}");
    // A declared tool: every key but `text` ignored, each with its warning, in order.
    let record = run(&executor, "echo", &keys("\"text\":\"abc\"", KEYS));
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.content.structured, Some(json!(3)));
    assert_eq!(record.warnings().len(), KEYS);
    assert!(record
        .warnings()
        .iter()
        .enumerate()
        .all(|(i, w)| w.rule() == "unknown_parameter" && w.pointer() == unknown(i)));
    // The other places, with fewer keys (the benchmark `hostile_keys` doubles them to 320,000).
    const SOME: usize = 50_000;
    let record = run(&executor, "configure", &format!("{{\"options\":{}}}", keys("\"name\":\"n\"", SOME)));
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "n"));
    assert_eq!(record.warnings().len(), SOME);
    assert_eq!(record.warnings()[SOME - 1].pointer(), format!("/options/k{}", SOME - 1));
    // A runtime-built tool (as REST and MCP-imported tools are): the handler gets the declared key.
    let record = run(&executor, "lookup", &keys("\"city\":\"Oslo\"", SOME));
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(record.model_text(), "1");
    assert_eq!(record.warnings().len(), SOME);
    assert_eq!(record.warnings()[0].pointer(), "/k0");
    // A tool that does not exist: the arguments are read for the record.
    let record = run(&executor, "nope", &keys("\"a\":0", SOME));
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.warnings().iter().map(|w| w.rule()).collect::<Vec<_>>(), ["tool_definition_missing"]);
    assert_eq!(record.request.arguments.as_ref().and_then(Value::as_object).map(|o| o.len()), Some(SOME + 1));
}

#[test]
fn arguments_over_the_size_limit_are_refused_naming_it() {
    let executor = Executor::new(catalog(None));
    let raw = format!("{{\"text\":\"{}\"}}", "x".repeat(4 * 1024 * 1024));
    let record = run(&executor, "echo", &raw);
    assert_eq!(record.status, CallStatus::Failed);
    let error = only_error(&record);
    assert_eq!((error.pointer.as_str(), error.rule.as_str()), ("", "arguments_too_large"));
    assert_eq!(error.expected, "arguments of at most 4194304 bytes");
    assert_eq!(
        error.detail,
        "the arguments are 4194315 bytes, more than the limit of 4194304 (`max_argument_bytes`; the host raises it \
         with `CatalogBuilder::max_argument_bytes`)"
    );
    assert_eq!(record.request.raw_arguments, raw);
    // Raised by the host: read.
    let roomy = Executor::new(catalog(None).to_builder().max_argument_bytes(8 * 1024 * 1024).build().unwrap());
    assert_eq!(run(&roomy, "echo", &raw).status, CallStatus::Success);
}

#[test]
fn large_arguments_are_read_under_the_time_limit_and_cancellation() {
    let raw = keys("\"city\":\"Oslo\"", 100_000);
    let limited = ToolCatalog::builder().add_tool(dynamic(Some(Duration::from_millis(1)))).max_keys_per_object(200_000);
    let executor = Executor::new(limited.build().unwrap());
    let record = run(&executor, "lookup", &raw);
    assert_eq!(record.status, CallStatus::TimedOut);
    assert_eq!(record.failure, Some(CallFailure::TimedOut { after_ms: 1 }));
    assert_eq!(record.model_text(), "The arguments were not read within 1 ms; the call was stopped.");
    assert_eq!(record.request.raw_arguments, raw);

    let executor = Executor::new(catalog(Some(200_000)));
    let cancel = CancellationToken::new();
    cancel.cancel();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let request = ToolCallRequest::new("lookup", "call_1", raw.clone());
    let record = runtime.block_on(executor.execute_in(request, CallScope::new().cancel_on(&cancel)));
    assert_eq!(record.status, CallStatus::Cancelled);
    assert_eq!(record.failure, Some(CallFailure::Cancelled));
    assert_eq!(record.model_text(), "The call was cancelled before its arguments were read.");
    // In a batch too, each record in its place.
    let requests = vec![
        ToolCallRequest::new("echo", "call_1", r#"{"text": "a"}"#),
        ToolCallRequest::new("lookup", "call_2", raw.clone()),
    ];
    let records = runtime.block_on(executor.execute_batch(requests));
    let outcomes: Vec<(CallStatus, usize)> = records.iter().map(|r| (r.status, r.warnings().len())).collect();
    assert_eq!(outcomes, [(CallStatus::Success, 0), (CallStatus::Success, 100_000)]);
}

/// Take counts by name.
#[tool]
fn tally(
    /// Counts by name.
    counts: std::collections::HashMap<String, Vec<i64>>,
) -> usize {
    counts.len()
}

#[test]
fn a_long_key_above_many_warnings_is_cut_in_their_pointers_on_both_paths() {
    let key = "k".repeat(5_000);
    let raw = format!("{{\"counts\": {{\"{key}\": [\"1\", \"2\"]}}}}");
    let cut = format!("/counts/{}…", "k".repeat(1_024 - "/counts/".len()));
    // The single pass (a declared tool), and the tree path (the same schema, built at run time).
    let declared = <tally as DeclaredTool>::definition();
    let dynamic = DynamicTool::builder("tally_dynamic")
        .description("Counts.")
        .input_schema(declared.input_schema.clone())
        .handler(|args, _| async move { args.len() })
        .build()
        .unwrap();
    let catalog = ToolCatalog::builder().add_declared::<tally>().add_tool(dynamic).build().unwrap();
    let executor = Executor::new(catalog);
    for tool in ["tally", "tally_dynamic"] {
        let record = run(&executor, tool, &raw);
        assert_eq!(record.status, CallStatus::Success, "{tool}");
        let pointers: Vec<&str> = record.warnings().iter().map(|w| w.pointer()).collect();
        assert_eq!(pointers, [cut.as_str(), cut.as_str()], "{tool}");
    }
}
