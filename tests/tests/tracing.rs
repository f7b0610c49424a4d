//! Tracing: a span per call (target `tools`) and one summary event inside it, whatever the
//! arguments held, every text in it cut. In a binary of its own: tracing caches each callsite's
//! interest globally, so a test on another thread reaching a callsite first under no subscriber
//! would hide the events from this test's thread-local subscriber.

use std::sync::{Arc, Mutex};

use tool_core::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn executor() -> Executor {
    Executor::new(ToolCatalog::global().unwrap().clone())
}

fn call(name: &str, args: &str) -> ToolCallRequest {
    ToolCallRequest::new(name, "call_1", args)
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<String>>>);

impl tracing::Subscriber for Captured {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        self.0.lock().unwrap().push(format!("span {} {}", span.metadata().target(), span.metadata().name()));
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!(" {}={:?}", field.name(), value));
            }
        }
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(format!("event {}{}", event.metadata().target(), fields.0));
    }
    fn enter(&self, _: &tracing::span::Id) {
        self.0.lock().unwrap().push("enter".to_owned());
    }
    fn exit(&self, _: &tracing::span::Id) {
        self.0.lock().unwrap().push("exit".to_owned());
    }
}

/// The lines one call writes, under a subscriber of this thread.
fn traced(request: ToolCallRequest) -> (ExecutionRecord, Vec<String>) {
    traced_by(&executor(), request)
}

/// [`traced`], run by `executor`.
fn traced_by(executor: &Executor, request: ToolCallRequest) -> (ExecutionRecord, Vec<String>) {
    let captured = Captured::default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let record = tracing::subscriber::with_default(captured.clone(), || runtime.block_on(executor.execute(request)));
    let lines = captured.0.lock().unwrap().clone();
    (record, lines)
}

/// The events among `lines`, their durations (which vary) taken out.
fn events(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|line| line.starts_with("event"))
        .map(|line| {
            let Some(at) = line.find(" duration_us=") else { return line.clone() };
            let end = line[at + 1..].find(' ').map_or(line.len(), |e| at + 1 + e);
            format!("{}{}", &line[..at], &line[end..])
        })
        .collect()
}

#[test]
fn a_call_is_traced_as_one_span_and_one_summary_event_inside_it() {
    let (record, lines) = traced(call("add", r#"{"a":1,"b":2,"z":3}"#));
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(lines[0], "span tools tool_call");
    assert_eq!(
        events(&lines),
        ["event tools message=tool call finished tool=add call_id=call_1 status=Success warnings=1 errors=0 \
          rules=unknown_parameter"]
    );
    let finished = lines.iter().position(|l| l.starts_with("event tools message=tool call finished"));
    let finished = finished.expect("a closing event");
    assert_eq!((lines[finished - 1].as_str(), lines[finished + 1].as_str()), ("enter", "exit"), "{lines:#?}");
}

#[test]
fn a_call_by_a_principal_names_it_and_no_token() {
    let (_, lines) = traced(call("add", r#"{"a":1,"b":2}"#).by_principal("https://id.example.com ada"));
    assert_eq!(
        events(&lines),
        ["event tools message=tool call finished tool=add call_id=call_1 principal=https://id.example.com ada \
          status=Success warnings=0 errors=0 rules="]
    );
}

#[test]
fn a_refused_call_names_its_first_rules_once_each() {
    let (record, lines) = traced(call("add", r#"{'a': "x", "b": True, "c": 1, "d": 2}"#));
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        events(&lines),
        ["event tools message=tool call finished tool=add call_id=call_1 status=Failed warnings=3 errors=2 \
          rules=python_literal,unknown_parameter,invalid_type"]
    );
}

#[test]
fn a_call_with_ten_thousand_warnings_and_long_names_writes_one_short_event() {
    let keys: Vec<String> = (0..10_000).map(|i| format!("\"z{i}\": {i}")).collect();
    // Over the default limit of keys per object (10,000): raised, so that the call succeeds.
    let catalog = ToolCatalog::global().unwrap().to_builder().max_keys_per_object(20_000).build().unwrap();
    let roomy = Executor::new(catalog);
    let (record, lines) = traced_by(&roomy, call("add", &format!("{{\"a\": 1, \"b\": 2, {}}}", keys.join(", "))));
    assert_eq!((record.status, record.warnings().len()), (CallStatus::Success, 10_000));
    assert_eq!(
        events(&lines),
        ["event tools message=tool call finished tool=add call_id=call_1 status=Success warnings=10000 errors=0 \
          rules=unknown_parameter"]
    );
    // A megabyte of tool name and of call id: each cut to a bound in the span and the event.
    let long = "n".repeat(1_000_000);
    let (record, lines) = traced(ToolCallRequest::new(long.clone(), long.clone(), "{}"));
    assert_eq!(record.status, CallStatus::Failed);
    let written: usize = lines.iter().map(String::len).sum();
    assert!(written < 1_000, "{written} bytes of log for one call");
    let cut = format!("{}… (1000000 chars)", "n".repeat(120));
    assert_eq!(
        events(&lines),
        [format!(
            "event tools message=tool call finished tool={cut} call_id={cut} status=Failed warnings=1 errors=0 \
             rules=tool_definition_missing"
        )]
    );
}
