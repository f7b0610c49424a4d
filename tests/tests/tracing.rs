//! Tracing: a span per call (target `tools`) with the parse warnings inside it (target
//! `tool_parse`). In a binary of its own: tracing caches each callsite's interest globally, so
//! a test on another thread reaching a callsite first under no subscriber would hide the
//! events from this test's thread-local subscriber.

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

#[test]
fn calls_are_traced_under_tools_and_parse_warnings_under_tool_parse() {
    let captured = Captured::default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    tracing::subscriber::with_default(captured.clone(), || {
        runtime.block_on(executor().execute(call("add", r#"{"a":1,"b":2,"z":3}"#)));
    });
    let lines = captured.0.lock().unwrap().clone();
    // The parse warning is emitted inside the call's span, and so is the closing event.
    assert_eq!(
        lines[..4],
        [
            "span tools tool_call",
            "enter",
            "event tool_parse message=ignored tool=add call_id=call_1 pointer=/z rule=unknown_parameter received=z",
            "exit"
        ]
    );
    let finished = lines.iter().position(|l| l.starts_with("event tools message=tool call finished status=Success"));
    let finished = finished.expect("a closing event");
    assert_eq!((lines[finished - 1].as_str(), lines[finished + 1].as_str()), ("enter", "exit"), "{lines:#?}");
}
