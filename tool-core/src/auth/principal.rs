//! Who an access token speaks for, read from its claims.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::model::Principal;

/// The principal of checked claims (`iss`, `sub` and `exp` present: the validation required
/// them).
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
