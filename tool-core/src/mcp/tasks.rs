//! MCP tasks (the extension `io.modelcontextprotocol/tasks`, SEP-2663): a long call answered at
//! once with a task, whose status and result the client polls with `tasks/get`, answers the
//! questions of with `tasks/update`, and stops with `tasks/cancel`.
//!
//! A task lives in the executor's store, so that every replica sharing it answers for it: its
//! record (status, message, the questions open, the final result), a cancel flag, and the
//! answers given. The call runs on the replica that accepted it, which alone writes the record
//! and beats a heartbeat into it; the others write only the flag and the answers, which the
//! running replica reads on every tick (and at once when the request reaches it). A record whose
//! heartbeat is older than its lease belongs to a replica that is gone. Whichever replica is
//! asked then runs the call again from the top, when running it twice does no harm: it was
//! waiting for an answer (tools ask before they act, as rounds already require), or its tool
//! is idempotent; the answers given so far are in the store, so each question asked again gets
//! its answer at once. Any other such task is reported failed, since nothing will finish it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rmcp::model::{
    CallToolResult, ClientCapabilities, CreateTaskResult, DetailedTask, GetTaskResult, InputRequest, InputRequests,
    InputResponses, JsonObject, Task, TaskPayload, TaskStatus,
};
use rmcp::ErrorData;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, Notify};
use tokio_util::sync::CancellationToken;

use super::mrtr::{check_answer, question_digest, scope_asking, Answered, Asker, Kind, QuestionKeys};
use crate::executor::{CallFailure, CallScope, CallStatus, ExecutionRecord, Executor};
use crate::model::{duration_words, TaskSupport, ToolCallRequest, ToolDefinition, ToolError};
use crate::state::{random_id, Expect, Owner, SharedStore, StateKey, Write, Written};

/// How many tasks one process runs at once, unless the host says otherwise.
pub const DEFAULT_MAX_RUNNING_TASKS: usize = 256;

/// How long a task's record is kept after its last change, unless the host says otherwise.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// How often a client is asked to poll a task, unless the host says otherwise.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How long a running task's heartbeat may be silent before the task is reported failed,
/// unless the host says otherwise.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

/// The store kinds of a task's record, its cancel flag and the answers to its questions.
const TASK_KIND: &str = "mcp_task";
const CANCEL_KIND: &str = "mcp_task_cancel";
const ANSWERS_KIND: &str = "mcp_task_answers";

/// How many times the running replica writes a task's end while the store refuses it (waiting
/// 0.1 s, then twice as long each time: about 6 s in all).
const END_TRIES: usize = 6;

/// How many times `tasks/update` retries its merge of answers when another writes them too.
const MERGE_TRIES: usize = 16;

/// How many times one task's call is started: once, and again by each replica that takes it
/// over from one that stopped. A call that brings down every replica that runs it stops here.
pub(super) const MAX_TASK_RUNS: u32 = 3;

/// The host's rule: which tools without `#[tool(task)]` are answered with tasks too.
pub(super) type TaskRule = dyn Fn(&ToolDefinition) -> bool + Send + Sync;

/// Sees the record of every call.
pub(super) type RecordObserver = dyn Fn(&ExecutionRecord) + Send + Sync;

/// A server's tasks: its settings, and the tasks running in this process.
pub(super) struct Tasks {
    rule: Option<Arc<TaskRule>>,
    ttl: Duration,
    poll: Duration,
    lease: Duration,
    max_running: usize,
    running: Mutex<HashMap<String, Arc<Running>>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("rule", &self.rule.is_some())
            .field("ttl", &self.ttl)
            .field("poll", &self.poll)
            .field("lease", &self.lease)
            .finish()
    }
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks {
            rule: None,
            ttl: DEFAULT_TASK_TTL,
            poll: DEFAULT_TASK_POLL_INTERVAL,
            lease: DEFAULT_TASK_LEASE,
            max_running: DEFAULT_MAX_RUNNING_TASKS,
            running: Mutex::default(),
        }
    }
}

/// How a call is answered.
pub(super) enum Answer {
    /// When it ends, in the response to its request.
    Now,
    /// With a task.
    Task,
}

/// A task's record as stored: what `tasks/get` shows, and the running replica's heartbeat.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Stored {
    status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    created: String,
    updated: String,
    ttl_ms: u64,
    poll_ms: u64,
    lease_ms: u64,
    /// When the running replica last wrote, in milliseconds since the Unix epoch.
    beat_ms: u64,
    /// The questions open, by key, as `inputRequests` holds them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    input: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<JsonObject>,
    /// What another replica needs to run the call again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resume: Option<Resume>,
    /// How many times the call was started.
    #[serde(default)]
    runs: u32,
    /// The digests of the open questions, by key: a question's answer is kept with it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    asked: BTreeMap<String, String>,
}

/// What a replica needs to run a task's call again, kept in its record: the call as received,
/// what its client can answer, and how its result is shown.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Resume {
    pub(super) call: ToolCallRequest,
    pub(super) capabilities: ClientCapabilities,
    /// The name the client called the tool by.
    pub(super) called: String,
    /// The conversation handle this call started, which its result gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) minted: Option<String>,
    /// Whether the tool says a second run has no effect beyond the first's.
    #[serde(default)]
    pub(super) idempotent: bool,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn millis(duration: Duration) -> u64 {
    (duration.as_millis() as u64).max(1)
}

fn internal(what: &str, error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("{what}: {error}"), None)
}

fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

fn task_key(principal: Option<&str>, kind: &'static str, id: &str) -> StateKey {
    Owner::new(principal, None).key(kind, id)
}

/// A JSON-RPC error as a task's `error` holds it.
fn error_object(error: &ErrorData) -> JsonObject {
    match serde_json::to_value(error) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::from_iter([
            ("code".to_owned(), Value::from(error.code.0)),
            ("message".to_owned(), Value::from(error.message.to_string())),
        ]),
    }
}

impl Stored {
    fn task(&self, id: &str) -> Task {
        let mut task = Task::new(id, self.status, &self.created, &self.updated)
            .with_ttl_ms(self.ttl_ms)
            .with_poll_interval_ms(self.poll_ms);
        task.status_message = self.message.clone();
        task
    }

    /// The task as `tasks/get` shows it, the questions `answered` (in the store, not yet taken
    /// by the running call) no longer open.
    fn detailed(&self, id: &str, answered: &Kept) -> Result<DetailedTask, ErrorData> {
        let payload = match self.status {
            TaskStatus::InputRequired => {
                let open = self
                    .input
                    .iter()
                    .filter(|(key, _)| !answered.contains_key(*key))
                    .map(|(key, request)| Ok((key.clone(), serde_json::from_value::<InputRequest>(request.clone())?)))
                    .collect::<Result<InputRequests, serde_json::Error>>()
                    .map_err(|e| internal("a stored question of the task is not valid", e))?;
                match open.is_empty() {
                    true => TaskPayload::Working,
                    false => TaskPayload::InputRequired { input_requests: open },
                }
            }
            TaskStatus::Completed => TaskPayload::Completed { result: self.result.clone().unwrap_or_default() },
            TaskStatus::Failed => TaskPayload::Failed { error: self.error.clone().unwrap_or_default() },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            _ => TaskPayload::Working,
        };
        Ok(DetailedTask::new(self.task(id), payload))
    }

    /// Whether the replica running the task stopped beating: it is gone, and so is the call.
    fn lapsed(&self, now: u64) -> bool {
        !self.status.is_terminal() && now.saturating_sub(self.beat_ms) > self.lease_ms
    }

    fn encode(&self) -> Result<Vec<u8>, ErrorData> {
        serde_json::to_vec(self).map_err(|e| internal("the task could not be written", e))
    }
}

/// What a task's call needs besides its request: where it runs, and how its end is shown.
pub(super) struct Start {
    pub(super) executor: Executor,
    /// The call, its client's capabilities (the request's or its session's), and the rest a
    /// replica taking the task over needs.
    pub(super) resume: Resume,
    pub(super) approval_by_elicitation: bool,
    /// The MCP result of the call's record, as the server answers it without a task.
    pub(super) result: Box<ResultOf>,
    pub(super) observer: Option<Arc<RecordObserver>>,
    /// The answers the call's request had already (its rounds, before the tool called
    /// `continue_as_task`), by key.
    pub(super) answers: BTreeMap<String, Answered>,
    /// Whether the call's rate limits admitted it already: in its request's rounds, or in an
    /// earlier run of the task.
    pub(super) admitted: bool,
}

/// Makes the MCP result of a call's record.
pub(super) type ResultOf = dyn FnOnce(&ExecutionRecord) -> Result<CallToolResult, ErrorData> + Send;

/// Makes what a task's call needs from what its record keeps (see `Resume`); `None` when this
/// server no longer serves the tool.
pub(super) type Restart<'a> = &'a (dyn Fn(Resume) -> Option<Start> + Send + Sync);

/// The answers kept for a task's questions, by key.
type Kept = BTreeMap<String, Answered>;

impl Tasks {
    /// The host's rule, which answers with tasks the calls of the tools it picks.
    pub(super) fn set_rule(&mut self, rule: Arc<TaskRule>) {
        self.rule = Some(rule);
    }

    /// How long a task is kept after its last change.
    pub(super) fn set_ttl(&mut self, ttl: Duration) {
        self.ttl = ttl.max(Duration::from_millis(1));
    }

    /// How often clients are asked to poll, and how often a running task reads its cancel flag
    /// and answers.
    pub(super) fn set_poll_interval(&mut self, poll: Duration) {
        self.poll = poll.max(Duration::from_millis(10));
    }

    /// How long a running task's heartbeat may be silent before the task is reported failed.
    pub(super) fn set_lease(&mut self, lease: Duration) {
        self.lease = lease.max(Duration::from_millis(30));
    }

    /// How many tasks this process runs at once.
    pub(super) fn set_max_running(&mut self, tasks: usize) {
        self.max_running = tasks.max(1);
    }

    /// How a tool's calls may be answered: as `#[tool(task)]` says, or as the host's rule picks.
    fn support(&self, definition: &ToolDefinition) -> TaskSupport {
        match definition.task {
            TaskSupport::Never if self.rule.as_ref().is_some_and(|rule| rule(definition)) => TaskSupport::Optional,
            support => support,
        }
    }

    /// Whether any of `definitions` may be answered with a task: the server then declares the
    /// extension.
    pub(super) fn offered<'a>(&self, mut definitions: impl Iterator<Item = &'a ToolDefinition>) -> bool {
        definitions.any(|definition| !self.support(definition).is_never())
    }

    /// How a call of the tool `definition` from a client with `capabilities` is answered: with
    /// a task when the tool takes one and the client declared the extension; a tool that only
    /// runs as a task refuses other clients with MCP's missing-capability error. While this
    /// process runs its most tasks, a call that may be answered when it ends is, within its
    /// request (bounded as every request is), and one that may not is refused.
    pub(super) fn answer(
        &self,
        definition: Option<&ToolDefinition>,
        capabilities: Option<&ClientCapabilities>,
    ) -> Result<Answer, ErrorData> {
        let Some(definition) = definition else { return Ok(Answer::Now) };
        let declared = capabilities.is_some_and(ClientCapabilities::supports_tasks);
        let full = || self.running.lock().unwrap_or_else(|e| e.into_inner()).len() >= self.max_running;
        match (self.support(definition), declared) {
            (TaskSupport::Optional, true) if full() => Ok(Answer::Now),
            (TaskSupport::Required, true) if full() => Err(ErrorData::internal_error(
                format!(
                    "this server runs its most tasks at once ({}), and `{}` runs only as a task; call it again later",
                    self.max_running, definition.name
                ),
                None,
            )),
            (TaskSupport::Optional | TaskSupport::Required, true) => Ok(Answer::Task),
            (TaskSupport::Required, false) => {
                Err(ErrorData::missing_required_client_capability(ClientCapabilities::builder().enable_tasks().build()))
            }
            _ => Ok(Answer::Now),
        }
    }

    /// Creates the task of `start`'s call in the store and runs the call in this process. The
    /// task is in the store before its id is given, so a `tasks/get` right after finds it.
    pub(super) async fn start(self: &Arc<Self>, start: Start) -> Result<CreateTaskResult, ErrorData> {
        let store = Arc::clone(start.executor.store());
        let principal = start.resume.call.principal.clone();
        let id = random_id();
        let key = task_key(principal.as_deref(), TASK_KIND, &id);
        let now = rmcp::task_manager::current_timestamp();
        let stored = Stored {
            status: TaskStatus::Working,
            message: None,
            created: now.clone(),
            updated: now,
            ttl_ms: millis(self.ttl),
            poll_ms: millis(self.poll),
            lease_ms: millis(self.lease),
            beat_ms: now_ms(),
            input: BTreeMap::new(),
            result: None,
            error: None,
            resume: Some(start.resume.clone()),
            runs: 1,
            asked: BTreeMap::new(),
        };
        // The answers the request's rounds gathered, there before the call asks again.
        if !start.answers.is_empty() {
            let bytes =
                serde_json::to_vec(&start.answers).map_err(|e| internal("the answers could not be written", e))?;
            let write = Write::new(bytes, self.ttl).expect(Expect::Absent);
            store
                .write(&task_key(principal.as_deref(), ANSWERS_KIND, &id), write)
                .await
                .map_err(|e| internal("the answers could not be written to the store", e))?;
        }
        let write = Write::new(stored.encode()?, self.ttl).expect(Expect::Absent);
        match store.write(&key, write).await {
            Ok(Written::Done(_)) => {}
            Ok(_) => return Err(ErrorData::internal_error("a fresh task id was already in the store", None)),
            Err(error) => return Err(internal("the task could not be kept in the store", error)),
        }
        let created = CreateTaskResult::new(stored.task(&id));
        self.launch(id, store, stored, start);
        Ok(created)
    }

    /// Runs the call of the task `id`, whose record is `stored`, in this process.
    fn launch(self: &Arc<Self>, id: String, store: SharedStore, stored: Stored, start: Start) {
        let running = Arc::new(Running {
            id: id.clone(),
            principal: start.resume.call.principal.clone(),
            store,
            ttl: self.ttl,
            cancel: CancellationToken::new(),
            wake: Notify::new(),
            record: tokio::sync::Mutex::new(stored),
            waiting: Mutex::default(),
            keys: QuestionKeys::default(),
        });
        self.running.lock().unwrap_or_else(|e| e.into_inner()).insert(id, Arc::clone(&running));
        tokio::spawn(Arc::clone(self).run(running, start));
    }

    /// Runs a task's call to its end: beats, reads the cancel flag and the answers on every
    /// tick, writes the progress, and writes the end.
    async fn run(self: Arc<Self>, running: Arc<Running>, start: Start) {
        let Start { executor, resume, approval_by_elicitation, result, observer, admitted, .. } = start;
        let Resume { call, capabilities, .. } = resume;
        let (progress, mut reports) = mpsc::unbounded_channel::<String>();
        let mut scope = CallScope::new().cancel_on(&running.cancel).on_progress(move |report| {
            let message = match (report.message, report.total) {
                (Some(message), _) => message,
                (None, Some(total)) => format!("{} of {total}", report.progress),
                (None, None) => report.progress.to_string(),
            };
            let _ = progress.send(message);
        });
        scope = scope_asking(&running, &capabilities, &executor, approval_by_elicitation, scope);
        scope.admitted = admitted;
        let call = executor.execute_in(call, scope);
        tokio::pin!(call);
        let mut tick = tokio::time::interval(self.poll.min(self.lease / 3));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let beat = self.lease / 3;
        let mut beaten = Instant::now();
        let record = loop {
            tokio::select! {
                biased;
                record = &mut call => break record,
                Some(mut message) = reports.recv() => {
                    // Reports that came meanwhile: only the last is shown, so a tool that
                    // reports often costs one write per turn, not one per report.
                    while let Ok(next) = reports.try_recv() {
                        message = next;
                    }
                    running.change(|stored| stored.message = Some(message)).await;
                }
                () = running.wake.notified() => running.deliver().await,
                _ = tick.tick() => {
                    if running.cancel_flagged().await {
                        running.cancel.cancel();
                    }
                    running.deliver().await;
                    if beaten.elapsed() >= beat {
                        running.change(|_| {}).await;
                        beaten = Instant::now();
                    }
                }
            }
        };
        let last = std::iter::from_fn(|| reports.try_recv().ok()).last();
        // Its place is free before its end shows: a client that saw it end may start another.
        self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&running.id);
        let end = ending(&record, result);
        running
            .end(|stored| {
                stored.input.clear();
                stored.asked.clear();
                stored.resume = None;
                if let Some(message) = last {
                    stored.message = Some(message);
                }
                match end {
                    Ok(None) => stored.status = TaskStatus::Cancelled,
                    Ok(Some(result)) => {
                        stored.status = TaskStatus::Completed;
                        stored.result = Some(result);
                    }
                    Err(error) => {
                        stored.status = TaskStatus::Failed;
                        stored.error = Some(error_object(&error));
                    }
                }
            })
            .await;
        if let Some(observer) = &observer {
            observer(&record);
        }
        let principal = running.principal.as_deref();
        for kind in [CANCEL_KIND, ANSWERS_KIND] {
            let _ = running.store.delete(&task_key(principal, kind, &running.id), None).await;
        }
    }

    /// The task `id` of `principal`, with its version; another principal's is unknown.
    async fn read(
        &self,
        store: &SharedStore,
        principal: Option<&str>,
        id: &str,
    ) -> Result<(Stored, crate::state::Version), ErrorData> {
        let found = store
            .read(&task_key(principal, TASK_KIND, id))
            .await
            .map_err(|e| internal("the task could not be read from the store", e))?;
        let found = found.ok_or_else(|| unknown(id))?;
        let stored = serde_json::from_slice(&found.value).map_err(|e| internal("the stored task is not valid", e))?;
        Ok((stored, found.version))
    }

    /// The task as stored. When the replica running it is gone: run again here, when `restart`
    /// is given and running it again does no harm (see the module's notes), else failed,
    /// written so, once.
    async fn current(
        self: &Arc<Self>,
        store: &SharedStore,
        principal: Option<&str>,
        id: &str,
        restart: Option<Restart<'_>>,
    ) -> Result<Stored, ErrorData> {
        let (mut stored, version) = self.read(store, principal, id).await?;
        let now = now_ms();
        if !stored.lapsed(now) {
            return Ok(stored);
        }
        if let Some(restart) = restart {
            let taken = self.take_over(store, principal, id, stored.clone(), version, restart).await?;
            if let Some(taken) = taken {
                return Ok(taken);
            }
        }
        let silent = Duration::from_millis(now.saturating_sub(stored.beat_ms));
        let again = match stored.runs {
            runs if runs >= MAX_TASK_RUNS => format!(" (the call was started {runs} times, the most a task's call is)"),
            _ => String::new(),
        };
        let error = ErrorData::internal_error(
            format!(
                "the server running this task stopped: its heartbeat has been silent for {} (its lease is {}){again}, so the call's result is lost; call the tool again",
                duration_words(silent),
                duration_words(Duration::from_millis(stored.lease_ms)),
            ),
            None,
        );
        stored.status = TaskStatus::Failed;
        stored.input.clear();
        stored.asked.clear();
        stored.error = Some(error_object(&error));
        stored.updated = rmcp::task_manager::current_timestamp();
        let write = Write::new(stored.encode()?, self.ttl).expect(Expect::Version(version));
        match store.write(&task_key(principal, TASK_KIND, id), write).await {
            Ok(Written::Done(_)) => Ok(stored),
            // The running replica wrote meanwhile: it is alive after all.
            Ok(_) => Ok(self.read(store, principal, id).await?.0),
            Err(e) => Err(internal("the task could not be written to the store", e)),
        }
    }

    /// Runs the lapsed task `id` (`stored`, at `version`) again in this process, when that does
    /// no harm: it was waiting for an answer, or its tool is idempotent, and it has not run
    /// [`MAX_TASK_RUNS`] times. The task as it then stands (another replica may have taken it
    /// first), or `None` when it is not to run again.
    async fn take_over(
        self: &Arc<Self>,
        store: &SharedStore,
        principal: Option<&str>,
        id: &str,
        mut stored: Stored,
        version: crate::state::Version,
        restart: Restart<'_>,
    ) -> Result<Option<Stored>, ErrorData> {
        let Some(resume) = stored.resume.clone() else { return Ok(None) };
        let waiting = stored.status == TaskStatus::InputRequired;
        if !(waiting || resume.idempotent) || stored.runs.max(1) >= MAX_TASK_RUNS {
            return Ok(None);
        }
        if self.running.lock().unwrap_or_else(|e| e.into_inner()).len() >= self.max_running {
            // Full here: the task stays as it is, for a replica with room to take it.
            return Ok(Some(stored));
        }
        let Some(mut start) = restart(resume) else { return Ok(None) };
        start.admitted = true;
        stored.runs = stored.runs.max(1) + 1;
        stored.beat_ms = now_ms();
        stored.updated = rmcp::task_manager::current_timestamp();
        if !waiting {
            stored.status = TaskStatus::Working;
        }
        let write = Write::new(stored.encode()?, self.ttl).expect(Expect::Version(version));
        match store.write(&task_key(principal, TASK_KIND, id), write).await {
            Ok(Written::Done(_)) => {
                tracing::info!(target: "tools", task = %id, runs = stored.runs, "an MCP task whose server stopped runs again here");
                self.launch(id.to_owned(), Arc::clone(store), stored.clone(), start);
                Ok(Some(stored))
            }
            // Another replica wrote first: it took the task, or its own replica was alive.
            Ok(_) => Ok(Some(self.read(store, principal, id).await?.0)),
            Err(e) => Err(internal("the task could not be written to the store", e)),
        }
    }

    /// `tasks/get`: the task with its open questions, or its result or error once it ended.
    pub(super) async fn get(
        self: &Arc<Self>,
        store: &SharedStore,
        principal: Option<&str>,
        id: &str,
        restart: Restart<'_>,
    ) -> Result<GetTaskResult, ErrorData> {
        let stored = self.current(store, principal, id, Some(restart)).await?;
        let answered = match stored.status {
            TaskStatus::InputRequired => answers(store, &task_key(principal, ANSWERS_KIND, id)).await?.0,
            _ => Kept::new(),
        };
        Ok(GetTaskResult::new(stored.detailed(id, &answered)?))
    }

    /// `tasks/update`: the answers to questions the task has open, kept in the store for the
    /// replica running it. Answers to anything else are ignored, as the extension says.
    pub(super) async fn update(
        self: &Arc<Self>,
        store: &SharedStore,
        principal: Option<&str>,
        id: &str,
        responses: InputResponses,
        restart: Restart<'_>,
    ) -> Result<(), ErrorData> {
        let stored = self.current(store, principal, id, Some(restart)).await?;
        let given: InputResponses = responses.into_iter().filter(|(key, _)| stored.input.contains_key(key)).collect();
        if stored.status.is_terminal() || given.is_empty() {
            return Ok(());
        }
        // An answer that is not its question's kind of result is refused, naming its key.
        for (question, answer) in &given {
            if let Some(kind) = stored.input.get(question).and_then(Kind::of_request) {
                check_answer(question, kind, answer)?;
            }
        }
        let key = task_key(principal, ANSWERS_KIND, id);
        for _ in 0..MERGE_TRIES {
            let (mut kept, version) = answers(store, &key).await?;
            for (key, answer) in &given {
                // The first answer to a question counts; one kept for another question asked
                // at this key (by an earlier run) gives way.
                let question = stored.asked.get(key).cloned().unwrap_or_default();
                if kept.get(key).is_none_or(|kept| kept.question != question) {
                    kept.insert(key.clone(), Answered { question, answer: answer.clone() });
                }
            }
            let bytes = serde_json::to_vec(&kept).map_err(|e| internal("the answers could not be written", e))?;
            let expect = version.map_or(Expect::Absent, Expect::Version);
            match store.write(&key, Write::new(bytes, self.ttl).expect(expect)).await {
                Ok(Written::Done(_)) => {
                    if let Some(running) = self.local(id) {
                        running.wake.notify_one();
                    }
                    return Ok(());
                }
                Ok(_) => continue,
                Err(e) => return Err(internal("the answers could not be written to the store", e)),
            }
        }
        Err(ErrorData::internal_error(
            "the answers of this task kept changing while they were written; send them again",
            None,
        ))
    }

    /// `tasks/cancel`: flags the task cancelled in the store for the replica running it (and
    /// cancels it at once when that is this one). A task that ended stays as it ended.
    pub(super) async fn cancel(
        self: &Arc<Self>,
        store: &SharedStore,
        principal: Option<&str>,
        id: &str,
    ) -> Result<(), ErrorData> {
        let stored = self.current(store, principal, id, None).await?;
        if stored.status.is_terminal() {
            return Ok(());
        }
        let write = Write::new(b"cancelled".to_vec(), self.ttl);
        store
            .write(&task_key(principal, CANCEL_KIND, id), write)
            .await
            .map_err(|e| internal("the cancellation could not be written to the store", e))?;
        if let Some(running) = self.local(id) {
            running.cancel.cancel();
        }
        Ok(())
    }

    fn local(&self, id: &str) -> Option<Arc<Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }
}

/// The answers kept for a task, with their version (`None` when there are none).
async fn answers(store: &SharedStore, key: &StateKey) -> Result<(Kept, Option<crate::state::Version>), ErrorData> {
    match store.read(key).await.map_err(|e| internal("the answers could not be read from the store", e))? {
        None => Ok((Kept::new(), None)),
        Some(found) => {
            let kept =
                serde_json::from_slice(&found.value).map_err(|e| internal("the stored answers are not valid", e))?;
            Ok((kept, Some(found.version)))
        }
    }
}

/// How a task's call ended: its result (`Ok(Some)`), cancelled (`Ok(None)`), or a protocol
/// error (a panic, a result MCP cannot carry). A tool's own error is a result, `isError`.
fn ending(record: &ExecutionRecord, result: Box<ResultOf>) -> Result<Option<JsonObject>, ErrorData> {
    if record.status == CallStatus::Cancelled {
        return Ok(None);
    }
    if let Some(CallFailure::Panicked { .. }) = &record.failure {
        return Err(ErrorData::internal_error(record.content.text.clone(), None));
    }
    match serde_json::to_value(result(record)?) {
        Ok(Value::Object(result)) => Ok(Some(result)),
        Ok(_) => Err(ErrorData::internal_error("the result is not a JSON object", None)),
        Err(e) => Err(internal("the result is not a valid MCP result", e)),
    }
}

/// A question of a running task waiting for its answer.
struct Waiting {
    answer: oneshot::Sender<Value>,
    /// Its digest, and its name (the tool's), which an answer must fit.
    question: String,
    named: Option<String>,
}

/// A task running in this process.
struct Running {
    id: String,
    principal: Option<String>,
    store: SharedStore,
    ttl: Duration,
    cancel: CancellationToken,
    /// Told when `tasks/update` reached this process.
    wake: Notify,
    /// The record as this process last wrote it; writes go one at a time.
    record: tokio::sync::Mutex<Stored>,
    /// The questions waiting for an answer, by key.
    waiting: Mutex<HashMap<String, Waiting>>,
    keys: QuestionKeys,
}

impl Running {
    /// Changes the record and writes it, with a fresh heartbeat. A write the store refuses is
    /// made again by the next change or beat.
    async fn change(&self, change: impl FnOnce(&mut Stored)) {
        let mut record = self.record.lock().await;
        change(&mut record);
        self.write(&mut record).await;
    }

    /// Writes the record with a fresh heartbeat; whether the store took it.
    async fn write(&self, record: &mut Stored) -> bool {
        record.updated = rmcp::task_manager::current_timestamp();
        record.beat_ms = now_ms();
        let Ok(bytes) = record.encode() else { return false };
        let key = task_key(self.principal.as_deref(), TASK_KIND, &self.id);
        match self.store.write(&key, Write::new(bytes, self.ttl)).await {
            Ok(_) => true,
            Err(error) => {
                tracing::warn!(target: "tools", task = %self.id, store = self.store.kind(), %error, "an MCP task's record was not written");
                false
            }
        }
    }

    /// Writes the task's end, trying again while the store refuses it: no later beat would
    /// write it, and without it the task would be reported failed once its lease lapsed.
    async fn end(&self, end: impl FnOnce(&mut Stored)) {
        let mut record = self.record.lock().await;
        end(&mut record);
        let mut wait = Duration::from_millis(100);
        for _ in 0..END_TRIES {
            if self.write(&mut record).await {
                return;
            }
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
    }

    /// Whether `tasks/cancel` flagged the task, on any replica.
    async fn cancel_flagged(&self) -> bool {
        let key = task_key(self.principal.as_deref(), CANCEL_KIND, &self.id);
        matches!(self.store.read(&key).await, Ok(Some(_)))
    }

    /// Hands the answers in the store to the questions waiting for them.
    async fn deliver(&self) {
        if self.waiting.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
            return;
        }
        let key = task_key(self.principal.as_deref(), ANSWERS_KIND, &self.id);
        let Ok((given, _)) = answers(&self.store, &key).await else { return };
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        for (key, answered) in given {
            let fits = waiting.get(&key).is_some_and(|w| answered.fits(&key, &w.question, w.named.as_deref()));
            if let Some(waiting) = waiting.remove(&key).filter(|_| fits) {
                let _ = waiting.answer.send(answered.answer);
            }
        }
    }
}

impl Asker for Running {
    /// Asks the client `request` through the task: the task reports `input_required` with it
    /// until `tasks/update` answers it.
    async fn ask(&self, kind: Kind, named: Option<&str>, request: InputRequest) -> Result<Value, ToolError> {
        let key = self.keys.key(kind, named);
        let asked = serde_json::to_value(&request).map_err(|e| {
            ToolError::new(format!("The question is not valid for MCP: {e}.")).with_code("input_failed")
        })?;
        let question = question_digest(&request);
        // Answered already: in the request's rounds, or while an earlier run of the task asked.
        let kept = answers(&self.store, &task_key(self.principal.as_deref(), ANSWERS_KIND, &self.id)).await;
        let kept = kept.ok().and_then(|(kept, _)| kept.get(&key).cloned());
        if let Some(answered) = kept.filter(|answered| answered.fits(&key, &question, named)) {
            return Ok(answered.answer);
        }
        let (sender, answer) = oneshot::channel();
        let waiting = Waiting { answer: sender, question: question.clone(), named: named.map(str::to_owned) };
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), waiting);
        self.change(|stored| {
            stored.input.insert(key.clone(), asked);
            stored.asked.insert(key.clone(), question);
            stored.status = TaskStatus::InputRequired;
        })
        .await;
        let answer = answer
            .await
            .map_err(|_| ToolError::new("The task ended before the MCP client answered.").with_code("input_failed"));
        self.change(|stored| {
            stored.input.remove(&key);
            stored.asked.remove(&key);
            if stored.input.is_empty() && stored.status == TaskStatus::InputRequired {
                stored.status = TaskStatus::Working;
            }
        })
        .await;
        answer
    }
}
