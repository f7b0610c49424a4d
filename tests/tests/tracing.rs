//! Tracing: a span per call (target `tools`) and one summary event inside it, whatever the
//! arguments held, every text in it cut. In a binary of its own: tracing caches each callsite's
//! interest globally, so a test on another thread reaching a callsite first under no subscriber
//! would hide the events from this test's thread-local subscriber.

use std::sync::{Arc, Mutex};

use tracing::Instrument;

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
    // Asked each time: a level of this test's is no verdict for the other tests' subscribers,
    // which run beside it in this process.
    fn register_callsite(&self, _: &'static tracing::Metadata<'static>) -> tracing_core::Interest {
        tracing_core::Interest::sometimes()
    }
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

/// Spans recorded by OpenTelemetry's SDK into memory, through the bridge, for this thread
/// while the guard lives.
fn recorded() -> (
    opentelemetry_sdk::trace::InMemorySpanExporter,
    opentelemetry_sdk::trace::SdkTracerProvider,
    tracing::subscriber::DefaultGuard,
) {
    use opentelemetry::trace::TracerProvider as _;
    use tracing_subscriber::layer::SubscriberExt;
    let exporter = opentelemetry_sdk::trace::InMemorySpanExporter::default();
    let provider =
        opentelemetry_sdk::trace::SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let subscriber =
        tracing_subscriber::registry().with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    (exporter, provider, tracing::subscriber::set_default(subscriber))
}

/// One agent turn's trace through OpenTelemetry's SDK (spans exported to memory): the host's
/// turn, its call of an imported tool, the import's MCP request, our server's MCP span and its
/// own call of the tool, linked across HTTP by the `traceparent` in the request's `_meta`.
#[test]
fn an_imported_tools_call_and_the_servers_work_are_one_trace() {
    use opentelemetry::trace::SpanKind;
    use tool_core::mcp::{McpImport, McpServer};

    let (exporter, provider, _default) = recorded();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let record = runtime.block_on(async {
        let server = McpServer::builder(executor()).build().unwrap();
        let running = server.http().bind("127.0.0.1:0".parse().unwrap()).start().await.unwrap();
        let import = McpImport::http(running.url()).prefix("remote.").connect().await.unwrap();
        let host = Executor::new(import.add_to(ToolCatalog::builder()).build().unwrap());
        let turn = tracing::info_span!("agent turn");
        let record = host.execute(call("remote.add", r#"{"a": 2, "b": 3}"#)).instrument(turn).await;
        import.close().await;
        running.shutdown().await;
        record
    });
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, r#"{"result":5}"#));
    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().unwrap();
    let named = |name: &str, kind: SpanKind| {
        let found: Vec<_> = spans.iter().filter(|s| s.name == name && s.span_kind == kind).collect();
        assert_eq!(
            found.len(),
            1,
            "one span `{name}` ({kind:?}) among {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        found[0].clone()
    };
    let turn = named("agent turn", SpanKind::Internal);
    let host_call = named("execute_tool remote.add", SpanKind::Internal);
    let client = named("tools/call add", SpanKind::Client);
    let server = named("tools/call add", SpanKind::Server);
    let served_call = named("execute_tool add", SpanKind::Internal);
    // One trace, each span the child of the one before it.
    let trace = turn.span_context.trace_id();
    for span in [&host_call, &client, &server, &served_call] {
        assert_eq!(span.span_context.trace_id(), trace, "{} is in the turn's trace", span.name);
    }
    assert_eq!(host_call.parent_span_id, turn.span_context.span_id());
    // The host's call reaches the server in its stage `run` (the tool's body).
    let run = spans.iter().find(|s| s.span_context.span_id() == client.parent_span_id).expect("the client's parent");
    assert_eq!((run.name.as_ref(), run.parent_span_id), ("run", host_call.span_context.span_id()));
    assert_eq!(server.parent_span_id, client.span_context.span_id(), "the server's span is the client's child");
    assert_eq!(served_call.parent_span_id, server.span_context.span_id());
    // The attributes of the conventions.
    let attribute = |span: &opentelemetry_sdk::trace::SpanData, key: &str| {
        span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.to_string())
    };
    assert_eq!(attribute(&host_call, "gen_ai.tool.type").as_deref(), Some("extension"));
    assert_eq!(attribute(&served_call, "gen_ai.tool.type").as_deref(), Some("function"));
    assert_eq!(attribute(&served_call, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(attribute(&client, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attribute(&server, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attribute(&server, "gen_ai.tool.name").as_deref(), Some("add"));
    // The import's listing was served in a span of its own.
    let listing = named("tools/list", SpanKind::Server);
    assert_eq!(attribute(&listing, "mcp.method.name").as_deref(), Some("tools/list"));
    assert_eq!(attribute(&listing, "gen_ai.tool.name"), None);
}

/// A client's `traceparent` in a request's `_meta` is the parent of the server's span, trace
/// and span id as sent (any MCP client that propagates, not only ours).
#[test]
fn a_traceparent_in_meta_is_the_parent_of_the_servers_span() {
    use opentelemetry::trace::SpanKind;
    use tool_core::mcp::McpServer;

    let (exporter, provider, _default) = recorded();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let status = runtime.block_on(async {
        let server = McpServer::builder(executor()).build().unwrap();
        let running = server.http().bind("127.0.0.1:0".parse().unwrap()).stateless(true).start().await.unwrap();
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "add", "arguments": {"a": 1, "b": 1}, "_meta": {"traceparent": traceparent}}});
        let answer = tool_tests::mcp_post(&reqwest::Client::new(), &running.url(), "2025-06-18", &body).await.unwrap();
        let status = answer.status().as_u16();
        let text = answer.text().await.unwrap();
        running.shutdown().await;
        (status, text)
    });
    assert_eq!(status.0, 200, "{}", status.1);
    assert!(status.1.contains(r#"\"result\":2"#), "{}", status.1);
    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().unwrap();
    let names: Vec<_> = spans.iter().map(|s| (s.name.clone(), s.span_kind.clone())).collect();
    let server =
        spans.iter().find(|s| s.span_kind == SpanKind::Server).unwrap_or_else(|| panic!("no server span: {names:?}"));
    assert_eq!(server.name, "tools/call add");
    assert_eq!(server.span_context.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(server.parent_span_id.to_string(), "00f067aa0ba902b7");
    assert!(server.parent_span_is_remote, "the parent is the client's, remote");
    let attribute =
        |key: &str| server.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.to_string());
    assert_eq!(attribute("jsonrpc.request.id").as_deref(), Some("7"));
}

/// A REST tool whose API's origin the host allowed sends the call's trace context in its
/// request's headers; one at another origin sends none.
#[test]
fn a_rest_tool_sends_traceparent_only_to_an_allowed_origin() {
    use tool_core::rest::{RestToolSpec, RestTools};

    let (exporter, provider, _default) = recorded();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (allowed, other) = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let kept = Arc::clone(&seen);
        let echo = axum::routing::get(move |headers: axum::http::HeaderMap| {
            let kept = Arc::clone(&kept);
            async move {
                let parent = headers.get("traceparent").map(|v| v.to_str().unwrap().to_owned());
                kept.lock().unwrap().push(parent);
                "{}"
            }
        });
        tokio::spawn(async move { axum::serve(listener, axum::Router::new().route("/ping", echo)).await });
        let spec = RestToolSpec::new("api.ping", "Ping the API.", "GET", format!("http://{address}"), "/ping");
        let allowed = RestTools::new().propagate_trace_to([format!("http://{address}")]).build(&spec).unwrap();
        let other = RestTools::new().propagate_trace_to(["https://api.example.com"]).build(&spec).unwrap();
        for tool in [allowed, other] {
            let executor = Executor::new(ToolCatalog::builder().add_tool(tool).build().unwrap());
            let turn = tracing::info_span!("agent turn");
            let record = executor.execute(call("api.ping", "{}")).instrument(turn).await;
            assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
        }
        let seen = seen.lock().unwrap().clone();
        (seen[0].clone(), seen[1].clone())
    });
    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().unwrap();
    let turn = spans.iter().find(|s| s.name == "agent turn").expect("the turn's span");
    let parent = allowed.expect("the allowed origin got a traceparent");
    assert!(parent.starts_with(&format!("00-{}-", turn.span_context.trace_id())), "{parent} is in the turn's trace");
    assert_eq!(other, None, "another origin got no trace context");
}
