//! A conversation-heavy load against replicas: 1,000 conversations of 10 `tally.add` calls
//! each (a `shared_state` tool: every call takes the conversation's lease, reads and commits
//! its state), sent by 32 clients at once, first to two replicas sharing one real Redis
//! (alternating between them, no affinity), then to one replica with the in-memory store. It
//! prints the calls per second, the median and 99th percentile of a call's latency, and each
//! replica's resident memory before, after one round and after a second round of new
//! conversations (flat when the state lives in Redis).
//!
//! Run (release builds of the replica and of this program):
//! ```text
//! cargo build --release -p tool-tests --bin example_replicas
//! cargo run --release -p tool-benches --example replica_load -- target/release/example_replicas
//! ```

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use tool_tests::redis_server::RedisServer;

const CONVERSATIONS: usize = 1_000;
const CALLS: usize = 10;
const CLIENTS: usize = 32;

struct Replica {
    child: Child,
    url: String,
}

impl Replica {
    fn start(binary: &str, name: &str, state: Option<&str>) -> Replica {
        let mut command = Command::new(binary);
        command.env("REPLICA", name).args(["serve-mcp", "--http", "127.0.0.1:0", "--json", "--stateless"]);
        command.args(["--conversation-header", "x-conversation-id"]);
        if let Some(state) = state {
            command.args(["--state", state]);
        }
        let mut child = command.stdout(Stdio::piped()).spawn().expect("the replica starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("its stdout")).read_line(&mut line).expect("its first line");
        let url = serde_json::from_str::<serde_json::Value>(&line).expect("a JSON line")["url"]
            .as_str()
            .expect("the url")
            .to_owned();
        Replica { child, url }
    }

    /// Resident memory, in MiB, from /proc.
    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kib: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0.0);
        kib / 1024.0
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `CONVERSATIONS` conversations named `{round}-{n}` against `urls` (conversation n's
/// calls alternate between them); every call's latency, and the whole run's time.
async fn round(urls: &[String], round: &str) -> (Vec<Duration>, Duration) {
    let urls = Arc::new(urls.to_vec());
    let started = Instant::now();
    let workers: Vec<_> = (0..CLIENTS)
        .map(|worker| {
            let urls = Arc::clone(&urls);
            let round = round.to_owned();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                for n in (worker..CONVERSATIONS).step_by(CLIENTS) {
                    let conversation = format!("{round}-{n}");
                    let mut clients = Vec::new();
                    for url in urls.iter() {
                        let headers =
                            HashMap::from([("x-conversation-id".parse().unwrap(), conversation.parse().unwrap())]);
                        let config =
                            StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers);
                        clients.push(
                            ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("a client"),
                        );
                    }
                    for i in 0..CALLS {
                        let arguments = serde_json::json!({ "by": 1 }).as_object().cloned().unwrap();
                        let params = CallToolRequestParams::new("tally.add").with_arguments(arguments);
                        let at = Instant::now();
                        let result = clients[i % clients.len()].call_tool(params).await.expect("an answer");
                        latencies.push(at.elapsed());
                        assert_ne!(result.is_error, Some(true), "{result:?}");
                    }
                    for client in clients {
                        let _ = client.cancel().await;
                    }
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(worker.await.expect("a worker"));
    }
    (latencies, started.elapsed())
}

fn report(what: &str, (mut latencies, took): (Vec<Duration>, Duration)) {
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    println!(
        "| {what} | {} | {:.0} | {:.2} ms | {:.2} ms |",
        latencies.len(),
        latencies.len() as f64 / took.as_secs_f64(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3
    );
}

#[tokio::main]
async fn main() {
    let binary = std::env::args().nth(1).expect("usage: replica_load <path of example_replicas>");
    let redis = RedisServer::start("replica_load").expect("redis-server (Debian: redis-server)");
    let a = Replica::start(&binary, "A", Some(&redis.url()));
    let b = Replica::start(&binary, "B", Some(&redis.url()));
    let alone = Replica::start(&binary, "M", None);
    println!("| replicas | calls | calls/s | p50 | p99 |\n|---|---:|---:|---:|---:|");
    let rss = |r: &Replica| r.rss_mib();
    let before = (rss(&a), rss(&b), rss(&alone));
    report("two, Redis", round(&[a.url.clone(), b.url.clone()], "first").await);
    let first = (rss(&a), rss(&b));
    report("two, Redis, new conversations", round(&[a.url.clone(), b.url.clone()], "second").await);
    let second = (rss(&a), rss(&b));
    report("one, memory", round(std::slice::from_ref(&alone.url), "first").await);
    let memory_first = rss(&alone);
    report("one, memory, new conversations", round(std::slice::from_ref(&alone.url), "second").await);
    let memory_second = rss(&alone);
    println!("\n| replica | RSS at start | after 1,000 conversations | after 2,000 |\n|---|---:|---:|---:|");
    println!("| A (Redis) | {:.1} MiB | {:.1} MiB | {:.1} MiB |", before.0, first.0, second.0);
    println!("| B (Redis) | {:.1} MiB | {:.1} MiB | {:.1} MiB |", before.1, first.1, second.1);
    println!("| M (memory) | {:.1} MiB | {:.1} MiB | {:.1} MiB |", before.2, memory_first, memory_second);
}
