//! Importing a server's tools: an rmcp client whose tools become [`DynamicTool`]s.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use rmcp::model::{
    CallToolRequestParams, ClientConfig, NumberOrString, ProgressNotificationParam, ProgressToken, RequestMetaObject,
    Tool as McpTool,
};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService, ServiceError, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::catalog::CatalogBuilder;
use crate::context::{Progress, ProgressSink, ToolContext};
use crate::model::{ToolError, ToolOutput};
use crate::tool::{DynamicTool, Tool, ToolResult};

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
    peer: RwLock<Option<Peer<RoleClient>>>,
    listed: RwLock<Listed>,
    changes: watch::Sender<u64>,
    progress: Mutex<HashMap<i64, ProgressSink>>,
    next_token: AtomicU64,
}

/// The server's list as last read.
#[derive(Default)]
struct Listed {
    tools: Vec<McpTool>,
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
        McpImportBuilder {
            endpoint: Endpoint::Child { program: program.into(), args: Vec::new(), envs: Vec::new(), dir: None },
            prefix: String::new(),
        }
    }

    /// Imports from a streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`).
    pub fn http(url: impl Into<String>) -> McpImportBuilder {
        McpImportBuilder { endpoint: Endpoint::Http { url: url.into(), bearer: None }, prefix: String::new() }
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
        let mut tools = Vec::with_capacity(listed.tools.len());
        let mut skipped = Vec::new();
        for tool in &listed.tools {
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
        let peer = self.shared.peer().await?;
        list(&self.shared, &peer).await
    }

    /// Ends the session (a child process is stopped).
    pub async fn close(&self) {
        let session = self.shared.session.lock().await.take();
        *self.shared.peer.write().unwrap_or_else(|e| e.into_inner()) = None;
        if let Some(mut session) = session {
            let _ = session.close().await;
        }
    }
}

impl McpImportBuilder {
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

    /// Connects, and lists the server's tools (every page).
    pub async fn connect(self) -> Result<McpImport, McpImportError> {
        let shared = Arc::new(Shared {
            endpoint: self.endpoint,
            prefix: self.prefix,
            session: tokio::sync::Mutex::new(None),
            peer: RwLock::new(None),
            listed: RwLock::new(Listed::default()),
            changes: watch::Sender::new(0),
            progress: Mutex::new(HashMap::new()),
            next_token: AtomicU64::new(1),
        });
        let peer = shared.peer().await?;
        list(&shared, &peer).await?;
        Ok(McpImport { shared })
    }
}

impl Shared {
    /// The live session's peer, connecting (again) when there is none or it dropped.
    async fn peer(self: &Arc<Self>) -> Result<Peer<RoleClient>, McpImportError> {
        if let Some(peer) = self.peer.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
            if !peer.is_transport_closed() {
                return Ok(peer.clone());
            }
        }
        let mut session = self.session.lock().await;
        // Another call may have reconnected while this one waited.
        if let Some(live) = session.as_ref() {
            if !live.peer().is_transport_closed() && !live.is_closed() {
                return Ok(live.peer().clone());
            }
        }
        let reconnecting = session.is_some();
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
        let peer = running.peer().clone();
        *session = Some(running);
        *self.peer.write().unwrap_or_else(|e| e.into_inner()) = Some(peer.clone());
        drop(session);
        if reconnecting {
            // The server may have changed while it was away.
            list(self, &peer).await?;
        }
        Ok(peer)
    }

    /// Forgets a session that failed, so the next call connects again.
    fn forget(&self, failed: &Peer<RoleClient>) {
        let mut peer = self.peer.write().unwrap_or_else(|e| e.into_inner());
        if peer.as_ref().is_some_and(|p| p.is_transport_closed() || failed.is_transport_closed()) {
            *peer = None;
        }
    }

    /// Calls `name` on the server with `arguments`; the result or error becomes the tool's.
    async fn call(self: Arc<Self>, name: Arc<str>, arguments: Map<String, Value>, ctx: ToolContext) -> ToolResult {
        let server = self.endpoint.label();
        let peer = self.peer().await.map_err(|e| ToolError::new(e.to_string()).with_code("mcp_unreachable"))?;
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
        match peer.call_tool(params).await {
            Ok(result) => read_result(serde_json::to_value(result).unwrap_or(Value::Null)),
            Err(error) => {
                self.forget(&peer);
                Err(lost_call(&server, &name, &error))
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
        ServiceError::McpError(error) => ToolError::new(format!(
            "The MCP server `{server}` refused the call of `{name}`: {} (JSON-RPC error {})",
            error.message, error.code.0
        ))
        .with_code("mcp_error"),
        other => ToolError::new(format!(
            "The MCP server `{server}` was lost during the call of `{name}` ({other}); the call may or may not have run."
        ))
        .with_code("mcp_connection_lost"),
    }
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
    *shared.listed.write().unwrap_or_else(|e| e.into_inner()) = Listed { tools: remote };
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
    let shared = Arc::clone(shared);
    DynamicTool::builder(name)
        .description(description)
        .input_schema(schema)
        .source(format!("mcp:{}", shared.endpoint.label()), 0)
        .handler(move |arguments, ctx| Arc::clone(&shared).call(Arc::clone(&remote), arguments, ctx))
        .build()
        .map_err(|e| e.to_string())
}
