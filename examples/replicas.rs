//! Replicas behind a load balancer, their state in Redis. With no arguments it starts a Redis
//! server, two replicas of this catalog and nginx in front of them (round robin, no affinity),
//! then runs one conversation through nginx: each call says which replica served it, and the
//! tally goes on from one replica to the other.
//!
//! ```text
//! apt-get install redis-server nginx
//! cargo run -p tool-examples --features replicas --bin replicas
//! ```
//!
//! With arguments it is one replica: the `tools` command line over this catalog, for example
//! `replicas serve-mcp --http 127.0.0.1:8001 --state redis://127.0.0.1:6379 --stateless
//! --conversation-header x-conversation-id` (`REPLICA` names it in the answers).

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde::{Deserialize, Serialize};
use tool_core::cli::ToolsCli;
use tool_core::policy::{GuardScope, RateLimit};
use tool_core::prelude::*;

/// A tally per conversation, kept in the executor's store: any replica can serve its next call.
#[derive(Default, Serialize, Deserialize)]
struct Tally {
    total: u64,
}

#[tool(shared_state)]
impl Tally {
    /// Add to the conversation's tally; says the total and the replica that served the call.
    #[tool(name = "tally.add")]
    async fn add(&mut self, by: u64) -> String {
        self.total += by;
        format!("{} (replica {})", self.total, replica())
    }

    /// Add to the tally after waiting `ms` milliseconds (a slow call, to stop a replica in).
    #[tool(name = "tally.slow_add")]
    async fn slow_add(&mut self, by: u64, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
        self.total += by;
        format!("{} (replica {})", self.total, replica())
    }

    /// The conversation's tally.
    #[tool(name = "tally.get", annotations(read_only = true))]
    async fn get(&self) -> u64 {
        self.total
    }
}

/// Say which replica answered: limited to 5 calls a minute across all replicas.
#[tool(name = "replica.ping", annotations(read_only = true))]
async fn ping() -> String {
    format!("pong (replica {})", replica())
}

/// Who to greet.
#[derive(Deserialize, schemars::JsonSchema)]
struct Person {
    /// Their name.
    name: String,
}

/// Greet the user by the name they give: on MCP 2026-07-28 the question is a round of the call,
/// which any replica may serve.
#[tool(name = "replica.greet", annotations(read_only = true))]
async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = match ctx.elicit::<Person>("Who should I greet?").await? {
        tool_core::ask::Elicitation::Accepted { value, .. } => value.name,
        _ => "nobody".to_owned(),
    };
    // The round that completes the call says where it ran.
    Ok(format!("Hello {name} (replica {})", replica()))
}

/// Deploy a build once the user approves: answered with a task to a client that takes tasks;
/// while it waits for the approval, any replica may take it over.
#[tool(name = "replica.deploy", task, requires_approval)]
async fn deploy(build: u32) -> String {
    format!("deployed build {build} (replica {})", replica())
}

/// The replica's name; needs no state, so it answers while the store is away.
#[tool(name = "replica.name", annotations(read_only = true))]
async fn name() -> String {
    replica()
}

fn replica() -> String {
    std::env::var("REPLICA").unwrap_or_else(|_| "?".to_owned())
}

/// The replica: the `tools` command line over this catalog, ping rate-limited.
fn replica_main() -> ExitCode {
    let Ok(catalog) = ToolCatalog::global() else {
        eprintln!("error: the replicas' tools do not make a catalog");
        return ExitCode::from(2);
    };
    let ping = RateLimit::per_tool(5, Duration::from_secs(60)).only(GuardScope::tool("replica.ping"));
    let executor = Executor::builder(catalog.clone()).timeout(Duration::from_secs(90)).rate_limit(ping).build();
    ToolsCli::new(executor).run()
}

fn main() -> ExitCode {
    if std::env::args().len() > 1 {
        return replica_main();
    }
    match tokio::runtime::Runtime::new().map_err(|e| e.to_string()).and_then(|runtime| runtime.block_on(demo())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// A child process stopped when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn demo() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("tool-core-replicas-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("logs")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let redis_port = free_port()?;
    let _redis = start(Command::new(program("redis-server", &["/usr/bin", "/usr/sbin"])?).args([
        "--port",
        &redis_port.to_string(),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]))?;
    wait_for(([127, 0, 0, 1], redis_port).into(), "redis-server")?;
    let state = format!("redis://127.0.0.1:{redis_port}");
    let mut replicas = Vec::new();
    let mut upstreams = Vec::new();
    for name in ["A", "B"] {
        let port = free_port()?;
        let me = std::env::current_exe().map_err(|e| e.to_string())?;
        let child = start(Command::new(me).env("REPLICA", name).args([
            "serve-mcp",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--state",
            &state,
            "--stateless",
            "--conversation-header",
            "x-conversation-id",
        ]))?;
        let address: SocketAddr = ([127, 0, 0, 1], port).into();
        wait_for(address, "the replica")?;
        println!("replica {name} serves MCP at http://{address}/mcp");
        replicas.push(child);
        upstreams.push(address);
    }
    let front = free_port()?;
    let _nginx = nginx(&dir, front, &upstreams)?;
    wait_for(([127, 0, 0, 1], front).into(), "nginx")?;
    let url = format!("http://127.0.0.1:{front}/mcp");
    println!("nginx balances them at {url} (round robin, no affinity)\n");

    let headers = HashMap::from([("x-conversation-id".parse().unwrap(), "demo-conversation".parse().unwrap())]);
    let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers);
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.map_err(|e| e.to_string())?;
    for by in 1..=6 {
        let arguments = serde_json::json!({ "by": by }).as_object().cloned().unwrap_or_default();
        let result = client
            .call_tool(CallToolRequestParams::new("tally.add").with_arguments(arguments))
            .await
            .map_err(|e| e.to_string())?;
        let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
        println!("tally.add {by:>2} -> {text}");
    }
    let _ = client.cancel().await;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn start(command: &mut Command) -> Result<Running, String> {
    let child = command.stdout(Stdio::null()).stderr(Stdio::inherit()).spawn();
    child.map(Running).map_err(|e| format!("cannot start {command:?}: {e}"))
}

/// `name` on PATH or in one of `also` (Debian puts nginx in /usr/sbin).
fn program(name: &str, also: &[&str]) -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(also.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .ok_or_else(|| format!("{name} is not installed (Debian: apt-get install redis-server nginx)"))
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn wait_for(address: SocketAddr, what: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(address).is_err() {
        if Instant::now() > deadline {
            return Err(format!("{what} did not listen on {address} within 15 s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// nginx in front of `upstreams`: round robin, no affinity, a failed request not retried on
/// another replica (a tool call is not safe to send twice).
fn nginx(dir: &Path, port: u16, upstreams: &[SocketAddr]) -> Result<Running, String> {
    let servers: String = upstreams.iter().map(|up| format!("        server {up};\n")).collect();
    let d = dir.display();
    let config = format!(
        "worker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/logs/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n    access_log off;\n    client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n\
         \x20   fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n    scgi_temp_path {d}/scgi;\n\
         \x20   upstream replicas {{\n{servers}    }}\n\
         \x20   server {{\n        listen 127.0.0.1:{port};\n        location / {{\n\
         \x20           proxy_pass http://replicas;\n            proxy_http_version 1.1;\n\
         \x20           proxy_set_header Connection \"\";\n            proxy_set_header Host $host;\n\
         \x20           proxy_buffering off;\n\
         \x20           proxy_next_upstream off;\n        }}\n    }}\n}}\n"
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, config).map_err(|e| format!("{}: {e}", path.display()))?;
    let nginx = program("nginx", &["/usr/sbin"])?;
    start(Command::new(nginx).arg("-p").arg(dir).arg("-c").arg(&path).args(["-g", "daemon off;"]))
}
