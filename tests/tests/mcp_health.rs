//! The streamable HTTP server's probes and its graceful stop: `/healthz` and `/readyz` (without
//! the endpoint's token; not ready while a real `redis-server` holding its state is down), and
//! `shutdown_within`, which lets running calls finish within its deadline and records those
//! it cancels after it: every call begun is either answered or recorded cancelled.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tool_core::mcp::McpServer;
use tool_core::prelude::*;
use tool_tests::redis_server::RedisServer;

/// Calls of `slow` that have begun.
static BEGUN: AtomicUsize = AtomicUsize::new(0);

/// Waits `ms` milliseconds, then says so.
#[tool(name = "slow")]
async fn slow(ms: u64) -> String {
    BEGUN.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

fn executor() -> Executor {
    Executor::new(ToolCatalog::builder().add_declared::<slow>().build().unwrap())
}

async fn get(url: &str) -> (u16, String) {
    let answer = reqwest::get(url).await.unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_probes_answer_without_the_token_and_readiness_follows_the_store() {
    let test = "mcp_health::the_probes_answer_without_the_token_and_readiness_follows_the_store";
    let Some(mut redis) = RedisServer::start(test) else { return };
    let store: tool_core::state::SharedStore =
        Arc::new(tool_core::state::RedisStore::builder(redis.url()).connect().await.unwrap());
    let executor =
        Executor::builder(ToolCatalog::builder().add_declared::<slow>().build().unwrap()).store(store).build();
    let running = McpServer::builder(executor)
        .build()
        .unwrap()
        .http()
        .bind("127.0.0.1:0".parse().unwrap())
        .bearer_token("s3cret")
        .start()
        .await
        .unwrap();
    let base = format!("http://{}", running.local_addr());
    assert_eq!(get(&format!("{base}/healthz")).await, (200, "ok".to_owned()));
    assert_eq!(get(&format!("{base}/readyz")).await, (200, "ready".to_owned()));
    // The endpoint itself still wants the token.
    assert_eq!(get(&running.url()).await.0, 401);
    redis.stop();
    // The last check is kept a second.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(get(&format!("{base}/readyz")).await, (503, "the state store (redis) is unreachable".to_owned()));
    assert_eq!(get(&format!("{base}/healthz")).await, (200, "ok".to_owned()), "alive, not ready");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_probes_can_be_left_out() {
    let running = McpServer::builder(executor())
        .build()
        .unwrap()
        .http()
        .bind("127.0.0.1:0".parse().unwrap())
        .health_endpoints(false)
        .start()
        .await
        .unwrap();
    assert_eq!(get(&format!("http://{}/healthz", running.local_addr())).await.0, 404);
    running.shutdown().await;
}

/// `calls` concurrent `tools/call`s of `slow` for `ms` each, through raw HTTP (stateless): the
/// answers' statuses once all are in, and the records the server kept.
async fn under_load(calls: usize, ms: u64, deadline: Duration) -> (Vec<Result<u16, String>>, Vec<CallStatus>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&records);
    let running = McpServer::builder(executor())
        .on_record(move |record| kept.lock().unwrap().push(record.status))
        .build()
        .unwrap()
        .http()
        .bind("127.0.0.1:0".parse().unwrap())
        .stateless(true)
        .start()
        .await
        .unwrap();
    let url = running.url();
    let client = reqwest::Client::new();
    let before = BEGUN.load(Ordering::SeqCst);
    let sent: Vec<_> = (0..calls)
        .map(|i| {
            let (url, client) = (url.clone(), client.clone());
            tokio::spawn(async move {
                let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                  "params": {"name": "slow", "arguments": {"ms": ms}}});
                let answer =
                    tool_tests::mcp_post(&client, &url, "2025-06-18", &body).await.map_err(|e| e.to_string())?;
                let status = answer.status().as_u16();
                answer.text().await.map_err(|e| e.to_string())?;
                Ok::<u16, String>(status)
            })
        })
        .collect();
    // Every call has reached the tool (the two tests of this file that call it run one after
    // the other: they share the count).
    while BEGUN.load(Ordering::SeqCst) < before + calls {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    running.shutdown_within(deadline).await;
    let mut answered = Vec::new();
    for call in sent {
        answered.push(call.await.unwrap());
    }
    let records = records.lock().unwrap().clone();
    (answered, records)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_lets_calls_finish_within_its_deadline_and_records_those_it_cancels() {
    // One after the other: both count the calls begun in one counter.
    let (answered, records) = under_load(20, 500, Duration::from_secs(5)).await;
    assert_eq!(answered, vec![Ok(200); 20], "every call answered");
    assert_eq!(records, vec![CallStatus::Success; 20], "and recorded done");
    let (_, records) = under_load(20, 60_000, Duration::from_millis(300)).await;
    assert_eq!(records, vec![CallStatus::Cancelled; 20], "every call past the deadline recorded, cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_mcp_drains_on_sigterm_and_exits_cleanly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
        .args(["serve-mcp", "--http", "127.0.0.1:0", "--json", "--drain-seconds", "2"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("serve-mcp starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = serde_json::from_str::<serde_json::Value>(&line).unwrap()["url"].as_str().unwrap().to_owned();
    let import = tool_core::mcp::McpImport::http(&url).legacy_only(true).connect().await.unwrap();
    let host = Executor::new(import.add_to(ToolCatalog::builder()).build().unwrap());
    let call = tokio::spawn(async move {
        host.execute(ToolCallRequest::new("tally.slow_add", "1", r#"{"by": 2, "ms": 800}"#)).await
    });
    // The call is in the tool when the orchestrator stops the process.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let record = call.await.unwrap();
    assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    assert!(record.model_text().starts_with("2 (replica"), "{}", record.model_text());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a drained stop exits 0");
}
