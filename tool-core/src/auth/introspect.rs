//! Token introspection (RFC 7662): the authorization server says whether a token is active and
//! what it grants, for opaque tokens and for hosts that want revocation to take effect at once.
//! Answers are kept a short while, so that a client's requests cost one question each interval.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::{Map, Value};

use super::jwks::{fetch_json, FetchLimits};
use super::principal;
use super::refusal::TokenRefusal;
use crate::model::Principal;

/// The most answers kept at once: past it, the expired ones are dropped, and if none is, all.
const MAX_KEPT: usize = 10_000;

/// Where and as whom the resource server asks.
#[derive(Debug, Clone)]
pub(super) struct Introspection {
    pub(super) endpoint: String,
    pub(super) client_id: String,
    pub(super) client_secret: String,
    /// How long an answer is kept (revocation takes effect within it).
    pub(super) keep: Duration,
}

/// An answer, and when it was given.
type Kept = (Instant, Result<Principal, TokenRefusal>);

/// The answers kept, by the token's digest.
#[derive(Default)]
pub(super) struct Answers {
    kept: Mutex<HashMap<String, Kept>>,
}

/// What a check of the answer needs.
pub(super) struct Expected<'a> {
    pub(super) issuer: &'a str,
    pub(super) audiences: &'a [String],
    pub(super) leeway: Duration,
}

impl Introspection {
    /// The principal of `token` as the authorization server says, or why it is refused.
    pub(super) async fn check(
        &self,
        client: &reqwest::Client,
        answers: &Answers,
        token: &str,
        expected: Expected<'_>,
        limits: FetchLimits,
    ) -> Result<Principal, TokenRefusal> {
        let key = crate::state::digest(token.as_bytes());
        let kept = answers.kept.lock().unwrap_or_else(|e| e.into_inner()).get(&key).cloned();
        if let Some((_, answer)) = kept.filter(|(at, _)| at.elapsed() < self.keep) {
            return answer;
        }
        let answer = self.ask(client, token, &expected, limits).await;
        // An answer the server could not give is not kept: the next request asks again.
        if !matches!(answer, Err(TokenRefusal::AuthorizationServerUnavailable(_))) && !self.keep.is_zero() {
            let mut kept = answers.kept.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() >= MAX_KEPT {
                kept.retain(|_, (at, _)| at.elapsed() < self.keep);
                if kept.len() >= MAX_KEPT {
                    kept.clear();
                }
            }
            kept.insert(key, (Instant::now(), answer.clone()));
        }
        answer
    }

    async fn ask(
        &self,
        client: &reqwest::Client,
        token: &str,
        expected: &Expected<'_>,
        limits: FetchLimits,
    ) -> Result<Principal, TokenRefusal> {
        // client_secret_basic: the id and the secret form-encoded, then joined (RFC 6749, 2.3.1).
        let credentials = format!("{}:{}", form_encode(&self.client_id), form_encode(&self.client_secret));
        let basic = base64::engine::general_purpose::STANDARD.encode(credentials);
        let request = client
            .post(&self.endpoint)
            .header("authorization", format!("Basic {basic}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(format!("token={}&token_type_hint=access_token", form_encode(token)));
        let answer = fetch_json(request, limits).await.map_err(|why| {
            TokenRefusal::AuthorizationServerUnavailable(format!(
                "the authorization server's introspection endpoint ({}) could not be asked: {why}; retry shortly",
                self.endpoint
            ))
        })?;
        let Value::Object(claims) = answer else {
            return Err(TokenRefusal::AuthorizationServerUnavailable(format!(
                "the authorization server's introspection endpoint ({}) answered something other than an object; retry shortly",
                self.endpoint
            )));
        };
        check(claims, expected)
    }
}

/// The principal of an introspection answer, checked as a JWT's claims are: active, not
/// expired (within the leeway), of the issuer and for this resource where it says.
fn check(mut claims: Map<String, Value>, expected: &Expected<'_>) -> Result<Principal, TokenRefusal> {
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err(TokenRefusal::Inactive);
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let leeway = expected.leeway.as_secs();
    if claims.get("exp").and_then(Value::as_u64).is_some_and(|exp| exp + leeway < now) {
        return Err(TokenRefusal::Expired);
    }
    if claims.get("nbf").and_then(Value::as_u64).is_some_and(|nbf| nbf > now + leeway) {
        return Err(TokenRefusal::NotYetValid);
    }
    match claims.get("iss").and_then(Value::as_str) {
        Some(issuer) if issuer != expected.issuer => return Err(TokenRefusal::Issuer(expected.issuer.to_owned())),
        Some(_) => {}
        None => {
            claims.insert("iss".to_owned(), Value::from(expected.issuer));
        }
    }
    let named = match claims.get("aud") {
        None => true,
        Some(Value::String(audience)) => expected.audiences.contains(audience),
        Some(Value::Array(list)) => {
            list.iter().filter_map(Value::as_str).any(|a| expected.audiences.iter().any(|e| e == a))
        }
        Some(_) => false,
    };
    if !named {
        return Err(TokenRefusal::Audience(expected.audiences[0].clone()));
    }
    // A client's own token (client credentials) may name no user: the client is the subject.
    if claims.get("sub").and_then(Value::as_str).is_none() {
        let client = claims.get("client_id").cloned().ok_or_else(|| TokenRefusal::MissingClaim("sub".to_owned()))?;
        claims.insert("sub".to_owned(), client);
    }
    Ok(principal::of_claims(&claims))
}

/// `text` as `application/x-www-form-urlencoded` writes it.
fn form_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => encoded.push(byte as char),
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}
