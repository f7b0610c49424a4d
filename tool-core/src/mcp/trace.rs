//! MCP requests as spans, by OpenTelemetry's MCP semantic conventions: a request this server
//! serves is a server span, a request the import sends a client span, each named
//! `{mcp.method.name} {target}`. With feature `otel`, W3C trace context crosses in the request's
//! `_meta` (`traceparent`, `tracestate`; SEP-414): the import writes its client span's context
//! there, and the server makes the context it reads the parent of its server span, so an
//! imported tool's call and the remote server's work are one trace.

use rmcp::model::RequestMetaObject;

use crate::model::Cut;

/// The span of a request this server serves: `method` (`tools/call`) on `target` (the tool's
/// name, a prompt's; none for a list), whose JSON-RPC id is `id`; a child of the trace context
/// in its `_meta` when there is one (feature `otel`).
pub(super) fn server_span(
    method: &'static str,
    target: Option<&str>,
    id: &dyn std::fmt::Display,
    meta: &RequestMetaObject,
) -> tracing::Span {
    let span = tracing::info_span!(
        target: "tools",
        "mcp_server",
        otel.name = %Named(method, target),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = method,
        gen_ai.tool.name = tracing::field::Empty,
        gen_ai.prompt.name = tracing::field::Empty,
        gen_ai.operation.name = tracing::field::Empty,
        jsonrpc.request.id = %id,
        error.type = tracing::field::Empty,
    );
    if let Some(target) = target {
        match method {
            "tools/call" => {
                span.record("gen_ai.tool.name", tracing::field::display(Cut(target)));
                span.record("gen_ai.operation.name", "execute_tool");
            }
            _ => {
                span.record("gen_ai.prompt.name", tracing::field::display(Cut(target)));
            }
        }
    }
    #[cfg(feature = "otel")]
    adopt_parent(&span, meta);
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    span
}

/// A span's name by the MCP conventions: `{method} {target}`, or the method alone.
struct Named<'a>(&'static str, Option<&'a str>);

impl std::fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {}", self.0, Cut(target)),
            None => f.write_str(self.0),
        }
    }
}

/// Serves `answer` in `span`, marking it failed (with the JSON-RPC error code) when it fails.
pub(super) async fn served<T>(
    span: tracing::Span,
    answer: impl std::future::Future<Output = Result<T, rmcp::ErrorData>>,
) -> Result<T, rmcp::ErrorData> {
    use tracing::Instrument;
    let answered = answer.instrument(span.clone()).await;
    if let Err(error) = &answered {
        failed(&span, &error.code.0.to_string());
    }
    answered
}

/// The span of a request the import sends: `method` (`tools/call`) on `target` (the remote
/// tool's name), to the server `server`.
pub(super) fn client_span(method: &'static str, target: &str, server: &str) -> tracing::Span {
    let target = Cut(target);
    tracing::info_span!(
        target: "tools",
        "mcp_client",
        otel.name = format_args!("{method} {target}"),
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = method,
        gen_ai.tool.name = %target,
        gen_ai.operation.name = "execute_tool",
        server.address = %Cut(server),
        error.type = tracing::field::Empty,
    )
}

/// Marks `span` failed, with `kind` as its `error.type`.
pub(super) fn failed(span: &tracing::Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "error");
}

/// Makes the W3C trace context in `meta` the parent of `span`, when it is valid.
#[cfg(feature = "otel")]
fn adopt_parent(span: &tracing::Span, meta: &RequestMetaObject) {
    if let Some(traceparent) = meta.get_traceparent() {
        crate::otel::adopt(span, traceparent, meta.get_tracestate());
    }
}

/// Writes the W3C trace context of `span` into `params`' `_meta`, when it has one.
#[cfg(feature = "otel")]
pub(super) fn inject(span: &tracing::Span, params: &mut impl rmcp::model::RequestParamsMeta) {
    if let Some((traceparent, state)) = crate::otel::written(span) {
        params.set_traceparent(&traceparent);
        if let Some(state) = state {
            params.set_tracestate(&state);
        }
    }
}
