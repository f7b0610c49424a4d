//! Stateful tools: `#[tool]` on an impl block, one instance per conversation, made lazily,
//! reused, never shared; `&mut self` calls of a conversation in order, one at a time; cleanup
//! exactly once; idle eviction and a cap; a factory that fails; instances never shared between
//! executors; the default cap and a store's own limits for types that set none.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tool_core::prelude::*;
use tool_core::{CallFailure, Conversations, ExtractionPolicy, StateLimits};

/// A counter kept for one conversation.
#[derive(Default)]
pub struct Counter {
    total: u64,
}

#[tool]
impl Counter {
    /// Add to the counter; returns the new total.
    #[tool]
    async fn add(
        &mut self,
        /// How much to add.
        by: u64,
    ) -> String {
        // A yield between reading and writing: overlapping `&mut self` calls would lose updates.
        let before = self.total;
        tokio::task::yield_now().await;
        self.total = before + by;
        self.total.to_string()
    }

    /// The counter's total.
    #[tool(name = "counter.read")]
    fn total(&self) -> u64 {
        self.total
    }

    fn not_a_tool(&self) -> u64 {
        self.total * 2
    }
}

fn counter_catalog() -> ToolCatalog {
    ToolCatalog::builder().add_declared::<Counter_add>().add_declared::<Counter_total>().build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_conversation_has_its_own_instance_under_thousands_of_concurrent_calls() {
    let executor = Executor::builder(counter_catalog()).concurrency(64).build();
    let conversations = 20;
    let per_conversation = 100u64;
    let mut calls = Vec::new();
    for round in 0..per_conversation {
        for c in 0..conversations {
            let by = c + 1;
            calls.push(
                ToolCallRequest::new("counter.add", format!("{c}-{round}"), format!(r#"{{"by": "{by}"}}"#))
                    .in_conversation(format!("iso-{c}")),
            );
        }
    }
    let records = executor.execute_batch(calls).await;
    assert!(records.iter().all(|r| r.status == CallStatus::Success), "{:?}", records.iter().find(|r| r.is_error()));
    for c in 0..conversations {
        let read =
            executor.execute(ToolCallRequest::new("counter.read", "r", "{}").in_conversation(format!("iso-{c}"))).await;
        assert_eq!(read.content.text, ((c + 1) * per_conversation).to_string(), "conversation iso-{c}");
    }
    for c in 0..conversations {
        executor.conversations().end(&format!("iso-{c}")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mut_self_calls_of_one_conversation_run_in_arrival_order() {
    let executor = Executor::builder(counter_catalog()).concurrency(16).build();
    // Each call returns the total after it: in order, the totals are 1, 2, .., 50.
    let calls: Vec<_> = (0..50)
        .map(|i| ToolCallRequest::new("counter.add", i.to_string(), r#"{"by": 1}"#).in_conversation("order"))
        .collect();
    let totals: Vec<String> = executor.execute_batch(calls).await.into_iter().map(|r| r.content.text).collect();
    let expected: Vec<String> = (1..=50).map(|i: u32| i.to_string()).collect();
    assert_eq!(totals, expected);
    executor.conversations().end("order").await;
}

#[tokio::test]
async fn a_call_without_a_conversation_fails_clearly() {
    let executor = Executor::new(counter_catalog());
    let record = executor.execute(ToolCallRequest::new("counter.add", "1", r#"{"by": 1}"#)).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.model_text(),
        "The tool `counter.add` keeps state for each conversation, and this call names no conversation: the host must set the request's `conversation_id`."
    );
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("missing_conversation"));
}

#[tokio::test]
async fn methods_get_default_names_and_descriptions_like_functions() {
    let catalog = counter_catalog();
    let names: Vec<&str> = catalog.names().collect();
    assert_eq!(names, ["counter.add", "counter.read"]);
    let add = catalog.definition("counter.add").unwrap();
    assert_eq!(add.description, "Add to the counter; returns the new total.");
    assert_eq!(add.parameters[0].name, "by");
    assert_eq!(add.input_schema["required"], serde_json::json!(["by"]));
    assert_eq!(Counter { total: 2 }.not_a_tool(), 4);
}

/// What the session tools' lifecycle hooks saw.
static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static CREATED: AtomicUsize = AtomicUsize::new(0);

fn events() -> Vec<String> {
    EVENTS.lock().unwrap().clone()
}

/// A connection kept for one conversation.
pub struct Session {
    id: usize,
}

impl Session {
    async fn connect(ctx: &ToolContext) -> Result<Session, ToolError> {
        let conversation = ctx.request().conversation_id.clone().unwrap_or_default();
        if conversation.starts_with("refused") {
            return Err(ToolError::new(format!("cannot open a session for `{conversation}`")).with_code("unavailable"));
        }
        let id = CREATED.fetch_add(1, Ordering::SeqCst);
        EVENTS.lock().unwrap().push(format!("open {id} for {conversation}"));
        Ok(Session { id })
    }

    async fn close(&mut self) {
        tokio::task::yield_now().await;
        EVENTS.lock().unwrap().push(format!("close {}", self.id));
    }
}

#[tool(create = "connect", cleanup = "close", max_instances = 2)]
impl Session {
    /// Which session serves this conversation.
    #[tool(name = "session.id")]
    fn session_id(&self) -> String {
        self.id.to_string()
    }
}

fn session_executor() -> Executor {
    Executor::new(ToolCatalog::builder().add_declared::<Session_session_id>().build().unwrap())
}

async fn session_of(executor: &Executor, conversation: &str) -> ExecutionRecord {
    executor.execute(ToolCallRequest::new("session.id", "s", "{}").in_conversation(conversation)).await
}

#[tokio::test]
async fn the_factory_runs_once_per_conversation_cleanup_once_and_the_cap_evicts_the_least_recent() {
    let executor = session_executor();
    let a = session_of(&executor, "cap-a").await.content.text;
    assert_eq!(session_of(&executor, "cap-a").await.content.text, a, "reused");
    let b = session_of(&executor, "cap-b").await.content.text;
    assert_ne!(a, b);
    // A third conversation: the cap is two, so the least recently used (a) is cleaned up.
    session_of(&executor, "cap-c").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(events().contains(&format!("close {a}")), "{:?}", events());
    // Ending a conversation cleans up exactly once, however often it is ended.
    assert_eq!(executor.conversations().end("cap-b").await, 1);
    assert_eq!(executor.conversations().end("cap-b").await, 0);
    let closes = events().iter().filter(|e| **e == format!("close {b}")).count();
    assert_eq!(closes, 1);
    // Back again, a conversation gets a new instance.
    assert_ne!(session_of(&executor, "cap-a").await.content.text, a);
    executor.conversations().end("cap-a").await;
    executor.conversations().end("cap-c").await;
}

#[tokio::test]
async fn a_factory_that_fails_is_the_calls_failed_record_and_the_next_call_tries_again() {
    let executor = session_executor();
    let record = session_of(&executor, "refused-1").await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.model_text(), "cannot open a session for `refused-1`");
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("unavailable"));
    assert_eq!(session_of(&executor, "refused-1").await.status, CallStatus::Failed);
    executor.conversations().end("refused-1").await;
}

/// A scratchpad that forgets after a short idle time.
#[derive(Default)]
pub struct Scratch {
    notes: Vec<String>,
}

#[tool(idle_timeout_ms = 100)]
impl Scratch {
    /// Note something; returns every note so far.
    #[tool]
    fn note(&mut self, text: String) -> String {
        self.notes.push(text);
        self.notes.join(", ")
    }
}

#[tokio::test]
async fn an_instance_idle_longer_than_its_idle_time_is_cleaned_up() {
    let executor = Executor::new(ToolCatalog::builder().add_declared::<Scratch_note>().build().unwrap());
    let note = |text: &str| {
        ToolCallRequest::new("scratch.note", "n", format!(r#"{{"text": "{text}"}}"#)).in_conversation("idle")
    };
    assert_eq!(executor.execute(note("one")).await.content.text, "one");
    assert_eq!(executor.execute(note("two")).await.content.text, "one, two");
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(executor.conversations().evict_idle().await, 1);
    assert_eq!(executor.execute(note("three")).await.content.text, "three");
    executor.conversations().end("idle").await;
}

/// Meets a partner: returns only once two calls are inside at the same time.
#[derive(Default)]
pub struct Meeting {
    arrived: tokio::sync::Mutex<u32>,
    both: tokio::sync::Notify,
}

impl Meeting {
    async fn meet(&self) -> String {
        let mut arrived = self.arrived.lock().await;
        *arrived += 1;
        if *arrived % 2 == 0 {
            self.both.notify_waiters();
            return "met".to_owned();
        }
        let both = self.both.notified();
        drop(arrived);
        both.await;
        "met".to_owned()
    }
}

#[tool]
impl Meeting {
    /// Wait for another `&self` call of the same conversation.
    #[tool]
    async fn wait_for_partner(&self) -> String {
        self.meet().await
    }
}

/// Meets across conversations: a `&mut self` call that returns once a call of another
/// conversation is inside too.
static ACROSS: std::sync::LazyLock<tokio::sync::Barrier> = std::sync::LazyLock::new(|| tokio::sync::Barrier::new(2));

#[derive(Default)]
pub struct Lonely {
    calls: u32,
}

#[tool]
impl Lonely {
    /// Wait for a call of another conversation.
    #[tool]
    async fn wait_elsewhere(&mut self) -> String {
        self.calls += 1;
        ACROSS.wait().await;
        self.calls.to_string()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_calls_overlap_and_conversations_run_in_parallel() {
    let catalog = ToolCatalog::builder()
        .add_declared::<Meeting_wait_for_partner>()
        .add_declared::<Lonely_wait_elsewhere>()
        .build()
        .unwrap();
    let executor = Executor::builder(catalog).concurrency(4).build();
    // Each pair only finishes if its two calls are inside at once: two `&self` calls of one
    // conversation, then two `&mut self` calls of different conversations.
    let pairs = [
        ("meeting.wait_for_partner", ["overlap", "overlap"], "met"),
        ("lonely.wait_elsewhere", ["parallel-a", "parallel-b"], "1"),
    ];
    for (tool, conversations, expected) in pairs {
        let calls = conversations.iter().map(|c| ToolCallRequest::new(tool, "1", "{}").in_conversation(*c)).collect();
        let records = tokio::time::timeout(Duration::from_secs(10), executor.execute_batch(calls)).await.expect(tool);
        assert!(records.iter().all(|r| r.content.text == expected), "{tool}");
    }
    for conversation in ["overlap", "parallel-a", "parallel-b"] {
        assert_eq!(executor.conversations().end(conversation).await, 1, "{conversation}");
    }
}

#[tokio::test]
async fn two_executors_never_share_an_instance_even_for_the_same_conversation_id() {
    let (one, two) = (Executor::new(counter_catalog()), Executor::new(counter_catalog()));
    let add = |by: u64| ToolCallRequest::new("counter.add", "a", format!(r#"{{"by": {by}}}"#)).in_conversation("same");
    assert_eq!(one.execute(add(2)).await.content.text, "2");
    assert_eq!(two.execute(add(10)).await.content.text, "10");
    assert_eq!(one.execute(add(3)).await.content.text, "5");
    // A clone of an executor shares its instances; an executor the host gives the same store
    // shares them too.
    assert_eq!(one.clone().execute(add(1)).await.content.text, "6");
    let three = Executor::builder(counter_catalog()).conversations(one.conversations().clone()).build();
    assert_eq!(three.execute(add(1)).await.content.text, "7");
    assert_eq!((one.conversations().live(), two.conversations().live()), (1, 1));
    // Ending the conversation on one leaves the other's alone.
    assert_eq!(one.conversations().end("same").await, 1);
    assert_eq!((three.conversations().live(), two.conversations().live()), (0, 1));
    assert_eq!(two.execute(add(1)).await.content.text, "11");
    assert_eq!(two.conversations().end_all().await, 1);
}

#[tokio::test]
async fn a_stateful_tool_bound_outside_an_executor_is_refused() {
    let catalog = counter_catalog();
    let tool = catalog.get("counter.add").unwrap();
    assert!(tool.keeps_state());
    let mut request = ToolCallRequest::new("counter.add", "1", r#"{"by": 1}"#).in_conversation("nowhere");
    let invocation = tool.bind(&mut request, ExtractionPolicy::LENIENT).unwrap();
    let ctx = ToolContext::new(std::sync::Arc::new(request), Default::default(), Default::default());
    let error = invocation.run(ctx).await.unwrap_err();
    assert_eq!(
        error.message(),
        "The tool `counter.add` keeps state for each conversation, and only an executor holds conversations: run the call with `Executor::execute`."
    );
    assert_eq!(error.code(), Some("no_conversation_store"));
}

/// The conversations whose memo was cleaned up, once per cleanup.
static FORGOTTEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn forgotten(conversation: &str) -> usize {
    FORGOTTEN.lock().unwrap().iter().filter(|c| *c == conversation).count()
}

/// Waits (at most 10 s) until `conversation`'s memo was cleaned up; how often it was.
async fn forgotten_after_cleanup(conversation: &str) -> usize {
    for _ in 0..1000 {
        if forgotten(conversation) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    forgotten(conversation)
}

/// A memo whose type sets no bounds: the store's apply.
pub struct Memo {
    conversation: String,
}

impl Memo {
    async fn open(ctx: &ToolContext) -> Result<Memo, ToolError> {
        Ok(Memo { conversation: ctx.request().conversation_id.clone().unwrap_or_default() })
    }

    async fn forget(&mut self) {
        FORGOTTEN.lock().unwrap().push(self.conversation.clone());
    }
}

#[tool(create = "open", cleanup = "forget")]
impl Memo {
    /// Whose memo this is.
    #[tool]
    fn owner(&self) -> String {
        self.conversation.clone()
    }
}

fn memo_catalog() -> ToolCatalog {
    ToolCatalog::builder().add_declared::<Memo_owner>().build().unwrap()
}

fn owner(conversation: &str) -> ToolCallRequest {
    ToolCallRequest::new("memo.owner", "o", "{}").in_conversation(conversation)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_bounds_a_type_keeps_at_most_the_default_number_of_instances() {
    assert_eq!(StateLimits::DEFAULT_MAX_INSTANCES, 10_000);
    assert_eq!(StateLimits::DEFAULT_IDLE_TIMEOUT, Duration::from_secs(1800));
    let executor = Executor::new(memo_catalog());
    for i in 0..StateLimits::DEFAULT_MAX_INSTANCES {
        let record = executor.execute(owner(&format!("default-cap-{i}"))).await;
        assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    }
    assert_eq!(executor.conversations().live(), 10_000);
    assert_eq!(forgotten("default-cap-0"), 0);
    // One more conversation: the least recently used instance is cleaned up to make room.
    assert_eq!(executor.execute(owner("default-cap-10000")).await.content.text, "default-cap-10000");
    assert_eq!(forgotten_after_cleanup("default-cap-0").await, 1);
    assert_eq!((executor.conversations().live(), forgotten("default-cap-1")), (10_000, 0));
    assert_eq!(executor.conversations().end_all().await, 10_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_made_with_limits_bounds_the_types_that_set_none() {
    let limits = StateLimits { idle_timeout: Some(Duration::from_millis(100)), max_instances: Some(2) };
    let executor = Executor::builder(memo_catalog()).conversations(Conversations::with_limits(limits)).build();
    for conversation in ["limits-a", "limits-b", "limits-c"] {
        assert_eq!(executor.execute(owner(conversation)).await.content.text, conversation);
    }
    // The cap is two: the third conversation evicted the first.
    assert_eq!(forgotten_after_cleanup("limits-a").await, 1);
    assert_eq!(executor.conversations().live(), 2);
    // Idle longer than the store's idle time, the other two go.
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(executor.conversations().evict_idle().await, 2);
    assert_eq!((forgotten("limits-b"), forgotten("limits-c"), executor.conversations().live()), (1, 1, 0));
}

#[tokio::test]
async fn a_pending_call_does_not_hold_its_conversations_turn() {
    let executor = Executor::builder(counter_catalog())
        .require_approval(tool_core::policy::ApprovalRule::tool("counter.add"))
        .build();
    let add = ToolCallRequest::new("counter.add", "c1", r#"{"by": 5}"#).in_conversation("conv");
    let record = executor.execute(add).await;
    assert_eq!(record.status, CallStatus::Pending, "{}", record.model_text());
    // The bound call was dropped unrun: the next call of the conversation takes its turn.
    let read = ToolCallRequest::new("counter.read", "c2", "{}").in_conversation("conv");
    let read = tokio::time::timeout(Duration::from_secs(5), executor.execute(read)).await.expect("not stuck");
    assert_eq!(read.model_text(), "0");
    let record = executor.resume(*record.pending.unwrap(), tool_core::policy::Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "5"));
}
