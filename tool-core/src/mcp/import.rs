//! Importing a server's tools: an rmcp client whose tools become [`DynamicTool`]s.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientConfig, NumberOrString, PingRequest, ProgressNotificationParam, ProgressToken,
    RequestMetaObject, Tool as McpTool,
};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService, ServiceError, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::catalog::CatalogBuilder;
use crate::context::{Progress, ProgressSink, ToolContext};
use crate::model::{ToolAnnotations, ToolError, ToolOutput};
use crate::tool::{DynamicTool, Tool, ToolResult};

/// How often a session with calls in flight is pinged, unless told otherwise.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How many heartbeats a ping may take before the server is lost.
const PING_PATIENCE: u32 = 5;

/// Where the server is.
#[derive(Clone, Debug)]
enum Endpoint {
    /// A child process speaking MCP on its standard input and output.
    Child { program: OsString, args: Vec<OsString>, envs: Vec<(OsString, OsString)>, dir: Option<PathBuf> },
    /// A streamable HTTP endpoint.
    Http { url: String, bearer: Option<String> },
}

impl Endpoint {
    fn label(&self) -> String {
        match self {
            Endpoint::Child { program, .. } => program.to_string_lossy().into_owned(),
            Endpoint::Http { url, .. } => url.clone(),
        }
    }
}

/// Configures an import; made by [`McpImport::command`] or [`McpImport::http`].
#[must_use = "nothing connects until `.connect()`"]
pub struct McpImportBuilder {
    endpoint: Endpoint,
    prefix: String,
    heartbeat: Duration,
}

/// Why a server's tools could not be imported or reached.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum McpImportError {
    /// The child process could not be started.
    #[error("cannot start the MCP server `{server}`: {reason}")]
    Spawn {
        /// The program.
        server: String,
        /// What the system said.
        reason: String,
    },
    /// The MCP handshake failed.
    #[error("cannot connect to the MCP server `{server}`: {reason}")]
    Connect {
        /// The program or URL.
        server: String,
        /// What rmcp said.
        reason: String,
    },
    /// `tools/list` failed.
    #[error("cannot list the tools of the MCP server `{server}`: {reason}")]
    List {
        /// The program or URL.
        server: String,
        /// What rmcp said.
        reason: String,
    },
}

/// A remote tool left out of the import, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTool {
    /// The name the server gave.
    pub name: String,
    /// Why it could not become a tool here.
    pub reason: String,
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
    endpoint: Endpoint,
    prefix: String,
    /// The live session, if any; replaced when it drops.
    session: tokio::sync::Mutex<Option<RunningService<RoleClient, ImportHandler>>>,
    live: RwLock<Option<Live>>,
    heartbeat: Duration,
    /// The server's tools as last listed.
    listed: RwLock<Vec<McpTool>>,
    changes: watch::Sender<u64>,
    progress: Mutex<HashMap<i64, ProgressSink>>,
    next_token: AtomicU64,
}

/// The client side of the session: routes progress to calls and refreshes on list changes.
#[derive(Clone)]
struct ImportHandler {
    shared: Weak<Shared>,
}

impl ClientHandler for ImportHandler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = rmcp::model::Implementation::new("tool-core", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let Some(shared) = self.shared.upgrade() else { return };
        let ProgressToken(NumberOrString::Number(token)) = params.progress_token else { return };
        let sink = shared.progress.lock().unwrap_or_else(|e| e.into_inner()).get(&token).cloned();
        if let Some(sink) = sink {
            sink(Progress { progress: params.progress, total: params.total, message: params.message });
        }
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(shared) = self.shared.upgrade() else { return };
        let peer = context.peer.clone();
        // Listing is a request on this same session: it must not hold up the session's loop.
        tokio::spawn(async move {
            if let Err(error) = list(&shared, &peer).await {
                tracing::warn!(target: "tools", %error, "refreshing the imported MCP tools failed");
            }
        });
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

    /// Remote tools left out (a name that is not valid here even with the prefix).
    pub fn skipped(&self) -> Vec<SkippedTool> {
        self.imported().1
    }

    fn imported(&self) -> (Vec<Arc<DynamicTool>>, Vec<SkippedTool>) {
        let listed = self.shared.listed.read().unwrap_or_else(|e| e.into_inner());
        let mut tools = Vec::with_capacity(listed.len());
        let mut skipped = Vec::new();
        for tool in listed.iter() {
            match import_tool(&self.shared, tool) {
                Ok(imported) => tools.push(Arc::new(imported)),
                Err(reason) => skipped.push(SkippedTool { name: tool.name.to_string(), reason }),
            }
        }
        (tools, skipped)
    }

    /// Adds the imported tools to `builder`, replacing same-named tools already in it (so a
    /// catalog can be rebuilt from itself after a change).
    pub fn add_to(&self, mut builder: CatalogBuilder) -> CatalogBuilder {
        for tool in self.tools() {
            builder = builder.remove(&tool.definition().name).add_shared(tool);
        }
        builder
    }

    /// Bumped each time the list is read again after a `list_changed` notification or a
    /// reconnection.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// Reads the server's list again now.
    pub async fn refresh(&self) -> Result<(), McpImportError> {
        let live = self.shared.connected().await?;
        list(&self.shared, &live.peer).await
    }

    /// Ends the session (a child process is stopped).
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

impl McpImportBuilder {
    fn new(endpoint: Endpoint) -> McpImportBuilder {
        McpImportBuilder { endpoint, prefix: String::new(), heartbeat: HEARTBEAT }
    }

    /// An argument for the child process.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        if let Endpoint::Child { args, .. } = &mut self.endpoint {
            args.push(arg.into());
        }
        self
    }

    /// Arguments for the child process.
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, more: I) -> Self {
        if let Endpoint::Child { args, .. } = &mut self.endpoint {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    /// An environment variable for the child process.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        if let Endpoint::Child { envs, .. } = &mut self.endpoint {
            envs.push((key.into(), value.into()));
        }
        self
    }

    /// The child process's working directory.
    pub fn current_dir(mut self, path: impl Into<PathBuf>) -> Self {
        if let Endpoint::Child { dir, .. } = &mut self.endpoint {
            *dir = Some(path.into());
        }
        self
    }

    /// Sends `Authorization: Bearer <token>` to an HTTP endpoint.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Endpoint::Http { bearer, .. } = &mut self.endpoint {
            *bearer = Some(token.into());
        }
        self
    }

    /// Names each tool `prefix` + its remote name (`weather.` + `lookup`), so tools of several
    /// servers can share a catalog. Calls go out under the remote name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How often the server is pinged while calls are in flight (one second by default); a
    /// server that fails to answer within five of these is lost, and its calls fail.
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = every.max(Duration::from_millis(10));
        self
    }

    /// Connects, and lists the server's tools (every page).
    pub async fn connect(self) -> Result<McpImport, McpImportError> {
        let shared = Arc::new(Shared {
            endpoint: self.endpoint,
            prefix: self.prefix,
            session: tokio::sync::Mutex::new(None),
            live: RwLock::new(None),
            heartbeat: self.heartbeat,
            listed: RwLock::new(Vec::new()),
            changes: watch::Sender::new(0),
            progress: Mutex::new(HashMap::new()),
            next_token: AtomicU64::new(1),
        });
        let live = shared.connected().await?;
        list(&shared, &live.peer).await?;
        Ok(McpImport { shared })
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
            if !matches!(answered, Ok(Ok(_))) {
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

    /// The live session, connecting (again) when there is none or it was lost.
    async fn connected(self: &Arc<Self>) -> Result<Live, McpImportError> {
        if let Some(live) = self.live() {
            return Ok(live);
        }
        let mut session = self.session.lock().await;
        // Another call may have reconnected while this one waited.
        if let Some(live) = self.live() {
            return Ok(live);
        }
        let reconnecting = session.is_some();
        if let Some(old) = self.live.write().unwrap_or_else(|e| e.into_inner()).take() {
            old.lost.cancel();
        }
        let handler = ImportHandler { shared: Arc::downgrade(self) };
        let server = self.endpoint.label();
        let connect_error = |reason: String| McpImportError::Connect { server: server.clone(), reason };
        let running = match &self.endpoint {
            Endpoint::Child { program, args, envs, dir } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(envs.iter().map(|(k, v)| (k, v)));
                if let Some(dir) = dir {
                    command.current_dir(dir);
                }
                let transport = TokioChildProcess::new(command)
                    .map_err(|e| McpImportError::Spawn { server: server.clone(), reason: e.to_string() })?;
                handler.serve(transport).await.map_err(|e| connect_error(e.to_string()))?
            }
            Endpoint::Http { url, bearer } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                if let Some(token) = bearer {
                    config = config.auth_header(token.clone());
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                handler.serve(transport).await.map_err(|e| connect_error(e.to_string()))?
            }
        };
        let live = Live { peer: running.peer().clone(), lost: CancellationToken::new(), in_flight: Arc::default() };
        // The old session, if any, is dropped here, which ends it.
        *session = Some(running);
        *self.live.write().unwrap_or_else(|e| e.into_inner()) = Some(live.clone());
        drop(session);
        heartbeat(live.clone(), self.heartbeat);
        if reconnecting {
            // The server may have changed while it was away.
            list(self, &live.peer).await?;
        }
        Ok(live)
    }

    /// Calls `name` on the server with `arguments`; the result or error becomes the tool's.
    async fn call(self: Arc<Self>, name: Arc<str>, arguments: Map<String, Value>, ctx: ToolContext) -> ToolResult {
        let live = self.connected().await.map_err(|e| ToolError::new(e.to_string()).with_code("mcp_unreachable"))?;
        let _in_flight = InFlight::enter(&live);
        let mut params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let token = ctx.wants_progress().then(|| self.next_token.fetch_add(1, Ordering::Relaxed) as i64);
        let _route = token.map(|token| {
            let mut meta = RequestMetaObject::default();
            meta.set_progress_token(ProgressToken(NumberOrString::Number(token)));
            params.meta = Some(meta);
            let forwarded = ctx.clone();
            self.progress.lock().unwrap_or_else(|e| e.into_inner()).insert(
                token,
                Arc::new(move |p: Progress| forwarded.report_progress(p.progress, p.total, p.message.as_deref())),
            );
            ProgressRoute { shared: Arc::clone(&self), token }
        });
        // Dropped on a time-out or cancellation, this future sends `notifications/cancelled`.
        let outcome = tokio::select! {
            outcome = live.peer.call_tool(params) => outcome,
            () = live.lost.cancelled() => return Err(lost(&self.endpoint.label(), &name, "it stopped answering")),
        };
        match outcome {
            Ok(result) => read_result(serde_json::to_value(result).unwrap_or(Value::Null)),
            Err(error) => {
                if !matches!(error, ServiceError::McpError(_)) {
                    live.lost.cancel();
                }
                Err(lost_call(&self.endpoint.label(), &name, &error))
            }
        }
    }
}

/// Removes a call's progress route when the call ends.
struct ProgressRoute {
    shared: Arc<Shared>,
    token: i64,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.shared.progress.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.token);
    }
}

fn lost_call(server: &str, name: &str, error: &ServiceError) -> ToolError {
    match error {
        // The server's own words are for the host (the record); the model reads the code.
        ServiceError::McpError(error) => ToolError::new(format!(
            "The MCP server `{server}` refused the call of `{name}` (JSON-RPC error {}).",
            error.code.0
        ))
        .with_code("mcp_error")
        .with_internal_detail(error.message.to_string()),
        other => lost(server, name, &other.to_string()),
    }
}

fn lost(server: &str, name: &str, why: &str) -> ToolError {
    ToolError::new(format!(
        "The MCP server `{server}` was lost during the call of `{name}` ({why}); the call may or may not have run."
    ))
    .with_code("mcp_connection_lost")
}

/// Turns a `tools/call` result into the tool's output, or its error when `isError` is set.
fn read_result(result: Value) -> ToolResult {
    let content = result.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    let text = content
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let structured = result.get("structuredContent").cloned();
    let other_blocks = content.iter().any(|block| block.get("type").and_then(Value::as_str) != Some("text"));
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let mut error = ToolError::new(text).with_code("mcp_tool_error");
        if let Some(details) = structured {
            error = error.with_details(details);
        }
        return Err(error);
    }
    let mut output = ToolOutput::text(text);
    output.structured = structured;
    if other_blocks {
        // Images, audio, resources: kept whole for the host, which knows what to do with them.
        output = output.with_metadata("mcp_content", Value::Array(content));
    }
    Ok(output)
}

/// Lists every page of the server's tools and makes them tools here.
async fn list(shared: &Arc<Shared>, peer: &Peer<RoleClient>) -> Result<(), McpImportError> {
    let remote = peer
        .list_all_tools()
        .await
        .map_err(|e| McpImportError::List { server: shared.endpoint.label(), reason: e.to_string() })?;
    *shared.listed.write().unwrap_or_else(|e| e.into_inner()) = remote;
    shared.changes.send_modify(|version| *version += 1);
    Ok(())
}

/// One remote tool as a [`DynamicTool`]: its schema read by the same rules as any other.
fn import_tool(shared: &Arc<Shared>, tool: &McpTool) -> Result<DynamicTool, String> {
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
        .map_err(|e| e.to_string())
}
