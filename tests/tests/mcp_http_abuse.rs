//! The streamable HTTP server against hostile clients, on 127.0.0.1 in one process: a loop of
//! `initialize` (sessions are capped, idle ones expire), slow clients that never finish a
//! header or a body (cut off), more connections than the cap (left waiting, unaccepted), more
//! requests at once than the cap (refused at once), and an address beyond loopback without a
//! token (refused). Memory and file descriptors are read from `/proc/self`; the tests run one
//! at a time so that each reads only its own.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tool_core::mcp::{McpHttpBuilder, McpImport, McpServer};
use tool_core::prelude::*;

#[path = "../src/mcp/tools.rs"]
mod tools;

use tools::{add_note, wait_note, WAITING};

/// One test at a time: memory and descriptors are the process's.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn builder() -> McpHttpBuilder {
    let catalog = ToolCatalog::builder().add_declared::<add_note>().add_declared::<wait_note>().build().unwrap();
    McpServer::new(Executor::new(catalog)).unwrap().http()
}

fn resident_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

/// Raises this process's limit on open files to `needed` if it is lower (up to the hard
/// limit, which only the system can raise).
fn allow_descriptors(needed: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current.is_some_and(|current| current < needed) {
        let hard = limit.maximum.unwrap_or(u64::MAX);
        assert!(hard >= needed, "this test needs {needed} open files; the hard limit is {hard} (ulimit -Hn)");
        setrlimit(Resource::Nofile, Rlimit { current: Some(needed), maximum: limit.maximum }).unwrap();
    }
}

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// POSTs an `initialize`.
async fn post_initialize(client: &reqwest::Client, url: &str) -> reqwest::Response {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(tool_tests::mcp_initialize(1, "flood").to_string())
        .send()
        .await
        .unwrap()
}

/// POSTs `subscriptions/listen` until the server refuses it (the import's own stream may take
/// a moment to open; a stream this opens instead is closed at once): the status, the
/// `Retry-After`, the body.
async fn listen_refused(url: &str) -> (u16, Option<String>, String) {
    let listen = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {}});
    for _ in 0..200 {
        let response = tool_tests::mcp_post(&reqwest::Client::new(), url, "2026-07-28", &listen).await.unwrap();
        if response.status().as_u16() == 503 {
            let retry = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
            return (503, retry, response.text().await.unwrap());
        }
        drop(response);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server never refused a second listen stream")
}

/// POSTs an `initialize`; the status, the session id, the body.
async fn initialize(client: &reqwest::Client, url: &str) -> (u16, Option<String>, String) {
    let response = post_initialize(client, url).await;
    let status = response.status().as_u16();
    let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    (status, session, response.text().await.unwrap())
}

const SESSIONS_FULL: &str =
    "the server already holds its maximum of 1000 MCP sessions; end one (HTTP DELETE) or retry \
                             once idle ones have expired";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_initializes_hold_the_session_cap_in_bounded_memory_and_a_client_is_still_served() {
    let _serial = SERIAL.lock().await;
    let running = builder().start().await.unwrap();
    let url = running.url();
    // A client that was there first, in a session of its own (2025-11-25: a 2026-07-28 client
    // holds none).
    let imported = McpImport::http(&url).legacy_only(true).connect().await.unwrap();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());

    let before = resident_mb();
    let client = reqwest::Client::new();
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let mut refusals = std::collections::BTreeSet::new();
    // 50 at a time, each its own request.
    for _ in 0..(10_000 / 50) {
        let batch: Vec<_> = (0..50)
            .map(|_| {
                let (client, url) = (client.clone(), url.clone());
                tokio::spawn(async move { initialize(&client, &url).await })
            })
            .collect();
        for call in batch {
            let (status, session, body) = call.await.unwrap();
            *statuses.entry(status).or_default() += 1;
            if status == 503 {
                assert_eq!(session, None);
                refusals.insert(body);
            }
        }
    }
    let grown = resident_mb().saturating_sub(before);
    // The first client holds one of the 1,000 places.
    assert_eq!(statuses, [(200, 999), (503, 9001)].into_iter().collect());
    assert_eq!(refusals.into_iter().collect::<Vec<_>>(), [SESSIONS_FULL]);
    assert!(grown < 200, "the resident memory grew by {grown} MB for 1,000 sessions");
    eprintln!("10,000 initializes: resident memory grew by {grown} MB");

    let record = executor.execute(ToolCallRequest::new("notes.add", "1", r#"{"text": "still here"}"#)).await;
    assert_eq!((record.status, record.content.text.as_str()), (CallStatus::Success, "still here (priority 1)"));
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ended_or_idle_frees_its_place() {
    let _serial = SERIAL.lock().await;
    let running = builder().max_sessions(1).session_idle_timeout(Duration::from_millis(300)).start().await.unwrap();
    let url = running.url();
    let client = reqwest::Client::new();
    let (status, session, _) = initialize(&client, &url).await;
    assert_eq!(status, 200);
    let (status, _, body) = initialize(&client, &url).await;
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            "the server already holds its maximum of 1 MCP sessions; end one (HTTP DELETE) or retry once idle ones \
             have expired"
        )
    );
    // Ended by its client.
    let ended = client.delete(&url).header("mcp-session-id", session.unwrap()).send().await.unwrap();
    assert!(ended.status().is_success(), "{}", ended.status());
    assert_eq!(initialize(&client, &url).await.0, 200);
    // Idle: closed by the server after 300 ms without a request.
    let mut waited = Duration::ZERO;
    while initialize(&client, &url).await.0 != 200 {
        assert!(waited < Duration::from_secs(10), "the idle session was never closed");
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += Duration::from_millis(100);
    }
    assert!(waited >= Duration::from_millis(200), "the place was freed after {waited:?}, before the session idled");
    running.shutdown().await;
}

/// Opens `count` connections that each send the start of a header and never finish it.
async fn slow_clients(address: std::net::SocketAddr, count: usize) -> Vec<TcpStream> {
    let mut streams = Vec::with_capacity(count);
    for _ in 0..count {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty").await.unwrap();
        streams.push(stream);
    }
    streams
}

/// Whether the server closed `stream` within `within` (end of stream, or reset).
async fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 512];
    loop {
        match tokio::time::timeout(within, stream.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            // hyper may answer 408 before closing.
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_slow_clients_are_cut_off_after_the_read_timeout_while_a_normal_client_is_served() {
    let _serial = SERIAL.lock().await;
    // Both ends of each connection are ours.
    allow_descriptors(4096);
    let running = builder().request_read_timeout(Duration::from_secs(1)).start().await.unwrap();
    let (descriptors, memory) = (open_descriptors(), resident_mb());
    let mut slow = slow_clients(running.local_addr(), 1000).await;
    // Ours, and the server's for each.
    let open = open_descriptors() - descriptors;
    assert!(open <= 2000 + 20, "{open} descriptors for 1,000 slow clients");

    let (status, _, _) = initialize(&reqwest::Client::new(), &running.url()).await;
    assert_eq!(status, 200, "a normal client is served while 1,000 slow ones are connected");

    let mut cut = 0;
    for stream in &mut slow {
        cut += usize::from(closed_by_server(stream, Duration::from_secs(10)).await);
    }
    assert_eq!(cut, 1000);
    drop(slow);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let left = open_descriptors().saturating_sub(descriptors);
    assert!(left <= 20, "{left} descriptors still open after the slow clients were cut off");
    let grown = resident_mb().saturating_sub(memory);
    assert!(grown < 100, "the resident memory grew by {grown} MB");
    eprintln!("1,000 slow clients: {open} descriptors while open, {left} after; memory grew by {grown} MB");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_unaccepted_and_are_served_in_turn() {
    let _serial = SERIAL.lock().await;
    let running =
        builder().max_connections(100).request_read_timeout(Duration::from_millis(500)).start().await.unwrap();
    allow_descriptors(4096);
    let descriptors = open_descriptors();
    let slow = slow_clients(running.local_addr(), 300).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Our 300, and at most the server's 100: the others wait in the listening socket's queue.
    let open = open_descriptors() - descriptors;
    assert!(open <= 300 + 100 + 10, "{open} descriptors for 300 connections with a cap of 100");
    // Behind the slow ones, each cut off after 500 ms: served in turn.
    let served = tokio::time::timeout(Duration::from_secs(15), initialize(&reqwest::Client::new(), &running.url()))
        .await
        .expect("served once the slow clients ahead were cut off");
    assert_eq!(served.0, 200);
    drop(slow);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_arrives_is_refused_with_408_and_a_header_left_unfinished_closes_the_connection() {
    let _serial = SERIAL.lock().await;
    let running = builder().request_read_timeout(Duration::from_millis(300)).start().await.unwrap();
    let mut stream = TcpStream::connect(running.local_addr()).await.unwrap();
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer)).await.unwrap().unwrap_or(0);
    assert!(answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nthe request body did not arrive within 300 ms"), "{answer}");

    // A connection kept open after an answer gets the same time for its next header.
    let mut stream = TcpStream::connect(running.local_addr()).await.unwrap();
    stream.write_all(b"GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.unwrap();
    let mut buffer = [0u8; 256];
    let read = stream.read(&mut buffer).await.unwrap();
    assert!(buffer[..read].starts_with(b"HTTP/1.1 404 Not Found\r\n"));
    assert!(closed_by_server(&mut stream, Duration::from_secs(5)).await, "an idle connection is closed");
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_beyond_the_cap_are_refused_at_once_and_served_again_when_one_ends() {
    let _serial = SERIAL.lock().await;
    let running = builder().max_concurrent_requests(2).max_listen_streams(1).start().await.unwrap();
    let url = running.url();
    // A 2026-07-28 client: the import keeps a `subscriptions/listen` stream open, which holds a
    // listen stream's place, not a request's. The one place is taken: another is refused.
    let imported = McpImport::http(&url).connect().await.unwrap();
    assert_eq!(
        listen_refused(&url).await,
        (
            503,
            Some("5".to_owned()),
            "the server already holds its maximum of 1 subscriptions/listen streams \
             (`McpHttpBuilder::max_listen_streams`); retry once one has closed"
                .to_owned()
        )
    );
    // Both request places are free for the calls.
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    let calls = async {
        let first = executor.execute(ToolCallRequest::new("notes.wait", "1", r#"{"steps": 100}"#));
        let second = executor.execute(ToolCallRequest::new("notes.wait", "2", r#"{"steps": 100}"#));
        tokio::join!(first, second)
    };
    let refused = async {
        while WAITING.load(Ordering::SeqCst) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Pings and the client's notifications still pass: the importer's calls are not lost.
        let response = post_initialize(&reqwest::Client::new(), &url).await;
        let retry = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
        (response.status().as_u16(), retry, response.text().await.unwrap())
    };
    let ((first, second), refused) = tokio::join!(calls, refused);
    assert_eq!(
        refused,
        (
            503,
            Some("1".to_owned()),
            "the server is busy: it already serves its maximum of 2 requests at once; retry shortly".to_owned()
        )
    );
    assert_eq!((first.content.text.as_str(), second.content.text.as_str()), ("waited 100 steps", "waited 100 steps"));
    assert_eq!(initialize(&reqwest::Client::new(), &url).await.0, 200);
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_beyond_loopback_needs_a_bearer_token_unless_the_host_allows_it() {
    let _serial = SERIAL.lock().await;
    let any: std::net::SocketAddr = "0.0.0.0:0".parse().unwrap();
    let refused = builder().bind(any).start().await.err().expect("refused without a token");
    assert_eq!(
        refused.to_string(),
        "cannot listen on 0.0.0.0:0: a server reachable beyond this machine needs a bearer token: set \
         `bearer_token(..)`, or call `allow_unauthenticated_remote(true)` to let anyone who can reach it call every tool"
    );
    let empty = builder().bearer_token("").start().await.err().expect("an empty token is refused");
    assert_eq!(
        empty.to_string(),
        "cannot listen on 127.0.0.1:0: the bearer token is empty; give `bearer_token(..)` a secret"
    );
    builder().bind(any).bearer_token("s3cret").start().await.unwrap().shutdown().await;
    builder().bind(any).allow_unauthenticated_remote(true).start().await.unwrap().shutdown().await;
    // Loopback needs neither, in both families.
    builder().bind("[::1]:0".parse().unwrap()).start().await.unwrap().shutdown().await;
}
