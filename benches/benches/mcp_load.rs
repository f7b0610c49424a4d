//! Load over streamable HTTP: rounds of 1,000 concurrent `tools/call`s against one server on
//! 127.0.0.1, our `McpServer` (catalog, lenient extraction, executor, records) beside a bare
//! rmcp server whose handler is written by hand for the same tool (the limit). Rounds of the
//! two alternate, so drift on a shared machine hits both alike.
//!
//! `cargo bench -p tool-benches --bench mcp_load` (options: `--rounds N`, `--calls N`,
//! `--sessions N`). Prints throughput (median over rounds) and per-call latency percentiles.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use tool_core::mcp::McpServer;
use tool_core::prelude::*;

/// Add two integers.
#[tool(name = "add")]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

/// The same tool, served by a handler written against rmcp alone.
#[derive(Clone)]
struct Bare {
    tool: Arc<McpTool>,
}

impl Bare {
    fn new() -> Bare {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]
        });
        let Value::Object(schema) = schema else { unreachable!() };
        Bare { tool: Arc::new(McpTool::new("add", "Add two integers.", schema)) }
    }
}

impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let number = |key: &str| arguments.get(key).and_then(Value::as_i64);
        let result = match (number("a"), number("b")) {
            (Some(a), Some(b)) => CallToolResult::success(vec![ContentBlock::text((a + b).to_string())]),
            _ => CallToolResult::error(vec![ContentBlock::text("a and b must be integers")]),
        };
        Ok(result.into())
    }
}

async fn serve_bare() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = StreamableHttpService::new(
        || Ok(Bare::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().route_service("/mcp", service);
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

/// Our server, its caps raised to the round's size (beside the bare server, which has none):
/// the load is measured, not the refusals.
async fn serve_ours(calls: usize, sessions: usize) -> String {
    let catalog = ToolCatalog::builder().add_declared::<add>().build().unwrap();
    let running = McpServer::new(Executor::new(catalog))
        .unwrap()
        .http()
        .max_concurrent_requests(calls)
        .max_connections(calls + 2 * sessions + 16)
        .max_sessions(sessions)
        .start()
        .await
        .unwrap();
    let url = running.url();
    // Kept running for the whole benchmark.
    std::mem::forget(running);
    url
}

type Client = RunningService<RoleClient, ()>;

async fn clients(url: &str, sessions: usize) -> Vec<Client> {
    let mut clients = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        clients.push(().serve(StreamableHttpClientTransport::from_uri(url.to_owned())).await.unwrap());
    }
    clients
}

/// One round: `calls` calls at once, spread over the sessions. Returns the wall time and each
/// call's latency.
async fn round(clients: &[Client], calls: usize) -> (Duration, Vec<Duration>) {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..calls {
        let peer = clients[i % clients.len()].peer().clone();
        tasks.spawn(async move {
            let mut arguments = Map::new();
            arguments.insert("a".to_owned(), Value::from(i as i64));
            arguments.insert("b".to_owned(), Value::from(1));
            let sent = Instant::now();
            let result = peer.call_tool(CallToolRequestParams::new("add").with_arguments(arguments)).await.unwrap();
            let latency = sent.elapsed();
            let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].as_str().unwrap().to_owned();
            assert_eq!(text, (i as i64 + 1).to_string());
            latency
        });
    }
    let mut latencies = Vec::with_capacity(calls);
    while let Some(latency) = tasks.join_next().await {
        latencies.push(latency.unwrap());
    }
    (started.elapsed(), latencies)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

struct Side {
    name: &'static str,
    walls: Vec<Duration>,
    latencies: Vec<Duration>,
}

impl Side {
    fn throughput(&self, calls: usize) -> f64 {
        let mut walls = self.walls.clone();
        walls.sort();
        calls as f64 / walls[walls.len() / 2].as_secs_f64()
    }
}

fn option(args: &[String], flag: &str, default: usize) -> usize {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = option(&args, "--rounds", 10);
    let calls = option(&args, "--calls", 1000);
    let sessions = option(&args, "--sessions", 10).max(1);
    let ours = clients(&serve_ours(calls, sessions).await, sessions).await;
    let bare = clients(&serve_bare().await, sessions).await;
    // Warm both up: connections, sessions, allocators.
    round(&ours, calls).await;
    round(&bare, calls).await;
    let mut sides = [
        Side { name: "bare rmcp handler (the limit)", walls: vec![], latencies: vec![] },
        Side { name: "McpServer (catalog, extraction, executor)", walls: vec![], latencies: vec![] },
    ];
    for _ in 0..rounds {
        for (side, clients) in sides.iter_mut().zip([&bare, &ours]) {
            let (wall, latencies) = round(clients, calls).await;
            side.walls.push(wall);
            side.latencies.extend(latencies);
        }
    }
    println!(
        "{rounds} rounds of {calls} concurrent calls over {sessions} sessions, streamable HTTP on 127.0.0.1, {} worker threads\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("| server | calls/s (median round) | p50 latency | p99 latency | time per call vs limit | p50 vs limit | p99 vs limit |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let limit_throughput = sides[0].throughput(calls);
    let mut limit = None;
    for side in &mut sides {
        side.latencies.sort();
        let p50 = percentile(&side.latencies, 0.50).as_secs_f64();
        let p99 = percentile(&side.latencies, 0.99).as_secs_f64();
        let (limit_p50, limit_p99) = *limit.get_or_insert((p50, p99));
        let throughput = side.throughput(calls);
        println!(
            "| {} | {:.0} | {:.2} ms | {:.2} ms | {:.2}x | {:.2}x | {:.2}x |",
            side.name,
            throughput,
            p50 * 1e3,
            p99 * 1e3,
            limit_throughput / throughput,
            p50 / limit_p50,
            p99 / limit_p99
        );
    }
}
