//! Serving over streamable HTTP: rmcp's tower service, run by axum behind our checks.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::serve::{McpServer, McpServerError};

/// Configures serving an [`McpServer`] over streamable HTTP; made by [`McpServer::http`].
///
/// By default it listens on 127.0.0.1 (a free port unless told), at `/mcp`; it accepts only
/// loopback `Host` names and refuses every request that carries an `Origin` header that was
/// not allowed (the MCP specification's defence against DNS rebinding: a web page cannot call
/// a local server). Clients that are not browsers send no `Origin` and are served.
#[must_use = "nothing listens until `.start()`"]
pub struct McpHttpBuilder {
    server: McpServer,
    address: SocketAddr,
    path: String,
    origins: Vec<String>,
    hosts: Vec<String>,
    bearer: Option<Arc<str>>,
    stateless: bool,
    conversation_header: Option<Arc<str>>,
}

/// A running streamable HTTP server. Dropping it does not stop it; [`McpHttpServer::shutdown`]
/// does.
pub struct McpHttpServer {
    address: SocketAddr,
    path: String,
    stop: CancellationToken,
    task: JoinHandle<()>,
    /// The served server, whose open sessions' conversations end at shutdown.
    sessions: McpServer,
}

impl McpServer {
    /// Serves over streamable HTTP, configured by the returned builder.
    pub fn http(self) -> McpHttpBuilder {
        McpHttpBuilder {
            server: self,
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            path: "/mcp".to_owned(),
            origins: Vec::new(),
            hosts: Vec::new(),
            bearer: None,
            stateless: false,
            conversation_header: None,
        }
    }
}

impl McpHttpBuilder {
    /// The address to listen on (port 0: any free port). Listening beyond loopback is the
    /// host's decision; the bound address is then an allowed `Host`.
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

    /// Accepts requests addressed to `host` (a `Host` header value such as `tools.internal`
    /// or `tools.internal:8080`), beside the loopback names.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.push(host.into());
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; others get 401.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into().into());
        self
    }

    /// Serves each request on its own, without MCP sessions (no server-to-client
    /// notifications outside a request's own stream).
    pub fn stateless(mut self) -> Self {
        self.stateless = true;
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

    /// Binds and starts serving in the background. A stateless server whose catalog has
    /// stateful tools is refused unless conversations are keyed by a header
    /// ([`McpHttpBuilder::conversation_header`]).
    pub async fn start(self) -> Result<McpHttpServer, McpServerError> {
        if let Some(name) = &self.conversation_header {
            if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(McpServerError::InvalidConversationHeader { name: name.to_string() });
            }
        }
        if self.stateless && self.conversation_header.is_none() {
            let tools = self.server.stateful_tools();
            if !tools.is_empty() {
                return Err(McpServerError::StatefulWithoutSessions { tools });
            }
        }
        let listener = tokio::net::TcpListener::bind(self.address)
            .await
            .map_err(|e| McpServerError::Bind { address: self.address.to_string(), reason: e.to_string() })?;
        let address = listener
            .local_addr()
            .map_err(|e| McpServerError::Bind { address: self.address.to_string(), reason: e.to_string() })?;
        let stop = CancellationToken::new();
        let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
        if !address.ip().is_loopback() && !address.ip().is_unspecified() {
            hosts.push(address.ip().to_string());
        }
        hosts.extend(self.hosts);
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(self.origins)
            .enforce_origin_validation()
            .with_legacy_session_mode(!self.stateless)
            .with_cancellation_token(stop.child_token());
        let server = match self.conversation_header {
            Some(header) => self.server.with_conversation_header(header),
            None => self.server,
        };
        let sessions = server.clone();
        let service = StreamableHttpService::new(
            move || Ok(server.for_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let mut router = Router::new().route_service(&self.path, service);
        if let Some(token) = self.bearer {
            router = router.layer(middleware::from_fn_with_state(token, require_bearer));
        }
        let shutdown = stop.clone();
        let task = tokio::spawn(async move {
            let served =
                axum::serve(listener, router).with_graceful_shutdown(async move { shutdown.cancelled().await });
            if let Err(error) = served.await {
                tracing::error!(target: "tools", %error, "the MCP HTTP server stopped");
            }
        });
        Ok(McpHttpServer { address, path: self.path, stop, task, sessions })
    }
}

impl McpHttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The endpoint's URL, for clients.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.address, self.path)
    }

    /// Stops accepting requests, ends every session (and its conversation, running the
    /// cleanup of its stateful tools' instances), and waits for the server to stop.
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.task.await;
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
