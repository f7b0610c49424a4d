//! Serving a catalog: the rmcp server handler.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock, Weak};

// MCP's logging (`logging/setLevel`, `notifications/message`) is deprecated from protocol
// 2026-07-28 on (SEP-2577) but still part of it, and clients of earlier versions use it: served
// until the protocol removes it.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult, ErrorCode, Implementation,
    ListToolsResult, LoggingLevel, LoggingMessageNotificationParam, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscriptionFilter, Tool as McpTool,
};
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResponse,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::SubscriptionContext;
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer, RunningService, ServiceExt};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

use super::primitives::McpPrimitives;
use crate::context::LogLevel;
use crate::executor::{CallScope, ExecutionRecord, Executor};

use super::search::{ServedSearch, ServerSearch, SessionSearch};
pub use super::server_error::McpServerError;
mod call; // a served `tools/call`, from request to result
mod scopes; // OAuth scopes per tool: what each call needs, what a caller sees
mod starting; // what a task of a call needs, and a prompt's question asked in rounds
mod builder; // The settings of an `McpServer`: what `McpServerBuilder` sets and how `build` exports the catalog.
use crate::model::{ToolCallRequest, ToolError};
use crate::providers::export::export;
use crate::providers::names::NameMap;
use crate::providers::results::{mcp_parts, mcp_warnings_meta, McpParts, Piece};
use crate::providers::Dialect;
use crate::stateful::Conversations;

/// How long a result waits for the call's progress reports and log messages to go out before it.
const PROGRESS_FLUSH: std::time::Duration = std::time::Duration::from_secs(1);

/// How many tools a `tools/list` page holds unless told otherwise.
const PAGE: usize = 100;

/// The requests of the MCP specification. One of them that reaches
/// [`ServerHandler::on_custom_request`] is one whose `params` rmcp could not read.
const SPECIFIED: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// The requests protocol 2026-07-28 removed. A request of that protocol naming one is
/// answered as one of a method the server does not have (-32601, HTTP 404), whatever its
/// params: rmcp hands those it cannot read to [`ServerHandler::on_custom_request`].
const REMOVED_IN_2026_07_28: &[&str] =
    &["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// Whether `method` is one the protocol of the request of `context` removed.
fn removed_for(context: &RequestContext<RoleServer>, method: &str) -> bool {
    REMOVED_IN_2026_07_28.contains(&method)
        && context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// A catalog served over MCP: its executor's tools, exported once.
///
/// Clones share everything: every session of an HTTP server is a clone, and
/// [`McpServer::replace`] on any clone changes what all of them serve.
///
/// ```no_run
/// use tool_core::mcp::McpServer;
/// use tool_core::prelude::*;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let executor = Executor::new(ToolCatalog::global()?.clone());
/// McpServer::new(executor)?.serve_stdio().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    served: Arc<RwLock<Arc<Served>>>,
    /// Sessions opened with `initialize`, told when the served set changes.
    sessions: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    /// Bumped on every change; `subscriptions/listen` streams (protocol 2026-07-28) watch it.
    changes: Arc<watch::Sender<u64>>,
    page: usize,
    /// Sees the record of every call, for the host's audit or logs.
    observer: Option<Arc<RecordObserver>>,
    /// The sessions opened and not yet closed, so that a shutdown can end their conversations.
    open: Arc<OpenSessions>,
    /// The session this clone serves (stateful tools keep one instance per session); each
    /// session gets its own, ended when the session closes.
    session: Option<Arc<Session>>,
    /// The HTTP request header whose value names a call's conversation, when the host keys
    /// conversations by a value the client sends instead of by session.
    conversation_header: Option<Arc<str>>,
    /// The resources, templates and prompts offered beside the tools.
    primitives: McpPrimitives,
    /// The tool search over the catalog's deferred tools, when the host asked for one.
    search: ServerSearch,
    /// Whether a call that needs approval is shown to the client's user through elicitation.
    approval_by_elicitation: bool,
    /// How questions are asked of clients without server-to-client requests (2026-07-28).
    rounds: Arc<super::mrtr::InputRounds>,
    /// How the conversations of requests outside any session are named.
    handles: Arc<super::handles::Handles>,
    /// The tasks of long calls (the MCP tasks extension), and those running here.
    tasks: Arc<super::tasks::Tasks>,
    /// Who a request comes from, by the host's rule: the principal its calls and tasks run as.
    principal: Option<Arc<PrincipalRule>>,
    /// The host's rule adding the OAuth scopes a tool's calls need, and what callers see.
    scopes: Arc<ScopePolicy>,
    /// The `tools/call`s being served, which a drain waits for.
    running: Arc<super::health::Running>,
}

/// The host's settings of OAuth scopes: a rule adding scopes to those a tool declares (by tag,
/// annotation, name), and whether a caller is listed the tools its scopes do not let it call.
#[derive(Default)]
struct ScopePolicy {
    rule: Option<Box<ScopeRule>>,
    list_all: bool,
}

/// The host's rule adding the OAuth scopes a tool needs.
type ScopeRule = dyn Fn(&crate::ToolDefinition) -> Vec<String> + Send + Sync;

/// The host's rule naming the principal of an HTTP request.
type PrincipalRule = dyn Fn(&axum::http::request::Parts) -> Option<String> + Send + Sync;

/// Numbers the sessions of this process, for their conversation ids.
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The longest conversation id a client may send in the conversation header.
const MAX_CONVERSATION_ID: usize = 256;

/// The sessions of a server that are still open, by number.
type OpenSessions = Mutex<HashMap<u64, Weak<Session>>>;

/// One MCP session: its conversation, ended in every store its calls used once the session's
/// server (the last clone of it, which rmcp drops when the session closes) is gone, or when
/// the HTTP server shuts down.
struct Session {
    number: u64,
    conversation: String,
    stores: Mutex<Vec<Conversations>>,
    open: Weak<OpenSessions>,
    /// The least severe log level the client wants (`logging/setLevel`); every level until it
    /// sets one.
    log_level: Mutex<Option<LogLevel>>,
    /// The deferred tools this session's searches found, in its `tools/list` after the others.
    search: SessionSearch,
}

impl Session {
    /// Notes that a call of this session runs on `conversations`.
    fn uses(&self, conversations: &Conversations) {
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if !stores.iter().any(|store| store.same_store(conversations)) {
            stores.push(conversations.clone());
        }
    }

    /// Ends the session's conversation now, in every store its calls used; its instances are
    /// cleaned up once.
    async fn end(&self) {
        let stores = std::mem::take(&mut *self.stores.lock().unwrap_or_else(|e| e.into_inner()));
        for store in stores {
            store.end(&self.conversation).await;
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(open) = self.open.upgrade() {
            open.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.number);
        }
        let stores = std::mem::take(self.stores.get_mut().unwrap_or_else(|e| e.into_inner()));
        if stores.is_empty() {
            return;
        }
        let conversation = std::mem::take(&mut self.conversation);
        // Cleanup hooks are async: they run on the runtime the session was served on. Without
        // one (a server dropped after its runtime), the instances go by idle time and cap.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                for store in stores {
                    store.end(&conversation).await;
                }
            });
        }
    }
}

/// Where a call's conversation comes from.
enum CallConversation {
    /// The conversation id to run the call in.
    Named(String),
    /// The request names none it may use; the message says why, for a stateful tool.
    None(String),
    /// The request belongs to no session: a conversation handle among its arguments names it.
    Handle,
}

use super::tasks::RecordObserver;

/// What is served: the executor and its catalog's MCP export.
struct Served {
    /// What calls run on: the host's executor, over its catalog with the search tool added
    /// when the server searches the deferred tools.
    executor: Executor,
    /// Every tool of `executor`'s catalog, exported, in the catalog's order.
    tools: Vec<McpTool>,
    /// The same, as a request outside any session lists them: the tools that keep state per
    /// conversation take a conversation handle.
    outside: Vec<McpTool>,
    /// The tools every `tools/list` holds, by their place in `tools`: all of them, or, with a
    /// search tool, those not deferred (the search tool among them).
    listed: Vec<usize>,
    /// The tool search of this catalog.
    search: ServedSearch,
    names: NameMap,
}

impl Served {
    /// Serves `host`, with the tool search `search` makes of it.
    fn new(
        host: &Executor,
        search: &ServerSearch,
        handles: &super::handles::Handles,
    ) -> Result<Served, McpServerError> {
        let (executor, search) = search.prepare(host)?;
        let catalog = executor.catalog();
        let exported = export(Dialect::Mcp, catalog.definitions())?;
        let tools = exported
            .tools
            .into_iter()
            .map(|tool| {
                let name = tool["name"].as_str().unwrap_or_default().to_owned();
                serde_json::from_value::<McpTool>(tool)
                    .map_err(|source| McpServerError::InvalidTool { tool: name, source })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut outside = tools.clone();
        for (tool, served) in catalog.iter().zip(&mut outside) {
            if !tool.keeps_state() && !handles.every_tool {
                continue;
            }
            let properties = Arc::make_mut(&mut served.input_schema)
                .entry("properties")
                .or_insert_with(|| Value::Object(Default::default()));
            let Value::Object(properties) = properties else { continue };
            if properties.contains_key(&handles.argument) {
                return Err(McpServerError::HandleArgumentTaken {
                    tool: tool.definition().name.clone(),
                    argument: handles.argument.clone(),
                });
            }
            properties.insert(handles.argument.clone(), handles.property());
        }
        let listed = catalog
            .names()
            .enumerate()
            .filter(|(_, name)| search.always_listed(catalog, name))
            .map(|(place, _)| place)
            .collect();
        Ok(Served { executor, tools, outside, listed, search, names: exported.names })
    }
}

/// Configures an [`McpServer`]; [`build`](Self::build) exports the catalog.
pub struct McpServerBuilder {
    executor: Executor,
    page: usize,
    observer: Option<Arc<RecordObserver>>,
    primitives: McpPrimitives,
    pub(super) search: ServerSearch,
    approval_by_elicitation: bool,
    state_keys: Option<super::mrtr::StateKeys>,
    input_state_ttl: std::time::Duration,
    max_input_rounds: u32,
    handles: super::handles::Handles,
    tasks: super::tasks::Tasks,
    principal: Option<Arc<PrincipalRule>>,
    scopes: ScopePolicy,
}

impl McpServer {
    /// Serves every tool of `executor`'s catalog, exported in the MCP dialect, with the
    /// defaults: [`builder`](Self::builder) configures the rest.
    pub fn new(executor: Executor) -> Result<McpServer, McpServerError> {
        Self::builder(executor).build()
    }

    /// Configures a server of every tool of `executor`'s catalog. To serve a subset, build the
    /// executor over a catalog narrowed with
    /// [`CatalogBuilder::retain_tagged`](crate::CatalogBuilder::retain_tagged) or
    /// [`CatalogBuilder::retain`](crate::CatalogBuilder::retain).
    pub fn builder(executor: Executor) -> McpServerBuilder {
        McpServerBuilder {
            executor,
            page: PAGE,
            observer: None,
            primitives: McpPrimitives::default(),
            search: ServerSearch::default(),
            approval_by_elicitation: true,
            state_keys: None,
            input_state_ttl: super::mrtr::DEFAULT_INPUT_STATE_TTL,
            max_input_rounds: super::mrtr::DEFAULT_MAX_INPUT_ROUNDS,
            handles: super::handles::Handles::default(),
            tasks: super::tasks::Tasks::default(),
            principal: None,
            scopes: ScopePolicy::default(),
        }
    }

    /// Serves `executor`'s tools from now on, in every session, and sends
    /// `notifications/tools/list_changed` to every connected client. Calls already running
    /// finish on the executor they started on.
    pub async fn replace(&self, executor: Executor) -> Result<(), McpServerError> {
        let served = Arc::new(Served::new(&executor, &self.search, &self.handles)?);
        *self.served.write().unwrap_or_else(|e| e.into_inner()) = served;
        self.changes.send_modify(|version| *version += 1);
        let sessions: Vec<Peer<RoleServer>> = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            sessions.retain(|peer| !peer.is_transport_closed());
            sessions.clone()
        };
        for peer in sessions {
            // A client that left meanwhile is dropped at the next change.
            let _ = peer.notify_tool_list_changed().await;
        }
        Ok(())
    }

    /// A clone for one session, with a conversation of its own.
    pub(super) fn for_session(&self) -> McpServer {
        let number = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let session = Arc::new(Session {
            number,
            conversation: format!("mcp-session-{number}"),
            stores: Mutex::default(),
            open: Arc::downgrade(&self.open),
            log_level: Mutex::new(None),
            search: SessionSearch::default(),
        });
        self.open.lock().unwrap_or_else(|e| e.into_inner()).insert(number, Arc::downgrade(&session));
        McpServer { session: Some(session), ..self.clone() }
    }

    /// Ends the conversation of every session still open (when the server stops).
    pub(super) async fn end_sessions(&self) {
        let open: Vec<Arc<Session>> =
            self.open.lock().unwrap_or_else(|e| e.into_inner()).values().filter_map(Weak::upgrade).collect();
        for session in open {
            session.end().await;
        }
    }

    /// Keys conversations by the value of the HTTP header `name` instead of by session.
    pub(super) fn with_conversation_header(mut self, name: Arc<str>) -> McpServer {
        self.conversation_header = Some(name);
        self
    }

    /// The conversation of a call: the host's header when it named one, else the session's;
    /// an HTTP request outside any session has none.
    fn conversation_of(&self, context: &RequestContext<RoleServer>) -> CallConversation {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        if let Some(header) = &self.conversation_header {
            let value = parts.and_then(|parts| parts.headers.get(header.as_ref()));
            return match value.map(|value| value.to_str().map(str::trim)) {
                Some(Ok(id)) if !id.is_empty() && id.len() <= MAX_CONVERSATION_ID => CallConversation::Named(id.to_owned()),
                Some(Ok(id)) if !id.is_empty() => CallConversation::None(format!(
                    "its `{header}` header is {} bytes long, and a conversation id may be at most {MAX_CONVERSATION_ID}",
                    id.len()
                )),
                Some(Err(_)) => CallConversation::None(format!("its `{header}` header is not visible ASCII text")),
                _ => CallConversation::None(format!(
                    "the request has no `{header}` header, which names the conversation on this server"
                )),
            };
        }
        let in_session = parts.is_none_or(|parts| parts.headers.contains_key("mcp-session-id"));
        match &self.session {
            Some(session) if in_session => CallConversation::Named(session.conversation.clone()),
            _ => CallConversation::Handle,
        }
    }

    fn current(&self) -> Arc<Served> {
        Arc::clone(&self.served.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Waits until no `tools/call` is being served (their records made), at most `limit`.
    pub(super) async fn calls_settled(&self, limit: std::time::Duration) {
        self.running.settled(limit).await;
    }

    /// The store the served executor keeps its state in.
    pub(super) fn store(&self) -> crate::state::SharedStore {
        Arc::clone(self.current().executor.store())
    }

    /// Serves over a byte stream (a child process's pipes, a socket), until the client leaves.
    ///
    /// The session is a conversation of its own for stateful tools; it ends (each instance's
    /// cleanup runs) once the returned service is dropped after the client left, as
    /// [`RunningService::waiting`] does.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<RunningService<RoleServer, McpServer>, McpServerError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        ServiceExt::serve(self.for_session(), transport).await.map_err(|e| McpServerError::Session(Box::new(e)))
    }

    /// Serves over this process's standard input and output, until the client leaves; the
    /// session's conversation is ended (its cleanup hooks run) before this returns.
    pub async fn serve_stdio(self) -> Result<(), McpServerError> {
        let running = self.serve(rmcp::transport::stdio()).await?;
        let session = running.service().session.clone();
        let waited = running.waiting().await;
        if let Some(session) = session {
            session.end().await;
        }
        waited.map_err(McpServerError::SessionEnded)?;
        Ok(())
    }
}

/// What a running call sends its client before the result, in the order the tool made it.
#[allow(deprecated)] // see the import of `LoggingLevel`
enum Note {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// MCP's name of a log level.
#[allow(deprecated)] // see the import of `LoggingLevel`
fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// Our name of an MCP log level.
#[allow(deprecated)] // see the import of `LoggingLevel`
fn our_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

/// Forwards a call's progress reports (when the client sent a progress token) and its log
/// messages at or above `least` to the client, as `notifications/progress` and
/// `notifications/message`, in the order the tool made them. The task ends when the call's
/// context, holding the senders, is dropped; the result is sent after it, so nothing arrives
/// after the result it belongs to.
#[allow(deprecated)] // see the import of `LoggingLevel`
fn scope_for_client(
    context: &RequestContext<RoleServer>,
    least: Option<LogLevel>,
    mut scope: CallScope,
) -> (CallScope, JoinHandle<()>) {
    let (sender, mut notes) = mpsc::unbounded_channel::<Note>();
    let peer = context.peer.clone();
    let forwarding = tokio::spawn(async move {
        while let Some(note) = notes.recv().await {
            let sent = match note {
                Note::Progress(param) => peer.notify_progress(param).await,
                Note::Log(param) => peer.notify_logging_message(param).await,
            };
            if sent.is_err() {
                break;
            }
        }
    });
    if let Some(token) = context.meta.get_progress_token() {
        let progress = sender.clone();
        scope = scope.on_progress(move |report| {
            let mut param = ProgressNotificationParam::new(token.clone(), report.progress);
            param.total = report.total;
            param.message = report.message;
            let _ = progress.send(Note::Progress(param));
        });
    }
    scope = scope.on_log(move |message| {
        if least.is_none_or(|least| message.level >= least) {
            let mut param = LoggingMessageNotificationParam::new(mcp_level(message.level), message.data);
            param.logger = Some(message.logger);
            let _ = sender.send(Note::Log(param));
        }
    });
    (scope, forwarding)
}

impl McpServer {
    /// The number of the session a request belongs to; none for a request outside any (a
    /// stateless server's), which no later notification could reach.
    fn session_of(&self, context: &RequestContext<RoleServer>) -> Option<u64> {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let in_session = parts.is_none_or(|parts| parts.headers.contains_key("mcp-session-id"));
        self.session.as_ref().filter(|_| in_session).map(|session| session.number)
    }

    /// The tools this request's `tools/list` holds, by their place in `served.tools`: those of
    /// every session, then those this session's searches found.
    fn listed<'a>(&self, served: &'a Served, context: &RequestContext<RoleServer>) -> Cow<'a, [usize]> {
        served.search.listed(&served.listed, served.executor.catalog(), self.session_search(context), context)
    }

    /// What this request's session searched, when it belongs to one.
    fn session_search(&self, context: &RequestContext<RoleServer>) -> Option<&SessionSearch> {
        self.session_of(context)?;
        self.session.as_ref().map(|session| &session.search)
    }

    /// The failed result (and record) of a call to a stateful tool that has no conversation.
    fn refused(&self, call: ToolCallRequest, why: &str) -> Result<CallToolResponse, ErrorData> {
        let message =
            format!("The tool `{}` keeps state for each conversation, and this call has none: {why}.", call.tool_name);
        self.refused_with(call, ToolError::new(message).with_code("missing_conversation"))
    }

    /// The failed result (and record) of a call refused before it ran with `error`.
    fn refused_with(&self, call: ToolCallRequest, error: ToolError) -> Result<CallToolResponse, ErrorData> {
        let record = self.current().executor.refuse(call, error);
        if let Some(observer) = &self.observer {
            observer(&record);
        }
        Ok(call_result(&record, None, None)?.into())
    }
}

/// `result` with the conversation handle its call started, if it did (`(handle, the words that
/// give it)`): the model reads it in the text, a client program finds it in `_meta`.
fn with_handle(mut result: CallToolResult, minted: Option<(String, String)>) -> CallToolResult {
    if let Some((handle, given)) = minted {
        result.content.push(rmcp::model::ContentBlock::text(given));
        let meta = result.meta.get_or_insert_with(Default::default);
        meta.0.insert("tool-core/conversation".to_owned(), Value::String(handle));
    }
    result
}

/// The MCP result of a call, built from the record's parts: structured content wrapped exactly
/// as the exported output schema is, `pending` as the structured content of a call that waits
/// for approval (of a tool without an output schema, which it would not follow), the parse
/// warnings in `_meta`.
fn call_result(
    record: &ExecutionRecord,
    output_schema: Option<&Value>,
    pending: Option<Value>,
) -> Result<CallToolResult, ErrorData> {
    let invalid =
        |e: serde_json::Error| ErrorData::internal_error(format!("the result is not a valid MCP result: {e}"), None);
    let McpParts { parts, structured, is_error } = mcp_parts(record, output_schema);
    let content = parts
        .into_iter()
        .map(|part| match part {
            Piece::Text(text) => Ok(rmcp::model::ContentBlock::text(text)),
            // A block in MCP's form (an image, a resource), moved into rmcp's type.
            Piece::Native(block) => serde_json::from_value(block),
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(invalid)?;
    let mut result = match is_error {
        true => CallToolResult::error(content),
        false => CallToolResult::success(content),
    };
    result.structured_content = structured.or(pending);
    if let Some(Value::Object(meta)) = mcp_warnings_meta(record) {
        result.meta = Some(rmcp::model::MetaObject(meta));
    }
    Ok(result)
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // the logging capability: see the import of `LoggingLevel`
    fn get_info(&self) -> ServerConfig {
        let mut capabilities =
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_logging().build();
        self.primitives.declare(&mut capabilities);
        let served = self.current();
        if self.tasks.offered(served.executor.catalog().definitions()) {
            let extensions = capabilities.extensions.get_or_insert_with(Default::default);
            extensions.insert(rmcp::model::TASKS_EXTENSION_ID.to_owned(), Default::default());
        }
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("tool-core", env!("CARGO_PKG_VERSION"));
        info
    }

    /// The least severe level of the log messages the client wants from this session's calls.
    /// Without a session (stateless HTTP) each request stands alone, so there is nothing to
    /// keep it in, and calls send every level. Protocol 2026-07-28 removed the method: its
    /// requests get -32601, as for a method the server does not have.
    #[allow(deprecated)] // see the import of `LoggingLevel`
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if removed_for(&context, "logging/setLevel") {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "logging/setLevel", None));
        }
        if let Some(session) = &self.session {
            *session.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(our_level(request.level));
        }
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.primitives.opened(&context.peer);
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|peer| !peer.is_transport_closed());
        sessions.push(context.peer);
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed.filter(|&wanted| wanted);
        self.primitives.accept(requested, &mut accepted);
        Some(accepted)
    }

    /// A `subscriptions/listen` stream (protocol 2026-07-28): told of every change until the
    /// client ends it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.changes.subscribe();
        changes.mark_unchanged();
        let wanted = context.accepted().tools_list_changed == Some(true);
        let mut primitive_changes = self.primitives.changes();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = primitive_changes.recv() => {
                    if !self.primitives.forward(&context, change).await {
                        return Ok(());
                    }
                }
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if wanted && context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let span = super::trace::server_span("tools/list", None, &context.id, &context.meta);
        super::trace::served(span, self.list_page(request, &context)).await
    }

    /// The served tool of this name, which rmcp reads to check the `Mcp-Param-*` headers of a
    /// 2026-07-28 call (SEP-2243): each argument the tool's input schema marks with
    /// `x-mcp-header` must come in its header too, with the same value.
    fn get_tool(&self, name: &str) -> Option<McpTool> {
        // Asked for the requests that mirror arguments into headers (2026-07-28, outside any
        // session): as such a request lists them, with the conversation handle.
        let served = self.current();
        let tools = if self.conversation_header.is_none() { &served.outside } else { &served.tools };
        tools.iter().find(|tool| tool.name == name).cloned()
    }

    /// A request rmcp could not read as any it knows: a specified method whose `params` are
    /// malformed is invalid params (-32602), anything else an unknown method (-32601), and so is
    /// a method removed in the request's protocol.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method;
        Err(if SPECIFIED.contains(&method.as_str()) && !removed_for(&context, &method) {
            ErrorData::invalid_params(format!("the params of `{method}` are not valid for it"), None)
        } else {
            ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("there is no method `{method}`"), None)
        })
    }

    // Resources, prompts and completion: served by the primitives (`primitives/`).

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.primitives.list_resources(request.and_then(|r| r.cursor), self.page)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.primitives.list_resource_templates(request.and_then(|r| r.cursor), self.page)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // No target: a resource's URI may say more than its span should.
        let span = super::trace::server_span("resources/read", None, &context.id, &context.meta);
        super::trace::served(span, self.primitives.read_resource(&request.uri)).await.map(Into::into)
    }

    #[allow(deprecated)] // `resources/subscribe` is served to clients of protocols before 2026-07-28
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.primitives.subscribe(self.session_of(&context), &context.peer, &request.uri)
    }

    #[allow(deprecated)] // as `subscribe`
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.primitives.unsubscribe(self.session_of(&context), &request.uri)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.primitives.list_prompts(request.and_then(|r| r.cursor), self.page)
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let span = super::trace::server_span("prompts/get", Some(&request.name), &context.id, &context.meta);
        let answer = async {
            if let Some(asked) = self.ask_for_prompt(&mut request, &context).await? {
                return Ok(GetPromptResponse::InputRequired(asked));
            }
            self.primitives.get_prompt(request).map(Into::into)
        };
        super::trace::served(span, answer).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.primitives.complete(request)
    }

    // Tasks (the MCP tasks extension): kept in the executor's store, see `tasks.rs`. rmcp
    // refuses these requests of a client that did not declare the extension.

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let served = self.current();
        let store = Arc::clone(served.executor.store());
        let restart = |resume| self.task_start(&served, resume);
        self.tasks.get(&store, self.principal_of(&context).as_deref(), &request.task_id, &restart).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let served = self.current();
        let store = Arc::clone(served.executor.store());
        let principal = self.principal_of(&context);
        let restart = |resume| self.task_start(&served, resume);
        let (id, responses) = (&request.task_id, request.input_responses);
        self.tasks.update(&store, principal.as_deref(), id, responses, &restart).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let store = Arc::clone(self.current().executor.store());
        self.tasks.cancel(&store, self.principal_of(&context).as_deref(), &request.task_id).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = super::trace::server_span("tools/call", Some(&request.name), &context.id, &context.meta);
        let _running = self.running.enter();
        let answered = self.serve_call(request, context).instrument(span.clone()).await;
        match &answered {
            Err(error) => super::trace::failed(&span, &error.code.0.to_string()),
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                super::trace::failed(&span, "tool_error");
            }
            Ok(_) => {}
        }
        answered
    }
}
