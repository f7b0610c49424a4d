//! The call policy's state in the executor's store: how many store operations each kind of
//! call makes, a rate limit and a retry budget held exactly across two executors sharing one
//! store (as two replicas would), principals kept apart, and a store that stops answering
//! failing closed, then recovering.
//!
//! Each check is an `async fn check_*(store: SharedStore)` run on a `MemoryStore` by its test,
//! and the cross-executor ones on a `RedisStore` too, on a `redis-server` of their own (each
//! skipping with one `SKIPPED` line without it).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tool_core::policy::{GuardScope, Outcome, PolicyDecision, RateLimit, RetryBudget, Stage};
use tool_core::prelude::*;
use tool_core::state::{
    Count, Counted, Counters, MemoryStore, Owner, SharedStore, StateError, StateKey, StateStore, StoreFuture, Version,
    Versioned, Write, Written,
};
use tool_core::{BudgetScope, CallFailure, DynamicTool, ExecutionRecord, Executor, ExecutorBuilder};

/// A store that records every operation asked of it and fails them all while it is down,
/// over a real store.
#[derive(Debug)]
struct Probe {
    inner: SharedStore,
    ops: Mutex<Vec<String>>,
    down: AtomicBool,
}

impl Probe {
    fn over(inner: SharedStore) -> Arc<Probe> {
        Arc::new(Probe { inner, ops: Mutex::new(Vec::new()), down: AtomicBool::new(false) })
    }

    /// The operations asked since the last call, each as `verb:kind` per key.
    fn ops(&self) -> Vec<String> {
        std::mem::take(&mut *self.ops.lock().unwrap())
    }

    fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    fn gate(&self, op: String) -> Result<(), StateError> {
        self.ops.lock().unwrap().push(op);
        match self.down.load(Ordering::SeqCst) {
            true => Err(StateError::Unavailable { store: self.inner.kind(), reason: "stopped by the test".into() }),
            false => Ok(()),
        }
    }
}

impl StateStore for Probe {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>> {
        Box::pin(async move {
            self.gate(format!("read:{}", key.kind()))?;
            self.inner.read(key).await
        })
    }

    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written> {
        Box::pin(async move {
            self.gate(format!("write:{}", key.kind()))?;
            self.inner.write(key, write).await
        })
    }

    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<Version>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            self.gate(format!("delete:{}", key.kind()))?;
            self.inner.delete(key, expected).await
        })
    }

    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            self.gate(format!("touch:{}", key.kind()))?;
            self.inner.touch(key, ttl).await
        })
    }

    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            self.gate(format!("take:{}", key.kind()))?;
            self.inner.take(key).await
        })
    }

    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted> {
        Box::pin(async move {
            let steps: Vec<String> = counters
                .steps
                .iter()
                .map(|(key, count)| {
                    let verb = match count {
                        Count::Read => "read",
                        Count::Add(_) => "add",
                        Count::Reset => "reset",
                        Count::Admit { .. } => "admit",
                    };
                    format!("{verb}:{}", key.kind())
                })
                .collect();
            self.gate(format!("count {}", steps.join(" ")))?;
            self.inner.count(counters).await
        })
    }

    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            self.gate(format!("clear:{}", kind.unwrap_or("*")))?;
            self.inner.clear(owner, kind).await
        })
    }

    fn is_shared(&self) -> bool {
        self.inner.is_shared()
    }
}

/// The check of the retry budget before a call of a known tool: both spent flags and both
/// counts, in one batch.
const CHECK: &str = "count read:budget read:budget read:budget read:budget";

/// A tool that says what it was given, counting its runs; `bad` asks the model to try again.
fn jot(runs: Arc<AtomicUsize>) -> DynamicTool {
    DynamicTool::builder("jot")
        .description("Note a text.")
        .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
        .handler(move |args: Map<String, Value>, _ctx: ToolContext| {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                match args["text"].as_str() {
                    Some("bad") => Err(ToolError::retry("`bad` is not a note")),
                    text => Ok(format!("noted {}", text.unwrap_or_default())),
                }
            }
        })
        .build()
        .unwrap()
}

/// A tool that stops the store while it runs, then asks the model to try again.
fn trip(probe: Arc<Probe>) -> DynamicTool {
    DynamicTool::builder("trip")
        .description("Stop the store.")
        .handler(move |_args: Map<String, Value>, _ctx: ToolContext| {
            let probe = Arc::clone(&probe);
            async move {
                probe.set_down(true);
                Err::<String, _>(ToolError::retry("try again"))
            }
        })
        .build()
        .unwrap()
}

fn builder(store: SharedStore, runs: &Arc<AtomicUsize>) -> ExecutorBuilder {
    let catalog = ToolCatalog::builder().add_tool(jot(Arc::clone(runs))).build().unwrap();
    Executor::builder(catalog).store(store)
}

fn note(id: &str, text: &str) -> ToolCallRequest {
    ToolCallRequest::new("jot", id, json!({ "text": text }).to_string())
}

fn statuses(records: &[ExecutionRecord]) -> Vec<CallStatus> {
    records.iter().map(|record| record.status).collect()
}

/// What the model reads when the store cannot be reached.
const UNAVAILABLE: &str = "The call could not run: the state it needs is unavailable right now. Try again in a moment.";

async fn check_round_trips_per_kind_of_call(store: SharedStore) {
    let probe = Probe::over(store);
    let runs = Arc::new(AtomicUsize::new(0));
    let executor = builder(probe.clone(), &runs).build();

    // No conversation: the retry budget counts nothing, and no rate limit covers the call.
    assert_eq!(executor.execute(note("1", "a")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), Vec::<String>::new());

    // In a conversation: the budget's check, and nothing more for a success with nothing
    // counted before it.
    assert_eq!(executor.execute(note("2", "a").in_conversation("c")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), [CHECK]);
    // A failure counts in one batch.
    let record = executor.execute(note("3", "bad").in_conversation("c")).await;
    assert_eq!(record.model_text(), "`bad` is not a note\n\nFix this and call `jot` again (try 1 of 3).");
    assert_eq!(probe.ops(), [CHECK, "count add:budget add:budget"]);
    // The success after it starts the counts again; the next one changes nothing.
    assert_eq!(executor.execute(note("4", "a").in_conversation("c")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), [CHECK, "count reset:budget reset:budget"]);
    assert_eq!(executor.execute(note("5", "a").in_conversation("c")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), [CHECK]);
    // An unknown tool: the conversation's flag and count only.
    let record = executor.execute(ToolCallRequest::new("jto", "6", "{}").in_conversation("c")).await;
    assert!(matches!(record.failure, Some(CallFailure::UnknownTool { .. })), "{:?}", record.failure);
    assert_eq!(probe.ops(), ["count read:budget read:budget", "count add:budget"]);
    executor.reset_policy(&Owner::new(None, Some("c"))).await.unwrap();
    assert_eq!(probe.ops(), ["clear:budget", "clear:rate"]);

    // The failure that spends the budget sets its flag in the same batch.
    let executor = builder(probe.clone(), &runs).retry_budget(RetryBudget::new(1, 10)).build();
    let record = executor.execute(note("7", "bad").in_conversation("spend")).await;
    assert_eq!(
        record.failure,
        Some(CallFailure::ToolError { error: ToolError::retry("`bad` is not a note") }),
        "{}",
        record.model_text()
    );
    assert_eq!(probe.ops(), [CHECK, "count add:budget add:budget add:budget"]);
    let record = executor.execute(note("8", "a").in_conversation("spend")).await;
    assert_eq!(record.failure, Some(CallFailure::BudgetSpent { tries: 1, scope: BudgetScope::Tool }));
    assert_eq!(probe.ops(), [CHECK]);

    // An unlimited budget keeps nothing, in a conversation too.
    let executor = builder(probe.clone(), &runs).retry_budget(RetryBudget::unlimited()).build();
    let record = executor.execute(note("9", "bad").in_conversation("c")).await;
    assert_eq!(record.model_text(), "`bad` is not a note\n\nFix this and call `jot` again.");
    assert_eq!(executor.execute(note("10", "a").in_conversation("c")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), Vec::<String>::new());

    // Rate limits: every limit that covers the call in one batch; a limit of another tool
    // costs this one nothing.
    let limits = |builder: ExecutorBuilder| {
        builder
            .rate_limit(RateLimit::per_tool(100, Duration::from_secs(60)))
            .rate_limit(RateLimit::per_conversation(100, Duration::from_secs(60)))
    };
    let executor = limits(builder(probe.clone(), &runs).retry_budget(RetryBudget::unlimited())).build();
    assert_eq!(executor.execute(note("11", "a").in_conversation("c")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), ["count admit:tool_rate admit:rate"]);
    let executor = limits(builder(probe.clone(), &runs)).build();
    assert_eq!(executor.execute(note("12", "a").in_conversation("c")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), [CHECK, "count admit:tool_rate admit:rate"]);
    let executor = builder(probe.clone(), &runs)
        .rate_limit(RateLimit::per_tool(1, Duration::from_secs(60)).only(GuardScope::tool("other")))
        .build();
    assert_eq!(executor.execute(note("13", "a")).await.status, CallStatus::Success);
    assert_eq!(probe.ops(), Vec::<String>::new());
    assert_eq!(runs.load(Ordering::SeqCst), 11, "every call but the two refused ran");
}

#[tokio::test]
async fn a_call_makes_no_store_operation_without_a_counting_policy_and_one_batch_per_policy() {
    check_round_trips_per_kind_of_call(Arc::new(MemoryStore::new())).await;
}

async fn check_a_rate_limit_holds_across_two_replicas(store: SharedStore) {
    let runs = Arc::new(AtomicUsize::new(0));
    let replica = || {
        builder(Arc::clone(&store), &runs)
            .rate_limit(RateLimit::per_tool(5, Duration::from_secs(3600)))
            .rate_limit(RateLimit::per_conversation(3, Duration::from_secs(3600)).only(GuardScope::tool("jot")))
            .build()
    };
    let (a, b) = (replica(), replica());

    // Alternating between the replicas, one conversation: its limit of 3 holds across both.
    let mut records = Vec::new();
    for i in 0..6 {
        let executor = if i % 2 == 0 { &a } else { &b };
        records.push(executor.execute(note(&i.to_string(), "x").in_conversation("shared")).await);
    }
    assert_eq!(statuses(&records), [[CallStatus::Success; 3], [CallStatus::Failed; 3]].concat());
    for record in &records[3..] {
        let Some(CallFailure::RateLimited { limit, retry_after_ms }) = &record.failure else {
            panic!("{:?}", record.failure)
        };
        assert_eq!(limit, "3 calls per hour per conversation");
        // A place every 20 minutes; the store's clock moved by the test's own time at most.
        assert!((1_199_000..=1_200_000).contains(retry_after_ms), "{retry_after_ms}");
    }

    // The tool's limit of 5 counts both replicas' calls, at once, across conversations: the
    // three calls above took three places.
    let batch = |from: usize| {
        let calls = (from..from + 3).map(|i| note(&i.to_string(), "x").in_conversation(format!("c{i}")));
        calls.collect::<Vec<_>>()
    };
    let (first, second) = tokio::join!(a.execute_batch(batch(10)), b.execute_batch(batch(20)));
    let admitted = [first, second].concat().iter().filter(|r| r.status == CallStatus::Success).count();
    assert_eq!(admitted, 2);
    assert_eq!(runs.load(Ordering::SeqCst), 5);
    let record = b.execute(note("30", "x")).await;
    let Some(CallFailure::RateLimited { limit, .. }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(limit, "5 calls per hour per tool");
}

#[tokio::test]
async fn a_rate_limit_of_n_admits_exactly_n_across_two_executors_sharing_a_store() {
    check_a_rate_limit_holds_across_two_replicas(Arc::new(MemoryStore::new())).await;
}

async fn check_a_retry_budget_holds_across_two_replicas(store: SharedStore) {
    let runs = Arc::new(AtomicUsize::new(0));
    let replica = || builder(Arc::clone(&store), &runs).retry_budget(RetryBudget::new(2, 10)).build();
    let (a, b) = (replica(), replica());
    let owner = Owner::new(Some("ann"), Some("trip-9"));
    let call = |id: &str, text: &str| note(id, text).in_conversation("trip-9").by_principal("ann");

    let record = a.execute(call("1", "bad")).await;
    assert_eq!(record.model_text(), "`bad` is not a note\n\nFix this and call `jot` again (try 1 of 2).");
    let record = b.execute(call("2", "bad")).await;
    assert_eq!(
        record.model_text(),
        "`bad` is not a note\n\nThis was the last try: `jot` failed 2 times in a row in this conversation, so it \
         will not run again. Do not call it again; tell the user what went wrong."
    );
    for executor in [&a, &b] {
        let record = executor.execute(call("3", "fine")).await;
        assert_eq!(record.failure, Some(CallFailure::BudgetSpent { tries: 2, scope: BudgetScope::Tool }));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the refused calls did not run");

    // Reset on one replica, whole on the other.
    a.reset_policy(&owner).await.unwrap();
    assert_eq!(b.execute(call("4", "fine")).await.model_text(), "noted fine");
}

#[tokio::test]
async fn a_retry_budget_spent_on_one_executor_is_spent_on_another_sharing_the_store() {
    check_a_retry_budget_holds_across_two_replicas(Arc::new(MemoryStore::new())).await;
}

async fn check_principals_are_kept_apart(store: SharedStore) {
    let runs = Arc::new(AtomicUsize::new(0));
    let executor = builder(store, &runs)
        .retry_budget(RetryBudget::new(1, 10))
        .rate_limit(RateLimit::per_tool_in_conversation(2, Duration::from_secs(3600)))
        .build();
    let call = |id: &str, text: &str, principal: Option<&str>| {
        let request = note(id, text).in_conversation("c-1");
        match principal {
            Some(principal) => request.by_principal(principal),
            None => request,
        }
    };
    let record = executor.execute(call("1", "bad", Some("alice"))).await;
    assert_eq!(record.decisions.last().map(|d| d.outcome), Some(Outcome::Exhausted));
    let record = executor.execute(call("2", "fine", Some("alice"))).await;
    assert_eq!(record.failure, Some(CallFailure::BudgetSpent { tries: 1, scope: BudgetScope::Tool }));
    // Bob and a caller without a principal have conversations of their own named `c-1`.
    assert_eq!(executor.execute(call("3", "fine", Some("bob"))).await.status, CallStatus::Success);
    assert_eq!(executor.execute(call("4", "fine", None)).await.status, CallStatus::Success);
    // Each has two places of the tool's limit in the conversation: Alice used one.
    assert_eq!(executor.execute(call("5", "fine", Some("bob"))).await.status, CallStatus::Success);
    let record = executor.execute(call("6", "fine", Some("bob"))).await;
    let Some(CallFailure::RateLimited { limit, .. }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(limit, "2 calls per hour per tool in a conversation");
    // Resetting Alice's conversation leaves Bob's alone.
    executor.reset_policy(&Owner::new(Some("alice"), Some("c-1"))).await.unwrap();
    assert_eq!(executor.execute(call("7", "fine", Some("alice"))).await.status, CallStatus::Success);
    assert_eq!(executor.execute(call("8", "fine", Some("bob"))).await.status, CallStatus::Failed);
}

#[tokio::test]
async fn two_principals_with_the_same_conversation_id_have_separate_budgets_and_limits() {
    check_principals_are_kept_apart(Arc::new(MemoryStore::new())).await;
}

async fn check_an_unreachable_store_fails_closed_and_recovers(store: SharedStore) {
    let kind = store.kind();
    let probe = Probe::over(store);
    let runs = Arc::new(AtomicUsize::new(0));
    let catalog =
        ToolCatalog::builder().add_tool(jot(Arc::clone(&runs))).add_tool(trip(Arc::clone(&probe))).build().unwrap();
    let executor = Executor::builder(catalog)
        .store(probe.clone())
        .rate_limit(RateLimit::per_tool(100, Duration::from_secs(60)).only(GuardScope::tool("trip")))
        .build();
    let unavailable = |stage: Stage, by: &str| {
        let decision = (stage, by.to_owned(), Outcome::Rejected, Some(UNAVAILABLE.to_owned()));
        (Some(CallFailure::StateUnavailable { store: kind.to_owned() }), UNAVAILABLE.to_owned(), vec![decision])
    };
    let seen = |record: ExecutionRecord| {
        let decisions =
            record.decisions.iter().map(|d: &PolicyDecision| (d.stage, d.by.to_string(), d.outcome, d.message.clone()));
        (record.failure, record.content.text, decisions.collect::<Vec<_>>())
    };

    probe.set_down(true);
    // The retry budget's check: the tool does not run.
    let record = executor.execute(note("1", "a").in_conversation("c")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(seen(record), unavailable(Stage::RetryBudget, "retry budget"));
    // The rate limit's admission, for a call that needs no budget (no conversation).
    let record = executor.execute(ToolCallRequest::new("trip", "2", "{}")).await;
    assert_eq!(seen(record), unavailable(Stage::RateLimit, "rate limits"));
    assert_eq!(probe.ops(), [CHECK, "count admit:tool_rate"]);
    // A call that needs no state runs as ever.
    let record = executor.execute(note("3", "a")).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "noted a"));
    assert_eq!(probe.ops(), Vec::<String>::new());
    let Err(error) = executor.reset_policy(&Owner::new(None, Some("c"))).await else { panic!("reset while down") };
    assert_eq!(error.code(), "state_unavailable");
    assert_eq!(runs.load(Ordering::SeqCst), 1, "only the call that needs no state ran");

    // Back: service resumes.
    probe.set_down(false);
    let record = executor.execute(note("4", "a").in_conversation("c")).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "noted a"));
    // A store lost while the tool runs: the tool's result stands, not counted.
    let record = executor.execute(ToolCallRequest::new("trip", "5", "{}").in_conversation("c")).await;
    assert_eq!(record.failure, Some(CallFailure::ToolError { error: ToolError::retry("try again") }));
    assert_eq!(record.model_text(), "try again\n\nFix this and call `trip` again.");
    probe.set_down(false);
    let record = executor.execute(note("6", "bad").in_conversation("c")).await;
    assert_eq!(record.model_text(), "`bad` is not a note\n\nFix this and call `jot` again (try 1 of 3).");
}

#[tokio::test]
async fn a_store_that_stops_answering_fails_the_calls_that_need_state_and_service_resumes() {
    check_an_unreachable_store_fails_closed_and_recovers(Arc::new(MemoryStore::new())).await;
}

tool_tests::redis_tests!(
    redis_a_rate_limit_of_n_admits_exactly_n_across_two_executors_sharing_a_store => check_a_rate_limit_holds_across_two_replicas,
    redis_a_retry_budget_spent_on_one_executor_is_spent_on_another_sharing_the_store => check_a_retry_budget_holds_across_two_replicas,
    redis_two_principals_with_the_same_conversation_id_have_separate_budgets_and_limits => check_principals_are_kept_apart,
);
