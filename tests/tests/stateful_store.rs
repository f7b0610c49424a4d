//! Stateful tools whose state lives in the executor's store (`#[tool(shared_state)]`): two
//! executors sharing one store serve a conversation as two replicas would, with no lost
//! update; a lease lost mid-call refuses that call's write; a state that does not read is
//! reported and kept byte for byte; principals are kept apart; a store that is down fails
//! closed and recovers; a type without `shared_state` is refused on a shared store.
//!
//! Each check takes the store, so that a shared store (Redis) runs the same checks with one
//! more test each: on a real `redis-server` of their own, each skipping with one `SKIPPED` line
//! without it. A store that counts its operations shows what a call costs: a `&mut self` call
//! two (the lease taken with the state read, the state committed with the lease given up), a
//! `&self` call one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tool_core::policy::RetryBudget;
use tool_core::prelude::*;
use tool_core::state::{
    Counted, Counters, MemoryStore, Owner, SharedStore, StateError, StateKey, StateStore, StoreFuture, Versioned,
    Write, Written,
};
use tool_core::CallFailure;
use tool_tests::redis_server::RedisServer;

/// A counter kept in the store.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Counter {
    total: u64,
}

/// Lets the test hold a call of `counter.add_when_told` between its read and its write.
#[derive(Default)]
pub struct Gate {
    entered: Notify,
    go: Notify,
}

/// The totals of the counters cleaned up.
static CLEANED_UP: Mutex<Vec<u64>> = Mutex::new(Vec::new());

#[tool(shared_state, cleanup = "done")]
impl Counter {
    /// Add to the counter; returns the new total.
    #[tool]
    async fn add(&mut self, by: u64) -> u64 {
        // A yield between reading and writing: two calls overlapping would lose an update.
        let before = self.total;
        tokio::task::yield_now().await;
        self.total = before + by;
        self.total
    }

    /// Add to the counter once the test says so.
    #[tool]
    async fn add_when_told(&mut self, by: u64, gate: &State<Arc<Gate>>) -> u64 {
        gate.entered.notify_one();
        gate.go.notified().await;
        self.total += by;
        self.total
    }

    /// The counter's total.
    #[tool(name = "counter.read")]
    fn total(&self) -> u64 {
        self.total
    }

    async fn done(&mut self) {
        CLEANED_UP.lock().unwrap().push(self.total);
    }
}

/// A state of schema version 2 that migrates from version 1 (a bare number then).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    count: u64,
}

#[tool(shared_state, schema_version = 2, migrate = "from_version_1")]
impl Tally {
    /// Count one more.
    #[tool]
    fn bump(&mut self) -> u64 {
        self.count += 1;
        self.count
    }

    fn from_version_1(from_version: u32, data: serde_json::Value) -> Result<Tally, ToolError> {
        match (from_version, data.as_u64()) {
            (1, Some(count)) => Ok(Tally { count }),
            _ => Err(ToolError::new(format!("version {from_version} held {data}, not a count"))),
        }
    }
}

/// A state of schema version 2 with no migration.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Ledger {
    entries: Vec<String>,
}

#[tool(shared_state, schema_version = 2)]
impl Ledger {
    /// Write an entry; returns how many there are.
    #[tool]
    fn write(&mut self, entry: String) -> usize {
        self.entries.push(entry);
        self.entries.len()
    }
}

/// A state kept in this process (no `shared_state`).
#[derive(Default)]
pub struct Notes {
    count: u64,
}

#[tool]
impl Notes {
    /// Take a note; returns how many.
    #[tool]
    fn note(&mut self) -> u64 {
        self.count += 1;
        self.count
    }
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<Counter_add>()
        .add_declared::<Counter_add_when_told>()
        .add_declared::<Counter_total>()
        .add_declared::<Tally_bump>()
        .add_declared::<Ledger_write>()
        .add_declared::<Notes_note>()
        .build()
        .unwrap()
}

/// One replica: an executor over the shared store.
fn replica(store: &SharedStore, gate: &Arc<Gate>) -> Executor {
    Executor::builder(catalog()).store(Arc::clone(store)).state(Arc::clone(gate)).build()
}

fn replicas(store: &SharedStore) -> (Executor, Executor, Arc<Gate>) {
    let gate = Arc::new(Gate::default());
    (replica(store, &gate), replica(store, &gate), gate)
}

fn call(tool: &str, conversation: &str, arguments: &str) -> ToolCallRequest {
    ToolCallRequest::new(tool, "id", arguments).in_conversation(conversation)
}

fn key(conversation: &str, kind: &'static str, name: &str) -> StateKey {
    Owner::new(None, Some(conversation)).key(kind, name)
}

async fn raw(store: &SharedStore, key: &StateKey) -> Option<Vec<u8>> {
    store.read(key).await.unwrap().map(|Versioned { value, .. }| value)
}

fn tool_error(record: &ExecutionRecord) -> &ToolError {
    match &record.failure {
        Some(CallFailure::ToolError { error }) => error,
        other => panic!("expected a tool error, got {other:?}: {}", record.content.text),
    }
}

fn memory() -> SharedStore {
    Arc::new(MemoryStore::new())
}

async fn check_alternating_increments(store: SharedStore) {
    let (a, b, _) = replicas(&store);
    for i in 1..=100u64 {
        let replica = if i % 2 == 0 { &b } else { &a };
        let record = replica.execute(call("counter.add", "alternating", r#"{"by": 1}"#)).await;
        assert_eq!(record.content.text, i.to_string(), "call {i}: {:?}", record.failure);
    }
    assert_eq!(a.execute(call("counter.read", "alternating", "{}")).await.content.text, "100");
    let stored = raw(&store, &key("alternating", "stateful", "Counter")).await.unwrap();
    assert_eq!(String::from_utf8(stored).unwrap(), r#"{"schema_version":1,"data":{"total":100}}"#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn alternating_increments_on_two_replicas_end_at_exactly_100() {
    check_alternating_increments(memory()).await;
}

async fn check_concurrent_increments(store: SharedStore) {
    let (a, b, _) = replicas(&store);
    let calls: Vec<_> = (0..64)
        .map(|i| {
            let replica = if i % 2 == 0 { a.clone() } else { b.clone() };
            tokio::spawn(async move { replica.execute(call("counter.add", "concurrent", r#"{"by": 1}"#)).await })
        })
        .collect();
    let mut totals = Vec::new();
    for handle in calls {
        let record = handle.await.unwrap();
        assert_eq!(record.status, CallStatus::Success, "{:?}", record.failure);
        totals.push(record.content.text.parse::<u64>().unwrap());
    }
    // Every call saw the state the one before it wrote: each total once, none lost.
    totals.sort_unstable();
    assert_eq!(totals, (1..=64).collect::<Vec<u64>>());
    assert_eq!(b.execute(call("counter.read", "concurrent", "{}")).await.content.text, "64");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_increments_split_across_two_replicas_lose_none() {
    check_concurrent_increments(memory()).await;
}

async fn check_lost_lease(store: SharedStore) {
    let (a, b, gate) = replicas(&store);
    let entered = gate.entered.notified();
    let held = tokio::spawn({
        let a = a.clone();
        async move { a.execute(call("counter.add_when_told", "lost", r#"{"by": 100}"#)).await }
    });
    entered.await;
    // The lease expires under the running call (a process paused past its time to live).
    let lease = key("lost", "lease", "Counter");
    assert!(store.delete(&lease, None).await.unwrap());
    let other = b.execute(call("counter.add", "lost", r#"{"by": 7}"#)).await;
    assert_eq!(other.content.text, "7");
    gate.go.notify_one();
    let record = held.await.unwrap();
    let error = tool_error(&record);
    assert_eq!(error.code(), Some("state_conflict"));
    assert_eq!(
        error.message(),
        "The call of `counter.add_when_told` ran, and its changes to the state of the conversation `lost` were not kept: another call held the conversation's state meanwhile. Its result was dropped; call it again to apply it to the state as it is now."
    );
    let stored = raw(&store, &key("lost", "stateful", "Counter")).await.unwrap();
    assert_eq!(String::from_utf8(stored).unwrap(), r#"{"schema_version":1,"data":{"total":7}}"#);
    assert_eq!(raw(&store, &lease).await, None, "each call gave its lease up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_that_lost_its_lease_cannot_write() {
    check_lost_lease(memory()).await;
}

/// Writes `bytes` as the stored state of `name` in `conversation`, calls `tool`, and returns
/// the record after checking the bytes are still there, unchanged.
async fn call_on_stored(
    store: &SharedStore,
    name: &str,
    conversation: &str,
    bytes: &[u8],
    tool: &str,
) -> ExecutionRecord {
    let (a, _, _) = replicas(store);
    let key = key(conversation, "stateful", name);
    let written = store.write(&key, Write::new(bytes.to_vec(), Duration::from_secs(60))).await.unwrap();
    assert!(matches!(written, Written::Done(_)));
    let record = a.execute(call(tool, conversation, r#"{"entry": "e"}"#)).await;
    assert_eq!(raw(store, &key).await.as_deref(), Some(bytes), "the stored bytes of {conversation}");
    record
}

async fn check_unreadable_states(store: SharedStore) {
    let cases: [(&str, &[u8], &str); 5] = [
        ("broken", b"{\"schema_version\": 2, \"data\": [", "it is not JSON"),
        (
            "shape",
            br#"{"version": 2, "entries": []}"#,
            "it is not a state as this crate stores it (`{\"schema_version\": N, \"data\": ..}`)",
        ),
        ("data", br#"{"schema_version": 2, "data": {"entries": 5}}"#, "its data is not a `Ledger` of schema version 2"),
        (
            "older",
            br#"{"schema_version": 1, "data": ["a"]}"#,
            "it was written by an older version of the tool (schema version 1; this one reads version 2 and has no migration)",
        ),
        (
            "newer",
            br#"{"schema_version": 3, "data": {"entries": []}}"#,
            "it was written by a newer version of the tool (schema version 3; this one reads version 2)",
        ),
    ];
    for (conversation, bytes, reason) in cases {
        let record = call_on_stored(&store, "Ledger", conversation, bytes, "ledger.write").await;
        let error = tool_error(&record);
        assert_eq!(error.code(), Some("state_unreadable"), "{conversation}");
        assert_eq!(
            error.message(),
            format!("The stored state of `ledger.write` for the conversation `{conversation}` could not be read: {reason}. It was kept as it is, and the call did not run."),
        );
    }
}

#[tokio::test]
async fn a_state_that_does_not_read_is_reported_and_kept_as_it_was() {
    check_unreadable_states(memory()).await;
}

async fn check_migrations(store: SharedStore) {
    // A failing migration: reported, the bytes kept.
    let record =
        call_on_stored(&store, "Tally", "unmigrated", br#"{"schema_version": 1, "data": "many"}"#, "tally.bump").await;
    let error = tool_error(&record);
    assert_eq!(error.code(), Some("state_unreadable"));
    assert_eq!(
        error.message(),
        r#"The stored state of `tally.bump` for the conversation `unmigrated` could not be read: its migration from schema version 1 failed: version 1 held "many", not a count. It was kept as it is, and the call did not run."#
    );
    // A migration that reads the old state: the call runs and writes the state at version 2.
    let (a, _, _) = replicas(&store);
    let key = key("migrated", "stateful", "Tally");
    store
        .write(&key, Write::new(br#"{"schema_version": 1, "data": 41}"#.to_vec(), Duration::from_secs(60)))
        .await
        .unwrap();
    let record = a.execute(call("tally.bump", "migrated", "{}")).await;
    assert_eq!(record.content.text, "42", "{:?}", record.failure);
    let stored = raw(&store, &key).await.unwrap();
    assert_eq!(String::from_utf8(stored).unwrap(), r#"{"schema_version":2,"data":{"count":42}}"#);
}

#[tokio::test]
async fn an_older_state_is_migrated_by_the_hook_or_reported() {
    check_migrations(memory()).await;
}

async fn check_principals(store: SharedStore) {
    let (a, b, _) = replicas(&store);
    let alice = call("counter.add", "shared-id", r#"{"by": 5}"#).by_principal("alice");
    let bob = call("counter.add", "shared-id", r#"{"by": 7}"#).by_principal("bob");
    assert_eq!(a.execute(alice).await.content.text, "5");
    assert_eq!(b.execute(bob).await.content.text, "7");
    let read = |principal: &str| call("counter.read", "shared-id", "{}").by_principal(principal);
    assert_eq!(b.execute(read("alice")).await.content.text, "5");
    assert_eq!(a.execute(read("bob")).await.content.text, "7");
    assert_eq!(a.execute(call("counter.read", "shared-id", "{}")).await.content.text, "0");
}

#[tokio::test]
async fn two_principals_with_one_conversation_id_never_share_a_state() {
    check_principals(memory()).await;
}

/// `total` tells this run's cleanup from another's.
async fn check_end(store: SharedStore, total: u64) {
    let (a, b, _) = replicas(&store);
    a.execute(call("counter.add", "ended", &format!(r#"{{"by": {total}}}"#))).await;
    // Both replicas end it at once: one takes the state and cleans it up.
    let (ended_a, ended_b) = tokio::join!(a.conversations().end("ended"), b.conversations().end("ended"));
    assert_eq!(ended_a + ended_b, 1);
    assert_eq!(CLEANED_UP.lock().unwrap().iter().filter(|t| **t == total).count(), 1);
    assert_eq!(raw(&store, &key("ended", "stateful", "Counter")).await, None);
    assert_eq!(b.execute(call("counter.read", "ended", "{}")).await.content.text, "0");
    // `end_all` leaves stored states alone: other replicas serve them.
    a.execute(call("counter.add", "kept", r#"{"by": 2}"#)).await;
    a.conversations().end_all().await;
    assert_eq!(b.execute(call("counter.read", "kept", "{}")).await.content.text, "2");
}

#[tokio::test]
async fn ending_a_conversation_takes_its_stored_state_once() {
    check_end(memory(), 3).await;
}

/// A store in memory that says it is shared (as Redis is), and that can be made unreachable.
#[derive(Debug, Default)]
struct TestStore {
    inner: MemoryStore,
    down: AtomicBool,
}

impl TestStore {
    fn check(&self) -> Result<(), StateError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(StateError::Unavailable { store: "test", reason: "connection refused".to_owned() });
        }
        Ok(())
    }
}

/// `then` when the store is up (a store in memory works when its operation is called, so it is
/// called only then); the store's refusal otherwise.
fn unless_down<'a, T: Send + 'a>(
    store: &'a TestStore,
    then: impl FnOnce() -> StoreFuture<'a, T>,
) -> StoreFuture<'a, T> {
    match store.check() {
        Ok(()) => then(),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

impl StateStore for TestStore {
    fn kind(&self) -> &'static str {
        "test"
    }

    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>> {
        unless_down(self, || self.inner.read(key))
    }

    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written> {
        unless_down(self, || self.inner.write(key, write))
    }

    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<tool_core::state::Version>) -> StoreFuture<'a, bool> {
        unless_down(self, || self.inner.delete(key, expected))
    }

    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool> {
        unless_down(self, || self.inner.touch(key, ttl))
    }

    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>> {
        unless_down(self, || self.inner.take(key))
    }

    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted> {
        unless_down(self, || self.inner.count(counters))
    }

    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize> {
        unless_down(self, || self.inner.clear(owner, kind))
    }

    fn is_shared(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_store_that_is_down_fails_calls_closed_and_they_recover() {
    let test = Arc::new(TestStore::default());
    let store: SharedStore = test.clone();
    let (a, b, _) = replicas(&store);
    assert_eq!(a.execute(call("counter.add", "down", r#"{"by": 1}"#)).await.content.text, "1");
    test.down.store(true, Ordering::SeqCst);
    for (replica, tool) in [(&a, "counter.add"), (&b, "counter.read")] {
        let record = replica.execute(call(tool, "down", r#"{"by": 1}"#)).await;
        assert_eq!(record.failure, Some(CallFailure::StateUnavailable { store: "test".to_owned() }), "{tool}");
        assert_eq!(
            record.content.text,
            "The call could not run: the state it needs is unavailable right now. Try again in a moment."
        );
    }
    test.down.store(false, Ordering::SeqCst);
    assert_eq!(b.execute(call("counter.add", "down", r#"{"by": 1}"#)).await.content.text, "2");
    assert_eq!(a.execute(call("counter.read", "down", "{}")).await.content.text, "2");
}

#[tokio::test]
async fn a_state_grown_past_its_bound_is_not_kept_and_the_stored_one_stays() {
    let store = memory();
    let executor = Executor::builder(catalog()).store(Arc::clone(&store)).max_state_bytes(40).build();
    // `{"schema_version":1,"data":{"total":99}}` is 40 bytes: it fits.
    assert_eq!(executor.execute(call("counter.add", "big", r#"{"by": 99}"#)).await.content.text, "99");
    let kept = raw(&store, &key("big", "stateful", "Counter")).await.unwrap();
    assert_eq!(kept, br#"{"schema_version":1,"data":{"total":99}}"#);
    // 100 would take 41.
    let record = executor.execute(call("counter.add", "big", r#"{"by": 1}"#)).await;
    let error = tool_error(&record);
    assert_eq!(error.code(), Some("state_too_large"));
    assert_eq!(
        record.content.text,
        "The call of `counter.add` ran, and its changes to the conversation's state were not kept: the state would take 41 bytes, more than the 40 bytes it may take. Remove something from it before adding more."
    );
    assert_eq!(error.details(), Some(&serde_json::json!({ "state": "Counter", "bytes": 41, "max_bytes": 40 })));
    assert_eq!(raw(&store, &key("big", "stateful", "Counter")).await.unwrap(), kept, "the stored state is as it was");
    // The lease was given up: the next call runs at once.
    assert_eq!(executor.execute(call("counter.add", "big", r#"{"by": 0}"#)).await.content.text, "99");
}

#[tokio::test]
async fn a_type_kept_in_memory_is_refused_on_a_shared_store_unless_allowed() {
    let store: SharedStore = Arc::new(TestStore::default());
    let refused = Executor::builder(catalog()).store(Arc::clone(&store)).build();
    let record = refused.execute(call("notes.note", "local", "{}")).await;
    let error = tool_error(&record);
    assert_eq!(error.code(), Some("state_not_shared"));
    assert_eq!(
        error.message(),
        "The tool `notes.note` keeps its state in this process's memory, and this executor's test state store is shared with other processes: each of them would keep a state of its own for the conversation. Add `shared_state` to `#[tool(..)]` on the impl block of `Notes` to keep its state in the store, or allow state in this process with `ExecutorBuilder::allow_local_state(true)`."
    );
    let allowed = Executor::builder(catalog()).store(store).allow_local_state(true).build();
    assert_eq!(allowed.execute(call("notes.note", "local", "{}")).await.content.text, "1");
    // On the default store, nothing changes.
    assert_eq!(Executor::new(catalog()).execute(call("notes.note", "local", "{}")).await.content.text, "1");
}

#[tokio::test]
async fn shared_stores_run_every_check() {
    // The checks above, on a store that says it is shared.
    for check in 0..7 {
        let store: SharedStore = Arc::new(TestStore::default());
        match check {
            0 => check_alternating_increments(store).await,
            1 => check_concurrent_increments(store).await,
            2 => check_lost_lease(store).await,
            3 => check_unreadable_states(store).await,
            4 => check_migrations(store).await,
            5 => check_principals(store).await,
            _ => check_end(store, 4).await,
        }
    }
}

/// A store in memory that says it is shared and records each operation asked of it, as
/// `operation:kind`: one operation is one round trip to a store such as Redis.
#[derive(Debug, Default)]
struct Counting {
    inner: MemoryStore,
    ops: Mutex<Vec<String>>,
}

impl Counting {
    fn record(&self, op: &str, key: &StateKey) {
        self.ops.lock().unwrap().push(format!("{op}:{}", key.kind()));
    }

    /// The operations asked since the last call.
    fn ops(&self) -> Vec<String> {
        std::mem::take(&mut *self.ops.lock().unwrap())
    }
}

impl StateStore for Counting {
    fn kind(&self) -> &'static str {
        "counting"
    }

    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>> {
        self.record("read", key);
        self.inner.read(key)
    }

    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written> {
        self.record("write", key);
        self.inner.write(key, write)
    }

    fn write_then_read<'a>(
        &'a self,
        key: &'a StateKey,
        write: Write,
        read: &'a StateKey,
    ) -> StoreFuture<'a, (Written, Option<Versioned>)> {
        self.record("write_then_read", key);
        self.inner.write_then_read(key, write, read)
    }

    fn write_then_delete<'a>(
        &'a self,
        key: &'a StateKey,
        write: Write,
        delete: &'a StateKey,
        expected: tool_core::state::Version,
    ) -> StoreFuture<'a, Written> {
        self.record("write_then_delete", key);
        self.inner.write_then_delete(key, write, delete, expected)
    }

    fn read_and_touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, Option<Versioned>> {
        self.record("read_and_touch", key);
        self.inner.read_and_touch(key, ttl)
    }

    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<tool_core::state::Version>) -> StoreFuture<'a, bool> {
        self.record("delete", key);
        self.inner.delete(key, expected)
    }

    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool> {
        self.record("touch", key);
        self.inner.touch(key, ttl)
    }

    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>> {
        self.record("take", key);
        self.inner.take(key)
    }

    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted> {
        self.ops.lock().unwrap().push("count".to_owned());
        self.inner.count(counters)
    }

    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize> {
        self.ops.lock().unwrap().push("clear".to_owned());
        self.inner.clear(owner, kind)
    }

    fn is_shared(&self) -> bool {
        true
    }
}

/// Two replicas over `store` that keep no retry budget, whose check (one counter batch per
/// call) would be the policy's operation rather than the state's.
fn replicas_without_budget(store: &SharedStore) -> (Executor, Executor, Arc<Gate>) {
    let gate = Arc::new(Gate::default());
    let replica = || {
        Executor::builder(catalog())
            .store(Arc::clone(store))
            .state(Arc::clone(&gate))
            .retry_budget(RetryBudget::unlimited())
            .build()
    };
    (replica(), replica(), gate)
}

#[tokio::test]
async fn a_mut_call_costs_two_operations_and_a_shared_call_one() {
    let counting = Arc::new(Counting::default());
    let store: SharedStore = counting.clone();
    let (a, b, gate) = replicas_without_budget(&store);
    let mutating = ["write_then_read:lease", "write_then_delete:stateful"];
    // The first call, on no state yet; the next on another replica, on the state written.
    assert_eq!(a.execute(call("counter.add", "costs", r#"{"by": 2}"#)).await.content.text, "2");
    assert_eq!(counting.ops(), mutating);
    assert_eq!(b.execute(call("counter.add", "costs", r#"{"by": 3}"#)).await.content.text, "5");
    assert_eq!(counting.ops(), mutating);
    assert_eq!(a.execute(call("counter.read", "costs", "{}")).await.content.text, "5");
    assert_eq!(counting.ops(), ["read_and_touch:stateful"]);
    // On no state: the same one operation.
    assert_eq!(b.execute(call("counter.read", "fresh", "{}")).await.content.text, "0");
    assert_eq!(counting.ops(), ["read_and_touch:stateful"]);
    // A call whose write is refused gives its lease up on its own: one more operation.
    let lease = key("costs", "lease", "Counter");
    let state = key("costs", "stateful", "Counter");
    let entered = gate.entered.notified();
    let held = tokio::spawn({
        let a = a.clone();
        async move { a.execute(call("counter.add_when_told", "costs", r#"{"by": 100}"#)).await }
    });
    entered.await;
    // Another writes the state under the held lease: the call's compare-and-set conflicts.
    let stored = br#"{"schema_version":1,"data":{"total":9}}"#.to_vec();
    store.write(&state, Write::new(stored.clone(), Duration::from_secs(60))).await.unwrap();
    assert_eq!(counting.ops(), ["write_then_read:lease", "write:stateful"]);
    gate.go.notify_one();
    let record = held.await.unwrap();
    assert_eq!(tool_error(&record).code(), Some("state_conflict"));
    assert_eq!(counting.ops(), ["write_then_delete:stateful", "delete:lease"]);
    assert_eq!(raw(&store, &lease).await, None, "the lease was given up");
    assert_eq!(raw(&store, &state).await, Some(stored));
}

tool_tests::redis_tests!(
    redis_alternating_increments_on_two_replicas_end_at_exactly_100 => check_alternating_increments,
    redis_concurrent_increments_split_across_two_replicas_lose_none => check_concurrent_increments,
    redis_a_call_that_lost_its_lease_cannot_write => check_lost_lease,
    redis_a_state_that_does_not_read_is_reported_and_kept_as_it_was => check_unreadable_states,
    redis_an_older_state_is_migrated_by_the_hook_or_reported => check_migrations,
    redis_two_principals_with_one_conversation_id_never_share_a_state => check_principals,
);

#[tokio::test]
async fn redis_ending_a_conversation_takes_its_stored_state_once() {
    let Some((_server, store)) =
        RedisServer::with_store("stateful_store::redis_ending_a_conversation_takes_its_stored_state_once").await
    else {
        return;
    };
    // A total of its own: the other runs of this check clean up 3 and 4.
    check_end(store, 5).await;
}
