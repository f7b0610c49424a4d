//! Serving over streamable HTTP: rmcp's tower service, run by axum behind our checks.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::guard::{guard_requests, BoundedSessions, Limits, RequestGuard};
use super::serve::{McpServer, McpServerError};
use crate::listen::{self, beyond_loopback};

/// Origins of pages served from this machine, on any port: what a browser sends for the MCP
/// Inspector or a local web app. A page of another site cannot send them.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// Configures serving an [`McpServer`] over streamable HTTP; made by [`McpServer::http`].
///
/// By default it listens on 127.0.0.1 (a free port unless told), at `/mcp`; it accepts only
/// loopback `Host` names, and refuses every request whose `Origin` header names neither a
/// loopback origin (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`, or their
/// `https` forms) nor one the host allowed: the MCP specification's defence against DNS
/// rebinding, where a web page of another site calls a local server. Pages served from this
/// machine (the MCP Inspector, a local web app) are served; clients that are not browsers
/// send no `Origin` and are served.
///
/// It holds under abuse with bounds the host can change: at most 1,000 MCP sessions (each
/// closed after 5 minutes without a request), 64 requests served at once, 1,024 open
/// connections, and 10 seconds for a request's header and again for its body. A server
/// reachable beyond this machine needs a bearer token unless the host says otherwise.
#[must_use = "nothing listens until `.start()`"]
pub struct McpHttpBuilder {
    server: McpServer,
    address: SocketAddr,
    path: String,
    origins: Vec<String>,
    loopback_origins: bool,
    hosts: Vec<String>,
    bearer: Option<Arc<str>>,
    stateless: bool,
    remote_without_token: bool,
    limits: Limits,
    conversation_header: Option<Arc<str>>,
    #[cfg(feature = "oauth")]
    oauth: Option<crate::auth::ResourceServer>,
    health: bool,
}

/// A running streamable HTTP server. Dropping it does not stop it; [`McpHttpServer::shutdown`]
/// does.
pub struct McpHttpServer {
    address: SocketAddr,
    path: String,
    /// Stops accepting connections; those open finish their requests.
    accepting: CancellationToken,
    /// Cancels every request still running (each call recorded `cancelled`).
    calls: CancellationToken,
    task: JoinHandle<()>,
    /// The served server, whose open sessions' conversations end at shutdown.
    sessions: McpServer,
    /// What `/readyz` reads, when the probes are served.
    health: Option<Arc<crate::listen::health::Health>>,
}

impl McpServer {
    /// Serves over streamable HTTP, configured by the returned builder.
    pub fn http(self) -> McpHttpBuilder {
        McpHttpBuilder {
            server: self,
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            path: "/mcp".to_owned(),
            origins: Vec::new(),
            loopback_origins: true,
            hosts: Vec::new(),
            bearer: None,
            stateless: false,
            remote_without_token: false,
            limits: Limits::default(),
            conversation_header: None,
            #[cfg(feature = "oauth")]
            oauth: None,
            health: true,
        }
    }
}

impl McpHttpBuilder {
    /// Serves `GET /healthz` (`ok` while the process serves) and `GET /readyz` (`ready`, or
    /// `503` while the server drains or its state store does not answer, checked at most once a
    /// second) beside the endpoint, without the endpoint's token or OAuth check: a load
    /// balancer's probe carries none, and they say nothing else. On unless `false`.
    pub fn health_endpoints(mut self, serve: bool) -> Self {
        self.health = serve;
        self
    }

    /// The address to listen on (port 0: any free port). Listening beyond loopback is the
    /// host's decision; the bound address is then an allowed `Host`, and [`start`](Self::start)
    /// requires a [`bearer_token`](Self::bearer_token) unless
    /// [`allow_unauthenticated_remote`](Self::allow_unauthenticated_remote) was called.
    pub fn bind(mut self, address: SocketAddr) -> Self {
        self.address = address;
        self
    }

    /// The URL path of the endpoint (`/mcp` by default).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') { path } else { format!("/{path}") };
        self
    }

    /// Lets browser pages of `origin` call the server (`https://app.example.com:443`; `:*`
    /// for any port).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins.push(origin.into());
        self
    }

    /// With `true`, refuses browser pages of loopback origins too (`http://localhost:*` and
    /// the like), which are served by default: for a machine where local web pages are not
    /// trusted to call the tools. Origins given to [`allow_origin`](Self::allow_origin) are
    /// still served.
    pub fn refuse_loopback_origins(mut self, refuse: bool) -> Self {
        self.loopback_origins = !refuse;
        self
    }

    /// Accepts requests addressed to `host` (a `Host` header value such as `tools.internal`
    /// or `tools.internal:8080`), beside the loopback names.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into());
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; others get 401. An empty
    /// token is refused by [`start`](Self::start).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into().into());
        self
    }

    /// With `true`, lets the server listen beyond loopback without a bearer token: anyone who
    /// can reach the address can call every tool. For a server behind a proxy or a network
    /// that authenticates on its behalf. Off by default.
    pub fn allow_unauthenticated_remote(mut self, allow: bool) -> Self {
        self.remote_without_token = allow;
        self
    }

    /// At most `count` MCP sessions at once (1,000 by default; at least 1). An `initialize`
    /// beyond gets `503 Service Unavailable` saying so, until a session ends: by its client
    /// (HTTP DELETE), or after the [idle timeout](Self::session_idle_timeout).
    pub fn max_sessions(mut self, count: usize) -> Self {
        self.limits.max_sessions = count;
        self
    }

    /// Closes a session that has sent no request for `idle` (5 minutes by default), freeing
    /// its place; its client must `initialize` again.
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.limits.session_idle = idle;
        self
    }

    /// Serves at most `count` requests at once (64 by default; at least 1), each counted until
    /// its answer has been sent in full, a tool call's included; one more gets
    /// `503 Service Unavailable` with `Retry-After: 1` at once instead of waiting. Pings, and
    /// the client's notifications and responses (a cancellation, say), are never refused, so
    /// the clients of a busy server can still cancel and stay connected. Event streams (GET)
    /// are bounded by the connections instead.
    pub fn max_concurrent_requests(mut self, count: usize) -> Self {
        self.limits.max_requests = count;
        self
    }

    /// Keeps at most `count` `subscriptions/listen` streams open at once (1,000 by default; at
    /// least 1): a client of protocol 2026-07-28 listens for list changes on one, held open as
    /// long as it listens, so these streams have places of their own and never take a
    /// request's ([`max_concurrent_requests`](Self::max_concurrent_requests)). One more gets
    /// `503 Service Unavailable` with `Retry-After: 5`, saying so.
    pub fn max_listen_streams(mut self, count: usize) -> Self {
        self.limits.max_listeners = count;
        self
    }

    /// Keeps at most `count` connections open (1,024 by default; at least 1). Further clients
    /// wait in the system's queue of the listening socket until one closes.
    pub fn max_connections(mut self, count: usize) -> Self {
        self.limits.max_connections = count;
        self
    }

    /// The time a client has to send a request's header (its connection is then closed), and
    /// then again its body (`408 Request Timeout`): 10 seconds by default. A connection kept
    /// open between requests is closed when no header arrives within it.
    pub fn request_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.read_timeout = timeout;
        self
    }

    /// With `true`, serves each request on its own, without MCP sessions (no server-to-client
    /// notifications outside a request's own stream). Off by default.
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Names a call's conversation by the value of the request header `name` (for example
    /// `x-conversation-id`) instead of by MCP session, for stateful tools (`#[tool]` methods).
    /// Without it each session is a conversation, and a request outside any session (a
    /// stateless server, or a client whose protocol version has no sessions) cannot call a
    /// stateful tool. With it, a request without the header cannot; whoever sends an id reaches
    /// that conversation's instance, so use ids the client cannot guess, and let the bearer
    /// token keep strangers out. These conversations end by idle time, the cap, or
    /// `executor.conversations().end(id)`.
    pub fn conversation_header(mut self, name: impl Into<String>) -> Self {
        self.conversation_header = Some(name.into().to_ascii_lowercase().into());
        self
    }

    /// Protects the endpoint with OAuth 2.1 (feature `oauth`): every request needs an access
    /// token `auth` accepts, and its principal ([`Principal::id`](crate::auth::Principal::id))
    /// owns the request's conversations, handles, pending calls and tasks. The protected
    /// resource metadata is served at [`ResourceServer::metadata_path`](crate::auth::ResourceServer::metadata_path)
    /// and at `/.well-known/oauth-protected-resource`; a refused request gets `401` (`503`
    /// while the keys cannot be fetched) with a `WWW-Authenticate` challenge naming it. Serving
    /// beyond loopback with it needs no bearer token; giving both is refused.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, auth: crate::auth::ResourceServer) -> Self {
        self.oauth = Some(auth);
        self
    }

    /// Binds and starts serving in the background. Refuses an address beyond loopback
    /// without a bearer token (unless allowed), an empty token, and a stateless server whose
    /// catalog has stateful tools unless conversations are keyed by a header
    /// ([`McpHttpBuilder::conversation_header`]).
    pub async fn start(self) -> Result<McpHttpServer, McpServerError> {
        let address = self.address.to_string();
        if self.bearer.as_deref().is_some_and(str::is_empty) {
            return Err(McpServerError::EmptyBearerToken { address });
        }
        #[cfg(feature = "oauth")]
        let protected = self.oauth.is_some();
        #[cfg(not(feature = "oauth"))]
        let protected = false;
        if protected && self.bearer.is_some() {
            return Err(McpServerError::BearerAndOAuth { address });
        }
        if beyond_loopback(self.address) && self.bearer.is_none() && !protected && !self.remote_without_token {
            return Err(McpServerError::RemoteWithoutToken { address });
        }
        if let Some(name) = &self.conversation_header
            && axum::http::HeaderName::from_bytes(name.as_bytes()).is_err()
        {
            return Err(McpServerError::InvalidConversationHeader { name: name.to_string() });
        }
        let bound = |source| McpServerError::Bind { address: address.clone(), source };
        let listener = tokio::net::TcpListener::bind(self.address).await.map_err(bound)?;
        let address = listener.local_addr().map_err(bound)?;
        let (accepting, calls) = (CancellationToken::new(), CancellationToken::new());
        let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
        if !address.ip().is_loopback() && !address.ip().is_unspecified() {
            hosts.push(address.ip().to_string());
        }
        hosts.extend(self.hosts);
        let mut origins = self.origins;
        if self.loopback_origins {
            origins.extend(LOOPBACK_ORIGINS.iter().map(|origin| (*origin).to_owned()));
        }
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            .with_legacy_session_mode(!self.stateless)
            .with_cancellation_token(calls.child_token());
        let limits = self.limits;
        let requests = Arc::new(RequestGuard::new(limits, config.max_request_body_bytes));
        let server = match self.conversation_header {
            Some(header) => self.server.with_conversation_header(header),
            None => self.server,
        };
        let sessions = server.clone();
        let service = StreamableHttpService::new(
            move || Ok(server.for_session()),
            Arc::new(BoundedSessions::new(limits)),
            config,
        );
        let mut router = Router::new().route_service(&self.path, service);
        #[cfg(feature = "oauth")]
        if let Some(auth) = &self.oauth {
            router = super::oauth::check_scopes(router, auth.clone(), sessions.clone());
        }
        router = router.layer(middleware::from_fn_with_state(requests, guard_requests));
        // Outermost: a request without the token is refused before it takes a request's slot.
        if let Some(token) = self.bearer {
            router = router.layer(middleware::from_fn_with_state(token, require_bearer));
        }
        #[cfg(feature = "oauth")]
        if let Some(auth) = self.oauth {
            router = super::oauth::protect(router, auth);
        }
        let health = self.health.then(|| crate::listen::health::Health::new(sessions.store()));
        if let Some(health) = &health {
            router = crate::listen::health::routes(router, Arc::clone(health));
        }
        let listening = listen::serve(listener, router, limits.max_connections, limits.read_timeout, accepting.clone());
        let task = tokio::spawn(listening);
        Ok(McpHttpServer { address, path: self.path, accepting, calls, task, sessions, health })
    }
}

/// How long a stop waits, once it cancelled the calls left, for their records.
const SETTLE_LIMIT: Duration = Duration::from_secs(5);

impl McpHttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The endpoint's URL, for clients.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.address, self.path)
    }

    /// Stops accepting requests, cancels those still running (each call recorded
    /// `cancelled`), ends every session (and its conversation, running the cleanup of its
    /// stateful tools' instances), and waits for the server to stop.
    pub async fn shutdown(self) {
        self.shutdown_within(Duration::ZERO).await;
    }

    /// Drains, then stops: `/readyz` answers `503` at once and no connection is accepted; the
    /// requests running finish within `deadline`, and those still running then are cancelled
    /// (each call recorded `cancelled`, none lost). Then every session ends, as
    /// [`shutdown`](Self::shutdown) says. A client's open event stream keeps its connection
    /// until the deadline.
    pub async fn shutdown_within(mut self, deadline: Duration) {
        if let Some(health) = &self.health {
            health.drain();
        }
        self.accepting.cancel();
        if tokio::time::timeout(deadline, &mut self.task).await.is_err() {
            self.calls.cancel();
            let _ = (&mut self.task).await;
        }
        self.calls.cancel();
        // A cancelled call's record is made after its connection may have closed.
        self.sessions.calls_settled(SETTLE_LIMIT).await;
        self.sessions.end_sessions().await;
    }
}

/// Refuses a request without the configured bearer token.
async fn require_bearer(State(token): State<Arc<str>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match given {
        Some(given) if same_secret(given.as_bytes(), token.as_bytes()) => next.run(request).await,
        _ => {
            let mut response = (StatusCode::UNAUTHORIZED, "a bearer token is required").into_response();
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

/// Compares without stopping at the first difference, so timing does not reveal the secret.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len() && given.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}
