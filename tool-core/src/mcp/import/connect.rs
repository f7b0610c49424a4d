//! Connecting to the server: the handshake (2026-07-28 first, `initialize` for older servers),
//! again after the session was lost (within the backoff), and the answer to a refusal of the
//! token when the import is an OAuth client.

#[allow(clippy::wildcard_imports)] // `Shared`'s impl block, moved out of the parent whole
use super::*;

/// How a connection attempt ended when it gave no session.
enum Started {
    /// The server answered `server/discover`, but not as a 2026-07-28 server does: it lists
    /// only revisions that start with `initialize`, or it gave another result (some servers
    /// answer every request they do not know with `{}`). Said in words.
    Legacy(String),
    Failed(McpImportError),
    /// The server refused the token (or its absence): a `401`, or a `403` naming a scope.
    Challenged(Box<(Challenge, McpImportError)>),
}

impl Started {
    fn into_error(self, server: String) -> McpImportError {
        match self {
            Started::Failed(error) => error,
            Started::Challenged(challenged) => challenged.1,
            // Only an answer to `server/discover` says this, and the second attempt sends none.
            Started::Legacy(why) => McpImportError::Connect { server, reason: why, source: None },
        }
    }
}

impl Shared {
    /// The live session, connecting (again) when there is none or it was lost.
    pub(super) async fn connected(self: &Arc<Self>) -> Result<Live, McpImportError> {
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
        self.wait_for_backoff()?;
        let running = match self.handshake().await {
            Ok(running) => running,
            Err(error) => {
                let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
                failures.count = failures.count.saturating_add(1);
                failures.last = Some(Instant::now());
                failures.reason = error.to_string();
                return Err(error);
            }
        };
        *self.failures.lock().unwrap_or_else(|e| e.into_inner()) = Failures::default();
        let live = Live { peer: running.peer().clone(), lost: CancellationToken::new(), in_flight: Arc::default() };
        // The old session, if any, is dropped here, which ends it.
        *session = Some(running);
        *self.live.write().unwrap_or_else(|e| e.into_inner()) = Some(live.clone());
        drop(session);
        heartbeat(live.clone(), self.heartbeat);
        listen_for_changes(self, &live, self.limits.handshake_timeout).await;
        if reconnecting {
            // The server may have changed while it was away.
            list(self, &live.peer).await?;
        }
        Ok(live)
    }

    /// Refuses to connect while the backoff after repeated failures lasts.
    fn wait_for_backoff(&self) -> Result<(), McpImportError> {
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let Some(last) = failures.last.filter(|_| failures.count >= 2) else { return Ok(()) };
        let doublings = (failures.count - 2).min(20);
        let wait = self.limits.backoff_first.saturating_mul(1 << doublings).min(self.limits.backoff_max);
        let left = wait.saturating_sub(last.elapsed());
        if left.is_zero() {
            return Ok(());
        }
        Err(McpImportError::Connect {
            server: self.endpoint.label(),
            source: None,
            reason: format!(
                "{} attempts in a row failed, the last with: {}; the next attempt is allowed in {} ms (`McpImportBuilder::reconnect_backoff`)",
                failures.count,
                failures.reason,
                left.as_millis().max(1)
            ),
        })
    }

    /// Starts or reaches the server and agrees on a revision, within the time allowed: 2026-07-28
    /// through `server/discover` first; a server that does not know `server/discover` gets the
    /// `initialize` handshake on the same connection (rmcp's fallback), and one that answers it
    /// listing only older revisions is reached again with `initialize` alone.
    async fn handshake(self: &Arc<Self>) -> Result<RunningService<RoleClient, ImportHandler>, McpImportError> {
        let seen = self.tokens_given();
        match self.attempt().await {
            Err(Started::Challenged(challenged)) => {
                let (challenge, error) = *challenged;
                self.answer(&challenge, error, seen).await?;
                self.attempt().await.map_err(|e| e.into_error(self.endpoint.label()))
            }
            other => other.map_err(|e| e.into_error(self.endpoint.label())),
        }
    }

    /// Answers the server's refusal of the token with a new one when the import is an OAuth
    /// client; `refused` is the error otherwise, and the reason is added to it when answering
    /// fails. `seen` is [`tokens_given`](Self::tokens_given) before the refused request: when
    /// another request got a new token since, that one is used, and the user is not asked twice.
    pub(super) async fn answer(
        &self,
        challenge: &Challenge,
        refused: McpImportError,
        seen: u64,
    ) -> Result<(), McpImportError> {
        #[cfg(feature = "oauth")]
        if let Some(authorizer) = &self.oauth {
            return authorizer.answer(challenge, seen).await.map_err(|why| McpImportError::Connect {
                server: self.endpoint.label(),
                reason: format!("{refused}; authorizing failed: {}", self.redactor.clean(&why)),
                source: None,
            });
        }
        let _ = (challenge, seen);
        Err(refused)
    }

    /// How many times an OAuth client got a token (0 for another import).
    pub(super) fn tokens_given(&self) -> u64 {
        #[cfg(feature = "oauth")]
        if let Some(authorizer) = &self.oauth {
            return authorizer.tokens_given();
        }
        0
    }

    /// One handshake, with the fallback to `initialize`.
    async fn attempt(self: &Arc<Self>) -> Result<RunningService<RoleClient, ImportHandler>, Started> {
        let limit = self.limits.handshake_timeout;
        let started = Instant::now();
        let first = if self.limits.legacy_only {
            ClientLifecycleMode::Initialize
        } else {
            ClientLifecycleMode::Auto {
                preferred_versions: vec![MODERN_VERSION],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            }
        };
        match self.start(first, limit).await {
            Err(Started::Legacy(why)) => {
                tracing::debug!(
                    target: "tools",
                    server = %self.endpoint.label(),
                    %why,
                    "the MCP server does not speak 2026-07-28: connecting again with `initialize`"
                );
                let left = limit.saturating_sub(started.elapsed());
                self.start(ClientLifecycleMode::Initialize, left).await
            }
            other => other,
        }
    }

    /// One connection attempt in `lifecycle`, within `limit`.
    async fn start(
        self: &Arc<Self>,
        lifecycle: ClientLifecycleMode,
        limit: Duration,
    ) -> Result<RunningService<RoleClient, ImportHandler>, Started> {
        let handler = ImportHandler { shared: Arc::downgrade(self), answers: self.answers.clone() };
        let server = self.endpoint.label();
        let is_discovering = !matches!(lifecycle, ClientLifecycleMode::Initialize);
        let timed_out = || {
            Started::Failed(McpImportError::Connect {
                server: server.clone(),
                reason: format!(
                    "no answer to `server/discover` or `initialize` within {} ms (`McpImportBuilder::handshake_timeout`)",
                    self.limits.handshake_timeout.as_millis()
                ),
                source: None,
            })
        };
        let outcome = match &self.endpoint {
            Endpoint::Child { program, args, envs, dir } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(envs.iter().map(|(k, v)| (k, v)));
                if let Some(dir) = dir {
                    command.current_dir(dir);
                }
                let transport = TokioChildProcess::new(command)
                    .map_err(|source| Started::Failed(McpImportError::Spawn { server: server.clone(), source }))?;
                // Dropped on a time-out, the transport stops the child.
                tokio::time::timeout(limit, handler.serve_with_lifecycle(transport, lifecycle)).await
            }
            Endpoint::Http { url, bearer } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                if let Some(token) = bearer {
                    config = config.auth_header(token.clone());
                }
                #[cfg(feature = "oauth")]
                if let Some(authorizer) = &self.oauth {
                    let client = authorizer.http_client().await.map_err(|reason| {
                        Started::Failed(McpImportError::Connect { server: server.clone(), reason, source: None })
                    })?;
                    let transport = StreamableHttpClientTransport::with_client(client, config);
                    let outcome = tokio::time::timeout(limit, handler.serve_with_lifecycle(transport, lifecycle)).await;
                    return self.started(outcome.map_err(|_| timed_out())?, is_discovering);
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                tokio::time::timeout(limit, handler.serve_with_lifecycle(transport, lifecycle)).await
            }
        };
        self.started(outcome.map_err(|_| timed_out())?, is_discovering)
    }

    /// What the handshake gave, sorted: a session, a reason to try `initialize`, or a failure.
    fn started(
        &self,
        outcome: Result<RunningService<RoleClient, ImportHandler>, ClientInitializeError>,
        is_discovering: bool,
    ) -> Result<RunningService<RoleClient, ImportHandler>, Started> {
        match outcome {
            Ok(running) => Ok(running),
            Err(ClientInitializeError::NoCompatibleProtocolVersion { server_supported, .. })
                if server_supported.iter().any(ProtocolVersion::has_initialize) =>
            {
                let listed: Vec<&str> = server_supported.iter().map(ProtocolVersion::as_str).collect();
                Err(Started::Legacy(format!("its `server/discover` lists only {}", listed.join(", "))))
            }
            Err(ClientInitializeError::ExpectedInitResult(Some(_))) if is_discovering => {
                Err(Started::Legacy("it answered `server/discover` with something else than a discovery result".into()))
            }
            Err(error) => {
                let reason = reason(&error, &self.redactor);
                let challenged = challenge(&error);
                let failed = McpImportError::Connect {
                    server: self.endpoint.label(),
                    reason: reason.clone(),
                    source: Some(McpCause::new(reason, error)),
                };
                Err(match challenged {
                    Some(challenge) => Started::Challenged(Box::new((challenge, failed))),
                    None => Started::Failed(failed),
                })
            }
        }
    }
}
