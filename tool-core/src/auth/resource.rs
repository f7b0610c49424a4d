//! A server of this crate as an OAuth 2.1 resource server (the MCP authorization
//! specification): access tokens checked as JWTs against the authorization server's published
//! keys, and the protected resource metadata (RFC 9728) that tells a client where to get one.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use reqwest::Url;
use serde_json::{json, Map, Value};

use super::introspect::{Answers, Expected, Introspection};
use super::jwks::{fetch_json, FetchLimits, KeySet};
use super::principal;
use super::refusal::{AuthError, TokenRefusal};
use crate::model::Principal;

/// The algorithms accepted unless the host says otherwise: every public-key one.
const PUBLIC_KEY_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The most clock skew a host may allow between this server and the authorization server.
pub const MAX_LEEWAY: Duration = Duration::from_secs(300);

/// Checks the access tokens of requests to one resource (an MCP server's URL).
///
/// ```no_run
/// # async fn build() -> Result<(), Box<dyn std::error::Error>> {
/// use tool_core::auth::ResourceServer;
///
/// let auth = ResourceServer::builder("https://login.example.com", "https://tools.example.com/mcp")
///     .scopes_supported(["notes:read", "notes:write"])
///     .build()?;
/// let principal = auth.authenticate(Some("Bearer eyJhbGciOi..")).await?;
/// println!("{} may use {:?}", principal.subject, principal.scopes);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("issuer", &self.inner.settings.issuer)
            .field("resource", &self.inner.settings.resource)
            .field("algorithms", &self.inner.settings.algorithms)
            .finish_non_exhaustive()
    }
}

/// What the host set, as the builder left it.
#[derive(Debug)]
struct Settings {
    issuer: String,
    resource: String,
    /// The audiences accepted: the resource, then those the host added.
    audiences: Vec<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    scopes_supported: Vec<String>,
    resource_name: Option<String>,
    max_token_bytes: usize,
    limits: FetchLimits,
    /// The key set's URL as the host gave it; else read from the authorization server's
    /// metadata on first use.
    jwks_uri: Option<String>,
    /// Where tokens are introspected instead of read as JWTs, when the host says.
    introspection: Option<Introspection>,
}

struct Inner {
    settings: Settings,
    client: reqwest::Client,
    keys: tokio::sync::OnceCell<Arc<KeySet>>,
    /// The introspection answers kept.
    answers: Answers,
    /// When discovering the key set's URL last failed: a failing authorization server is asked
    /// again at most once per `min_refresh`.
    discovery_failed: Mutex<Option<(Instant, String)>>,
}

/// Builds a [`ResourceServer`].
#[derive(Debug)]
pub struct ResourceServerBuilder {
    settings: Settings,
}

impl ResourceServer {
    /// The most bytes of an access token read, unless the host says otherwise.
    pub const MAX_TOKEN_BYTES: usize = 16 * 1024;
    /// The most bytes of a key set or metadata document read, unless the host says otherwise.
    pub const MAX_JWKS_BYTES: usize = 1024 * 1024;

    /// A resource server for tokens issued by `issuer` (the authorization server's issuer URL)
    /// for `resource` (this server's public URL, such as `https://tools.example.com/mcp`: the
    /// tokens' audience, RFC 8707).
    pub fn builder(issuer: impl Into<String>, resource: impl Into<String>) -> ResourceServerBuilder {
        let resource = resource.into();
        ResourceServerBuilder {
            settings: Settings {
                issuer: issuer.into(),
                audiences: vec![resource.clone()],
                resource,
                algorithms: PUBLIC_KEY_ALGORITHMS.to_vec(),
                leeway: Duration::from_secs(30),
                scopes_supported: Vec::new(),
                resource_name: None,
                max_token_bytes: Self::MAX_TOKEN_BYTES,
                limits: FetchLimits {
                    timeout: Duration::from_secs(5),
                    max_bytes: Self::MAX_JWKS_BYTES,
                    ttl: Duration::from_secs(3600),
                    min_refresh: Duration::from_secs(30),
                },
                jwks_uri: None,
                introspection: None,
            },
        }
    }

    /// The issuer whose tokens are accepted.
    pub fn issuer(&self) -> &str {
        &self.inner.settings.issuer
    }

    /// This server's URL, as tokens must name it in `aud`.
    pub fn resource(&self) -> &str {
        &self.inner.settings.resource
    }

    /// Checks the `Authorization` header of a request: the principal its token speaks for,
    /// or why it is refused.
    ///
    /// # Errors
    /// No bearer token, one too long, malformed, unsigned or signed with an algorithm not
    /// accepted (HS256 included: a token signed with the public key as a shared secret), with
    /// an unknown key (after one fetch of the keys, at most one per 30 s), a bad signature,
    /// expired or not yet valid (beyond the leeway), for another audience or issuer, without
    /// `sub`; or the keys cannot be fetched.
    pub async fn authenticate(&self, authorization: Option<&str>) -> Result<Principal, TokenRefusal> {
        let inner = &self.inner;
        let Some(header) = authorization else { return Err(TokenRefusal::Missing) };
        let token = match header.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(TokenRefusal::NotBearer),
        };
        if token.len() > inner.settings.max_token_bytes {
            return Err(TokenRefusal::TooLarge { bytes: token.len(), max: inner.settings.max_token_bytes });
        }
        if let Some(introspection) = &inner.settings.introspection {
            let settings = &inner.settings;
            let expected =
                Expected { issuer: &settings.issuer, audiences: &settings.audiences, leeway: settings.leeway };
            return introspection.check(&inner.client, &inner.answers, token, expected, settings.limits).await;
        }
        let algorithm = self.algorithm_of(token)?;
        let header = jsonwebtoken::decode_header(token).map_err(|e| TokenRefusal::Malformed(e.to_string()))?;
        let keys = self.keys().await?;
        let key = keys.key(header.kid.as_deref(), algorithm).await?;
        let mut validation = Validation::new(algorithm);
        validation.leeway = inner.settings.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&inner.settings.issuer]);
        validation.set_audience(&inner.settings.audiences);
        validation.required_spec_claims = ["exp", "iss", "aud", "sub"].into_iter().map(str::to_owned).collect();
        let data =
            jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation).map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => TokenRefusal::Expired,
                ErrorKind::ImmatureSignature => TokenRefusal::NotYetValid,
                ErrorKind::InvalidAudience => TokenRefusal::Audience(inner.settings.resource.clone()),
                ErrorKind::InvalidIssuer => TokenRefusal::Issuer(inner.settings.issuer.clone()),
                ErrorKind::InvalidSignature => TokenRefusal::Signature,
                ErrorKind::MissingRequiredClaim(claim) => TokenRefusal::MissingClaim(claim.clone()),
                ErrorKind::InvalidAlgorithm => TokenRefusal::Algorithm(format!(
                    "the access token is signed with {algorithm:?}, which its key is not for"
                )),
                _ => TokenRefusal::Malformed(e.to_string()),
            })?;
        Ok(principal::of_claims(&data.claims))
    }

    /// The token's algorithm as its header names it, read before anything else is: `none`
    /// and every algorithm not accepted are refused by name.
    fn algorithm_of(&self, token: &str) -> Result<Algorithm, TokenRefusal> {
        let encoded = token.split('.').next().unwrap_or_default();
        let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(encoded.trim_end_matches('='))
            .map_err(|_| TokenRefusal::Malformed("its header is not base64url".to_owned()))?;
        let header: Value = serde_json::from_slice(&decoded)
            .map_err(|_| TokenRefusal::Malformed("its header is not a JSON object".to_owned()))?;
        let named = header.get("alg").and_then(Value::as_str).unwrap_or_default();
        if named.eq_ignore_ascii_case("none") || named.is_empty() {
            return Err(TokenRefusal::Algorithm("the access token is not signed (`alg: none`)".to_owned()));
        }
        let accepted = self.inner.settings.algorithms.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ");
        let refused = || {
            TokenRefusal::Algorithm(format!(
                "the access token is signed with {}; this server accepts {accepted}",
                clean(named)
            ))
        };
        let algorithm = named.parse::<Algorithm>().map_err(|_| refused())?;
        match self.inner.settings.algorithms.contains(&algorithm) {
            true => Ok(algorithm),
            false => Err(refused()),
        }
    }

    /// The key set: at the URL the host gave, or the one the authorization server's metadata
    /// names (RFC 8414, then OpenID Connect discovery), read once.
    async fn keys(&self) -> Result<Arc<KeySet>, TokenRefusal> {
        let inner = &self.inner;
        if let Some(keys) = inner.keys.get() {
            return Ok(Arc::clone(keys));
        }
        let failed = inner.discovery_failed.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some((_, why)) = failed.filter(|(at, _)| at.elapsed() < inner.settings.limits.min_refresh) {
            return Err(TokenRefusal::AuthorizationServerUnavailable(why));
        }
        let found = inner
            .keys
            .get_or_try_init(|| async {
                let uri = match &inner.settings.jwks_uri {
                    Some(uri) => uri.clone(),
                    None => self.discover().await?,
                };
                Ok::<_, String>(Arc::new(KeySet::new(uri, inner.client.clone(), inner.settings.limits)))
            })
            .await;
        match found {
            Ok(keys) => Ok(Arc::clone(keys)),
            Err(why) => {
                let why = format!("the authorization server's metadata could not be read: {why}; retry shortly");
                *inner.discovery_failed.lock().unwrap_or_else(|e| e.into_inner()) = Some((Instant::now(), why.clone()));
                Err(TokenRefusal::AuthorizationServerUnavailable(why))
            }
        }
    }

    /// The key set's URL from the authorization server's metadata, whose `issuer` must be
    /// the one configured (RFC 8414, section 3.3).
    async fn discover(&self) -> Result<String, String> {
        let inner = &self.inner;
        let mut failures = Vec::new();
        for url in metadata_urls(&inner.settings.issuer)? {
            match fetch_json(inner.client.get(&url), inner.settings.limits).await {
                Ok(metadata) => {
                    if metadata.get("issuer").and_then(Value::as_str) != Some(inner.settings.issuer.as_str()) {
                        return Err(format!("{url} names another issuer than {}", inner.settings.issuer));
                    }
                    let uri =
                        metadata.get("jwks_uri").and_then(Value::as_str).ok_or(format!("{url} has no jwks_uri"))?;
                    check_url("the key set's URL", uri).map_err(|e| e.to_string())?;
                    return Ok(uri.to_owned());
                }
                Err(why) => failures.push(format!("{url}: {why}")),
            }
        }
        Err(failures.join("; "))
    }

    /// The protected resource metadata (RFC 9728), served at [`metadata_path`](Self::metadata_path).
    pub fn metadata(&self) -> Value {
        let inner = &self.inner;
        let mut metadata = json!({
            "resource": inner.settings.resource,
            "authorization_servers": [inner.settings.issuer],
            "bearer_methods_supported": ["header"],
        });
        if !inner.settings.scopes_supported.is_empty() {
            metadata["scopes_supported"] = json!(inner.settings.scopes_supported);
        }
        if let Some(name) = &inner.settings.resource_name {
            metadata["resource_name"] = json!(name);
        }
        metadata
    }

    /// Where the metadata is served: `/.well-known/oauth-protected-resource` followed by the
    /// resource's path (`/mcp` for `https://tools.example.com/mcp`), as RFC 9728 says.
    pub fn metadata_path(&self) -> String {
        let path = Url::parse(&self.inner.settings.resource).map(|url| url.path().trim_end_matches('/').to_owned());
        format!("/.well-known/oauth-protected-resource{}", path.unwrap_or_default())
    }

    /// The metadata's URL, as challenges name it.
    pub fn metadata_url(&self) -> String {
        match Url::parse(&self.inner.settings.resource) {
            Ok(url) => format!("{}{}", url.origin().ascii_serialization(), self.metadata_path()),
            Err(_) => self.metadata_path(),
        }
    }

    /// The `WWW-Authenticate` value of an answer refusing a token: where the metadata is, and
    /// why the token was refused (none for a request without one).
    pub fn challenge(&self, refusal: &TokenRefusal) -> String {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        if let Some(error) = refusal.error_code() {
            challenge.push_str(&format!(", error=\"{error}\", error_description=\"{}\"", clean(&refusal.to_string())));
        }
        challenge
    }

    /// The `WWW-Authenticate` value of a `403` for a token without the scopes `needed`, which
    /// a client asks for when it steps up.
    pub fn insufficient_scope(&self, needed: &[String]) -> String {
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", error_description=\"{}\"",
            clean(&needed.join(" ")),
            self.metadata_url(),
            clean(&format!("the access token lacks the scope {}", needed.join(" ")))
        )
    }
}

/// `text` as a quoted-string of a challenge: printable ASCII, without quotes or backslashes.
fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' { c } else { '?' }).collect()
}

/// Where an issuer's metadata may be: RFC 8414's well-known URL (the issuer's path after it),
/// then OpenID Connect's (the path before it).
fn metadata_urls(issuer: &str) -> Result<Vec<String>, String> {
    let url = Url::parse(issuer).map_err(|e| e.to_string())?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    Ok(vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ])
}

/// An `https` URL, or `http` on a loopback host.
fn check_url(what: &'static str, url: &str) -> Result<(), AuthError> {
    let refused = |why: &str| AuthError::Url { what, url: url.to_owned(), why: why.to_owned() };
    let parsed = Url::parse(url).map_err(|e| refused(&e.to_string()))?;
    let loopback = match parsed.host_str() {
        Some("localhost") => true,
        Some(host) => host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()),
        None => return Err(refused("it has no host")),
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(refused("use https (plain http only on a loopback host)")),
    }
}

impl ResourceServerBuilder {
    /// Fetches the keys from `uri` instead of the URL the authorization server's metadata
    /// names.
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.settings.jwks_uri = Some(uri.into());
        self
    }

    /// Accepts tokens for `audience` too, besides the resource's URL.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.settings.audiences.push(audience.into());
        self
    }

    /// The signing algorithms accepted (every public-key one by default); a shared-secret one
    /// (HS*) is refused by `build`.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.settings.algorithms = algorithms.into_iter().collect();
        self
    }

    /// The clock skew allowed on `exp` and `nbf`: 30 seconds by default, at most
    /// [`MAX_LEEWAY`].
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.settings.leeway = leeway.min(MAX_LEEWAY);
        self
    }

    /// The scopes the metadata lists (`scopes_supported`).
    pub fn scopes_supported<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.settings.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A name for people, in the metadata (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.settings.resource_name = Some(name.into());
        self
    }

    /// The longest token read ([`ResourceServer::MAX_TOKEN_BYTES`], 16 KiB, by default).
    pub fn max_token_bytes(mut self, bytes: usize) -> Self {
        self.settings.max_token_bytes = bytes.max(1);
        self
    }

    /// The longest a fetch of the keys or the metadata may take (5 s by default).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.settings.limits.timeout = timeout;
        self
    }

    /// The most bytes of a key set or metadata read ([`ResourceServer::MAX_JWKS_BYTES`], 1 MiB).
    pub fn max_jwks_bytes(mut self, bytes: usize) -> Self {
        self.settings.limits.max_bytes = bytes.max(1);
        self
    }

    /// How long fetched keys are used before they are fetched again (an hour by default).
    pub fn jwks_ttl(mut self, ttl: Duration) -> Self {
        self.settings.limits.ttl = ttl;
        self
    }

    /// The least time between two fetches of the keys that tokens with unknown key ids (or a
    /// failing authorization server) cause (30 s by default).
    pub fn jwks_min_refresh(mut self, interval: Duration) -> Self {
        self.settings.limits.min_refresh = interval;
        self
    }

    /// Asks the authorization server's introspection endpoint (RFC 7662) about each token
    /// instead of reading it as a JWT, authenticating as the client `client_id` with
    /// `client_secret` (HTTP Basic): for opaque tokens, and where a revoked token must stop
    /// working at once. An answer is kept 30 s ([`introspection_cache`](Self::introspection_cache)).
    pub fn introspection(
        mut self,
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.settings.introspection = Some(Introspection {
            endpoint: endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            keep: Duration::from_secs(30),
        });
        self
    }

    /// How long an introspection answer is kept (30 s by default; zero asks every time): a
    /// revoked token works at most this long after.
    pub fn introspection_cache(mut self, keep: Duration) -> Self {
        if let Some(introspection) = &mut self.settings.introspection {
            introspection.keep = keep;
        }
        self
    }

    /// The resource server.
    ///
    /// # Errors
    /// The issuer, the resource or the key set's URL is not an `https` URL (plain `http` is
    /// accepted on a loopback host); a shared-secret algorithm is accepted; none is.
    pub fn build(self) -> Result<ResourceServer, AuthError> {
        let mut settings = self.settings;
        check_url("the issuer", &settings.issuer)?;
        Url::parse(&settings.resource).map_err(|e| AuthError::Url {
            what: "the resource",
            url: settings.resource.clone(),
            why: e.to_string(),
        })?;
        if let Some(uri) = &settings.jwks_uri {
            check_url("the key set's URL", uri)?;
        }
        if let Some(introspection) = &settings.introspection {
            check_url("the introspection endpoint", &introspection.endpoint)?;
        }
        if let Some(symmetric) = settings.algorithms.iter().find(|a| a.family() == jsonwebtoken::AlgorithmFamily::Hmac)
        {
            return Err(AuthError::SymmetricAlgorithm(*symmetric));
        }
        // Shared-secret ones refused above, the rest are public-key ones: kept once each, in
        // the order the challenge names them.
        settings.algorithms = PUBLIC_KEY_ALGORITHMS.into_iter().filter(|a| settings.algorithms.contains(a)).collect();
        if settings.algorithms.is_empty() {
            return Err(AuthError::NoAlgorithm);
        }
        // Each fetch is bounded as a whole (connecting, the headers, the body) by `fetch_json`.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| AuthError::Client(e.to_string()))?;
        Ok(ResourceServer {
            inner: Arc::new(Inner {
                settings,
                client,
                keys: tokio::sync::OnceCell::new(),
                answers: Answers::default(),
                discovery_failed: Mutex::new(None),
            }),
        })
    }
}
