//! A call or a connection that failed, said in words: the server's refusal, a 401 or 403 with
//! its challenge, a transport's error with the secrets of the URL taken out.

use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};

use crate::model::ToolError;

use super::super::redact::Redactor;

pub(super) fn lost_call(server: &str, name: &str, error: &ServiceError, redactor: &Redactor) -> ToolError {
    match error {
        // The server's own words are for the host (the record); the model reads the code.
        ServiceError::McpError(error) => ToolError::new(format!(
            "The MCP server `{server}` refused the call of `{name}` (JSON-RPC error {}).",
            error.code.0
        ))
        .with_code("mcp_error")
        .with_internal_detail(redactor.clean(&error.message)),
        other => lost(server, name, &reason(other, redactor)),
    }
}

/// Characters of a server's `WWW-Authenticate` header quoted in an error at most.
const MAX_QUOTED_HEADER: usize = 200;

/// What rmcp says went wrong, without credentials. A refusal of authorization is said in words:
/// rmcp's text for it names its transport's types, not what the server answered.
pub(super) fn reason(error: &(dyn std::error::Error + 'static), redactor: &Redactor) -> String {
    let refusal = causes(error).into_iter().find_map(refusal);
    redactor.clean(&refusal.unwrap_or_else(|| error.to_string()))
}

/// `error` and its causes, with the transport's error rmcp's handshake error keeps beside it
/// (not as its source).
fn causes<'a>(error: &'a (dyn std::error::Error + 'static)) -> Vec<&'a (dyn std::error::Error + 'static)> {
    let beside = match error.downcast_ref::<ClientInitializeError>() {
        Some(ClientInitializeError::TransportError { error, .. }) => Some(error as &(dyn std::error::Error + 'static)),
        _ => None,
    };
    let mut chain: Vec<&(dyn std::error::Error + 'static)> = Vec::new();
    for start in std::iter::once(error).chain(beside) {
        let mut cause = Some(start);
        while let Some(current) = cause {
            chain.push(current);
            cause = current.source();
        }
    }
    chain
}

/// A server's refusal of the token that a new one may answer: its `WWW-Authenticate` header,
/// and for a `403 insufficient_scope` the scope it names.
#[derive(Debug, Clone)]
// Noted without feature `oauth` too, where only its presence counts (nothing answers it).
#[cfg_attr(not(feature = "oauth"), allow(dead_code))]
pub(super) struct Challenge {
    pub(super) header: String,
    /// `None` for a `401`.
    pub(super) insufficient_scope: Option<String>,
}

/// The `401`, or the `403` that names a scope, among the causes of `error`.
pub(super) fn challenge(error: &(dyn std::error::Error + 'static)) -> Option<Challenge> {
    causes(error).into_iter().find_map(|cause| {
        if let Some(refused) = cause.downcast_ref::<AuthRequiredError>() {
            return Some(Challenge { header: refused.www_authenticate_header.clone(), insufficient_scope: None });
        }
        let refused = cause.downcast_ref::<InsufficientScopeError>()?;
        let scope = refused.required_scope.clone().filter(|scope| !scope.trim().is_empty())?;
        Some(Challenge { header: refused.www_authenticate_header.clone(), insufficient_scope: Some(scope) })
    })
}

/// A server's 401 or 403, said for the host.
fn refusal(cause: &(dyn std::error::Error + 'static)) -> Option<String> {
    // The server's own text: cut, and its control characters written as escapes.
    let quoted = |header: &str| {
        let mut quoted = String::new();
        for c in header.chars().take(MAX_QUOTED_HEADER) {
            if c.is_control() {
                quoted.extend(c.escape_debug());
            } else {
                quoted.push(c);
            }
        }
        if header.chars().nth(MAX_QUOTED_HEADER).is_some() {
            quoted.push_str("..");
        }
        quoted
    };
    if let Some(refused) = cause.downcast_ref::<AuthRequiredError>() {
        return Some(format!(
            "the server answered 401: it wants authorization (`WWW-Authenticate: {}`); without \
             `McpImportBuilder::oauth`, the import sends only the token given to `McpImportBuilder::bearer_token`",
            quoted(&refused.www_authenticate_header)
        ));
    }
    cause.downcast_ref::<InsufficientScopeError>().map(|refused| {
        format!(
            "the server answered 403: the token sent lacks a scope it wants (`WWW-Authenticate: {}`)",
            quoted(&refused.www_authenticate_header)
        )
    })
}

pub(super) fn lost(server: &str, name: &str, why: &str) -> ToolError {
    ToolError::new(format!(
        "The MCP server `{server}` was lost during the call of `{name}` ({why}); the call may or may not have run."
    ))
    .with_code("mcp_connection_lost")
}
