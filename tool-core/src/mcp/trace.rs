//! MCP requests as spans, by OpenTelemetry's MCP semantic conventions: a request this server
//! serves is a server span, a request the import sends a client span, each named
//! `{mcp.method.name} {target}`. With feature `otel`, W3C trace context crosses in the request's
//! `_meta` (`traceparent`, `tracestate`; SEP-414): the import writes its client span's context
//! there, and the server makes the context it reads the parent of its server span, so an
//! imported tool's call and the remote server's work are one trace.

use rmcp::model::RequestMetaObject;

use crate::model::Cut;

/// The span of a request this server serves: `method` (`tools/call`) on `target` (the tool),
/// whose JSON-RPC id is `id`; a child of the trace context in its `_meta` when there is one
/// (feature `otel`).
pub(super) fn server_span(
    method: &'static str,
    target: &str,
    id: &dyn std::fmt::Display,
    meta: &RequestMetaObject,
) -> tracing::Span {
    let target = Cut(target);
    let span = tracing::info_span!(
        target: "tools",
        "mcp_server",
        otel.name = format_args!("{method} {target}"),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = method,
        gen_ai.tool.name = %target,
        gen_ai.operation.name = "execute_tool",
        jsonrpc.request.id = %id,
        error.type = tracing::field::Empty,
    );
    #[cfg(feature = "otel")]
    adopt_parent(&span, meta);
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    span
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
