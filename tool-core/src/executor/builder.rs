//! The executor as configured, and its builder: the catalog, the limits, the environment, the
//! answers to what tools ask, and the host's call policy. Running calls is `calls.rs`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::ask::{
    elicitation_handler, sampling_handler, ElicitationAnswer, ElicitationRequest, SamplingRequest, SamplingResponse,
};
use crate::catalog::ToolCatalog;
use crate::context::Environment;
use crate::model::{ToolCallRequest, ToolError};
use crate::policy::approval::approval_handler;
use crate::policy::guard::Scoped;
use crate::policy::repair::repair_hook;
use crate::policy::{
    ApprovalRule, Backoff, Decision, GuardScope, InputGuardrail, OutputGuardrail, PendingCall, RateLimit,
    RepairRequest, RetryBudget,
};
use crate::state::{MemoryStore, SharedStore};
use crate::stateful::Conversations;

use super::rules::{Policy, Rules};
use super::run::Reply;
use super::scope::Asking;

/// The default of [`ExecutorBuilder::max_output_bytes`]: 1 MiB, about 250,000 tokens, more
/// than most models' whole context.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1 << 20;

/// The default of [`ExecutorBuilder::pending_ttl`]: 24 hours, a working day's wait for a person
/// and the night after it.
pub const DEFAULT_PENDING_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// Runs tool calls. Cheap to clone; clones share the catalog, environment and the instances of
/// stateful tools.
#[derive(Clone, Debug)]
pub struct Executor {
    pub(super) catalog: ToolCatalog,
    pub(super) environment: Arc<Environment>,
    pub(super) timeout: Option<Duration>,
    pub(super) concurrency: usize,
    pub(super) reply: Reply,
    pub(super) conversations: Conversations,
    pub(super) asking: Asking,
    pub(super) policy: Arc<Policy>,
    pub(super) store: SharedStore,
    /// How long a pending call waits in the store.
    pub(super) pending_ttl: Duration,
    /// Where calls are measured (feature `otel`), when the host gave a meter.
    #[cfg(feature = "otel")]
    pub(super) metrics: Option<super::metrics::CallMetrics>,
}

impl Executor {
    /// An executor over `catalog` with no time limit and a batch concurrency of 8.
    pub fn new(catalog: ToolCatalog) -> Self {
        Self::builder(catalog).build()
    }

    /// Configures an executor over `catalog`.
    pub fn builder(catalog: ToolCatalog) -> ExecutorBuilder {
        ExecutorBuilder::new(catalog)
    }

    /// The store this executor keeps state in between calls ([`ExecutorBuilder::store`]).
    pub fn store(&self) -> &SharedStore {
        &self.store
    }

    /// The catalog calls are resolved against.
    pub fn catalog(&self) -> &ToolCatalog {
        &self.catalog
    }

    /// The instances of this executor's stateful tools: end a conversation, all of them, or the
    /// idle ones.
    pub fn conversations(&self) -> &Conversations {
        &self.conversations
    }

    /// This executor over another catalog, sharing its environment, settings, policy and the
    /// instances of stateful tools: for a server that adds a tool of its own (the MCP server's
    /// tool search) to the host's catalog.
    pub fn with_catalog(&self, catalog: ToolCatalog) -> Executor {
        Executor { catalog, ..self.clone() }
    }

    /// This executor keeping its state in `store` instead (see [`ExecutorBuilder::store`]),
    /// sharing everything else: for a front end that chooses the store when it starts (the
    /// command line's `serve-mcp --state`).
    pub fn with_store(&self, store: SharedStore) -> Executor {
        let mut environment = (*self.environment).clone();
        environment.store = Some(Arc::clone(&store));
        Executor { store, environment: Arc::new(environment), ..self.clone() }
    }

    /// This executor with more approval rules beside its own (the same store, so the same
    /// counts of the retry budget and the rate limits): for a front end that asks for more
    /// approvals than the host configured (the command line's `--require-approval`).
    pub fn with_approval_rules(&self, more: impl IntoIterator<Item = ApprovalRule>) -> Executor {
        let mut rules = self.policy.rules.clone();
        let before = rules.approval.len();
        rules.approval.extend(more);
        if rules.approval.len() == before {
            return self.clone();
        }
        Executor { policy: Policy::new(rules), ..self.clone() }
    }

    /// Whether the host gave an approver ([`ExecutorBuilder::on_approval`]): a server leaves
    /// the approval of its calls to it rather than ask its client's user.
    pub fn has_approver(&self) -> bool {
        self.policy.rules.approver.is_some()
    }

    /// The time limit of a call of `tool`, counted from its receipt: the tool's own
    /// (`timeout_ms`), else the executor's; none for a tool the catalog does not have, unless
    /// the executor has one.
    pub fn time_limit(&self, tool: &str) -> Option<Duration> {
        self.catalog.definition(tool).and_then(|d| d.timeout).or(self.timeout)
    }
}

/// Configures an [`Executor`].
#[derive(Debug)]
pub struct ExecutorBuilder {
    catalog: ToolCatalog,
    environment: Environment,
    timeout: Option<Duration>,
    concurrency: usize,
    reply: Reply,
    conversations: Conversations,
    asking: Asking,
    rules: Rules,
    store: Option<SharedStore>,
    pending_ttl: Duration,
    #[cfg(feature = "otel")]
    metrics: Option<super::metrics::CallMetrics>,
}

impl ExecutorBuilder {
    /// Measures every call with `meter` (feature `otel`): `gen_ai.execute_tool.duration`, a
    /// histogram in seconds by tool and `error.type`, and `tool_core.argument.warnings`, a
    /// counter by tool and rule (`docs/observability.md`). A tool the catalog does not have is
    /// counted as `_OTHER`, so that a model's invented names make no series of their own.
    #[cfg(feature = "otel")]
    pub fn meter(mut self, meter: &opentelemetry::metrics::Meter) -> Self {
        self.metrics = Some(super::metrics::CallMetrics::new(meter));
        self
    }

    /// The default time limit per call; a tool's own `timeout_ms` takes precedence.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How many calls of a batch run at once (at least 1).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// The most a call hands on, in bytes: the text of its output (or error) and its content
    /// blocks together (an image counts its base64 data), and its structured result and
    /// metadata serialised. Text over it is cut at a character boundary and the cut said at its
    /// end (`[output cut at N bytes of M]`); a block that does not fit in what the text and
    /// the blocks before it left is dropped whole, and a structured result or metadata over
    /// the limit is dropped, each said likewise (`[1 block dropped (image/png, 2 MB): over
    /// 1048576 bytes]`). The record says what was cut
    /// ([`ExecutionRecord::output_cut`](crate::ExecutionRecord::output_cut)). Default: [`DEFAULT_MAX_OUTPUT_BYTES`] (1 MiB); at
    /// least 1,024.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.reply.max_output_bytes = bytes.max(1024);
        self
    }

    /// Whether the model (and an MCP client) reads a panic's message and a tool error's
    /// [internal detail](ToolError::with_internal_detail) (an upstream's error body, a
    /// connection error). Off by default: the model reads a plain message, and the record
    /// keeps the whole text for the host.
    pub fn expose_error_details(mut self, expose: bool) -> Self {
        self.reply.expose_error_details = expose;
        self
    }

    /// Shared state for `&State<T>` parameters.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.environment.insert_state(value);
        self
    }

    /// A named environment value.
    pub fn value(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.environment.insert_value(key, value);
        self
    }

    /// The store the instances of stateful tools live in; by default the executor has one of
    /// its own, so executors never share an instance. Give several executors the same store
    /// (a clone of one handle) to let them share their conversations, or a store made with
    /// [`Conversations::with_limits`] to bound it otherwise.
    pub fn conversations(mut self, conversations: Conversations) -> Self {
        self.conversations = conversations;
        self
    }

    /// The store every piece of state between calls lives in: retry budgets and rate limits
    /// (see [`policy_ttl`](Self::policy_ttl)), pending approvals, the serialized state of
    /// stateful tools (`#[tool(shared_state)]`). By default a [`MemoryStore`] of the executor's own; give replicas one shared store
    /// (`RedisStore`, feature `redis`) to make them interchangeable. When the store cannot be
    /// reached, the calls that need it fail with `state_unavailable`; nothing falls back to
    /// memory.
    pub fn store(mut self, store: SharedStore) -> Self {
        self.store = Some(store);
        self
    }

    /// How long a call that ends pending waits in the store for its answer: resumed later, it
    /// is refused as expired ([`NotPendingReason::Expired`](crate::NotPendingReason::Expired)),
    /// and the store forgets it. Default: [`DEFAULT_PENDING_TTL`]
    /// (24 hours); at least 1 ms.
    pub fn pending_ttl(mut self, ttl: Duration) -> Self {
        self.pending_ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// Whether the stateful tools whose state lives in this process's memory (an impl block
    /// without `shared_state`) run when the [store](Self::store) is shared with other
    /// processes. Off by default: behind a load balancer each replica would keep a state of its
    /// own for one conversation, so their calls fail with `state_not_shared`, whose message
    /// names the fix. Turn it on for a host whose conversations each stay on one process
    /// (sticky sessions) or whose instances hold nothing that must survive a replica.
    pub fn allow_local_state(mut self, allow: bool) -> Self {
        self.environment.local_state = allow;
        self
    }

    /// The most bytes the state of one `shared_state` type may take in the store, for one
    /// conversation: a call whose changes would make it larger keeps none of them
    /// (`state_too_large`), so that a state a model can grow call by call (a cart, a list of
    /// notes) cannot make every later call read and write more. Default:
    /// [`DEFAULT_MAX_STATE_BYTES`](crate::DEFAULT_MAX_STATE_BYTES) (1 MiB).
    pub fn max_state_bytes(mut self, bytes: usize) -> Self {
        self.environment.max_state_bytes = Some(bytes);
        self
    }

    /// Answers the [`ToolContext::sample`](crate::ToolContext::sample) requests of calls whose scope gives no handler
    /// (see [`CallScope::on_sample`](crate::CallScope::on_sample)): over MCP, those of clients without the `sampling`
    /// capability.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SamplingResponse, ToolError>> + Send + 'static,
    {
        self.asking.sampling = Some(sampling_handler(handler));
        self
    }

    /// Answers the [`ToolContext::elicit`](crate::ToolContext::elicit) requests of calls whose scope gives no handler (see
    /// [`CallScope::on_elicit`](crate::CallScope::on_elicit)): over MCP, those of clients without the `elicitation`
    /// capability.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitationAnswer, ToolError>> + Send + 'static,
    {
        self.asking.elicitation = Some(elicitation_handler(handler));
        self
    }

    /// Calls of the tools `rule` names wait for a person's approval, beside those of tools
    /// that declare it (`#[tool(requires_approval)]`): `ApprovalRule::destructive()` for every
    /// tool annotated destructive.
    pub fn require_approval(mut self, rule: ApprovalRule) -> Self {
        self.rules.approval.push(rule);
        self
    }

    /// Calls that need approval are shown to `handler`, which answers at once (a terminal
    /// prompt); a call's scope may give its own ([`CallScope::on_approval`](crate::CallScope::on_approval)). Without one, a
    /// call that needs approval ends pending, kept in the executor's store, with a [`PendingCall`]
    /// to show and [`resume`](Executor::resume).
    pub fn on_approval<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(PendingCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Decision> + Send + 'static,
    {
        self.rules.approver = Some(approval_handler(handler));
        self
    }

    /// Checks the arguments of the calls `scope` covers, after extraction and before approval
    /// and the tool, in the order the guardrails were added; `name` names it in records.
    pub fn input_guardrail(mut self, name: impl Into<String>, scope: GuardScope, guard: impl InputGuardrail) -> Self {
        self.rules.input.push(Scoped { name: Arc::from(name.into()), scope, guard: Arc::new(guard) });
        self
    }

    /// Checks the successful results of the calls `scope` covers, before the model reads them,
    /// in the order the guardrails were added; `name` names it in records.
    pub fn output_guardrail(mut self, name: impl Into<String>, scope: GuardScope, guard: impl OutputGuardrail) -> Self {
        self.rules.output.push(Scoped { name: Arc::from(name.into()), scope, guard: Arc::new(guard) });
        self
    }

    /// Adds a rate limit; a call runs only when every limit that covers it has room.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rules.rates.push(limit);
        self
    }

    /// How many failing tries in a row a conversation's model has (default: 3 per tool, 10 per
    /// conversation; [`RetryBudget::unlimited`] turns it off).
    pub fn retry_budget(mut self, budget: RetryBudget) -> Self {
        self.rules.budget = budget;
        self
    }

    /// How calls of idempotent tools are run again after a transient failure (default: two
    /// more tries after 200 ms and 400 ms; [`Backoff::none`] turns it off).
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.rules.backoff = backoff;
        self
    }

    /// Calls extraction refuses (arguments not accepted, no tool of that name) go to `hook`
    /// first: a call it returns instead (fixed arguments, a retired tool's new name) is read
    /// again, once, and the record keeps the model's call in
    /// [`original`](crate::ExecutionRecord::original).
    pub fn repair<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(RepairRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<ToolCallRequest>> + Send + 'static,
    {
        self.rules.repair = Some(repair_hook(hook));
        self
    }

    /// How long the retry budget's counts of a conversation (its failing tries in a row, a
    /// spent budget) live in the store after their last change: a conversation idle that long
    /// has its budget whole again. Rate-limit cells live as long as they matter (their
    /// period). Default: 1 hour; at least 1 second.
    pub fn policy_ttl(mut self, ttl: Duration) -> Self {
        self.rules.ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Builds the executor.
    pub fn build(mut self) -> Executor {
        let store = self.store.unwrap_or_else(|| Arc::new(MemoryStore::new()));
        self.environment.store = Some(Arc::clone(&store));
        self.conversations.attach(&store);
        Executor {
            catalog: self.catalog,
            environment: Arc::new(self.environment),
            timeout: self.timeout,
            concurrency: self.concurrency,
            reply: self.reply,
            conversations: self.conversations,
            asking: self.asking,
            policy: Policy::new(self.rules),
            store,
            pending_ttl: self.pending_ttl,
            #[cfg(feature = "otel")]
            metrics: self.metrics,
        }
    }
}

impl ExecutorBuilder {
    /// What [`Executor::builder`] starts from.
    pub(super) fn new(catalog: ToolCatalog) -> Self {
        ExecutorBuilder {
            catalog,
            environment: Environment::new(),
            timeout: None,
            concurrency: 8,
            reply: Reply { max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES, expose_error_details: false },
            conversations: Conversations::new(),
            asking: Asking::default(),
            rules: Rules::default(),
            store: None,
            pending_ttl: DEFAULT_PENDING_TTL,
            #[cfg(feature = "otel")]
            metrics: None,
        }
    }
}
