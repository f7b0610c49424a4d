//! Pending calls in the executor's store: a call that waits on one replica is resumed on
//! another sharing the store, exactly once however many resume it at the same time; it
//! expires; only its principal and conversation resume it; a call edited on its way is
//! refused while the stored one still waits; a store that fails loses nothing.
//!
//! Each check is an `async fn check_*(store: SharedStore)` run here on a `MemoryStore`, and the
//! main ones on a `RedisStore` too, on a `redis-server` of their own (each skipping with one
//! `SKIPPED` line without it).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use tool_core::policy::{Decision, PendingCall};
use tool_core::prelude::*;
use tool_core::state::{
    Counted, Counters, MemoryStore, Owner, SharedStore, StateError, StateKey, StateStore, StoreFuture, Version,
    Versioned, Write, Written,
};
use tool_core::{Approval, CallFailure, DynamicTool, ExecutionRecord, Executor, NotPendingReason};

/// `transfer(amount, to)`: every call waits for approval; each run counted in `runs`.
fn transfer(runs: Arc<AtomicUsize>) -> DynamicTool {
    DynamicTool::builder("transfer")
        .description("Send money.")
        .input_schema(json!({
            "type": "object",
            "properties": {"amount": {"type": "number"}, "to": {"type": "string"}},
            "required": ["amount", "to"]
        }))
        .approval(Approval::Always)
        .handler(move |args: Map<String, Value>, _ctx: ToolContext| {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                format!("sent {} to {}", args["amount"], args["to"].as_str().unwrap_or(""))
            }
        })
        .build()
        .expect("a valid tool")
}

/// One replica: an executor of the tool over `store`.
fn replica(store: &SharedStore, runs: &Arc<AtomicUsize>) -> Executor {
    replica_with(store, runs, |builder| builder)
}

fn replica_with(
    store: &SharedStore,
    runs: &Arc<AtomicUsize>,
    configure: impl FnOnce(tool_core::ExecutorBuilder) -> tool_core::ExecutorBuilder,
) -> Executor {
    let catalog = ToolCatalog::builder().add_tool(transfer(Arc::clone(runs))).build().unwrap();
    configure(Executor::builder(catalog).store(Arc::clone(store))).build()
}

/// Two replicas over `store`, and the count of the tool's runs on either.
fn replicas(store: &SharedStore) -> (Arc<AtomicUsize>, Executor, Executor) {
    let runs = Arc::new(AtomicUsize::new(0));
    let (a, b) = (replica(store, &runs), replica(store, &runs));
    (runs, a, b)
}

/// The arguments most checks send.
const TEN_TO_ADA: &str = r#"{"amount": 10, "to": "Ada"}"#;

fn memory() -> SharedStore {
    Arc::new(MemoryStore::new())
}

/// A call of `transfer` by `alice` in the conversation `c1`.
fn call(call_id: &str, arguments: &str) -> ToolCallRequest {
    ToolCallRequest::new("transfer", call_id, arguments).by_principal("alice").in_conversation("c1")
}

/// The pending call of a call that waits on `executor`, as a host keeps it: JSON text.
async fn wait(executor: &Executor, request: ToolCallRequest) -> String {
    let record = executor.execute(request).await;
    assert_eq!(record.status, CallStatus::Pending, "{}", record.model_text());
    serde_json::to_string(record.pending.as_deref().unwrap()).unwrap()
}

fn read(stored: &str) -> PendingCall {
    serde_json::from_str(stored).unwrap()
}

/// The failure and the model's text of a record.
fn refusal(record: &ExecutionRecord) -> (CallStatus, Option<CallFailure>, String) {
    (record.status, record.failure.clone(), record.model_text().to_owned())
}

fn resumed_already(id: &str) -> (CallStatus, Option<CallFailure>, String) {
    (
        CallStatus::Failed,
        Some(CallFailure::NotPending { id: id.to_owned(), reason: NotPendingReason::Resumed }),
        format!("The call of `transfer` that waited under the id `{id}` was resumed already; it runs once, and nothing ran now."),
    )
}

fn unknown(id: &str) -> (CallStatus, Option<CallFailure>, String) {
    (
        CallStatus::Failed,
        Some(CallFailure::NotPending { id: id.to_owned(), reason: NotPendingReason::Unknown }),
        format!(
            "No call of `transfer` waits under the id `{id}` for this principal and conversation, and nothing ran. \
             Resume a pending call as the executor gave it, for the principal and the conversation that made it."
        ),
    )
}

fn altered(id: &str) -> (CallStatus, Option<CallFailure>, String) {
    (
        CallStatus::Failed,
        Some(CallFailure::PendingAltered { id: id.to_owned() }),
        format!(
            "The pending call under the id `{id}` differs from the call of `transfer` that waits under it (its tool, \
             call id or arguments were changed), and nothing ran; the stored call still waits. Resume it as the \
             executor gave it, or approve it with edited arguments."
        ),
    )
}

async fn check_a_call_waiting_on_one_replica_is_resumed_on_another(store: SharedStore) {
    let (runs, a, b) = replicas(&store);
    let stored = wait(&a, call("c1", TEN_TO_ADA)).await;
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let id = read(&stored).id;

    let record = b.resume(read(&stored), Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 10 to Ada"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // Once: neither replica runs it again, whatever the answer.
    assert_eq!(refusal(&a.resume(read(&stored), Decision::Approve).await), resumed_already(&id));
    assert_eq!(refusal(&b.resume(read(&stored), Decision::deny("late")).await), resumed_already(&id));
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // A denial takes the call too: approved afterwards, it does not run.
    let stored = wait(&b, call("c2", r#"{"amount": 20, "to": "Bo"}"#)).await;
    let record = a.resume(read(&stored), Decision::deny("not Bo")).await;
    assert_eq!(
        (record.status, record.model_text()),
        (CallStatus::Denied, "This call of `transfer` was denied: not Bo")
    );
    assert_eq!(refusal(&b.resume(read(&stored), Decision::Approve).await), resumed_already(&read(&stored).id));
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // Edited arguments apply to the stored call, once.
    let stored = wait(&a, call("c3", r#"{"amount": 30, "to": "Cy"}"#)).await;
    let record = b.resume(read(&stored), Decision::approve_with(json!({"amount": 3, "to": "Cy"}))).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 3 to Cy"));
    assert_eq!(record.original.as_ref().unwrap().raw_arguments, r#"{"amount": 30, "to": "Cy"}"#);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_call_waiting_on_one_replica_is_resumed_on_another() {
    check_a_call_waiting_on_one_replica_is_resumed_on_another(memory()).await;
}

async fn check_two_racing_resumes_run_the_call_once(store: SharedStore) {
    let (runs, a, b) = replicas(&store);
    for round in 0..100 {
        let stored = wait(&a, call(&format!("c{round}"), r#"{"amount": 1, "to": "Ada"}"#)).await;
        let id = read(&stored).id;
        let (first, second) = (a.clone(), b.clone());
        let (one, two) = (read(&stored), read(&stored));
        let one = tokio::spawn(async move { first.resume(one, Decision::Approve).await });
        let two = tokio::spawn(async move { second.resume(two, Decision::Approve).await });
        let (one, two) = (one.await.unwrap(), two.await.unwrap());
        let mut outcomes = [refusal(&one), refusal(&two)];
        outcomes.sort_by_key(|(status, ..)| *status != CallStatus::Success);
        assert_eq!(outcomes[0], (CallStatus::Success, None, "sent 1 to Ada".to_owned()), "round {round}");
        assert_eq!(outcomes[1], resumed_already(&id), "round {round}");
        assert_eq!(runs.load(Ordering::SeqCst), round + 1, "round {round}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_racing_resumes_run_the_call_once() {
    check_two_racing_resumes_run_the_call_once(memory()).await;
}

async fn check_an_expired_pending_call_is_refused(store: SharedStore) {
    let runs = Arc::new(AtomicUsize::new(0));
    let short = replica_with(&store, &runs, |builder| builder.pending_ttl(Duration::from_millis(100)));
    let stored = wait(&short, call("c1", TEN_TO_ADA)).await;
    let pending = read(&stored);
    let owner = Owner::new(Some("alice"), Some("c1"));
    assert_eq!(short.pending(&pending.id, &owner).await.unwrap().map(|call| call.id), Some(pending.id.clone()));
    tokio::time::sleep(Duration::from_millis(250)).await;

    assert_eq!(short.pending(&pending.id, &owner).await.unwrap(), None);
    let record = replica(&store, &runs).resume(read(&stored), Decision::Approve).await;
    assert_eq!(
        refusal(&record),
        (
            CallStatus::Failed,
            Some(CallFailure::NotPending { id: pending.id.clone(), reason: NotPendingReason::Expired }),
            format!(
                "The call of `transfer` that waited under the id `{}` expired before it was resumed, and did not run. \
                 Make the call again to ask for approval anew.",
                pending.id
            )
        )
    );
    assert_eq!(
        serde_json::to_value(record.failure.as_ref().unwrap()).unwrap(),
        json!({"kind": "not_pending", "id": pending.id, "reason": "expired"})
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_expired_pending_call_is_refused() {
    check_an_expired_pending_call_is_refused(memory()).await;
}

async fn check_only_its_principal_and_conversation_resume_a_call(store: SharedStore) {
    let (runs, a, b) = replicas(&store);
    let stored = wait(&a, call("c1", TEN_TO_ADA)).await;
    let id = read(&stored).id;
    // As a host that authenticated someone else would present it.
    let presented = |principal: Option<&str>, conversation: Option<&str>| {
        let mut pending = read(&stored);
        pending.request.principal = principal.map(str::to_owned);
        pending.request.conversation_id = conversation.map(str::to_owned);
        pending
    };
    for (principal, conversation) in [(Some("mallory"), Some("c1")), (Some("alice"), Some("c2")), (None, Some("c1"))] {
        let record = b.resume(presented(principal, conversation), Decision::Approve).await;
        assert_eq!(refusal(&record), unknown(&id), "{principal:?} {conversation:?}");
        assert_eq!(b.pending(&id, &Owner::new(principal, conversation)).await.unwrap(), None);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // The call still waits for its own principal and conversation.
    let record = b.resume(presented(Some("alice"), Some("c1")), Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 10 to Ada"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn only_its_principal_and_conversation_resume_a_call() {
    check_only_its_principal_and_conversation_resume_a_call(memory()).await;
}

async fn check_a_tampered_pending_call_is_refused_and_the_stored_one_still_waits(store: SharedStore) {
    let (runs, a, b) = replicas(&store);
    let stored = wait(&a, call("c1", TEN_TO_ADA)).await;
    let id = read(&stored).id;
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut value: Value = serde_json::from_str(&stored).unwrap();
        edit(&mut value);
        serde_json::from_value::<PendingCall>(value).unwrap()
    };
    let edits: [&dyn Fn(&mut Value); 4] = [
        &|value| value["arguments"]["amount"] = json!(10_000),
        &|value| value["request"]["raw_arguments"] = json!(r#"{"amount": 10000, "to": "Ada"}"#),
        &|value| value["request"]["call_id"] = json!("c9"),
        &|value| value["arguments"]["to"] = json!("Mallory"),
    ];
    for (i, edit) in edits.iter().enumerate() {
        assert_eq!(refusal(&b.resume(edited(edit), Decision::Approve).await), altered(&id), "edit {i}");
    }
    // Another tool's name: the stored call is of `transfer`, and says so.
    let renamed = edited(&|value| value["request"]["tool_name"] = json!("refund"));
    let record = b.resume(renamed, Decision::Approve).await;
    assert_eq!(record.failure, Some(CallFailure::PendingAltered { id: id.clone() }));
    // Another id: nothing waits under it.
    let other = edited(&|value| value["id"] = json!("0".repeat(32)));
    assert_eq!(refusal(&b.resume(other, Decision::Approve).await), unknown(&"0".repeat(32)));
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // The stored call is unchanged, and its owner resumes it; its arguments' keys in another
    // order (a database that reorders them) are the same call.
    let owner = Owner::new(Some("alice"), Some("c1"));
    assert_eq!(a.pending(&id, &owner).await.unwrap(), Some(read(&stored)));
    let reordered = edited(&|value| value["arguments"] = json!({"to": "Ada", "amount": 10}));
    let record = a.resume(reordered, Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 10 to Ada"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_tampered_pending_call_is_refused_and_the_stored_one_still_waits() {
    check_a_tampered_pending_call_is_refused_and_the_stored_one_still_waits(memory()).await;
}

async fn check_ids_are_128_random_bits_and_calls_expire_a_day_later(store: SharedStore) {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = replica(&store, &runs);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    let first = read(&wait(&a, call("c1", r#"{"amount": 1, "to": "Ada"}"#)).await);
    let second = read(&wait(&a, call("c1", r#"{"amount": 1, "to": "Ada"}"#)).await);
    for pending in [&first, &second] {
        assert_eq!(pending.id.len(), 32, "{}", pending.id);
        assert!(pending.id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{}", pending.id);
        let expires = pending.expires_at_ms.unwrap();
        let day = 24 * 60 * 60 * 1000;
        assert!((now + day..now + day + 60_000).contains(&expires), "{expires} from {now}");
    }
    assert_ne!(first.id, second.id);
    // The host's JSON keeps them.
    let value = serde_json::to_value(&first).unwrap();
    assert_eq!((value["id"].as_str(), value["expires_at_ms"].as_u64()), (Some(first.id.as_str()), first.expires_at_ms));
    assert_eq!(tool_core::DEFAULT_PENDING_TTL, Duration::from_secs(86_400));
}

#[tokio::test]
async fn ids_are_128_random_bits_and_calls_expire_a_day_later() {
    check_ids_are_128_random_bits_and_calls_expire_a_day_later(memory()).await;
}

async fn check_a_float_moved_by_json_round_trips_is_the_same_call(store: SharedStore) {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = replica(&store, &runs);
    // A float whose last bits each JSON round trip moves, unless serde_json reads floats exactly
    // (its `float_roundtrip` feature, which this test binary's dependencies turn on): the same
    // call either way.
    let stored = wait(&a, call("c1", r#"{"amount": 1.7275580049601788e-9, "to": "Ada"}"#)).await;
    let again = serde_json::to_string(&read(&serde_json::to_string(&read(&stored)).unwrap())).unwrap();
    let record = a.resume(read(&again), Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 1.7275580049601788e-9 to Ada"));
}

#[tokio::test]
async fn a_float_moved_by_json_round_trips_is_the_same_call() {
    check_a_float_moved_by_json_round_trips_is_the_same_call(memory()).await;
}

async fn check_every_call_of_a_batch_that_waits_gets_its_own_id(store: SharedStore) {
    let (runs, a, b) = replicas(&store);
    let records = a
        .execute_batch(vec![call("c1", r#"{"amount": 1, "to": "Ada"}"#), call("c2", r#"{"amount": 2, "to": "Bo"}"#)])
        .await;
    let pending: Vec<PendingCall> = records.iter().map(|record| *record.pending.clone().unwrap()).collect();
    assert_ne!(pending[0].id, pending[1].id);
    let texts: Vec<String> =
        resume_each(&b, pending).await.iter().map(|record| record.model_text().to_owned()).collect();
    assert_eq!(texts, ["sent 1 to Ada", "sent 2 to Bo"]);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// Each call approved on `executor`, in turn.
async fn resume_each(executor: &Executor, pending: Vec<PendingCall>) -> Vec<ExecutionRecord> {
    let mut records = Vec::new();
    for pending in pending {
        records.push(executor.resume(pending, Decision::Approve).await);
    }
    records
}

#[tokio::test]
async fn every_call_of_a_batch_that_waits_gets_its_own_id() {
    check_every_call_of_a_batch_that_waits_gets_its_own_id(memory()).await;
}

/// A store that can be taken down: every operation fails while it is.
#[derive(Debug)]
struct Flaky {
    inner: MemoryStore,
    down: AtomicBool,
}

impl Flaky {
    /// `operation` on the memory store, or the failure of a store that is down (checked
    /// first: a memory store's operation is done when it is called).
    fn unless_down<'a, T: Send + 'a>(&'a self, operation: impl FnOnce() -> StoreFuture<'a, T>) -> StoreFuture<'a, T> {
        match self.down.load(Ordering::SeqCst) {
            true => Box::pin(std::future::ready(Err(StateError::Unavailable {
                store: "flaky",
                reason: "connection refused".to_owned(),
            }))),
            false => operation(),
        }
    }
}

impl StateStore for Flaky {
    fn kind(&self) -> &'static str {
        "flaky"
    }
    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>> {
        self.unless_down(|| self.inner.read(key))
    }
    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written> {
        self.unless_down(|| self.inner.write(key, write))
    }
    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<Version>) -> StoreFuture<'a, bool> {
        self.unless_down(|| self.inner.delete(key, expected))
    }
    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool> {
        self.unless_down(|| self.inner.touch(key, ttl))
    }
    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>> {
        self.unless_down(|| self.inner.take(key))
    }
    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted> {
        self.unless_down(|| self.inner.count(counters))
    }
    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize> {
        self.unless_down(|| self.inner.clear(owner, kind))
    }
}

#[tokio::test]
async fn a_store_that_fails_loses_no_pending_call() {
    let flaky = Arc::new(Flaky { inner: MemoryStore::new(), down: AtomicBool::new(false) });
    let store: SharedStore = flaky.clone();
    let runs = Arc::new(AtomicUsize::new(0));
    // No retry budget: its check, the first stage, would meet the store down before approval.
    let a = replica_with(&store, &runs, |builder| builder.retry_budget(tool_core::policy::RetryBudget::unlimited()));
    let stored = wait(&a, call("c1", TEN_TO_ADA)).await;

    flaky.down.store(true, Ordering::SeqCst);
    // Down while a call would wait: it is not kept, and says so.
    let record = a.execute(call("c2", r#"{"amount": 20, "to": "Bo"}"#)).await;
    assert_eq!(
        refusal(&record),
        (
            CallStatus::Failed,
            Some(CallFailure::StateUnavailable { store: "flaky".to_owned() }),
            "`transfer` needs a person's approval, but the store that keeps pending calls could not be reached, so \
             it was not kept and has not run. Try again in a moment."
                .to_owned()
        )
    );
    assert_eq!(record.pending, None);
    // Down while a call is resumed: refused, and the call still waits.
    let record = a.resume(read(&stored), Decision::Approve).await;
    assert_eq!(
        refusal(&record),
        (
            CallStatus::Failed,
            Some(CallFailure::StateUnavailable { store: "flaky".to_owned() }),
            "`transfer` was not resumed: the store its pending call waits in could not be reached or read. Try again \
             in a moment."
                .to_owned()
        )
    );
    assert!(a.pending(&read(&stored).id, &Owner::new(Some("alice"), Some("c1"))).await.is_err());
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    flaky.down.store(false, Ordering::SeqCst);
    let record = a.resume(read(&stored), Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 10 to Ada"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

async fn check_a_resume_cancelled_before_it_starts_leaves_the_call_waiting(store: SharedStore) {
    let (runs, a, b) = replicas(&store);
    let stored = wait(&a, call("c1", TEN_TO_ADA)).await;
    let token = tool_core::CancellationToken::new();
    token.cancel();
    let record = b.resume_in(read(&stored), Decision::Approve, CallScope::new().cancel_on(&token)).await;
    assert_eq!(
        refusal(&record),
        (
            CallStatus::Cancelled,
            Some(CallFailure::Cancelled),
            "The call was cancelled before it was resumed; it still waits.".to_owned()
        )
    );
    let record = b.resume(read(&stored), Decision::Approve).await;
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "sent 10 to Ada"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_resume_cancelled_before_it_starts_leaves_the_call_waiting() {
    check_a_resume_cancelled_before_it_starts_leaves_the_call_waiting(memory()).await;
}

#[tokio::test]
async fn a_pending_call_from_before_ids_is_refused_as_unknown() {
    let runs = Arc::new(AtomicUsize::new(0));
    let a = replica(&memory(), &runs);
    // A pending call a host kept as JSON before calls had ids.
    let old = json!({
        "request": {"tool_name": "transfer", "call_id": "c1", "raw_arguments": r#"{"amount": 1, "to": "Ada"}"#},
        "arguments": {"amount": 1, "to": "Ada"},
        "reasons": [{"kind": "declared"}]
    });
    let pending: PendingCall = serde_json::from_value(old).unwrap();
    assert_eq!(pending.id, "");
    let record = a.resume(pending, Decision::Approve).await;
    assert_eq!(record.failure, Some(CallFailure::NotPending { id: String::new(), reason: NotPendingReason::Unknown }));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

tool_tests::redis_tests!(
    redis_a_call_waiting_on_one_replica_is_resumed_on_another => check_a_call_waiting_on_one_replica_is_resumed_on_another,
    redis_two_racing_resumes_run_the_call_once => check_two_racing_resumes_run_the_call_once,
    redis_an_expired_pending_call_is_refused => check_an_expired_pending_call_is_refused,
    redis_only_its_principal_and_conversation_resume_a_call => check_only_its_principal_and_conversation_resume_a_call,
    redis_a_tampered_pending_call_is_refused_and_the_stored_one_still_waits => check_a_tampered_pending_call_is_refused_and_the_stored_one_still_waits,
);
