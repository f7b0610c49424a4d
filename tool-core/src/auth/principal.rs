//! Who an access token speaks for.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Who a request comes from, as its access token says: the subject, the client that holds the
/// token, and the scopes it grants. The resource server puts it in the request's extensions;
/// the MCP server keys the principal's state by [`id`](Self::id), so two principals share no
/// conversation, handle, pending call or task even under the same ids.
#[derive(Debug, Clone, PartialEq, Eq)]
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

    /// The principal of checked claims (`iss`, `sub` and `exp` present: the validation
    /// required them).
    pub(super) fn of_claims(claims: &Map<String, Value>) -> Principal {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let mut scopes = BTreeSet::new();
        if let Some(scope) = claims.get("scope").and_then(Value::as_str) {
            scopes.extend(scope.split(' ').filter(|s| !s.is_empty()).map(str::to_owned));
        }
        if let Some(list) = claims.get("scp").and_then(Value::as_array) {
            scopes.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
        } else if let Some(scp) = claims.get("scp").and_then(Value::as_str) {
            scopes.extend(scp.split(' ').filter(|s| !s.is_empty()).map(str::to_owned));
        }
        Principal {
            issuer: text("iss").unwrap_or_default(),
            subject: text("sub").unwrap_or_default(),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            expires_at: claims.get("exp").and_then(Value::as_u64).unwrap_or_default(),
        }
    }
}
