//! What keeps the MCP HTTP server standing when its clients misbehave, beside the accept loop's
//! bounds (`crate::listen`): a cap on requests served at once and a time limit for a request's
//! body (a middleware), and a cap on MCP sessions, idle ones expiring (a session manager around
//! rmcp's). Each refusal is immediate and names the limit; nothing waits in a queue that grows.

use std::cell::Cell;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::listen::{self, permits};

/// The bounds of a server, each set by a builder method.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// MCP sessions held at once.
    pub max_sessions: usize,
    /// A session without a request for this long is closed.
    pub session_idle: Duration,
    /// Requests served at once (each until its answer is sent in full).
    pub max_requests: usize,
    /// `subscriptions/listen` streams open at once (protocol 2026-07-28).
    pub max_listeners: usize,
    /// Connections open at once; more wait, unaccepted, in the system's queue.
    pub max_connections: usize,
    /// The time a client has to send a request's header, and then its body.
    pub read_timeout: Duration,
}

impl Limits {
    pub const MAX_SESSIONS: usize = 1000;
    pub const SESSION_IDLE: Duration = Duration::from_secs(300);
    pub const MAX_REQUESTS: usize = 64;
    pub const MAX_LISTENERS: usize = 1000;
    pub const MAX_CONNECTIONS: usize = listen::MAX_CONNECTIONS;
    pub const READ_TIMEOUT: Duration = listen::READ_TIMEOUT;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sessions: Limits::MAX_SESSIONS,
            session_idle: Limits::SESSION_IDLE,
            max_requests: Limits::MAX_REQUESTS,
            max_listeners: Limits::MAX_LISTENERS,
            max_connections: Limits::MAX_CONNECTIONS,
            read_timeout: Limits::READ_TIMEOUT,
        }
    }
}

tokio::task_local! {
    /// Set while a request runs when its `initialize` was refused because the sessions are full.
    static SESSIONS_FULL: Cell<bool>;
}

/// What the middleware needs: the request slots and the limits it names when refusing.
pub(crate) struct RequestGuard {
    slots: Arc<Semaphore>,
    /// The places of `subscriptions/listen` streams, apart from the requests': a stream is
    /// open as long as its client listens, and would otherwise hold a request's place.
    listeners: Arc<Semaphore>,
    limits: Limits,
    max_body: usize,
}

impl RequestGuard {
    pub fn new(limits: Limits, max_body: usize) -> Self {
        RequestGuard {
            slots: Arc::new(Semaphore::new(permits(limits.max_requests))),
            listeners: Arc::new(Semaphore::new(permits(limits.max_listeners))),
            limits,
            max_body,
        }
    }
}

/// A body this small is read without a request slot; a larger one needs a slot to be read.
const SMALL_BODY: usize = 64 * 1024;

/// Every JSON-RPC request but `ping` takes a request slot, and keeps it until its answer has
/// been sent in full (a tool call's event stream included); none free is an immediate 503. A
/// `subscriptions/listen` request (2026-07-28) takes a place among the listen streams instead,
/// for as long as its stream is open.
/// Notifications and responses (a cancellation, an answer to the server) and pings pass
/// without one, so that a client can still cancel, answer and stay alive while the server is
/// busy. A body must arrive within the read timeout, and only a body within
/// [`SMALL_BODY`] is read without a slot, so that what is held in memory is bounded. An
/// `initialize` refused because the sessions are full becomes a 503 that says so. Event
/// streams (GET) and session ends (DELETE) take no slot: they are bounded by the sessions
/// and the connections.
pub(crate) async fn guard_requests(State(guard): State<Arc<RequestGuard>>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    match guard.admit(request).await {
        Ok((request, slot)) => {
            let (response, full) = SESSIONS_FULL
                .scope(Cell::new(false), async move {
                    let response = next.run(request).await;
                    (response, SESSIONS_FULL.with(Cell::get))
                })
                .await;
            if full {
                return guard.refuse(Refusal::SessionsFull);
            }
            match slot {
                Some(slot) => response.map(|body| Body::new(Holding { body, _slot: slot })),
                None => response,
            }
        }
        Err(refusal) => guard.refuse(refusal),
    }
}

/// Why a request was not let through.
enum Refusal {
    Busy,
    SessionsFull,
    TooLarge,
    Unreadable(String),
    Late,
    Listening,
}

impl RequestGuard {
    /// The request with its body read, and the slot it holds if it needs one.
    async fn admit(&self, request: Request) -> Result<(Request, Option<OwnedSemaphorePermit>), Refusal> {
        #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
        let (mut parts, body) = request.into_parts();
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        if declared.is_some_and(|length| length > self.max_body as u64) {
            return Err(Refusal::TooLarge);
        }
        let mut slot = None;
        if declared.is_some_and(|length| length > SMALL_BODY as u64) {
            slot = Some(self.take_slot()?);
        }
        let body = tokio::time::timeout(self.limits.read_timeout, self.read_body(body, &mut slot))
            .await
            .map_err(|_| Refusal::Late)??;
        let (place, called) = place_of(&body);
        // Only the OAuth scope check reads it.
        #[cfg(feature = "oauth")]
        if let Some(tool) = called {
            parts.extensions.insert(CalledTool(tool));
        }
        #[cfg(not(feature = "oauth"))]
        let _ = called;
        match place {
            Place::None => slot = None,
            // The slot a large body took to be read is given back for a listener's place.
            Place::Listener => {
                slot = Some(Arc::clone(&self.listeners).try_acquire_owned().map_err(|_| Refusal::Listening)?)
            }
            Place::Request if slot.is_none() => slot = Some(self.take_slot()?),
            Place::Request => {}
        }
        Ok((Request::from_parts(parts, Body::from(body)), slot))
    }

    fn take_slot(&self) -> Result<OwnedSemaphorePermit, Refusal> {
        Arc::clone(&self.slots).try_acquire_owned().map_err(|_| Refusal::Busy)
    }

    /// The whole body, at most `max_body` bytes; past [`SMALL_BODY`] only with a slot (taken
    /// into `slot` if not held yet).
    async fn read_body(&self, body: Body, slot: &mut Option<OwnedSemaphorePermit>) -> Result<Bytes, Refusal> {
        let mut stream = body.into_data_stream();
        let mut read = Vec::new();
        while let Some(chunk) = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await {
            let chunk = chunk.map_err(|error| Refusal::Unreadable(error.to_string()))?;
            if read.len() + chunk.len() > self.max_body {
                return Err(Refusal::TooLarge);
            }
            if read.len() + chunk.len() > SMALL_BODY && slot.is_none() {
                *slot = Some(self.take_slot()?);
            }
            read.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(read))
    }

    /// The answer to a refused request: what was refused, and the limit.
    fn refuse(&self, refusal: Refusal) -> Response {
        let limits = &self.limits;
        let (status, message) = match refusal {
            Refusal::Busy => {
                let max = limits.max_requests;
                tracing::debug!(target: "tools", max, "a request was refused: the server is busy");
                let message = format!(
                    "the server is busy: it already serves its maximum of {max} requests at once; retry shortly"
                );
                let mut response = (StatusCode::SERVICE_UNAVAILABLE, message).into_response();
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return response;
            }
            Refusal::Listening => {
                let max = limits.max_listeners;
                let message = format!(
                    "the server already holds its maximum of {max} subscriptions/listen streams \
                     (`McpHttpBuilder::max_listen_streams`); retry once one has closed"
                );
                let mut response = (StatusCode::SERVICE_UNAVAILABLE, message).into_response();
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                return response;
            }
            Refusal::SessionsFull => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server already holds its maximum of {} MCP sessions; end one (HTTP DELETE) or retry once \
                     idle ones have expired",
                    limits.max_sessions
                ),
            ),
            Refusal::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than the {} bytes accepted", self.max_body),
            ),
            Refusal::Unreadable(error) => {
                (StatusCode::BAD_REQUEST, format!("the request body could not be read: {error}"))
            }
            Refusal::Late => (
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {} ms", limits.read_timeout.as_millis()),
            ),
        };
        (status, message).into_response()
    }
}

/// The place a message holds while it is served.
enum Place {
    /// None: a notification, a response, a ping.
    None,
    /// A request's slot: any other JSON-RPC request, or something that cannot be read as one
    /// message (a batch, or something rmcp will refuse).
    Request,
    /// A listen stream's: `subscriptions/listen`.
    Listener,
}

/// The tool a `tools/call` request names, as its body says: put in the request's extensions
/// for the layers inside the guard (the OAuth scope check), which then need not read the body.
#[cfg(feature = "oauth")]
#[derive(Clone, Debug)]
pub(super) struct CalledTool(pub(super) String);

/// The place a message holds, and the tool it calls when it is a `tools/call`.
fn place_of(body: &[u8]) -> (Place, Option<String>) {
    #[derive(serde::Deserialize)]
    struct Message {
        id: Option<serde::de::IgnoredAny>,
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        name: Option<String>,
    }
    match serde_json::from_slice::<Message>(body) {
        Ok(Message { id: Some(_), method: Some(method), params }) => match method.as_str() {
            "ping" => (Place::None, None),
            "subscriptions/listen" => (Place::Listener, None),
            "tools/call" => (Place::Request, params.and_then(|p| p.name)),
            _ => (Place::Request, None),
        },
        Ok(_) => (Place::None, None),
        Err(_) => (Place::Request, None),
    }
}

/// A response body that keeps its request's slot until it has been sent or dropped.
struct Holding {
    body: Body,
    _slot: OwnedSemaphorePermit,
}

impl HttpBody for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// rmcp's in-memory sessions, at most `max` at once: one more is refused (and the request
/// that asked is marked, for the middleware's 503); a session's slot is freed when it ends,
/// by the client (DELETE), by the server stopping, or after `idle` without a request.
pub(crate) struct BoundedSessions {
    inner: LocalSessionManager,
    slots: Arc<Semaphore>,
    max: usize,
    held: Mutex<HashMap<SessionId, OwnedSemaphorePermit>>,
}

impl BoundedSessions {
    pub fn new(limits: Limits) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(limits.session_idle);
        let max = permits(limits.max_sessions);
        BoundedSessions { inner, slots: Arc::new(Semaphore::new(max)), max, held: Mutex::default() }
    }
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    #[error("the server already holds its maximum of {max} MCP sessions")]
    Full { max: usize },
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() else {
            let _ = SESSIONS_FULL.try_with(|full| full.set(true));
            tracing::debug!(target: "tools", max = self.max, "a new MCP session was refused: the sessions are full");
            return Err(SessionsError::Full { max: self.max });
        };
        let (id, transport) = self.inner.create_session().await?;
        self.held.lock().unwrap_or_else(PoisonError::into_inner).insert(id.clone(), slot);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
