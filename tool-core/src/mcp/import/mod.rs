//! Importing a server's tools: an rmcp client whose tools become [`DynamicTool`]s.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

// MCP's sampling is deprecated from protocol 2026-07-28 on (SEP-2577) but still part of the
// versions servers speak today: answered until the protocol removes it.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, ClientConfig, CreateMessageRequestMethod, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, FormElicitationCapability,
    PaginatedRequestParams, PingRequest, ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerNotification,
    SubscriptionFilter, Tool as McpTool, DEFAULT_MRTR_MAX_ROUNDS, TASKS_EXTENSION_ID,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, NotificationContext, Peer, RequestContext,
    RoleClient, RunningService, ServiceError,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use rmcp::ErrorData;
use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::ask::{
    elicitation_handler, sampling_handler, ElicitationAnswer, ElicitationHandler, ElicitationRequest, SamplingHandler,
    SamplingRequest, SamplingResponse,
};
use crate::catalog::{CatalogBuilder, Refusal, Yielding};
use crate::context::{Progress, ProgressSink, ToolContext};
use crate::model::{ToolAnnotations, ToolError};
use crate::tool::{DynamicTool, DynamicToolError, Tool, ToolResult};

use super::redact::{redact_url, Redactor};

mod error;
mod failure;
mod result;
mod rounds;
mod builder; // The settings of an `McpImport` and `connect`.
mod connect; // connecting, again after a loss, and answering a refusal of the token
#[cfg(feature = "oauth")]
mod oauth; // the import as an OAuth 2.1 client

pub use error::{McpCause, McpImportError, SkipReason, SkippedTool};
#[cfg(feature = "oauth")]
pub use oauth::{AuthorizationPrompt, OAuthClient};

use failure::{challenge, reason, Challenge};
use result::read_result;

/// The revision offered first, through `server/discover`; a server that does not speak it is
/// reached with `initialize`, offering [`ProtocolVersion::LATEST_WITH_INITIALIZE`] (2025-11-25),
/// and the revision it answers with (2025-06-18 for one that knows no later) is used.
const MODERN_VERSION: ProtocolVersion = ProtocolVersion::V_2026_07_28;
/// How often a session with calls in flight is pinged, unless told otherwise.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How many heartbeats a ping may take before the server is lost.
const PING_PATIENCE: u32 = 5;
/// Pages of `tools/list` read at most, unless told otherwise.
const MAX_PAGES: usize = 100;
/// Tools imported from one server at most, unless told otherwise.
const MAX_TOOLS: usize = 1_000;
/// Bytes of JSON one listed tool may take, unless told otherwise.
const MAX_TOOL_BYTES: usize = 256 * 1024;
/// Bytes of JSON the imported tools may take together, unless told otherwise.
const MAX_LIST_BYTES: usize = 16 * 1024 * 1024;
/// How long the `initialize` handshake may take, unless told otherwise.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long reading every page of the list may take, unless told otherwise.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// The wait after the second failed connection in a row, doubled after each further one.
const BACKOFF_FIRST: Duration = Duration::from_millis(500);
/// The longest wait between two connection attempts.
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// How long a call's progress route outlives the call, for reports read after its result.
const PROGRESS_GRACE: Duration = Duration::from_millis(500);
/// `tasks/get` polls of one call's task at most, unless told otherwise.
const MAX_TASK_POLLS: usize = 1_000;
/// Gives each import an identity, so `add_to` replaces its own tools and nobody else's.
static IMPORTS: AtomicU64 = AtomicU64::new(1);

/// Where the server is.
#[derive(Clone)]
enum Endpoint {
    /// A child process speaking MCP on its standard input and output.
    Child { program: OsString, args: Vec<OsString>, envs: Vec<(OsString, OsString)>, dir: Option<PathBuf> },
    /// A streamable HTTP endpoint.
    Http { url: String, bearer: Option<String> },
}

/// Configures an import; made by [`McpImport::command`] or [`McpImport::http`].
#[must_use = "nothing connects until `.connect()`"]
pub struct McpImportBuilder {
    endpoint: Endpoint,
    prefix: String,
    heartbeat: Duration,
    limits: Limits,
    answers: Answers,
    defer: bool,
    scopes: Vec<String>,
    #[cfg(feature = "oauth")]
    oauth: Option<OAuthClient>,
}

/// The host's answers to the server's requests: its model for `sampling/createMessage`, its
/// user for `elicitation/create`; each capability is declared only with its handler.
#[derive(Clone, Default)]
struct Answers {
    sampling: Option<SamplingHandler>,
    elicitation: Option<ElicitationHandler>,
}

/// What a server may make the import do.
#[derive(Clone, Copy, Debug)]
struct Limits {
    max_pages: usize,
    max_tools: usize,
    max_tool_bytes: usize,
    max_list_bytes: usize,
    handshake_timeout: Duration,
    list_timeout: Duration,
    backoff_first: Duration,
    backoff_max: Duration,
    max_input_rounds: usize,
    max_task_polls: usize,
    /// Connect with `initialize` alone, never offering 2026-07-28.
    legacy_only: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pages: MAX_PAGES,
            max_tools: MAX_TOOLS,
            max_tool_bytes: MAX_TOOL_BYTES,
            max_list_bytes: MAX_LIST_BYTES,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            list_timeout: LIST_TIMEOUT,
            backoff_first: BACKOFF_FIRST,
            backoff_max: BACKOFF_MAX,
            max_input_rounds: DEFAULT_MRTR_MAX_ROUNDS,
            max_task_polls: MAX_TASK_POLLS,
            legacy_only: false,
        }
    }
}

impl fmt::Debug for McpImportBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpImportBuilder")
            .field("endpoint", &self.endpoint)
            .field("prefix", &self.prefix)
            .field("defer", &self.defer)
            .field("heartbeat", &self.heartbeat)
            .field("limits", &self.limits)
            .field("sampling", &self.answers.sampling.is_some())
            .field("elicitation", &self.answers.elicitation.is_some())
            .finish()
    }
}

/// The tools of one MCP server, imported. Each is a [`DynamicTool`] whose schema drives
/// lenient extraction before anything is sent; its calls go to the server.
///
/// The connection is remade on the next call after it drops; the list is read again when the
/// server sends `notifications/tools/list_changed`, and [`McpImport::changes`] tells the host,
/// which rebuilds its catalog with [`McpImport::add_to`].
#[derive(Clone)]
pub struct McpImport {
    shared: Arc<Shared>,
}

struct Shared {
    /// This import's identity in the catalogs it is added to.
    id: u64,
    endpoint: Endpoint,
    redactor: Redactor,
    prefix: String,
    /// Whether the imported tools are deferred, for a tool search to find.
    defer: bool,
    /// The OAuth scopes each imported tool needs when this host serves it again.
    scopes: Vec<String>,
    limits: Limits,
    /// The live session, if any; replaced when it drops.
    session: tokio::sync::Mutex<Option<RunningService<RoleClient, ImportHandler>>>,
    live: RwLock<Option<Live>>,
    heartbeat: Duration,
    /// The server's tools as last listed, without those skipped while listing.
    listed: RwLock<Vec<McpTool>>,
    /// Tools left out while listing (too large, listed twice), with the reason.
    listed_skipped: RwLock<Vec<SkippedTool>>,
    /// Tools refused by the catalogs this import was last added to, with the reason.
    collisions: Mutex<Vec<SkippedTool>>,
    /// The one refresh `list_changed` notifications may run at a time.
    refresh: Mutex<Refresh>,
    /// Failed connections in a row.
    failures: Mutex<Failures>,
    changes: watch::Sender<u64>,
    /// Where each call's progress goes, by the progress token rmcp gave its request.
    progress: Mutex<HashMap<ProgressToken, ProgressSink>>,
    answers: Answers,
    #[cfg(feature = "oauth")]
    oauth: Option<oauth::Authorizer>,
}

/// Whether a refresh is running, and whether another was asked for meanwhile.
#[derive(Default)]
struct Refresh {
    running: bool,
    again: bool,
}

/// Failed connections in a row: once there are two, the next attempt waits for the backoff.
#[derive(Default)]
struct Failures {
    count: u32,
    last: Option<Instant>,
    reason: String,
}

/// The client side of the session: routes progress to calls and refreshes on list changes.
#[derive(Clone)]
struct ImportHandler {
    shared: Weak<Shared>,
    answers: Answers,
}

impl ClientHandler for ImportHandler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = rmcp::model::Implementation::new("tool-core", env!("CARGO_PKG_VERSION"));
        if self.answers.sampling.is_some() {
            info.capabilities.sampling = Some(Default::default());
        }
        if self.answers.elicitation.is_some() {
            info.capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        }
        // A call the server runs as a task is polled to its end and cancelled when dropped
        // (SEP-2663, 2026-07-28).
        info.capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(TASKS_EXTENSION_ID.to_owned(), Map::new());
        // What `initialize` offers when the server does not speak 2026-07-28 (which has no
        // `initialize`): the newest version that has it.
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info
    }

    #[allow(deprecated)] // sampling: see the import of `CreateMessageRequestParams`
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        match &self.answers.sampling {
            Some(handler) => super::ask::answer_sampling(handler, params).await,
            None => Err(ErrorData::method_not_found::<CreateMessageRequestMethod>()),
        }
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match &self.answers.elicitation {
            Some(handler) => super::ask::answer_elicitation(handler, params).await,
            None => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let Some(shared) = self.shared.upgrade() else { return };
        let sink = shared.progress.lock().unwrap_or_else(|e| e.into_inner()).get(&params.progress_token).cloned();
        if let Some(sink) = sink {
            sink(Progress { progress: params.progress, total: params.total, message: params.message });
        }
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        if let Some(shared) = self.shared.upgrade() {
            schedule_refresh(shared, context.peer.clone());
        }
    }
}

/// Reads the list again after a change the server told of, one pass at a time.
fn schedule_refresh(shared: Arc<Shared>, peer: Peer<RoleClient>) {
    {
        let mut refresh = shared.refresh.lock().unwrap_or_else(|e| e.into_inner());
        if refresh.running {
            // The pass running now may have read the list before this change: one more
            // pass after it, however many notifications arrive meanwhile.
            refresh.again = true;
            return;
        }
        refresh.running = true;
    }
    // Listing is a request on this same session: it must not hold up the session's loop.
    tokio::spawn(async move {
        loop {
            if let Err(error) = shared.list_tools(&peer).await {
                tracing::warn!(target: "tools", %error, "refreshing the imported MCP tools failed");
            }
            let mut refresh = shared.refresh.lock().unwrap_or_else(|e| e.into_inner());
            if !std::mem::take(&mut refresh.again) {
                refresh.running = false;
                return;
            }
        }
    });
}

/// On 2026-07-28 a server tells of changes only on a `subscriptions/listen` stream: opens one
/// for `tools/list_changed` when the server says its list changes, and refreshes on each
/// notification until the session is lost. Waits for the server's acknowledgment (within
/// `limit`), so a change made once `connect` returns is not missed.
async fn listen_for_changes(shared: &Arc<Shared>, live: &Live, limit: Duration) {
    let Some(info) = live.peer.peer_info() else { return };
    let changes = info.capabilities.tools.as_ref().and_then(|tools| tools.list_changed) == Some(true);
    if info.protocol_version.has_initialize() || !changes {
        return;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = match tokio::time::timeout(limit, live.peer.listen(filter)).await {
        Ok(Ok(subscription)) => subscription,
        Ok(Err(error)) => {
            let error = shared.redactor.clean(&error.to_string());
            tracing::warn!(target: "tools", %error, "the MCP server refused `subscriptions/listen`: changes to its tools are not followed");
            return;
        }
        Err(_) => {
            tracing::warn!(target: "tools", "the MCP server did not acknowledge `subscriptions/listen`: changes to its tools are not followed");
            return;
        }
    };
    let (shared, live) = (Arc::downgrade(shared), live.clone());
    tokio::spawn(async move {
        loop {
            let next = tokio::select! {
                () = live.lost.cancelled() => return,
                next = subscription.next() => next,
            };
            match next {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                    let Some(shared) = shared.upgrade() else { return };
                    schedule_refresh(shared, live.peer.clone());
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return,
            }
        }
    });
}

impl Endpoint {
    /// The server as the model, the host's logs and errors may see it: a URL without its
    /// user, password, query and fragment, which may hold credentials.
    fn label(&self) -> String {
        match self {
            Endpoint::Child { program, .. } => program.to_string_lossy().into_owned(),
            Endpoint::Http { url, .. } => redact_url(url),
        }
    }

    /// What cleans texts about this server of its credentials.
    fn redactor(&self) -> Redactor {
        match self {
            Endpoint::Child { .. } => Redactor::none(self.label()),
            Endpoint::Http { url, bearer } => Redactor::for_url(url, bearer.as_deref()),
        }
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Child { program, args, .. } => {
                // Arguments and environment may carry credentials: counted, not shown.
                f.debug_struct("Child").field("program", program).field("args", &args.len()).finish_non_exhaustive()
            }
            Endpoint::Http { bearer, .. } => f
                .debug_struct("Http")
                .field("url", &self.label())
                .field("bearer", &bearer.as_ref().map(|_| "***"))
                .finish(),
        }
    }
}

impl McpImport {
    /// Imports from a server started as a child process: `program` speaks MCP on its standard
    /// input and output.
    pub fn command(program: impl Into<OsString>) -> McpImportBuilder {
        McpImportBuilder::new(Endpoint::Child {
            program: program.into(),
            args: Vec::new(),
            envs: Vec::new(),
            dir: None,
        })
    }

    /// Imports from a streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`).
    pub fn http(url: impl Into<String>) -> McpImportBuilder {
        McpImportBuilder::new(Endpoint::Http { url: url.into(), bearer: None })
    }

    /// The imported tools as they were last listed, named with the prefix. They keep the
    /// connection alive.
    pub fn tools(&self) -> Vec<Arc<DynamicTool>> {
        self.imported().0
    }

    /// Remote tools left out, with the reason: a name that is not valid here even with the
    /// prefix, a tool larger than [`McpImportBuilder::max_tool_bytes`], a name listed twice,
    /// or a name the catalog this import was last added to already had.
    pub fn skipped(&self) -> Vec<SkippedTool> {
        let mut skipped = self.imported().1;
        skipped.extend(self.shared.collisions.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned());
        skipped
    }

    fn imported(&self) -> (Vec<Arc<DynamicTool>>, Vec<SkippedTool>) {
        let listed = self.shared.listed.read().unwrap_or_else(|e| e.into_inner());
        let mut tools = Vec::with_capacity(listed.len());
        let mut skipped = self.shared.listed_skipped.read().unwrap_or_else(|e| e.into_inner()).clone();
        for tool in listed.iter() {
            match import_tool(&self.shared, tool) {
                Ok(imported) => tools.push(Arc::new(imported)),
                Err(error) => {
                    skipped.push(SkippedTool { name: tool.name.to_string(), reason: SkipReason::Invalid(error) })
                }
            }
        }
        (tools, skipped)
    }

    /// Adds the imported tools to `builder`, first removing those this import added to it
    /// before (so a catalog can be rebuilt from itself after a change).
    ///
    /// A remote tool never replaces one of the host's: a tool whose name (prefix included) is
    /// already in `builder`, or is added to it later, is left out of the catalog and reported by
    /// [`McpImport::skipped`] with the reason.
    pub fn add_to(&self, builder: CatalogBuilder) -> CatalogBuilder {
        let mut builder = builder.remove_yielding_of(self.shared.id);
        self.shared.collisions.lock().unwrap_or_else(|e| e.into_inner()).clear();
        let prefix = self.shared.prefix.len();
        for tool in self.tools() {
            let remote = tool.definition().name[prefix..].to_owned();
            let shared = Arc::downgrade(&self.shared);
            let refused = move |refusal: Refusal| {
                let Some(shared) = shared.upgrade() else { return };
                let mut collisions = shared.collisions.lock().unwrap_or_else(|e| e.into_inner());
                if !collisions.iter().any(|c| c.name == remote) {
                    let reason = SkipReason::NameTaken {
                        name: refusal.name,
                        imported: refusal.yielding,
                        holder_source: refusal.holder_source,
                    };
                    collisions.push(SkippedTool { name: remote.clone(), reason });
                }
            };
            builder = builder.add_yielding(tool, Yielding::new(self.shared.id, refused));
        }
        builder
    }

    /// Bumped each time the list is read again after a `list_changed` notification or a
    /// reconnection.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// The MCP revision the live session speaks (`2026-07-28`, or `2025-11-25`, `2025-06-18`...
    /// for a server that does not speak it), or `None` while there is no session.
    pub fn protocol_version(&self) -> Option<String> {
        let live = self.shared.live()?;
        Some(live.peer.peer_info()?.protocol_version.as_str().to_owned())
    }

    /// Reads the server's list again now.
    pub async fn refresh(&self) -> Result<(), McpImportError> {
        let live = self.shared.connected().await?;
        self.shared.list_tools(&live.peer).await
    }

    /// Ends the session (a child process is stopped); the next call or refresh connects again.
    pub async fn close(&self) {
        let session = self.shared.session.lock().await.take();
        if let Some(live) = self.shared.live.write().unwrap_or_else(|e| e.into_inner()).take() {
            live.lost.cancel();
        }
        if let Some(mut session) = session {
            let _ = session.close().await;
        }
    }
}

impl fmt::Debug for McpImport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listed = self.shared.listed.read().unwrap_or_else(|e| e.into_inner()).len();
        f.debug_struct("McpImport")
            .field("endpoint", &self.shared.endpoint)
            .field("prefix", &self.shared.prefix)
            .field("listed", &listed)
            .finish_non_exhaustive()
    }
}

/// A connected session, as calls use it.
#[derive(Clone)]
struct Live {
    peer: Peer<RoleClient>,
    /// Cancelled when the session is found dead: every call in flight on it fails at once.
    lost: CancellationToken,
    in_flight: Arc<AtomicUsize>,
}

impl Live {
    fn usable(&self) -> bool {
        !self.lost.is_cancelled() && !self.peer.is_transport_closed()
    }
}

/// Counts a call in flight on a session for as long as it lives.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(live: &Live) -> InFlight {
        live.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(Arc::clone(&live.in_flight))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Pings the server while calls are in flight; a ping that fails or goes unanswered marks the
/// session lost. A killed HTTP server otherwise leaves its calls waiting on a stream that
/// never ends; a child process's pipes close on their own.
fn heartbeat(live: Live, every: Duration) {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = live.lost.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
            if live.peer.is_transport_closed() {
                live.lost.cancel();
                return;
            }
            if live.in_flight.load(Ordering::Relaxed) == 0 {
                continue;
            }
            let ping = PingRequest { method: Default::default(), extensions: Default::default() };
            let answered = tokio::time::timeout(every * PING_PATIENCE, live.peer.send_request(ping.into())).await;
            // Any answer shows the server is there: 2026-07-28 has no `ping`, and a server
            // speaking it may refuse the request (`Method not found`).
            if !matches!(answered, Ok(Ok(_) | Err(ServiceError::McpError(_)))) {
                live.lost.cancel();
                return;
            }
        }
    });
}

impl Shared {
    fn live(&self) -> Option<Live> {
        self.live.read().unwrap_or_else(|e| e.into_inner()).clone().filter(Live::usable)
    }

    /// Calls `name` on the server with `arguments`; the result or error becomes the tool's. A
    /// call the server refuses for its token (`401`, or `403` naming a scope) is sent once more
    /// after an OAuth client got a new one.
    async fn call(self: Arc<Self>, name: Arc<str>, arguments: Map<String, Value>, ctx: ToolContext) -> ToolResult {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let mut answered_challenge = false;
        let answered = loop {
            let live =
                self.connected().await.map_err(|e| ToolError::new(e.to_string()).with_code("mcp_unreachable"))?;
            let challenged = Mutex::new(None);
            let seen = self.tokens_given();
            match self.call_once(&live, &name, params.clone(), &ctx, &challenged).await {
                Ok(answered) => break answered,
                Err(error) => {
                    let challenge = challenged.into_inner().unwrap_or_else(|e| e.into_inner());
                    match challenge {
                        Some(challenge) if !answered_challenge && self.answers_challenges() => {
                            answered_challenge = true;
                            let failed = McpImportError::Connect {
                                server: self.endpoint.label(),
                                reason: error.message().to_owned(),
                                source: None,
                            };
                            self.answer(&challenge, failed, seen)
                                .await
                                .map_err(|e| ToolError::new(e.to_string()).with_code("mcp_unauthorized"))?;
                        }
                        _ => return Err(error),
                    }
                }
            }
        };
        let metadata = answered.metadata();
        let mut output = read_result(answered.result)?;
        output.metadata.extend(metadata);
        Ok(output)
    }

    /// Lists the server's tools. A refusal of the token is answered once (an OAuth client gets
    /// a new one), and the list read again on a new connection.
    async fn list_tools(self: &Arc<Self>, peer: &Peer<RoleClient>) -> Result<(), McpImportError> {
        let seen = self.tokens_given();
        let error = match list(self, peer).await {
            Err(error) => error,
            listed => return listed,
        };
        let challenged = match &error {
            McpImportError::List { source: Some(cause), .. } if self.answers_challenges() => challenge(cause.get_ref()),
            _ => None,
        };
        let Some(challenge) = challenged else { return Err(error) };
        self.answer(&challenge, error, seen).await?;
        // The connection sends the new token; a lost one is made again, which lists the tools.
        match self.live() {
            Some(live) => list(self, &live.peer).await,
            None => self.connected().await.map(drop),
        }
    }

    /// Whether a refusal of the token is answered with a new one (the import is an OAuth client).
    fn answers_challenges(&self) -> bool {
        #[cfg(feature = "oauth")]
        return self.oauth.is_some();
        #[cfg(not(feature = "oauth"))]
        false
    }

    /// One sending of the call, with its rounds and task; a refusal of the token is noted in
    /// `challenged`.
    async fn call_once(
        self: &Arc<Self>,
        live: &Live,
        name: &str,
        params: CallToolRequestParams,
        ctx: &ToolContext,
        challenged: &Mutex<Option<Challenge>>,
    ) -> Result<rounds::Answered, ToolError> {
        let _in_flight = InFlight::enter(live);
        // rmcp gives each request a progress token of its own: each request of the call
        // (each round) is routed by its token when it is sent (see `rounds::send`).
        let forwarded = ctx.clone();
        let sink: ProgressSink =
            Arc::new(move |p: Progress| forwarded.report_progress(p.progress, p.total, p.message.as_deref()));
        let route =
            |token: ProgressToken| -> Box<dyn Send> { Box::new(ProgressRoute::open(self, token, Arc::clone(&sink))) };
        let progress: Option<&rounds::Route<'_>> = ctx.wants_progress().then_some(&route);
        // Dropped on a time-out or cancellation, this future sends `notifications/cancelled`
        // (and `tasks/cancel` for a call the server runs as a task).
        let remote = rounds::Remote {
            server: self.endpoint.label(),
            peer: &live.peer,
            lost: &live.lost,
            redactor: &self.redactor,
            max_input_rounds: self.limits.max_input_rounds,
            max_task_polls: self.limits.max_task_polls,
            sampling: self.answers.sampling.as_ref(),
            elicitation: self.answers.elicitation.as_ref(),
            progress,
            challenged,
        };
        rounds::drive(&remote, name, params).await
    }
}

/// Where the progress of one request goes while it runs; removed when the request ends.
struct ProgressRoute {
    shared: Arc<Shared>,
    token: ProgressToken,
}

impl ProgressRoute {
    /// Sends the progress reported under `token` to `sink`.
    fn open(shared: &Arc<Shared>, token: ProgressToken, sink: ProgressSink) -> ProgressRoute {
        shared.progress.lock().unwrap_or_else(|e| e.into_inner()).insert(token.clone(), sink);
        ProgressRoute { shared: Arc::clone(shared), token }
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        // rmcp hands each notification to the handler on a task of its own, so a report sent
        // before the result may be read after it: the route stays a moment longer (tokens
        // are never reused).
        let (shared, token) = (Arc::clone(&self.shared), self.token.clone());
        let remove = move || {
            shared.progress.lock().unwrap_or_else(|e| e.into_inner()).remove(&token);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    tokio::time::sleep(PROGRESS_GRACE).await;
                    remove();
                });
            }
            Err(_) => remove(),
        }
    }
}

/// Lists every page of the server's tools, within the limits, and keeps those that fit.
async fn list(shared: &Arc<Shared>, peer: &Peer<RoleClient>) -> Result<(), McpImportError> {
    let limits = shared.limits;
    let list_error = |reason: String| McpImportError::List { server: shared.endpoint.label(), reason, source: None };
    let (tools, skipped) =
        tokio::time::timeout(limits.list_timeout, read_pages(shared, peer)).await.map_err(|_| {
            list_error(format!(
                "the list was not complete within {} ms (`McpImportBuilder::list_timeout`)",
                limits.list_timeout.as_millis()
            ))
        })??;
    *shared.listed.write().unwrap_or_else(|e| e.into_inner()) = tools;
    *shared.listed_skipped.write().unwrap_or_else(|e| e.into_inner()) = skipped;
    shared.changes.send_modify(|version| *version += 1);
    Ok(())
}

/// Reads page after page while the server gives a cursor, up to the page and tool limits;
/// a tool larger than allowed, or listed twice, is skipped at once, so it is not kept.
async fn read_pages(
    shared: &Arc<Shared>,
    peer: &Peer<RoleClient>,
) -> Result<(Vec<McpTool>, Vec<SkippedTool>), McpImportError> {
    let limits = shared.limits;
    let list_error = |reason: String| McpImportError::List { server: shared.endpoint.label(), reason, source: None };
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut names = HashSet::new();
    let mut cursor = None;
    // Every tool listed counts, kept or skipped, so skipped ones cannot grow the list either.
    let mut listed = 0;
    let mut bytes_kept = 0;
    for _ in 0..limits.max_pages {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let result = peer.list_tools(Some(params)).await.map_err(|error| {
            let reason = match &error {
                // rmcp closes the connection on a message over its limit rather than answer.
                ServiceError::TransportClosed => format!(
                    "the connection closed during `tools/list` ({error}); a message larger than 16 MiB, the limit of rmcp's transports, closes it"
                ),
                other => reason(other, &shared.redactor),
            };
            let source = Some(McpCause::new(reason.clone(), error));
            McpImportError::List { server: shared.endpoint.label(), reason, source }
        })?;
        listed += result.tools.len();
        if listed > limits.max_tools {
            return Err(list_error(format!(
                "it lists more than {} tools (`McpImportBuilder::max_tools`)",
                limits.max_tools
            )));
        }
        for tool in result.tools {
            let bytes = json_size(&tool, limits.max_tool_bytes);
            if bytes > limits.max_tool_bytes {
                skipped.push(SkippedTool {
                    name: tool.name.to_string(),
                    reason: SkipReason::TooLarge { max_bytes: limits.max_tool_bytes },
                });
            } else if !names.insert(tool.name.clone()) {
                skipped.push(SkippedTool { name: tool.name.to_string(), reason: SkipReason::ListedTwice });
            } else {
                bytes_kept += bytes;
                if bytes_kept > limits.max_list_bytes {
                    return Err(list_error(format!(
                        "its tools take more than {} bytes of JSON together (`McpImportBuilder::max_list_bytes`)",
                        limits.max_list_bytes
                    )));
                }
                tools.push(tool);
            }
        }
        match result.next_cursor {
            None => return Ok((tools, skipped)),
            Some(next) => cursor = Some(next),
        }
    }
    Err(list_error(format!(
        "it still gives a `nextCursor` after {} pages (`McpImportBuilder::max_pages`)",
        limits.max_pages
    )))
}

/// The bytes of `value` as JSON, counted up to just over `limit`: writing stops there.
fn json_size(value: &impl serde::Serialize, limit: usize) -> usize {
    struct Counter {
        bytes: usize,
        limit: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes += buf.len();
            if self.bytes > self.limit {
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { bytes: 0, limit };
    let _ = serde_json::to_writer(&mut counter, value);
    counter.bytes
}

/// One remote tool as a [`DynamicTool`]: its schema read by the same rules as any other.
fn import_tool(shared: &Arc<Shared>, tool: &McpTool) -> Result<DynamicTool, DynamicToolError> {
    let remote: Arc<str> = Arc::from(tool.name.as_ref());
    let name = format!("{}{}", shared.prefix, remote);
    let schema = Value::Object(tool.input_schema.as_ref().clone());
    // The catalog wants a description for the model; a server may give only a title.
    let description = match (tool.description.as_deref(), tool.title.as_deref()) {
        (Some(description), _) if !description.trim().is_empty() => description.to_owned(),
        (_, Some(title)) if !title.trim().is_empty() => title.to_owned(),
        _ => format!("The tool `{remote}` of the MCP server `{}`.", shared.endpoint.label()),
    };
    let hints = tool.annotations.as_ref();
    let annotations = ToolAnnotations {
        title: tool.title.clone().or_else(|| hints.and_then(|a| a.title.clone())),
        read_only: hints.and_then(|a| a.read_only_hint),
        destructive: hints.and_then(|a| a.destructive_hint),
        idempotent: hints.and_then(|a| a.idempotent_hint),
        open_world: hints.and_then(|a| a.open_world_hint),
    };
    let mut builder = DynamicTool::builder(name).annotations(annotations);
    // The remote server's icons that a client may load (an `https://` or `data:image/` source);
    // others are dropped, never passed on to this host's clients.
    let icons = tool.icons.iter().flatten().filter_map(|icon| {
        serde_json::to_value(icon).ok().and_then(|icon| serde_json::from_value::<crate::ToolIcon>(icon).ok())
    });
    for icon in icons.filter(|icon| icon.problem().is_none()).take(crate::ToolDefinition::MAX_ICONS) {
        builder = builder.icon(icon);
    }
    if shared.defer {
        builder = builder.defer(true);
    }
    for scope in &shared.scopes {
        builder = builder.scope(scope);
    }
    if let Some(output) = &tool.output_schema {
        builder = builder.output_schema(Value::Object(output.as_ref().clone()));
    }
    let shared = Arc::clone(shared);
    builder
        .description(description)
        .input_schema(schema)
        .source(format!("mcp:{}", shared.endpoint.label()), 0)
        .handler(move |arguments, ctx| Arc::clone(&shared).call(Arc::clone(&remote), arguments, ctx))
        .build()
}

#[cfg(test)]
mod tests {
    use super::Endpoint;

    #[test]
    fn a_text_quoting_the_url_or_its_secrets_is_cleaned() {
        let endpoint =
            Endpoint::Http { url: "https://user:pw1234@h/mcp?token=abc".to_owned(), bearer: Some("tok-9".to_owned()) };
        let redactor = endpoint.redactor();
        assert_eq!(
            redactor.clean("error sending request for url (https://user:pw1234@h/mcp?token=abc): refused"),
            "error sending request for url (https://***@h/mcp?***): refused"
        );
        assert_eq!(
            redactor.clean("401 for user:pw1234, password pw1234, query token=abc, bearer tok-9"),
            "401 for ***, password ***, query ***, bearer ***"
        );
        assert_eq!(format!("{endpoint:?}"), r#"Http { url: "https://***@h/mcp?***", bearer: Some("***") }"#);
    }
}
