//! `McpImport` against an rmcp server written to misbehave, over streamable HTTP on
//! 127.0.0.1: a `nextCursor` that never ends, a flood of `tools/list_changed`, a tool named
//! like one of the host's, a 50 MB input schema, silence, and a URL carrying credentials.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tool_core::mcp::{McpImport, McpImportError, SkipReason, SkippedTool};
use tool_core::prelude::*;
use tool_core::{CallFailure, DynamicTool};

#[path = "../src/mcp/hostile.rs"]
mod hostile;

use hostile::{Behaviour, Hostile, Seen};

/// The same server as a child process on stdio.
const HOSTILE: &str = env!("CARGO_BIN_EXE_mcp_hostile_server");

/// The host's own search.
#[tool(name = "search")]
fn host_search(query: String) -> String {
    format!("host found {query}")
}

/// A running hostile server.
struct Server {
    address: SocketAddr,
    seen: Arc<Seen>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start(behaviour: Behaviour) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Server::on(listener, behaviour).await
    }

    async fn on(listener: tokio::net::TcpListener, behaviour: Behaviour) -> Server {
        let address = listener.local_addr().unwrap();
        let seen = Arc::new(Seen::default());
        let stop = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(["127.0.0.1".to_owned()])
            .with_legacy_session_mode(true)
            .with_cancellation_token(stop.child_token());
        let handler = Hostile { behaviour, seen: Arc::clone(&seen) };
        let service =
            StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(LocalSessionManager::default()), config);
        let router = axum::Router::new().route_service("/mcp", service);
        let shutdown = stop.clone();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled().await })
                .await
                .unwrap();
        });
        Server { address, seen, stop, task }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    async fn shutdown(self) {
        self.stop.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }
}

fn names(import: &McpImport) -> Vec<String> {
    let mut names: Vec<String> = import.tools().iter().map(|t| t.definition().name.clone()).collect();
    names.sort();
    names
}

fn failure_code(record: &ExecutionRecord) -> Option<&str> {
    match &record.failure {
        Some(CallFailure::ToolError { error }) => error.code(),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_cursor_is_refused_after_the_page_limit() {
    let server = Server::start(Behaviour::EndlessCursor).await;
    let url = server.url();
    let error = tokio::time::timeout(Duration::from_secs(15), McpImport::http(&url).connect())
        .await
        .expect("the import stops by itself")
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot list the tools of the MCP server `{url}`: it still gives a `nextCursor` after 100 pages (`McpImportBuilder::max_pages`)"
        )
    );
    assert_eq!(server.seen.lists.load(Ordering::SeqCst), 100);

    // Fewer pages when the host says so; the tool limit stops it sooner still.
    let error = McpImport::http(&url).max_pages(5).connect().await.unwrap_err();
    assert!(matches!(error, McpImportError::List { .. }), "{error}");
    assert!(error.to_string().ends_with("after 5 pages (`McpImportBuilder::max_pages`)"), "{error}");
    assert_eq!(server.seen.lists.load(Ordering::SeqCst), 105);
    let error = McpImport::http(&url).max_tools(25).connect().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot list the tools of the MCP server `{url}`: it lists more than 25 tools (`McpImportBuilder::max_tools`)"
        )
    );
    assert_eq!(server.seen.lists.load(Ordering::SeqCst), 108);
    // Each page is ten tools of about 1.1 KB: the second page passes 20,000 bytes.
    let error = McpImport::http(&url).max_list_bytes(20_000).connect().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot list the tools of the MCP server `{url}`: its tools take more than 20000 bytes of JSON together (`McpImportBuilder::max_list_bytes`)"
        )
    );
    assert_eq!(server.seen.lists.load(Ordering::SeqCst), 110);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_over_the_size_limit_is_skipped_with_the_reason() {
    let server = Server::start(Behaviour::Tools { huge: 1_000_000 }).await;
    let import = McpImport::http(server.url()).prefix("remote.").connect().await.unwrap();
    assert_eq!(names(&import), ["remote.echo", "remote.flood", "remote.generation_0", "remote.search", "remote.stats"]);
    assert_eq!(
        import.skipped(),
        [SkippedTool { name: "huge".to_owned(), reason: SkipReason::TooLarge { max_bytes: 262144 } }]
    );
    // The host may allow more.
    let roomy = McpImport::http(server.url()).max_tool_bytes(2_000_000).connect().await.unwrap();
    assert!(names(&roomy).contains(&"huge".to_owned()));
    assert_eq!(roomy.skipped(), []);
    import.close().await;
    roomy.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_with_a_50_mb_schema_is_refused_by_the_transport_limit() {
    let server = Server::start(Behaviour::Tools { huge: 50_000_000 }).await;
    let error = tokio::time::timeout(Duration::from_secs(15), McpImport::http(server.url()).connect())
        .await
        .expect("refused, not waited for")
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot list the tools of the MCP server `{}`: the connection closed during `tools/list` (Transport closed); a message larger than 16 MiB, the limit of rmcp's transports, closes it",
            server.url()
        )
    );
    server.shutdown().await;
}

fn collision(remote: &str, local: &str, source: &str) -> SkippedTool {
    SkippedTool {
        name: remote.to_owned(),
        reason: SkipReason::NameTaken { name: local.to_owned(), imported: false, holder_source: source.to_owned() },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_tool_named_like_a_host_tool_is_refused_whatever_the_order() {
    let server = Server::start(Behaviour::Tools { huge: 0 }).await;
    let import = McpImport::http(server.url()).connect().await.unwrap();
    let host = ToolCatalog::builder().add_declared::<host_search>().build().unwrap();
    let host_source = host.definition("search").unwrap().source.to_string();

    // The host's tool first.
    let catalog = import.add_to(ToolCatalog::builder().add_declared::<host_search>()).build().unwrap();
    assert_eq!(catalog.names().collect::<Vec<_>>(), ["echo", "flood", "generation_0", "search", "stats"]);
    assert_eq!(catalog.definition("search").unwrap().description, "The host's own search.");
    assert_eq!(import.skipped(), [collision("search", "search", &host_source)]);
    let executor = Executor::new(catalog.clone());
    let record = executor.execute(ToolCallRequest::new("search", "1", r#"{"query": "the secret plan"}"#)).await;
    assert_eq!((record.status, record.content.text.as_str()), (CallStatus::Success, "host found the secret plan"));

    // Rebuilt from itself after a change: the import's own tools are replaced, the host's stays.
    let rebuilt = import.add_to(catalog.to_builder()).build().unwrap();
    assert_eq!(rebuilt.names().collect::<Vec<_>>(), ["echo", "flood", "generation_0", "search", "stats"]);
    assert_eq!(rebuilt.definition("search").unwrap().description, "The host's own search.");
    assert_eq!(import.skipped(), [collision("search", "search", &host_source)]);

    // The host's tool added after the import: still the host's.
    let later = import.add_to(ToolCatalog::builder()).add_declared::<host_search>().build().unwrap();
    assert_eq!(later.definition("search").unwrap().description, "The host's own search.");
    assert_eq!(import.skipped(), [collision("search", "search", &host_source)]);
    let record =
        Executor::new(later).execute(ToolCallRequest::new("search", "2", r#"{"query": "the secret plan"}"#)).await;
    assert_eq!(record.content.text, "host found the secret plan");

    // Whatever the prefix: a host tool named like the prefixed remote one wins.
    let prefixed = McpImport::http(server.url()).prefix("remote.").connect().await.unwrap();
    let host_echo = DynamicTool::builder("remote.echo")
        .description("The host's echo.")
        .input_schema(json!({"type": "object", "properties": {}, "required": []}))
        .handler(|_, _| async { Ok::<_, ToolError>(ToolOutput::text("host echo")) })
        .build()
        .unwrap();
    let catalog = prefixed.add_to(ToolCatalog::builder()).add_tool(host_echo).build().unwrap();
    assert_eq!(catalog.definition("remote.echo").unwrap().description, "The host's echo.");
    assert_eq!(prefixed.skipped(), [collision("echo", "remote.echo", "(runtime):0")]);

    // Two imports of one name: the first added keeps it, the second is told.
    let second = McpImport::http(server.url()).connect().await.unwrap();
    let both = second.add_to(import.add_to(ToolCatalog::builder())).build().unwrap();
    assert_eq!(both.len(), 5);
    assert_eq!(second.skipped().len(), 5);
    assert!(
        second.skipped()[0].reason.to_string().contains("(another imported tool, from mcp:http://127.0.0.1:"),
        "{:?}",
        second.skipped()
    );

    assert_eq!(server.seen.remote_search_calls.load(Ordering::SeqCst), 0);
    for import in [import, prefixed, second] {
        import.close().await;
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_list_changed_runs_one_refresh_at_a_time() {
    const FLOOD: u64 = 100_000;
    // Over stdio, where notifications arrive fastest. The flood holds up the session's replies,
    // pings included, for tens of seconds on a busy machine: a heartbeat patient enough (five
    // missed beats, 75 s) that only the flood's own deadline below can end the wait.
    let import = McpImport::command(HOSTILE).arg("tools").heartbeat(Duration::from_secs(15)).connect().await.unwrap();
    let executor = Executor::new(import.add_to(ToolCatalog::builder()).build().unwrap());
    let stats = || async {
        let record = executor.execute(ToolCallRequest::new("stats", "stats", "{}")).await;
        serde_json::from_str::<Value>(&record.content.text).unwrap()
    };
    assert_eq!(stats().await, json!({"lists": 1, "most_lists_in_flight": 1}));

    let record = tokio::time::timeout(
        Duration::from_secs(60),
        executor.execute(ToolCallRequest::new("flood", "1", format!(r#"{{"count": {FLOOD}}}"#))),
    )
    .await
    .expect("the flood is sent");
    assert_eq!(record.content.text, format!("sent {}", FLOOD + 1));

    // The last notification came after the last change: the import ends with that list.
    let mut changes = import.changes();
    tokio::time::timeout(Duration::from_secs(60), async {
        while !names(&import).contains(&"generation_1".to_owned()) {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("the list is read again after the flood");
    // And then goes quiet: no refresh left running or queued.
    let mut last = Value::Null;
    let mut now = stats().await;
    while now != last {
        tokio::time::sleep(Duration::from_millis(300)).await;
        (last, now) = (now, stats().await);
    }
    assert_eq!(now["most_lists_in_flight"], 1);
    let lists = now["lists"].as_u64().unwrap();
    // Each refresh lists while notifications keep coming, and one more follows it: far fewer
    // than one per notification.
    assert!((2..FLOOD / 20).contains(&lists), "{lists} lists for {FLOOD} notifications");
    assert_eq!(names(&import), ["echo", "flood", "generation_1", "search", "stats"]);
    import.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_server_times_out_the_handshake_and_the_list() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let error = McpImport::http(&url).handshake_timeout(Duration::from_millis(300)).connect().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot connect to the MCP server `{url}`: no answer to `server/discover` or `initialize` within 300 ms (`McpImportBuilder::handshake_timeout`)"
        )
    );
    holder.abort();

    let server = Server::start(Behaviour::SilentList).await;
    let error = McpImport::http(server.url()).list_timeout(Duration::from_millis(300)).connect().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot list the tools of the MCP server `{}`: the list was not complete within 300 ms (`McpImportBuilder::list_timeout`)",
            server.url()
        )
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_listed_twice_is_imported_once() {
    let server = Server::start(Behaviour::Duplicates).await;
    let import = McpImport::http(server.url()).connect().await.unwrap();
    assert_eq!(names(&import), ["echo"]);
    assert_eq!(import.tools()[0].definition().description, "Echo the text.");
    assert_eq!(import.skipped(), [SkippedTool { name: "echo".to_owned(), reason: SkipReason::ListedTwice }]);
    import.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_process_that_never_answers_is_given_up_on() {
    // Reads nothing and writes nothing: the handshake never ends by itself.
    let error = McpImport::command("sleep")
        .arg("30")
        .handshake_timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot connect to the MCP server `sleep`: no answer to `server/discover` or `initialize` within 300 ms (`McpImportBuilder::handshake_timeout`)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnecting_to_a_server_that_is_down_backs_off() {
    let server = Server::start(Behaviour::Tools { huge: 0 }).await;
    let address = server.address;
    let import = McpImport::http(server.url())
        .reconnect_backoff(Duration::from_secs(60), Duration::from_secs(120))
        .connect()
        .await
        .unwrap();
    let executor = Executor::new(import.add_to(ToolCatalog::builder()).build().unwrap());
    server.shutdown().await;

    // Down: a listener on the same port that drops every connection, counting them.
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    let dialled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&dialled);
    let dropper = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    let call = |id: &str| executor.execute(ToolCallRequest::new("echo", id, r#"{"text": "hi"}"#));
    let lost = call("1").await;
    assert_eq!(lost.status, CallStatus::Failed);
    // Two attempts in a row fail, each dialling the server.
    for id in ["2", "3"] {
        let record = call(id).await;
        assert_eq!(failure_code(&record), Some("mcp_unreachable"), "{}", record.model_text());
    }
    let dialled_before = dialled.load(Ordering::SeqCst);
    assert!(dialled_before >= 2, "{dialled_before}");
    // The third waits for the backoff: refused at once, without dialling.
    let record = call("4").await;
    assert_eq!(failure_code(&record), Some("mcp_unreachable"));
    let text = record.model_text();
    assert!(
        text.starts_with(&format!(
            "cannot connect to the MCP server `http://{address}/mcp`: 2 attempts in a row failed, the last with: "
        )),
        "{text}"
    );
    assert!(text.contains("; the next attempt is allowed in "), "{text}");
    assert!(text.ends_with(" ms (`McpImportBuilder::reconnect_backoff`)"), "{text}");
    assert_eq!(dialled.load(Ordering::SeqCst), dialled_before);
    dropper.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_in_the_url_never_reach_the_model_the_errors_or_debug_output() {
    let server = Server::start(Behaviour::Tools { huge: 1_000_000 }).await;
    let url = format!("http://user:secret@{}/mcp?token=abc#frag", server.address);
    let redacted = format!("http://***@{}/mcp?***#***", server.address);
    let builder = McpImport::http(&url).bearer_token("bearer-xyz");
    let mut texts = vec![format!("{builder:?}")];
    let import = builder.connect().await.unwrap();
    texts.push(format!("{import:?}"));
    let catalog = import.add_to(ToolCatalog::builder().add_declared::<host_search>()).build().unwrap();
    // A tool without a description is described by the server's URL, redacted.
    let generation = catalog.definition("generation_0").unwrap();
    assert_eq!(generation.description, format!("The tool `generation_0` of the MCP server `{redacted}`."));
    assert_eq!(generation.source.file, format!("mcp:{redacted}"));
    for definition in catalog.definitions() {
        texts.push(format!("{definition:?}"));
    }
    let skipped = import.skipped();
    assert_eq!(skipped.len(), 2);
    texts.extend(skipped.iter().map(|s| format!("{s:?}")));

    // Errors: a lost server, and a failed connection.
    let executor = Executor::new(catalog);
    server.shutdown().await;
    for id in ["1", "2"] {
        let record = executor.execute(ToolCallRequest::new("echo", id, r#"{"text": "hi"}"#)).await;
        assert_eq!(record.status, CallStatus::Failed);
        assert!(record.model_text().contains(&redacted), "{}", record.model_text());
        texts.push(record.model_text().to_owned());
        texts.push(format!("{record:?}"));
    }
    let tls = format!("https://user:secret@{}/mcp?token=abc", "127.0.0.1:9");
    let error = McpImport::http(&tls).handshake_timeout(Duration::from_secs(5)).connect().await.unwrap_err();
    assert!(
        error.to_string().starts_with("cannot connect to the MCP server `https://***@127.0.0.1:9/mcp?***`: "),
        "{error}"
    );
    texts.push(error.to_string());
    texts.push(format!("{error:?}"));

    for text in &texts {
        for secret in ["secret", "abc", "frag", "bearer-xyz"] {
            assert!(!text.contains(secret), "`{secret}` in {text}");
        }
    }
    import.close().await;
}
