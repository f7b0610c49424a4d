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

/// A subscriber of one thread that writes each span, record and event as a line, up to a level
/// (info unless told otherwise, as a host's log usually is), and knows the span it is in.
#[derive(Clone)]
struct Captured(Arc<Mutex<Vec<String>>>, tracing::Level, Arc<Mutex<Spans>>);

/// The spans made (their metadata, by id less one) and those entered, innermost last.
#[derive(Default)]
struct Spans {
    made: Vec<&'static tracing::Metadata<'static>>,
    entered: Vec<u64>,
}

impl Default for Captured {
    fn default() -> Self {
        Captured(Arc::default(), tracing::Level::INFO, Arc::default())
    }
}

/// A span's or event's fields, one ` name=value` each (text without quotes).
struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push_str(&format!(" {}={}", field.name(), value));
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={:?}", field.name(), value));
    }
}

impl tracing::Subscriber for Captured {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= self.1
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = Fields(String::new());
        span.record(&mut fields);
        let line = format!("span {} {}{}", span.metadata().target(), span.metadata().name(), fields.0);
        self.0.lock().unwrap().push(line);
        let mut spans = self.2.lock().unwrap();
        spans.made.push(span.metadata());
        tracing::span::Id::from_u64(spans.made.len() as u64)
    }
    fn current_span(&self) -> tracing_core::span::Current {
        let spans = self.2.lock().unwrap();
        match spans.entered.last() {
            Some(&id) => tracing_core::span::Current::new(tracing::span::Id::from_u64(id), spans.made[id as usize - 1]),
            None => tracing_core::span::Current::none(),
        }
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut fields = Fields(String::new());
        values.record(&mut fields);
        self.0.lock().unwrap().push(format!("record{}", fields.0));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(format!("event {}{}", event.metadata().target(), fields.0));
    }
    fn enter(&self, id: &tracing::span::Id) {
        self.2.lock().unwrap().entered.push(id.into_u64());
        self.0.lock().unwrap().push("enter".to_owned());
    }
    fn exit(&self, _: &tracing::span::Id) {
        self.2.lock().unwrap().entered.pop();
        self.0.lock().unwrap().push("exit".to_owned());
    }
}

/// The lines one call writes, under a subscriber of this thread.
fn traced(request: ToolCallRequest) -> (ExecutionRecord, Vec<String>) {
    traced_by(&executor(), request)
}

/// [`traced`], run by `executor`.
fn traced_by(executor: &Executor, request: ToolCallRequest) -> (ExecutionRecord, Vec<String>) {
    traced_at(executor, request, tracing::Level::INFO)
}

/// The lines one call writes under a subscriber of this thread that records up to `level`.
fn traced_at(executor: &Executor, request: ToolCallRequest, level: tracing::Level) -> (ExecutionRecord, Vec<String>) {
    let captured = Captured(Arc::default(), level, Arc::default());
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
    // Named and attributed by OpenTelemetry's GenAI semantic conventions.
    assert_eq!(
        lines[0],
        "span tools execute_tool otel.name=execute_tool add otel.kind=internal gen_ai.operation.name=execute_tool \
         gen_ai.tool.name=add gen_ai.tool.call.id=call_1"
    );
    assert_eq!(lines[1], "record gen_ai.tool.type=function");
    assert_eq!(lines[2], "record gen_ai.tool.description=Add two integers.");
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
fn a_failed_call_says_its_error_type_and_at_debug_its_stages_and_warnings() {
    let (record, lines) = traced_at(&executor(), call("add", r#"{"a": "x", "b": 2, "z": 1}"#), tracing::Level::DEBUG);
    assert_eq!(record.status, CallStatus::Failed);
    let spans: Vec<&String> = lines.iter().filter(|line| line.starts_with("span")).collect();
    assert_eq!(
        spans,
        [
            "span tools execute_tool otel.name=execute_tool add otel.kind=internal gen_ai.operation.name=execute_tool \
             gen_ai.tool.name=add gen_ai.tool.call.id=call_1",
            "span tools stage otel.name=retry_budget stage=retry_budget",
            // Refused while reading: no repair hook, so the record is settled at once.
            "span tools stage otel.name=extract stage=extract",
            "span tools stage otel.name=settle stage=settle",
        ]
    );
    // The failure's kind is the span's `error.type`; each warning is an event with its rule and
    // place, never the value.
    assert!(lines.contains(&"record error.type=invalid_arguments".to_owned()), "{lines:#?}");
    assert!(lines.contains(&"record otel.status_code=error".to_owned()), "{lines:#?}");
    assert!(
        lines.contains(&"event tools message=argument warning rule=unknown_parameter pointer=/z".to_owned()),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|line| line.contains("\"x\"")), "no argument's value: {lines:#?}");
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
    // The span (its name, the tool's name and the call id, each cut) and the one event.
    let written: usize = lines.iter().map(String::len).sum();
    assert!(written < 1_500, "{written} bytes of log for one call");
    let cut = format!("{}… (1000000 chars)", "n".repeat(120));
    assert_eq!(
        events(&lines),
        [format!(
            "event tools message=tool call finished tool={cut} call_id={cut} status=Failed warnings=1 errors=0 \
             rules=tool_definition_missing"
        )]
    );
}
