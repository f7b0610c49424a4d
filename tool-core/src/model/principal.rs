//! Who an access token speaks for.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Who a request comes from, as its access token says: the subject, the client that holds the
/// token, and the scopes it grants. An OAuth resource server (`tool_core::auth`, feature
/// `oauth`) puts it in the HTTP request's extensions; the MCP server gives it to the call
/// ([`ToolCallRequest::identity`](crate::ToolCallRequest::identity), which a tool reads as
/// `ctx.request().identity`, and the call's record keeps) and keys the principal's state by
/// [`id`](Self::id), so two principals share no conversation, handle, pending call or task
/// even under the same ids. It holds no token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Principal {
    /// The token's `iss`: the authorization server that issued it.
    pub issuer: String,
    /// The token's `sub`: the user, or the client itself in the client credentials flow.
    pub subject: String,
    /// The client the token was issued to (`client_id`, else `azp`), when the token says.
    pub client_id: Option<String>,
    /// The scopes granted (`scope`, space-separated, or `scp`, a list).
    pub scopes: BTreeSet<String>,
    /// When the token expires (`exp`), in seconds since the Unix epoch.
    pub expires_at: u64,
}

impl Principal {
    /// The principal's name in the executor's state: the issuer and the subject, so that the
    /// same `sub` of two authorization servers is two principals.
    pub fn id(&self) -> String {
        format!("{} {}", self.issuer, self.subject)
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }
}
