//! A local authorization server for the OAuth tests, a test fixture and not product code: it
//! signs access tokens with test keys (`tests/data/oauth`, made with openssl for these tests
//! alone: two RSA keys and a P-256 key) and serves its metadata (RFC 8414) and its key set
//! (JWKS), which a test can change (a key rotation), stall or blow up to 100 MB. For the import's
//! side it is a whole authorization server: dynamic registration, an authorization page that
//! approves at once (PKCE S256 required), and a token endpoint for the authorization code,
//! refresh and client credentials grants, with the lifetime of its tokens chosen by the test.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

const KEYS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/oauth");

/// What `/jwks` answers.
#[derive(Clone, Debug)]
pub enum Jwks {
    /// These keys (by id: `rsa1`, `rsa2`, `ec1`).
    Keys(Vec<&'static str>),
    /// Nothing, ever: the request hangs.
    Hang,
    /// A body of 100 MB, streamed, without a length.
    Huge,
}

struct Shared {
    issuer: String,
    jwks: Mutex<Jwks>,
    fetches: AtomicUsize,
    /// Opaque tokens and what introspection says of them.
    opaque: Mutex<std::collections::HashMap<String, Value>>,
    introspections: AtomicUsize,
    /// Codes given by `/authorize`, not yet exchanged.
    codes: Mutex<std::collections::HashMap<String, Grant>>,
    /// Refresh tokens given, and what they grant.
    refreshes: Mutex<std::collections::HashMap<String, Grant>>,
    /// How many tokens each grant type got (`authorization_code`, `refresh_token`, ...).
    grants: Mutex<Vec<String>>,
    /// Clients registered dynamically.
    registered: AtomicUsize,
    /// Seconds the access tokens given live.
    lifetime: AtomicUsize,
    /// The subject of the tokens the authorization page gives.
    user: Mutex<String>,
}

/// What a code or a refresh token stands for.
#[derive(Clone, Debug)]
struct Grant {
    client_id: String,
    scope: String,
    resource: String,
    redirect_uri: String,
    challenge: String,
}

/// The client the resource server introspects as.
pub const CLIENT_ID: &str = "resource-server";
pub const CLIENT_SECRET: &str = "a secret: with spaces & symbols";

/// A running authorization server on 127.0.0.1; stopped when dropped.
pub struct AuthServer {
    shared: Arc<Shared>,
    address: SocketAddr,
    stop: CancellationToken,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl AuthServer {
    /// Starts serving, publishing `rsa1` and `ec1`.
    pub async fn start() -> AuthServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let address = listener.local_addr().expect("its address");
        let shared = Arc::new(Shared {
            issuer: format!("http://{address}"),
            jwks: Mutex::new(Jwks::Keys(vec!["rsa1", "ec1"])),
            fetches: AtomicUsize::new(0),
            opaque: Mutex::default(),
            introspections: AtomicUsize::new(0),
            codes: Mutex::default(),
            refreshes: Mutex::default(),
            grants: Mutex::default(),
            registered: AtomicUsize::new(0),
            lifetime: AtomicUsize::new(300),
            user: Mutex::new("alice".to_owned()),
        });
        let router = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .route("/introspect", axum::routing::post(introspect))
            .route("/authorize", get(authorize))
            .route("/token", axum::routing::post(token))
            .route("/register", axum::routing::post(register))
            .with_state(Arc::clone(&shared));
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).with_graceful_shutdown(stopped.cancelled_owned()).await;
        });
        AuthServer { shared, address, stop }
    }

    /// The issuer URL, as tokens and metadata give it.
    pub fn issuer(&self) -> String {
        self.shared.issuer.clone()
    }

    /// The key set's URL.
    pub fn jwks_uri(&self) -> String {
        format!("http://{}/jwks", self.address)
    }

    /// What `/jwks` answers from now on.
    pub fn serve_jwks(&self, jwks: Jwks) {
        *self.shared.jwks.lock().unwrap() = jwks;
    }

    /// The introspection endpoint's URL.
    pub fn introspection_uri(&self) -> String {
        format!("http://{}/introspect", self.address)
    }

    /// An opaque token that introspection answers with `claims` (and `active`).
    pub fn opaque(&self, claims: &Value) -> String {
        let mut opaque = self.shared.opaque.lock().unwrap();
        let token = format!("opaque{}", opaque.len() + 1);
        opaque.insert(token.clone(), claims.clone());
        token
    }

    /// Revokes an opaque token: introspection says it is not active.
    pub fn revoke(&self, token: &str) {
        self.shared.opaque.lock().unwrap().remove(token);
    }

    /// How many times `/introspect` was asked.
    pub fn introspections(&self) -> usize {
        self.shared.introspections.load(Ordering::SeqCst)
    }

    /// Access tokens given from now on live `seconds`.
    pub fn token_lifetime(&self, seconds: usize) {
        self.shared.lifetime.store(seconds, Ordering::SeqCst);
    }

    /// The grant types of the tokens given so far, in order.
    pub fn grants(&self) -> Vec<String> {
        self.shared.grants.lock().unwrap().clone()
    }

    /// How many clients registered dynamically.
    pub fn registered(&self) -> usize {
        self.shared.registered.load(Ordering::SeqCst)
    }

    /// How many times `/jwks` was asked.
    pub fn fetches(&self) -> usize {
        self.shared.fetches.load(Ordering::SeqCst)
    }

    /// Claims for `subject` valid for five minutes, for the resource `audience`, granting
    /// `scope`.
    pub fn claims(&self, subject: &str, audience: &str, scope: &str) -> Value {
        let now = now();
        json!({"iss": self.issuer(), "sub": subject, "aud": audience, "scope": scope,
               "client_id": "test-client", "iat": now, "exp": now + 300})
    }

    /// `claims` signed with the test key `kid` (RS256 for an RSA key, ES256 for `ec1`).
    pub fn token(&self, kid: &str, claims: &Value) -> String {
        let (algorithm, key) = signing_key(kid);
        let mut header = Header::new(algorithm);
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, &key).expect("the test key signs")
    }

    /// `claims` signed with `algorithm` and the key `kid`, whatever the key is for: the forged
    /// tokens of the algorithm-confusion tests.
    pub fn token_with(&self, kid: &str, algorithm: Algorithm, key: &EncodingKey, claims: &Value) -> String {
        let mut header = Header::new(algorithm);
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, key).expect("the key signs")
    }
}

/// The public key of `kid` in PEM, as an attacker who read the key set could have it.
pub fn public_pem(kid: &str) -> Vec<u8> {
    std::fs::read(format!("{KEYS}/{kid}.pub.pem")).expect("the test key")
}

fn signing_key(kid: &str) -> (Algorithm, EncodingKey) {
    let pem = std::fs::read(format!("{KEYS}/{kid}.pem")).expect("the test key");
    match kid.starts_with("ec") {
        true => (Algorithm::ES256, EncodingKey::from_ec_pem(&pem).expect("a P-256 key")),
        false => (Algorithm::RS256, EncodingKey::from_rsa_pem(&pem).expect("an RSA key")),
    }
}

async fn metadata(State(shared): State<Arc<Shared>>) -> Response {
    let issuer = &shared.issuer;
    let body = json!({
        "issuer": issuer,
        "jwks_uri": format!("{issuer}/jwks"),
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
        "scopes_supported": ["notes:read", "notes:write", "offline_access"],
    });
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

async fn jwks(State(shared): State<Arc<Shared>>) -> Response {
    shared.fetches.fetch_add(1, Ordering::SeqCst);
    let jwks = shared.jwks.lock().unwrap().clone();
    match jwks {
        Jwks::Keys(kids) => {
            let all: Value =
                serde_json::from_str(&std::fs::read_to_string(format!("{KEYS}/jwks.json")).unwrap()).unwrap();
            let keys: Vec<Value> = kids.iter().map(|kid| all[*kid].clone()).collect();
            ([(header::CONTENT_TYPE, "application/json")], json!({"keys": keys}).to_string()).into_response()
        }
        Jwks::Hang => {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            "never".into_response()
        }
        Jwks::Huge => {
            let chunk = axum::body::Bytes::from(vec![b' '; 1 << 20]);
            let chunks = futures_util::stream::iter((0..100).map(move |_| Ok::<_, std::io::Error>(chunk.clone())));
            Response::new(Body::from_stream(chunks))
        }
    }
}

async fn introspect(State(shared): State<Arc<Shared>>, headers: axum::http::HeaderMap, body: String) -> Response {
    use base64::Engine as _;
    shared.introspections.fetch_add(1, Ordering::SeqCst);
    // The client authenticates with HTTP Basic, its id and secret form-encoded (RFC 6749, 2.3.1).
    let expected = format!("{}:{}", form_encoded(CLIENT_ID), form_encoded(CLIENT_SECRET));
    let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(expected));
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return (axum::http::StatusCode::UNAUTHORIZED, "unknown client").into_response();
    }
    let token = body.split('&').find_map(|pair| pair.strip_prefix("token=")).unwrap_or_default();
    let answer = match shared.opaque.lock().unwrap().get(token) {
        Some(Value::Object(claims)) => {
            let mut answer = claims.clone();
            answer.insert("active".to_owned(), Value::Bool(true));
            Value::Object(answer)
        }
        _ => json!({"active": false}),
    };
    ([(header::CONTENT_TYPE, "application/json")], answer.to_string()).into_response()
}

fn form_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => (byte as char).to_string(),
            b' ' => "+".to_owned(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// Registers any client (RFC 7591), as a public client.
async fn register(State(shared): State<Arc<Shared>>, axum::Json(asked): axum::Json<Value>) -> Response {
    let number = shared.registered.fetch_add(1, Ordering::SeqCst) + 1;
    let body = json!({
        "client_id": format!("registered-{number}"),
        "client_name": asked.get("client_name"),
        "redirect_uris": asked.get("redirect_uris"),
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
    });
    (axum::http::StatusCode::CREATED, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The authorization page: the user approves at once, and the browser goes back to the
/// redirect URI with a code, the `state` and the issuer (RFC 9207).
async fn authorize(
    State(shared): State<Arc<Shared>>,
    axum::extract::Query(query): axum::extract::Query<std::collections::HashMap<String, String>>,
) -> Response {
    let field = |name: &str| query.get(name).cloned().unwrap_or_default();
    if field("code_challenge_method") != "S256" || field("code_challenge").is_empty() {
        return (axum::http::StatusCode::BAD_REQUEST, "PKCE with S256 is required").into_response();
    }
    let code = format!("code{}", shared.codes.lock().unwrap().len() + shared.grants.lock().unwrap().len() + 1);
    let grant = Grant {
        client_id: field("client_id"),
        scope: field("scope"),
        resource: field("resource"),
        redirect_uri: field("redirect_uri"),
        challenge: field("code_challenge"),
    };
    shared.codes.lock().unwrap().insert(code.clone(), grant);
    let mut back = reqwest::Url::parse(&field("redirect_uri")).expect("a redirect URI");
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &field("state"))
        .append_pair("iss", &shared.issuer);
    (axum::http::StatusCode::FOUND, [(header::LOCATION, back.to_string())]).into_response()
}

/// The token endpoint: the authorization code (its PKCE verifier and redirect URI checked),
/// refresh tokens, and client credentials (`machine` / `machine-secret`).
async fn token(
    State(shared): State<Arc<Shared>>,
    axum::extract::Form(form): axum::extract::Form<std::collections::HashMap<String, String>>,
) -> Response {
    use sha2::Digest;
    let field = |name: &str| form.get(name).cloned().unwrap_or_default();
    let refused = |error: &str| {
        (
            axum::http::StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            json!({"error": error}).to_string(),
        )
            .into_response()
    };
    let grant_type = field("grant_type");
    let (grant, subject) = match grant_type.as_str() {
        "authorization_code" => {
            let Some(grant) = shared.codes.lock().unwrap().remove(&field("code")) else {
                return refused("invalid_grant");
            };
            let verifier = base64::Engine::encode(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                sha2::Sha256::digest(field("code_verifier").as_bytes()),
            );
            if verifier != grant.challenge || field("redirect_uri") != grant.redirect_uri {
                return refused("invalid_grant");
            }
            (grant, shared.user.lock().unwrap().clone())
        }
        "refresh_token" => {
            let Some(grant) = shared.refreshes.lock().unwrap().get(&field("refresh_token")).cloned() else {
                return refused("invalid_grant");
            };
            (grant, shared.user.lock().unwrap().clone())
        }
        "client_credentials" => {
            if field("client_id") != "machine" || field("client_secret") != "machine-secret" {
                return refused("invalid_client");
            }
            let grant = Grant {
                client_id: "machine".to_owned(),
                scope: field("scope"),
                resource: field("resource"),
                redirect_uri: String::new(),
                challenge: String::new(),
            };
            (grant, "machine".to_owned())
        }
        _ => return refused("unsupported_grant_type"),
    };
    shared.grants.lock().unwrap().push(grant_type.clone());
    let lifetime = shared.lifetime.load(Ordering::SeqCst) as u64;
    let now = now();
    let claims = json!({"iss": shared.issuer, "sub": subject, "aud": grant.resource, "scope": grant.scope,
                        "client_id": grant.client_id, "iat": now, "exp": now + lifetime});
    let (algorithm, key) = signing_key("rsa1");
    let mut header = Header::new(algorithm);
    header.kid = Some("rsa1".to_owned());
    let access = jsonwebtoken::encode(&header, &claims, &key).expect("the test key signs");
    let mut body =
        json!({"access_token": access, "token_type": "Bearer", "expires_in": lifetime, "scope": grant.scope});
    if grant_type != "client_credentials" {
        let mut refreshes = shared.refreshes.lock().unwrap();
        let refresh = format!("refresh{}", refreshes.len() + 1);
        refreshes.insert(refresh.clone(), grant);
        body["refresh_token"] = json!(refresh);
    }
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}
