//! What keeping state in Redis adds to a call, against the same call on the in-memory store,
//! as a multiple of one Redis `PING` round trip measured in the same run: a call with no state
//! (no conversation, no rate limit), a call in a conversation (the retry budget's check), the
//! same with a rate limit (the check and the admission), and a `shared_state` tool's `&mut
//! self` call (the lease, the read, the commit). The Redis server is a real `redis-server`
//! started on a free loopback port (`--save "" --appendonly no`); without one, only the memory
//! rows run.
//!
//! Run: `cargo bench -p tool-benches --bench state_store -- --warm-up-time 1 --measurement-time 3`

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::{Deserialize, Serialize};
use tool_core::policy::RateLimit;
use tool_core::prelude::*;
use tool_core::state::{MemoryStore, RedisStore, SharedStore};
use tool_tests::redis_server::RedisServer;

/// Echo a text (`inline`: on the async worker, so the figures are the executor's and the
/// store's own).
#[tool(inline)]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

/// A counter per conversation, kept in the executor's store.
#[derive(Default, Serialize, Deserialize)]
struct Counter {
    total: u64,
}

#[tool(shared_state)]
impl Counter {
    /// Add one; the new total.
    #[tool(name = "counter.add")]
    async fn add(&mut self) -> u64 {
        self.total += 1;
        self.total
    }
}

const RAW: &str = r#"{"text":"What is on the agenda for Thursday's planning meeting?"}"#;

fn executors(catalog: &ToolCatalog, store: SharedStore) -> [Executor; 2] {
    let plain = Executor::builder(catalog.clone()).store(Arc::clone(&store)).build();
    let limited = Executor::builder(catalog.clone())
        .store(store)
        .rate_limit(RateLimit::per_conversation(u32::MAX, Duration::from_secs(1)))
        .build();
    [plain, limited]
}

fn state_store(c: &mut Criterion) {
    // This file's tools only: the tests' helper crate, linked for its Redis harness, declares
    // tools of its own.
    let catalog = ToolCatalog::builder()
        .add_all_declared()
        .retain(|definition| definition.source.file == file!())
        .build()
        .expect("a catalog");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
    let server = RedisServer::start("benches state_store");
    let mut stores: Vec<(&str, SharedStore)> = vec![("memory", Arc::new(MemoryStore::new()))];
    if let Some(server) = &server {
        let redis = rt.block_on(RedisStore::builder(server.url()).connect()).expect("the bench's redis-server");
        stores.push(("redis", Arc::new(redis)));
        let client = redis::Client::open(server.url()).expect("a redis URL");
        let mut connection =
            rt.block_on(client.get_multiplexed_async_connection()).expect("a connection to the bench's redis-server");
        let mut group = c.benchmark_group("state store");
        group.bench_function("redis PING round trip", |b| {
            b.to_async(&rt).iter(|| {
                let mut connection = connection.clone();
                async move { redis::cmd("PING").query_async::<String>(&mut connection).await.expect("PONG") }
            })
        });
        group.finish();
        let _ = &mut connection;
    }
    let mut group = c.benchmark_group("state store");
    for (name, store) in stores {
        let [plain, limited] = executors(&catalog, store);
        for (executor, request) in [
            (&plain, ToolCallRequest::new("echo", "c1", RAW)),
            (&plain, ToolCallRequest::new("echo", "c1", RAW).in_conversation("c")),
            (&limited, ToolCallRequest::new("echo", "c1", RAW).in_conversation("c")),
            (&plain, ToolCallRequest::new("counter.add", "c1", "{}").in_conversation("c")),
        ] {
            let record = rt.block_on(executor.execute(request));
            assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
        }
        group.bench_function(format!("{name}: echo, no conversation"), |b| {
            b.to_async(&rt).iter(|| plain.execute(ToolCallRequest::new("echo", "c1", RAW)))
        });
        group.bench_function(format!("{name}: echo in a conversation (the retry budget's check)"), |b| {
            b.to_async(&rt).iter(|| plain.execute(ToolCallRequest::new("echo", "c1", RAW).in_conversation("c")))
        });
        group.bench_function(format!("{name}: echo in a conversation, rate-limited (check and admission)"), |b| {
            b.to_async(&rt).iter(|| limited.execute(ToolCallRequest::new("echo", "c1", RAW).in_conversation("c")))
        });
        group.bench_function(format!("{name}: shared_state &mut self call (lease, read, commit)"), |b| {
            b.to_async(&rt).iter(|| plain.execute(ToolCallRequest::new("counter.add", "c1", "{}").in_conversation("c")))
        });
    }
    group.finish();
}

criterion_group!(benches, state_store);
criterion_main!(benches);
