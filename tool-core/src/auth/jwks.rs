//! The authorization server's signing keys (a JWKS), fetched, cached and refreshed, every
//! fetch bounded in time and size.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::refusal::TokenRefusal;

/// How keys are fetched.
#[derive(Debug, Clone, Copy)]
pub(super) struct FetchLimits {
    /// The longest a fetch may take, connecting included.
    pub(super) timeout: Duration,
    /// The most bytes of a key set (or a metadata document) read.
    pub(super) max_bytes: usize,
    /// How long fetched keys are used before they are fetched again.
    pub(super) ttl: Duration,
    /// The least time between two fetches a token with an unknown key id causes, so that a
    /// stream of made-up key ids costs one fetch per interval, not one per request.
    pub(super) min_refresh: Duration,
}

/// One signing key: what verifies, and the algorithm the key set names for it, if any.
struct Key {
    decoding: DecodingKey,
    algorithm: Option<Algorithm>,
}

#[derive(Default)]
struct Cached {
    keys: HashMap<String, Arc<Key>>,
    /// The keys without a `kid`, usable by a token that names none.
    unnamed: Vec<Arc<Key>>,
    fetched: Option<Instant>,
    tried: Option<Instant>,
}

/// The key set at `uri`.
pub(super) struct KeySet {
    uri: String,
    client: reqwest::Client,
    limits: FetchLimits,
    cached: tokio::sync::RwLock<Cached>,
    /// Held while fetching: concurrent requests wait for one fetch instead of each making one.
    fetching: tokio::sync::Mutex<()>,
}

impl KeySet {
    pub(super) fn new(uri: String, client: reqwest::Client, limits: FetchLimits) -> KeySet {
        KeySet { uri, client, limits, cached: Default::default(), fetching: Default::default() }
    }

    /// The key that verifies a token naming `kid` and signed with `algorithm`: from the cache,
    /// or fetched when the cache is old, or when it lacks the key (at most once per
    /// `min_refresh`: the authorization server may have rotated its keys).
    pub(super) async fn key(&self, kid: Option<&str>, algorithm: Algorithm) -> Result<DecodingKey, TokenRefusal> {
        if let Some(key) = self.cached_key(kid, algorithm).await? {
            return Ok(key);
        }
        let _fetching = self.fetching.lock().await;
        {
            // Another request may have fetched while this one waited for the lock.
            if let Some(key) = self.cached_key(kid, algorithm).await? {
                return Ok(key);
            }
            let cached = self.cached.read().await;
            if cached.tried.is_some_and(|at| at.elapsed() < self.limits.min_refresh) {
                // Fetched (or tried) a moment ago: keys kept past their time still serve.
                return match pick(&cached, kid, algorithm)? {
                    Some(key) => Ok(key),
                    None if cached.fetched.is_none() => Err(self.unavailable("it failed a moment ago")),
                    None => Err(unknown_key(kid)),
                };
            }
        }
        let fetched = self.fetch().await;
        let mut cached = self.cached.write().await;
        cached.tried = Some(Instant::now());
        match fetched {
            Ok((keys, unnamed)) => {
                cached.keys = keys;
                cached.unnamed = unnamed;
                cached.fetched = cached.tried;
            }
            Err(why) => {
                tracing::warn!(target: "tools", jwks = %self.uri, %why, "the authorization server's keys were not fetched");
                if cached.fetched.is_none() {
                    return Err(self.unavailable(&why));
                }
            }
        }
        pick(&cached, kid, algorithm)?.ok_or_else(|| unknown_key(kid))
    }

    /// The key from keys fetched within their time to live, if they have it.
    async fn cached_key(&self, kid: Option<&str>, algorithm: Algorithm) -> Result<Option<DecodingKey>, TokenRefusal> {
        let cached = self.cached.read().await;
        match cached.fetched.is_some_and(|at| at.elapsed() < self.limits.ttl) {
            true => pick(&cached, kid, algorithm),
            false => Ok(None),
        }
    }

    fn unavailable(&self, why: &str) -> TokenRefusal {
        TokenRefusal::AuthorizationServerUnavailable(format!(
            "the authorization server's keys ({}) could not be fetched: {why}; retry shortly",
            self.uri
        ))
    }

    /// The key set as served, read within the limits; keys this crate cannot or must not use
    /// are left out (symmetric keys, encryption keys, unknown types).
    async fn fetch(&self) -> Result<(HashMap<String, Arc<Key>>, Vec<Arc<Key>>), String> {
        let document = fetch_json(self.client.get(&self.uri), self.limits).await?;
        let listed = document.get("keys").and_then(Value::as_array).ok_or("the document has no `keys` list")?;
        let (mut keys, mut unnamed) = (HashMap::new(), Vec::new());
        for entry in listed {
            let Ok(jwk) = serde_json::from_value::<Jwk>(entry.clone()) else { continue };
            if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
                // A shared secret published as a key verifies nothing: anyone could sign.
                continue;
            }
            if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
                continue;
            }
            let Ok(decoding) = DecodingKey::from_jwk(&jwk) else { continue };
            let algorithm = jwk.common.key_algorithm.and_then(signing_algorithm);
            let key = Arc::new(Key { decoding, algorithm });
            match jwk.common.key_id {
                Some(kid) => {
                    keys.insert(kid, key);
                }
                None => unnamed.push(key),
            }
        }
        Ok((keys, unnamed))
    }
}

/// The key for `kid` and `algorithm` in `cached`: `None` when there is none; refused when the
/// key exists but is for another algorithm (a token signed for one key family but verified
/// with another is the algorithm-confusion attack).
fn pick(cached: &Cached, kid: Option<&str>, algorithm: Algorithm) -> Result<Option<DecodingKey>, TokenRefusal> {
    let fits =
        |key: &Key| key.decoding.family() == algorithm.family() && key.algorithm.is_none_or(|named| named == algorithm);
    match kid {
        Some(kid) => match cached.keys.get(kid) {
            Some(key) if fits(key) => Ok(Some(key.decoding.clone())),
            Some(_) => Err(TokenRefusal::Algorithm(format!(
                "the access token is signed with {algorithm:?}, which its key `{}` is not for",
                crate::model::truncate(kid)
            ))),
            None => Ok(None),
        },
        None => {
            let candidates: Vec<&Arc<Key>> =
                cached.unnamed.iter().chain(cached.keys.values()).filter(|key| fits(key)).collect();
            match candidates.as_slice() {
                [only] => Ok(Some(only.decoding.clone())),
                [] => Ok(None),
                _ => Err(TokenRefusal::UnknownKey(
                    "the access token names no key (`kid`) and the authorization server has several".to_owned(),
                )),
            }
        }
    }
}

fn unknown_key(kid: Option<&str>) -> TokenRefusal {
    TokenRefusal::UnknownKey(match kid {
        Some(kid) => format!("the authorization server has no key `{}`", crate::model::truncate(kid)),
        None => "the access token names no key (`kid`) and no key of its algorithm is published".to_owned(),
    })
}

/// The signing algorithm a key set names for a key; `None` for one that is not for signing.
fn signing_algorithm(named: KeyAlgorithm) -> Option<Algorithm> {
    Some(match named {
        KeyAlgorithm::HS256 => Algorithm::HS256,
        KeyAlgorithm::HS384 => Algorithm::HS384,
        KeyAlgorithm::HS512 => Algorithm::HS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

/// The JSON document `request` answers, within `limits`' time and bytes.
pub(super) async fn fetch_json(request: reqwest::RequestBuilder, limits: FetchLimits) -> Result<Value, String> {
    let read = async {
        let mut response = request.send().await.map_err(|e| e.without_url().to_string())?;
        if !response.status().is_success() {
            return Err(format!("it answered HTTP {}", response.status().as_u16()));
        }
        if response.content_length().is_some_and(|length| length > limits.max_bytes as u64) {
            return Err(format!("it is larger than the {} bytes read", limits.max_bytes));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| e.without_url().to_string())? {
            if body.len() + chunk.len() > limits.max_bytes {
                return Err(format!("it is larger than the {} bytes read", limits.max_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice::<Value>(&body).map_err(|e| format!("it is not JSON: {e}"))
    };
    match tokio::time::timeout(limits.timeout, read).await {
        Ok(read) => read,
        Err(_) => Err(format!("it did not answer within {}", crate::model::duration_words(limits.timeout))),
    }
}
