//! The import as an OAuth 2.1 client (MCP authorization): discovery from the server's `401`,
//! client ID metadata documents, dynamic registration or a pre-registered client, the
//! authorization code with PKCE through the host's callback, client credentials, refresh, and
//! step-up on `403 insufficient_scope`. rmcp's `auth` module does the protocol; this file
//! decides when it runs and keeps the host's settings.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    ClientCredentialsConfig, CredentialStore, JwtSigningAlgorithm, StoredCredentials,
};
use rmcp::transport::AuthClient;
use tokio::sync::{Mutex, OnceCell};

use crate::model::ToolError;
use crate::state::{digest, Owner, SharedStore, StateKey, Write};

use super::failure::Challenge;

/// Step-ups of the scopes one import makes at most, unless told otherwise: a server that asks
/// for a new scope after every grant is not followed forever.
const MAX_STEP_UPS: u32 = 3;
/// How long stored tokens live in a state store without a new write (a refresh writes them).
const TOKEN_TTL: Duration = Duration::from_secs(90 * 24 * 60 * 60);

/// What the host is asked to do to authorize: send its user's browser to `url` (or show it),
/// and give back the URL the authorization server redirected the browser to (the redirect URI
/// with `code` and `state`), in full.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationPrompt {
    /// The authorization server's page, with the PKCE challenge and `state` in it.
    pub url: String,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// Whether this asks for more scopes than a token already held (a `403 insufficient_scope`).
    pub step_up: bool,
}

/// The host's part of the authorization code flow: `Ok` with the URL the browser came back to.
type Authorize = Arc<dyn Fn(AuthorizationPrompt) -> AuthorizeFuture + Send + Sync>;
type AuthorizeFuture = Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send>>;

/// How the client proves who it is.
#[derive(Clone)]
enum Grant {
    /// The authorization code with PKCE: a user signs in through the host's callback.
    Code {
        redirect_uri: String,
        authorize: Authorize,
        metadata_url: Option<String>,
        client_id: Option<String>,
        client_secret: Option<String>,
        client_name: Option<String>,
    },
    /// Client credentials with a secret (machine to machine).
    Secret { client_id: String, client_secret: String },
    /// Client credentials with a signed assertion (RFC 7523).
    PrivateKey { client_id: String, key_pem: Vec<u8>, algorithm: JwtSigningAlgorithm },
}

/// How an import authorizes to a server protected by OAuth 2.1, as MCP's authorization
/// specification says; given to [`McpImportBuilder::oauth`](super::McpImportBuilder::oauth).
///
/// Nothing happens until the server answers `401`: the import then reads the server's protected
/// resource metadata (from the challenge's `resource_metadata`, else the well-known paths), the
/// authorization server's metadata, and gets a token by the grant chosen here. Tokens are
/// refreshed before they expire and after the server refuses one; a `403 insufficient_scope`
/// asks for the union of the scopes held and the scope named (at most
/// [`max_step_ups`](OAuthClient::max_step_ups) times), and the call is sent again.
#[derive(Clone)]
#[must_use = "an OAuthClient does nothing until given to `McpImportBuilder::oauth`"]
pub struct OAuthClient {
    grant: Grant,
    scopes: Vec<String>,
    store: Option<SharedStore>,
    private_addresses: bool,
    max_step_ups: u32,
}

impl OAuthClient {
    /// The authorization code flow with PKCE: `authorize` is called with the page the user must
    /// visit and answers with the URL the authorization server sent the browser back to
    /// (`redirect_uri` with `code` and `state`). A desktop host opens the browser and listens on
    /// `redirect_uri`; a server-side host sends the user there and waits for its callback.
    ///
    /// The client is identified by the first that applies, in the specification's order: a
    /// pre-registered [`client_id`](OAuthClient::client_id), a
    /// [`client_metadata_url`](OAuthClient::client_metadata_url) when the authorization server
    /// supports client ID metadata documents, or dynamic client registration.
    pub fn authorization_code<F, Fut>(redirect_uri: impl Into<String>, authorize: F) -> OAuthClient
    where
        F: Fn(AuthorizationPrompt) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, ToolError>> + Send + 'static,
    {
        let authorize: Authorize = Arc::new(move |prompt| Box::pin(authorize(prompt)));
        OAuthClient::with_grant(Grant::Code {
            redirect_uri: redirect_uri.into(),
            authorize,
            metadata_url: None,
            client_id: None,
            client_secret: None,
            client_name: None,
        })
    }

    /// Client credentials (machine to machine, no user): the client's id and secret, sent as
    /// the authorization server's metadata says (HTTP Basic when it supports only that, else
    /// in the body).
    pub fn client_credentials(client_id: impl Into<String>, client_secret: impl Into<String>) -> OAuthClient {
        OAuthClient::with_grant(Grant::Secret { client_id: client_id.into(), client_secret: client_secret.into() })
    }

    /// Client credentials proven by a JWT the client signs with its private key (RFC 7523,
    /// `private_key_jwt`): `key_pem` is the key in PEM, `algorithm` one of `RS256`, `RS384`,
    /// `RS512`, `ES256`, `ES384`.
    ///
    /// # Errors
    /// Another algorithm, named in the error.
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        key_pem: impl Into<Vec<u8>>,
        algorithm: &str,
    ) -> Result<OAuthClient, ToolError> {
        let algorithm = match algorithm {
            "RS256" => JwtSigningAlgorithm::RS256,
            "RS384" => JwtSigningAlgorithm::RS384,
            "RS512" => JwtSigningAlgorithm::RS512,
            "ES256" => JwtSigningAlgorithm::ES256,
            "ES384" => JwtSigningAlgorithm::ES384,
            other => {
                return Err(ToolError::new(format!(
                    "`{other}` is not an algorithm for private_key_jwt: use RS256, RS384, RS512, ES256 or ES384"
                ))
                .with_code("oauth_configuration"))
            }
        };
        Ok(OAuthClient::with_grant(Grant::PrivateKey {
            client_id: client_id.into(),
            key_pem: key_pem.into(),
            algorithm,
        }))
    }

    fn with_grant(grant: Grant) -> OAuthClient {
        OAuthClient { grant, scopes: Vec::new(), store: None, private_addresses: false, max_step_ups: MAX_STEP_UPS }
    }

    /// The HTTPS URL of the client's metadata document (a client ID metadata document), used as
    /// its `client_id` by authorization servers that support them. Authorization code only.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> OAuthClient {
        if let Grant::Code { metadata_url, .. } = &mut self.grant {
            *metadata_url = Some(url.into());
        }
        self
    }

    /// A client id registered with the authorization server beforehand (and its secret, for a
    /// confidential client, with [`client_secret`](OAuthClient::client_secret)). Authorization
    /// code only; it comes before every other way of naming the client.
    pub fn client_id(mut self, id: impl Into<String>) -> OAuthClient {
        if let Grant::Code { client_id, .. } = &mut self.grant {
            *client_id = Some(id.into());
        }
        self
    }

    /// The secret of the pre-registered [`client_id`](OAuthClient::client_id).
    pub fn client_secret(mut self, secret: impl Into<String>) -> OAuthClient {
        if let Grant::Code { client_secret, .. } = &mut self.grant {
            *client_secret = Some(secret.into());
        }
        self
    }

    /// The name given at dynamic client registration (`MCP Client` otherwise).
    pub fn client_name(mut self, name: impl Into<String>) -> OAuthClient {
        if let Grant::Code { client_name, .. } = &mut self.grant {
            *client_name = Some(name.into());
        }
        self
    }

    /// The scopes asked for first. Without them the import asks for the scopes the server's
    /// challenge names, else those of its protected resource metadata, else none (and
    /// `offline_access` beside them when the authorization server supports it, for a refresh
    /// token).
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> OAuthClient {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps the tokens (and the registered client id) in `store`, so that a restart or another
    /// replica of the host uses them instead of asking the user again; in memory otherwise. They
    /// are stored as the authorization server gave them: a store shared with others must be
    /// one the host trusts (`docs/security.md`).
    pub fn token_store(mut self, store: SharedStore) -> OAuthClient {
        self.store = Some(store);
        self
    }

    /// Lets the metadata name an authorization server at a private address (`10.0.0.0/8`, ...)
    /// when the MCP server is at a public one; refused by default, so a server cannot point the
    /// import at the host's own network. A loopback server may always name loopback addresses.
    pub fn allow_private_addresses(mut self, allow: bool) -> OAuthClient {
        self.private_addresses = allow;
        self
    }

    /// Scope step-ups the import makes at most over its life (3 unless told otherwise).
    pub fn max_step_ups(mut self, step_ups: u32) -> OAuthClient {
        self.max_step_ups = step_ups;
        self
    }
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let grant = match &self.grant {
            Grant::Code { .. } => "authorization_code",
            Grant::Secret { .. } => "client_credentials (secret)",
            Grant::PrivateKey { .. } => "client_credentials (private_key_jwt)",
        };
        f.debug_struct("OAuthClient")
            .field("grant", &grant)
            .field("scopes", &self.scopes)
            .field("token_store", &self.store.as_ref().map(|store| store.kind()))
            .finish_non_exhaustive()
    }
}

/// One import's OAuth state: rmcp's manager, shared with the transport (which takes tokens from
/// it and refreshes them).
pub(super) struct Authorizer {
    client: OAuthClient,
    url: String,
    /// rmcp's HTTP client with the manager inside, made at the first connection.
    client_of_transport: OnceCell<AuthClient<reqwest::Client>>,
    step_ups: AtomicU32,
    /// Tokens got so far: a refusal seen before the latest is answered by it.
    given: AtomicU64,
}

impl Authorizer {
    pub(super) fn new(client: OAuthClient, url: String) -> Authorizer {
        Authorizer {
            client,
            url,
            client_of_transport: OnceCell::new(),
            step_ups: AtomicU32::new(0),
            given: AtomicU64::new(0),
        }
    }

    /// An HTTP client for the transport that sends the token held, refreshes it when it
    /// expires or is refused, and reports a `401` it cannot answer.
    pub(super) async fn http_client(&self) -> Result<AuthClient<reqwest::Client>, String> {
        let made = self
            .client_of_transport
            .get_or_try_init(|| async {
                let mut manager = self.fresh_manager().await?;
                if let Some(store) = &self.client.store {
                    manager.set_credential_store(StoredTokens::new(store.clone(), &self.url, &self.client));
                    // Tokens kept by another process or before a restart: their client is
                    // configured for refreshes, and those of another authorization server are
                    // dropped.
                    manager.initialize_from_store().await.map_err(|e| said(&e))?;
                }
                // As rmcp's own transport client, no idle pool; no redirects, so the token is
                // never sent to another origin.
                let http = reqwest::Client::builder()
                    .pool_max_idle_per_host(0)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|e| format!("no HTTP client: {e}"))?;
                Ok::<_, String>(AuthClient::new(http, manager))
            })
            .await?;
        Ok(made.clone())
    }

    async fn manager(&self) -> Result<Arc<Mutex<AuthorizationManager>>, String> {
        Ok(Arc::clone(&self.http_client().await?.auth_manager))
    }

    async fn fresh_manager(&self) -> Result<AuthorizationManager, String> {
        let made = if self.client.private_addresses {
            AuthorizationManager::new_allowing_private_addresses(self.url.as_str()).await
        } else {
            AuthorizationManager::new(self.url.as_str()).await
        };
        made.map_err(|e| said(&e))
    }

    /// How many tokens were got so far.
    pub(super) fn tokens_given(&self) -> u64 {
        self.given.load(Ordering::Acquire)
    }

    /// Answers the server's challenge to a request sent when [`tokens_given`](Self::tokens_given)
    /// was `seen`: a `401` gets a token by the grant; a `403 insufficient_scope` a token with
    /// more scopes. Concurrent refusals of one token are answered once: the others find a newer
    /// token and send their requests again with it. `Err` says why not, for the host.
    pub(super) async fn answer(&self, challenge: &Challenge, seen: u64) -> Result<(), String> {
        let manager = self.manager().await?;
        let mut manager = manager.lock().await;
        if self.tokens_given() != seen {
            return Ok(());
        }
        let answered = self.answer_now(&mut manager, challenge).await;
        if answered.is_ok() {
            self.given.fetch_add(1, Ordering::AcqRel);
        }
        answered
    }

    async fn answer_now(&self, manager: &mut AuthorizationManager, challenge: &Challenge) -> Result<(), String> {
        let resolution =
            manager.resolve_metadata_from_challenge(Some(&challenge.header)).await.map_err(|e| said(&e))?;
        manager.set_metadata(resolution.metadata);
        if let Some(scope) = challenge.insufficient_scope.as_deref() {
            return self.step_up(manager, scope).await;
        }
        match &self.client.grant {
            Grant::Code { .. } => self.authorization_code(manager, challenge).await,
            Grant::Secret { .. } | Grant::PrivateKey { .. } => {
                self.client_credentials(manager, self.client.scopes.clone()).await
            }
        }
    }

    /// A grant with the scopes held and `scope` (the server's `scope` parameter, space-separated).
    async fn step_up(&self, manager: &mut AuthorizationManager, scope: &str) -> Result<(), String> {
        let made = self.step_ups.fetch_add(1, Ordering::Relaxed);
        if made >= self.client.max_step_ups {
            return Err(format!(
                "the server asked for the scope `{scope}` after {made} step-ups already (`OAuthClient::max_step_ups`)"
            ));
        }
        let mut scopes = manager.get_current_scopes().await;
        scopes.extend(self.client.scopes.iter().cloned());
        scopes.extend(scope.split_whitespace().map(str::to_owned));
        let mut seen = std::collections::HashSet::new();
        scopes.retain(|scope| seen.insert(scope.clone()));
        match &self.client.grant {
            Grant::Code { redirect_uri, authorize, .. } => {
                let url = manager.request_scope_upgrade(scope).await.map_err(|e| said(&e))?;
                let prompt = AuthorizationPrompt { url, scopes, step_up: true };
                let back = authorize(prompt).await.map_err(|e| refused_by_host(&e))?;
                exchange(manager, redirect_uri, &back).await
            }
            Grant::Secret { .. } | Grant::PrivateKey { .. } => self.client_credentials(manager, scopes).await,
        }
    }

    /// The authorization code flow: the client named (pre-registered, metadata document or
    /// registration), the user sent to the authorization page by the host, the code exchanged.
    async fn authorization_code(
        &self,
        manager: &mut AuthorizationManager,
        challenge: &Challenge,
    ) -> Result<(), String> {
        let Grant::Code { redirect_uri, authorize, metadata_url, client_id, client_secret, client_name } =
            &self.client.grant
        else {
            return Err("not an authorization code client".to_owned());
        };
        let scopes = &self.client.scopes;
        let mut request = AuthorizationRequest::new(redirect_uri.as_str()).with_challenge(challenge.header.as_str());
        request = if scopes.is_empty() {
            request.with_initial_scope_selection()
        } else {
            request.with_scopes(scopes.iter().cloned())
        };
        if let Some(url) = metadata_url {
            request = request.with_client_metadata_url(url.as_str());
        }
        if let Some(id) = client_id {
            request = request.with_preregistered_client(id.as_str());
        }
        if let Some(secret) = client_secret {
            request = request.with_client_secret(secret.as_str());
        }
        if let Some(name) = client_name {
            request = request.with_client_name(name.as_str());
        }
        // rmcp's session takes the manager by value; a blank one stands in meanwhile (the lock
        // is held, so nobody reads it).
        let taken = std::mem::replace(manager, self.fresh_manager().await?);
        let session = match AuthorizationSession::new(taken, request).await {
            Ok(session) => session,
            Err((back, error)) => {
                *manager = back;
                return Err(said(&error));
            }
        };
        let url = session.auth_url.clone();
        *manager = session.auth_manager;
        let scopes = requested_scopes(&url);
        let back =
            authorize(AuthorizationPrompt { url, scopes, step_up: false }).await.map_err(|e| refused_by_host(&e))?;
        exchange(manager, redirect_uri, &back).await
    }

    async fn client_credentials(&self, manager: &mut AuthorizationManager, scopes: Vec<String>) -> Result<(), String> {
        let mut scopes = scopes;
        if scopes.is_empty() {
            scopes = manager.select_scopes(None, &[]);
        }
        let resource = Some(self.url.clone());
        let config = match &self.client.grant {
            Grant::Secret { client_id, client_secret } => ClientCredentialsConfig::ClientSecret {
                client_id: client_id.clone(),
                client_secret: client_secret.clone(),
                scopes,
                resource,
            },
            Grant::PrivateKey { client_id, key_pem, algorithm } => ClientCredentialsConfig::PrivateKeyJwt {
                client_id: client_id.clone(),
                signing_key: key_pem.clone(),
                signing_algorithm: *algorithm,
                token_endpoint_audience: None,
                scopes,
                resource,
            },
            Grant::Code { .. } => return Err("not a client credentials client".to_owned()),
        };
        manager.configure_client_credentials(&config).map_err(|e| said(&e))?;
        // rmcp's exchange is a future that cannot move between threads (it holds a form
        // encoder across an await), and a tool call's future must: the exchange runs on a thread
        // of its own, with the manager lent to it.
        let taken = std::mem::replace(manager, self.fresh_manager().await?);
        let (sent, answered) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let exchanged = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("no runtime for the token request: {e}"))
                .and_then(|runtime| {
                    runtime.block_on(taken.exchange_client_credentials(&config)).map(drop).map_err(|e| said(&e))
                });
            let _ = sent.send((taken, exchanged));
        });
        let (back, exchanged) =
            answered.await.map_err(|_| "the token request's thread ended without an answer".to_owned())?;
        *manager = back;
        exchanged
    }
}

/// The code of the URL the browser came back to, exchanged for tokens (its `state` and `iss`
/// checked by rmcp against what was sent).
async fn exchange(manager: &mut AuthorizationManager, redirect_uri: &str, back: &str) -> Result<(), String> {
    if !back.starts_with(redirect_uri.split('?').next().unwrap_or(redirect_uri)) {
        return Err(format!(
            "the authorization callback gave a URL that is not the redirect URI `{redirect_uri}`: the host \
             must give back the whole URL the browser was sent to"
        ));
    }
    let callback = AuthorizationCallback::from_redirect_url(back).map_err(|e| said(&e))?;
    manager
        .exchange_code_for_token_with_issuer(&callback.code, &callback.csrf_token, callback.issuer.as_deref())
        .await
        .map_err(|e| said(&e))?;
    Ok(())
}

/// The `scope` parameter of an authorization URL, split.
fn requested_scopes(url: &str) -> Vec<String> {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|url| url.query_pairs().find(|(key, _)| key == "scope").map(|(_, value)| value.into_owned()))
        .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// rmcp's error in words; its texts hold no tokens.
fn said(error: &AuthError) -> String {
    format!("OAuth: {error}")
}

fn refused_by_host(error: &ToolError) -> String {
    format!("the host's authorization callback gave no redirect: {}", error.message())
}

/// The tokens of one import in a state store: one key per server URL and client, owned by no
/// principal (they are the host's own).
struct StoredTokens {
    store: SharedStore,
    key: StateKey,
}

impl StoredTokens {
    fn new(store: SharedStore, url: &str, client: &OAuthClient) -> StoredTokens {
        let who = match &client.grant {
            Grant::Code { client_id, metadata_url, .. } => {
                client_id.clone().or_else(|| metadata_url.clone()).unwrap_or_default()
            }
            Grant::Secret { client_id, .. } | Grant::PrivateKey { client_id, .. } => client_id.clone(),
        };
        let name = digest(format!("{url}\n{who}").as_bytes());
        StoredTokens { store, key: Owner::everyone().key("oauth_client_tokens", name) }
    }
}

fn store_error(error: &crate::state::StateError) -> AuthError {
    AuthError::CredentialStoreError(error.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for StoredTokens {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(found) = self.store.read(&self.key).await.map_err(|e| store_error(&e))? else { return Ok(None) };
        // Unreadable tokens (another version's, or damaged) are as good as none: the user
        // authorizes again.
        Ok(serde_json::from_slice(&found.value).ok())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let value = serde_json::to_vec(&credentials).map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        self.store.write(&self.key, Write::new(value, TOKEN_TTL)).await.map_err(|e| store_error(&e))?;
        Ok(())
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store.delete(&self.key, None).await.map_err(|e| store_error(&e))?;
        Ok(())
    }
}
