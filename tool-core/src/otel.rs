//! W3C trace context (feature `otel`): a span's context written as `traceparent` and
//! `tracestate`, and read back as a remote parent. The MCP side carries them in `_meta`, REST
//! tools in their requests' headers.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The longest `tracestate` read or written: W3C allows 32 members of 256 characters and lets
/// a vendor drop the rest; a longer one is left out rather than parsed.
const MAX_TRACESTATE: usize = 512;

/// The W3C `traceparent` of `span`, and its `tracestate` when it has one: `None` for a span no
/// OpenTelemetry layer records.
pub(crate) fn written(span: &tracing::Span) -> Option<(String, Option<String>)> {
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&span.context(), &mut carrier);
    let parent = carrier.remove("traceparent")?;
    let state = carrier.remove("tracestate").filter(|state| !state.is_empty() && state.len() <= MAX_TRACESTATE);
    Some((parent, state))
}

/// Makes the context `traceparent` (and `tracestate`) names the parent of `span`, when it is a
/// valid one.
#[cfg(feature = "mcp")]
pub(crate) fn adopt(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
    use opentelemetry::trace::TraceContextExt;
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_owned(), traceparent.to_owned());
    if let Some(state) = tracestate.filter(|state| state.len() <= MAX_TRACESTATE) {
        carrier.insert("tracestate".to_owned(), state.to_owned());
    }
    let parent = TraceContextPropagator::new().extract(&carrier);
    if parent.span().span_context().is_valid() {
        // Refused only for a span no OpenTelemetry layer records: then there is no trace.
        let _ = span.set_parent(parent);
    }
}
