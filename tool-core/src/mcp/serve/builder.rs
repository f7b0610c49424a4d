//! The settings of an `McpServer`: what `McpServerBuilder` sets and how `build` exports the catalog.

#[allow(clippy::wildcard_imports)] // the builder's impl blocks, moved out of the parent whole
use super::*;

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
        let rounds = crate::mcp::mrtr::InputRounds::new(self.state_keys, self.input_state_ttl, self.max_input_rounds)
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
            scopes: Arc::new(self.scopes),
            running: Arc::default(),
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
    /// ([`DEFAULT_HANDLE_TTL`](crate::mcp::DEFAULT_HANDLE_TTL), 24 hours); the conversation's state
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
        self.state_keys = Some(crate::mcp::mrtr::InputRounds::keys(active, keys));
        self
    }

    /// How long a client has to answer a round's questions before its `requestState` expires
    /// ([`DEFAULT_INPUT_STATE_TTL`](crate::mcp::DEFAULT_INPUT_STATE_TTL), 10 minutes).
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

    /// How long a task is kept after its last change ([`DEFAULT_TASK_TTL`](crate::mcp::DEFAULT_TASK_TTL),
    /// an hour): `ttlMs`. A client that polls later finds no task.
    pub fn task_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.tasks.set_ttl(ttl);
        self
    }

    /// How often a client should poll a task
    /// ([`DEFAULT_TASK_POLL_INTERVAL`](crate::mcp::DEFAULT_TASK_POLL_INTERVAL), a second):
    /// `pollIntervalMs`. A running task reads its cancel flag and the answers to its questions
    /// as often (at once when `tasks/cancel` or `tasks/update` reaches its own replica).
    pub fn task_poll_interval(mut self, interval: std::time::Duration) -> Self {
        self.tasks.set_poll_interval(interval);
        self
    }

    /// How long a running task's heartbeat may be silent before any replica reports it failed
    /// ([`DEFAULT_TASK_LEASE`](crate::mcp::DEFAULT_TASK_LEASE), 30 seconds): the replica running a
    /// task writes it every third of this, so a task whose replica died fails after at most
    /// this long. Replicas' clocks must agree to well within it.
    pub fn task_lease(mut self, lease: std::time::Duration) -> Self {
        self.tasks.set_lease(lease);
        self
    }

    /// How many tasks this process runs at once
    /// ([`DEFAULT_MAX_RUNNING_TASKS`](crate::mcp::DEFAULT_MAX_RUNNING_TASKS), 256): a task's call
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

    /// Adds to the OAuth scopes a tool's calls need (its `#[tool(scopes(..))]`) those `rule`
    /// gives for its definition: by tag, annotation or name, for tools that cannot be
    /// annotated (imported, REST). Over an endpoint protected by OAuth
    /// ([`McpHttpBuilder::oauth`](crate::mcp::McpHttpBuilder::oauth)), a caller whose token
    /// lacks one does not see the tool in `tools/list` (unless
    /// [`list_tools_beyond_scopes`](McpServerBuilder::list_tools_beyond_scopes)), and its call
    /// is refused with `403` and `insufficient_scope`; other requests are not held to scopes.
    pub fn scopes_for(mut self, rule: impl Fn(&crate::ToolDefinition) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.scopes.rule = Some(Box::new(rule));
        self
    }

    /// Lists every tool to a caller with an access token, also those its scopes do not let it
    /// call, so that its client can step up when it calls one (`403 insufficient_scope`); off
    /// by default, which hides them (a caller learns nothing of what it may not do). Either
    /// way, each listed tool that needs scopes names them in `_meta["tool-core/scopes"]`.
    pub fn list_tools_beyond_scopes(mut self, list: bool) -> Self {
        self.scopes.list_all = list;
        self
    }

    /// How many rounds one call may take ([`DEFAULT_MAX_INPUT_ROUNDS`](crate::mcp::DEFAULT_MAX_INPUT_ROUNDS),
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
