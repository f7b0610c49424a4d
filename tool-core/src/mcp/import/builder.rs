//! The settings of an `McpImport` and `connect`.

#[allow(clippy::wildcard_imports)] // the builder's impl block, moved out of the parent whole
use super::*;

impl McpImportBuilder {
    pub(super) fn new(endpoint: Endpoint) -> McpImportBuilder {
        McpImportBuilder {
            endpoint,
            prefix: String::new(),
            heartbeat: HEARTBEAT,
            limits: Limits::default(),
            answers: Answers::default(),
            defer: false,
            scopes: Vec::new(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// Answers the server's `sampling/createMessage` requests (a remote tool asking for a
    /// message from the host's model) with `handler`, and declares the `sampling` capability
    /// (at `initialize`, or in every request's `_meta` on 2026-07-28, where the request comes
    /// in an `InputRequiredResult`); without it the capability is not declared.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SamplingResponse, ToolError>> + Send + 'static,
    {
        self.answers.sampling = Some(sampling_handler(handler));
        self
    }

    /// Answers the server's `elicitation/create` requests (a remote tool asking the host's
    /// user to fill in a form) with `handler`, and declares the `elicitation` capability (form
    /// mode) as `on_sample` declares `sampling`; without it the capability is not declared. When `handler` accepts,
    /// the defaults the form declares are added for the fields it left out, as MCP asks of
    /// clients ([`ElicitationRequest::with_defaults`]).
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitationAnswer, ToolError>> + Send + 'static,
    {
        self.answers.elicitation = Some(elicitation_handler(handler));
        self
    }

    /// The OAuth scopes a caller's token must grant to call each imported tool when this host
    /// serves them again over MCP with OAuth ([`ToolDefinition::scopes`](crate::ToolDefinition::scopes)):
    /// what the remote server asks of this host is no check of this host's own callers.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
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

    /// Authorizes to an HTTP endpoint protected by OAuth 2.1 as `client` says: the server's
    /// `401` starts the flow, tokens are refreshed, and a `403 insufficient_scope` asks for the
    /// scope named and sends the call again (see [`OAuthClient`]). A token given to
    /// [`bearer_token`](McpImportBuilder::bearer_token) is sent until the server refuses it.
    /// Ignored for a child process.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, client: OAuthClient) -> Self {
        self.oauth = Some(client);
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

    /// Whether the imported tools are deferred (`false` by default): a catalog they are
    /// [added to](McpImport::add_to) leaves them out of requests up front
    /// ([`ToolCatalog::deferred`](crate::ToolCatalog::deferred)), and a tool search over its
    /// deferred tools finds them, so a server of hundreds of tools costs a request only the
    /// search tool. The catalog's own policy still applies:
    /// [`keep_loaded`](crate::CatalogBuilder::keep_loaded) keeps one loaded. What a server
    /// can make the host index is bounded by [`max_tools`](Self::max_tools),
    /// [`max_tool_bytes`](Self::max_tool_bytes) and [`max_list_bytes`](Self::max_list_bytes),
    /// and the search indexes at most 16 KiB of a tool's text.
    pub fn defer(mut self, defer: bool) -> Self {
        self.defer = defer;
        self
    }

    /// How often the server is pinged while calls are in flight (one second by default); a
    /// server that fails to answer within five of these is lost, and its calls fail.
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = every.max(Duration::from_millis(10));
        self
    }

    /// The most pages of `tools/list` read (100 by default): a server still giving a
    /// `nextCursor` after them is refused with [`McpImportError::List`], so a cursor that never
    /// ends cannot keep the import reading.
    pub fn max_pages(mut self, pages: usize) -> Self {
        self.limits.max_pages = pages.max(1);
        self
    }

    /// The most tools imported from the server (1,000 by default): a longer list is refused
    /// with [`McpImportError::List`].
    pub fn max_tools(mut self, tools: usize) -> Self {
        self.limits.max_tools = tools;
        self
    }

    /// The most bytes of JSON one tool may take as listed, its schemas and description
    /// included (256 KiB by default): a larger tool is left out and reported by
    /// [`McpImport::skipped`].
    pub fn max_tool_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_tool_bytes = bytes;
        self
    }

    /// The most bytes of JSON the imported tools may take together (16 MiB by default): a
    /// larger list is refused with [`McpImportError::List`].
    pub fn max_list_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_list_bytes = bytes;
        self
    }

    /// How long starting or reaching the server and the `initialize` handshake may take (30 s
    /// by default).
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.limits.handshake_timeout = timeout;
        self
    }

    /// How long reading every page of the tool list may take (30 s by default).
    pub fn list_timeout(mut self, timeout: Duration) -> Self {
        self.limits.list_timeout = timeout;
        self
    }

    /// The wait between connection attempts once two in a row have failed: `first` (500 ms by
    /// default), doubled after each further failure up to `max` (30 s by default). A call made
    /// during the wait fails at once with [`McpImportError::Connect`] saying when the next
    /// attempt is allowed, so a server that is down is not started or dialled again for every
    /// call.
    pub fn reconnect_backoff(mut self, first: Duration, max: Duration) -> Self {
        self.limits.backoff_first = first;
        self.limits.backoff_max = max.max(first);
        self
    }

    /// Whether to connect with `initialize` alone, offering 2025-11-25 and never 2026-07-28
    /// (`false` by default): for a server that lists 2026-07-28 in its answer to
    /// `server/discover` but serves it worse than the older revisions.
    pub fn legacy_only(mut self, legacy: bool) -> Self {
        self.limits.legacy_only = legacy;
        self
    }

    /// The most rounds of input one call may take (10 by default, rmcp's
    /// `DEFAULT_MRTR_MAX_ROUNDS`): on protocol 2026-07-28 a server answers a call it needs input
    /// for with `InputRequiredResult` (SEP-2322), which the import answers with the host's
    /// handlers ([`on_sample`](Self::on_sample), [`on_elicit`](Self::on_elicit)) before calling
    /// again; a server still asking after this many rounds fails the call (`mcp_input_rounds`).
    /// The rounds of a task's input count too.
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.limits.max_input_rounds = rounds;
        self
    }

    /// The most `tasks/get` polls of one call's task (1,000 by default): a server may run a
    /// call as a task (SEP-2663), which the import polls, with the interval the server suggests
    /// or a backoff from 100 ms to 5 s, until it ends; a task still running after this many
    /// polls is cancelled (`tasks/cancel`) and fails the call (`mcp_task_polls`). The call's
    /// time limit bounds it too: a call that times out or is cancelled cancels its task.
    pub fn max_task_polls(mut self, polls: usize) -> Self {
        self.limits.max_task_polls = polls;
        self
    }

    /// Connects, and lists the server's tools (every page, within the limits).
    pub async fn connect(self) -> Result<McpImport, McpImportError> {
        #[cfg(feature = "oauth")]
        let endpoint_url = match &self.endpoint {
            Endpoint::Http { url, .. } => Some(url.clone()),
            Endpoint::Child { .. } => None,
        };
        let shared = Arc::new(Shared {
            id: IMPORTS.fetch_add(1, Ordering::Relaxed),
            redactor: self.endpoint.redactor(),
            endpoint: self.endpoint,
            prefix: self.prefix,
            defer: self.defer,
            scopes: self.scopes,
            limits: self.limits,
            listed_skipped: RwLock::new(Vec::new()),
            collisions: Mutex::new(Vec::new()),
            refresh: Mutex::new(Refresh::default()),
            failures: Mutex::new(Failures::default()),
            session: tokio::sync::Mutex::new(None),
            live: RwLock::new(None),
            heartbeat: self.heartbeat,
            listed: RwLock::new(Vec::new()),
            changes: watch::Sender::new(0),
            progress: Mutex::new(HashMap::new()),
            answers: self.answers,
            #[cfg(feature = "oauth")]
            oauth: match (self.oauth, &endpoint_url) {
                (Some(client), Some(url)) => Some(oauth::Authorizer::new(client, url.clone())),
                _ => None,
            },
        });
        let live = shared.connected().await?;
        shared.list_tools(&live.peer).await?;
        Ok(McpImport { shared })
    }
}
