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

use super::primitives::McpPrimitives;
use crate::context::LogLevel;
use crate::executor::{CallScope, ExecutionRecord, Executor};

use super::search::{ServedSearch, ServerSearch, SessionSearch};
pub use super::server_error::McpServerError;
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
}

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
}

impl McpServerBuilder {
    /// Hands the record of every call to `observer` (after the call, before the client gets
    /// the result): the host's audit of what clients ran, with their arguments, warnings,
    /// failures and durations.
    pub fn on_record(mut self, observer: impl Fn(&ExecutionRecord) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// Whether a call that needs a person's approval (see [`policy`](crate::policy)) is shown
    /// to the user of the client that made it, through elicitation (`elicitation/create`: the
    /// tool, its arguments and why, with an `approve` choice and an optional reason for the
    /// model). On by default; it applies to clients that declared form elicitation, on a
    /// protocol with server-to-client requests (before 2026-07-28), and only when the host's
    /// executor has no approver of its own
    /// ([`ExecutorBuilder::on_approval`](crate::ExecutorBuilder::on_approval)), which the host
    /// chose and which answers instead.
    ///
    /// A call nobody is asked about ends pending: its result is an error result with the text
    /// for the model and, for a tool without an output schema, the pending call in
    /// `structuredContent`; the host's [`on_record`](Self::on_record) observer gets its record
    /// with the [`PendingCall`](crate::policy::PendingCall) to show and resume, on the server's
    /// executor or one sharing its store.
    pub fn ask_approval_by_elicitation(mut self, ask: bool) -> Self {
        self.approval_by_elicitation = ask;
        self
    }

    /// Offers `primitives` (resources, resource templates, prompts) beside the tools. Keep a
    /// clone of them to announce a resource's update or change what is offered.
    pub fn primitives(mut self, primitives: McpPrimitives) -> Self {
        self.primitives = primitives;
        self
    }

    /// How many tools (and resources, templates, prompts) one list page holds (at least one).
    pub fn page_size(mut self, tools: usize) -> Self {
        self.page = tools.max(1);
        self
    }

    /// The server: the catalog exported in the MCP dialect (with the search tool, when asked
    /// for), or why it cannot be served.
    pub fn build(self) -> Result<McpServer, McpServerError> {
        let served = Served::new(&self.executor, &self.search, &self.handles)?;
        let rounds = super::mrtr::InputRounds::new(self.state_keys, self.input_state_ttl, self.max_input_rounds)
            .map_err(McpServerError::RequestStateKeys)?;
        Ok(McpServer {
            served: Arc::new(RwLock::new(Arc::new(served))),
            sessions: Arc::default(),
            changes: Arc::new(watch::Sender::new(0)),
            page: self.page,
            observer: self.observer,
            open: Arc::default(),
            session: None,
            conversation_header: None,
            primitives: self.primitives,
            search: self.search,
            approval_by_elicitation: self.approval_by_elicitation,
            rounds: Arc::new(rounds),
            handles: Arc::new(self.handles),
            tasks: Arc::new(self.tasks),
            principal: self.principal,
        })
    }

    /// The argument that carries a conversation handle (`conversation` by default). A request
    /// outside any MCP session (protocol 2026-07-28 over HTTP, or a stateless server) has no
    /// conversation of its own: each tool that keeps state per conversation gets this optional
    /// argument in such a request's `tools/list`; a call without it starts a conversation and
    /// its result gives the handle, which later calls pass back (SEP-2567). `build` fails when a
    /// stateful tool already has a parameter of that name.
    pub fn conversation_argument(mut self, name: impl Into<String>) -> Self {
        self.handles.argument = name.into();
        self
    }

    /// Whether every tool takes a conversation handle outside a session, not only the tools
    /// that keep state (off by default). With it, a call that passes a handle runs in that
    /// conversation, so the executor's per-conversation policy (retry budgets, rate limits,
    /// pending approvals) follows the handle across replicas; a tool that keeps no state never
    /// starts a conversation, a call without a handle runs outside any.
    pub fn handles_on_every_tool(mut self, every: bool) -> Self {
        self.handles.every_tool = every;
        self
    }

    /// How long a conversation handle lives after the last call that used it
    /// ([`DEFAULT_HANDLE_TTL`](super::DEFAULT_HANDLE_TTL), 24 hours); the conversation's state
    /// lives as long as its tools keep it.
    pub fn handle_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.handles.ttl = ttl;
        self
    }

    /// The keys that seal the `requestState` of multi-round-trip requests (protocol
    /// 2026-07-28: a call that asks the client something ends its round with the questions and
    /// a sealed state, and the client calls again with the answers). `active` names the key
    /// that seals; every key of `keys` opens what it sealed, so a key is rotated without
    /// downtime: add the new key beside the old one on every replica, then make it active,
    /// then, once the states the old one sealed have expired
    /// ([`input_state_ttl`](Self::input_state_ttl)), remove the old one. Each key is at least
    /// 32 bytes. Replicas behind one address need the same keys (and a shared store, which
    /// makes each state single-use across them); without keys, each process makes a random
    /// one, and a round must come back to the process that asked.
    pub fn request_state_keys<K: Into<String>, V: Into<Vec<u8>>>(
        mut self,
        active: &str,
        keys: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let keys = keys.into_iter().map(|(id, key)| (id.into(), key.into())).collect();
        self.state_keys = Some(super::mrtr::InputRounds::keys(active, keys));
        self
    }

    /// How long a client has to answer a round's questions before its `requestState` expires
    /// ([`DEFAULT_INPUT_STATE_TTL`](super::DEFAULT_INPUT_STATE_TTL), 10 minutes).
    pub fn input_state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.input_state_ttl = ttl;
        self
    }

    /// Answers the calls of the tools `rule` picks with tasks (the MCP tasks extension), as
    /// `#[tool(task)]` does for a tool of its own: a client that declared the extension gets a
    /// task at once and polls it (`tasks/get`); any other client gets the result when the call
    /// ends. For a catalog whose tools cannot be annotated (imported ones, runtime ones).
    pub fn tasks_for(mut self, rule: impl Fn(&crate::ToolDefinition) -> bool + Send + Sync + 'static) -> Self {
        self.tasks.set_rule(Arc::new(rule));
        self
    }

    /// How long a task is kept after its last change ([`DEFAULT_TASK_TTL`](super::DEFAULT_TASK_TTL),
    /// an hour): `ttlMs`. A client that polls later finds no task.
    pub fn task_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.tasks.set_ttl(ttl);
        self
    }

    /// How often a client should poll a task
    /// ([`DEFAULT_TASK_POLL_INTERVAL`](super::DEFAULT_TASK_POLL_INTERVAL), a second):
    /// `pollIntervalMs`. A running task reads its cancel flag and the answers to its questions
    /// as often (at once when `tasks/cancel` or `tasks/update` reaches its own replica).
    pub fn task_poll_interval(mut self, interval: std::time::Duration) -> Self {
        self.tasks.set_poll_interval(interval);
        self
    }

    /// How long a running task's heartbeat may be silent before any replica reports it failed
    /// ([`DEFAULT_TASK_LEASE`](super::DEFAULT_TASK_LEASE), 30 seconds): the replica running a
    /// task writes it every third of this, so a task whose replica died fails after at most
    /// this long. Replicas' clocks must agree to well within it.
    pub fn task_lease(mut self, lease: std::time::Duration) -> Self {
        self.tasks.set_lease(lease);
        self
    }

    /// How many tasks this process runs at once
    /// ([`DEFAULT_MAX_RUNNING_TASKS`](super::DEFAULT_MAX_RUNNING_TASKS), 256): a task's call
    /// runs apart from its request, so the HTTP server's bound on requests does not bound it.
    /// Beyond it, a `#[tool(task)]` call is answered when it ends, within its request, and a
    /// `#[tool(task = "required")]` call is refused with an internal error saying so.
    pub fn max_running_tasks(mut self, tasks: usize) -> Self {
        self.tasks.set_max_running(tasks);
        self
    }

    /// Names the principal of each HTTP request (from a header, or what an authentication
    /// layer put in its extensions): its calls run as that principal
    /// ([`ToolCallRequest::principal`]), whose state, pending calls and tasks no other
    /// principal sees. Without a rule, or over stdio, calls have none.
    pub fn principal_from(
        mut self,
        rule: impl Fn(&axum::http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.principal = Some(Arc::new(rule));
        self
    }

    /// How many rounds one call may take ([`DEFAULT_MAX_INPUT_ROUNDS`](super::DEFAULT_MAX_INPUT_ROUNDS),
    /// 10); a question beyond is answered to the tool with an error (code
    /// `input_rounds_exhausted`), and an approval beyond is denied.
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds.max(1);
        self
    }
}

/// Tool search (feature `search`): the part of the builder that `search.rs` serves.
#[cfg(feature = "search")]
impl McpServerBuilder {
    /// Serves the catalog's deferred tools ([`ToolCatalog::deferred`](crate::ToolCatalog::deferred))
    /// through a search tool, `search_tools`
    /// ([`SearchToolBuilder`](crate::search::SearchToolBuilder)): `tools/list` holds the other
    /// tools and the search tool.
    ///
    /// A client of protocol 2025-11-25 or earlier has a `tools/list` of its own: the tools its
    /// searches find are added after the others, in the order found (the part before never
    /// changes), and `notifications/tools/list_changed` tells it; the search's result says they
    /// are there. From protocol 2026-07-28 on, `tools/list` may not vary per connection nor
    /// change as a side effect of a request, so it stays as it is and the search's result
    /// carries each found tool's whole MCP definition. Every client may call a deferred tool
    /// by name, found or not: the server knows it.
    ///
    /// A catalog that defers nothing is served as without this. A catalog that already has a
    /// tool of the search tool's name is refused by [`build`](Self::build) with
    /// [`McpServerError::ToolSearch`].
    ///
    /// ```no_run
    /// use tool_core::mcp::McpServer;
    /// use tool_core::prelude::*;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let catalog = ToolCatalog::global()?.to_builder().defer_all().build()?;
    /// McpServer::builder(Executor::new(catalog)).tool_search().build()?.serve_stdio().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tool_search(self) -> Self {
        self.tool_search_with(|search| search)
    }

    /// As [`tool_search`](Self::tool_search), with the search tool configured by `configure`
    /// (its name, description, limits); it runs again for each catalog
    /// [`McpServer::replace`] serves.
    pub fn tool_search_with(
        mut self,
        configure: impl Fn(crate::search::SearchToolBuilder) -> crate::search::SearchToolBuilder + Send + Sync + 'static,
    ) -> Self {
        self.search.configure(configure);
        self
    }

    /// The most deferred tools one session's searches add to its `tools/list` (200 by
    /// default, at most [`MAX_DISCOVERED`](crate::search::MAX_DISCOVERED)): the tools found
    /// beyond come with their definitions in the search's result; with 0, every session is
    /// served as a 2026-07-28 client is. A session forgets what it found when it ends.
    pub fn max_discovered_per_session(mut self, tools: usize) -> Self {
        self.search.max_discovered(tools);
        self
    }
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

    /// The principal of a request, by the host's rule (HTTP requests only).
    fn principal_of(&self, context: &RequestContext<RoleServer>) -> Option<String> {
        let parts = context.extensions.get::<axum::http::request::Parts>()?;
        self.principal.as_ref().and_then(|rule| rule(parts))
    }

    /// What a task of `call` needs, when the call is answered with one (see `tasks.rs`); a
    /// tool that runs only as a task refuses a client without the extension.
    fn task_of(
        &self,
        served: &Served,
        call: &ToolCallRequest,
        context: &RequestContext<RoleServer>,
        called: &str,
    ) -> Result<Option<super::tasks::Start>, ErrorData> {
        let definition = served.executor.catalog().definition(&call.tool_name);
        let capabilities = context.client_capabilities();
        if let super::tasks::Answer::Now = self.tasks.answer(definition, capabilities.as_ref())? {
            return Ok(None);
        }
        let (output_schema, called) = (definition.and_then(|d| d.output_schema.clone()), called.to_owned());
        // As the result of a call answered at once (see the end of `call_tool`).
        let result = move |record: &ExecutionRecord| {
            let pending = output_schema.is_none().then(|| super::approve::pending_content(record, &called)).flatten();
            call_result(record, output_schema.as_ref(), pending)
        };
        Ok(Some(super::tasks::Start {
            executor: served.executor.clone(),
            call: call.clone(),
            capabilities: capabilities.unwrap_or_default(),
            approval_by_elicitation: self.approval_by_elicitation,
            result: Box::new(result),
            observer: self.observer.clone(),
        }))
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
        let served = self.current();
        let listed = self.listed(&served, &context);
        // The cursor is the index of the page's first tool, as text.
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start < listed.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor `{cursor}`"), None))?,
        };
        let end = (start + self.page).min(listed.len());
        // Outside any session, the conversation is named by a handle among the arguments.
        let tools = match self.conversation_header.is_none() && self.session_of(&context).is_none() {
            true => &served.outside,
            false => &served.tools,
        };
        let mut result =
            ListToolsResult::with_all_items(listed[start..end].iter().map(|&place| tools[place].clone()).collect());
        result.next_cursor = (end < listed.len()).then(|| end.to_string());
        Ok(result)
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.primitives.read_resource(&request.uri).await.map(Into::into)
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
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.primitives.get_prompt(request).map(Into::into)
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
        let store = Arc::clone(self.current().executor.store());
        self.tasks.get(&store, self.principal_of(&context).as_deref(), &request.task_id).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let store = Arc::clone(self.current().executor.store());
        let principal = self.principal_of(&context);
        self.tasks.update(&store, principal.as_deref(), &request.task_id, request.input_responses).await
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
        let received = std::time::Instant::now();
        let called = request.name.to_string();
        let raw = request.arguments.map_or_else(|| "{}".to_owned(), |arguments| Value::Object(arguments).to_string());
        let served = self.current();
        // What a round's `requestState` is bound to: the arguments as the client sent them.
        let sent = raw.clone();
        let mut call = ToolCallRequest::new(request.name.to_string(), context.id.to_string(), raw);
        call.principal = self.principal_of(&context);
        served.names.restore(&mut call);
        let stateful = served.executor.catalog().get(&call.tool_name).is_some_and(|tool| tool.keeps_state());
        let mut minted = None;
        match self.conversation_of(&context) {
            CallConversation::Handle if stateful || self.handles.every_tool => {
                let store = served.executor.store();
                let principal = call.principal.clone();
                let (tool, arguments) = (call.tool_name.clone(), &mut call.raw_arguments);
                match self.handles.resolve(store, principal.as_deref(), &tool, arguments, stateful).await {
                    Ok(None) => {}
                    Ok(Some(resolved)) => {
                        // Names restored before may have read the arguments already.
                        if let Some(Value::Object(arguments)) = &mut call.arguments {
                            arguments.remove(&self.handles.argument);
                        }
                        minted = resolved.minted.then(|| resolved.handle.clone());
                        call.conversation_id = Some(resolved.handle);
                    }
                    Err(error) => return self.refused_with(call, error),
                }
            }
            CallConversation::Handle => {}
            CallConversation::Named(conversation) => {
                if let (true, None, Some(session)) = (stateful, &self.conversation_header, &self.session) {
                    session.uses(served.executor.conversations());
                }
                call.conversation_id = Some(conversation);
            }
            CallConversation::None(why) if stateful => return self.refused(call, &why),
            CallConversation::None(_) => {}
        }
        // MCP tasks (tasks.rs): a long call answered with a task, run apart from this request.
        if let Some(task) = self.task_of(&served, &call, &context, &called)? {
            return Ok(CallToolResponse::Task(self.tasks.start(task).await?));
        }
        let least =
            self.session.as_ref().and_then(|session| *session.log_level.lock().unwrap_or_else(|e| e.into_inner()));
        let mut scope = CallScope::new().cancel_on(&context.ct);
        // Protocol 2026-07-28: the call's questions go out as the rounds of its request.
        let round = match super::mrtr::in_rounds(&context) {
            true => {
                let (principal, tool, arguments) = (call.principal.as_deref(), &call.tool_name, &sent);
                let store = served.executor.store();
                let (state, answers) = (request.request_state.as_deref(), request.input_responses.as_ref());
                Some(Arc::new(self.rounds.begin(store, principal, tool, arguments, state, answers).await?))
            }
            false => None,
        };
        if let Some(round) = &round {
            let ask = self.approval_by_elicitation;
            scope = super::mrtr::scope_asking_in_rounds(&context, round, &served.executor, ask, scope);
        } else {
            scope = super::ask::scope_asking_client(&context, scope);
            if self.approval_by_elicitation {
                scope = super::approve::scope_approving_by_client(&context, &served.executor, received, scope);
            }
        }
        let (scope, forwarding) = scope_for_client(&context, least, scope);
        let (principal, tool) = (call.principal.clone(), call.tool_name.clone());
        let run = served.executor.execute_in(call, scope);
        let mut record = match &round {
            None => run.await,
            Some(round) => {
                let mut run = Box::pin(run);
                tokio::select! {
                    biased;
                    record = &mut run => record,
                    () = round.asking() => {
                        // The call is dropped where it asked; the next round runs it again.
                        drop(run);
                        let store = served.executor.store();
                        let asked = self.rounds.end(round, store, principal.as_deref(), &tool, &sent).await?;
                        return Ok(CallToolResponse::InputRequired(asked));
                    }
                }
            }
        };
        // A tool that handed its context to a task still running could hold the sender.
        let _ = tokio::time::timeout(PROGRESS_FLUSH, forwarding).await;
        let session = self.session_search(&context);
        served.search.settle(&self.search, &mut record, &served.tools, session, &context).await;
        if let Some(observer) = &self.observer {
            observer(&record);
        }
        if let Some(error) = super::capability::missing_client_capability(&context, &record) {
            return Err(error);
        }
        // Structured content is wrapped exactly as the exported output schema is.
        let catalog = served.executor.catalog();
        let output_schema = catalog.definition(&record.request.tool_name).and_then(|d| d.output_schema.as_ref());
        // A client checks `structuredContent` against the tool's output schema, which a
        // pending call's shape does not follow: only a tool without one carries it.
        let pending = output_schema.is_none().then(|| super::approve::pending_content(&record, &called)).flatten();
        let mut result = call_result(&record, output_schema, pending)?;
        if let Some(handle) = minted {
            // The model reads the handle in the text; a client program finds it in `_meta`.
            result.content.push(rmcp::model::ContentBlock::text(self.handles.given(&handle)));
            let meta = result.meta.get_or_insert_with(Default::default);
            meta.0.insert("tool-core/conversation".to_owned(), Value::String(handle));
        }
        Ok(result.into())
    }
}
