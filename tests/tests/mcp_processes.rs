//! MCP across processes: tools imported from a child process over stdio, and a host (this
//! test) importing two servers that run as their own processes over streamable HTTP on
//! 127.0.0.1, one of which is killed during a batch and started again.
//!
//! The servers are `src/bin/mcp_test_server.rs`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tool_core::mcp::McpImport;
use tool_core::prelude::*;
use tool_core::CallFailure;

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");

fn failure_code(record: &ExecutionRecord) -> Option<&str> {
    match &record.failure {
        Some(CallFailure::ToolError { error }) => error.code(),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_process_server_is_imported_and_restarted_after_it_dies() {
    let imported = McpImport::command(SERVER).prefix("child.").connect().await.unwrap();
    // Over stdio too the import speaks 2026-07-28 to a server that does.
    assert_eq!(imported.protocol_version().as_deref(), Some("2026-07-28"));
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    // The server pages by two: every page was read.
    let names: Vec<&str> = executor.catalog().names().collect();
    assert_eq!(
        names,
        [
            "child.notes.add",
            "child.notes.count",
            "child.notes.fail",
            "child.notes.wait",
            "child.server.exit",
            "child.server.name",
            "child.server.waiting"
        ]
    );
    let record = executor.execute(ToolCallRequest::new("child.notes.add", "1", r#"{"text": "tea"}"#)).await;
    assert_eq!((record.status, record.content.text.as_str()), (CallStatus::Success, "tea (priority 1)"));

    // The server dies during the call: a failed record, never a hang.
    let record = tokio::time::timeout(
        Duration::from_secs(10),
        executor.execute(ToolCallRequest::new("child.server.exit", "2", "{}")),
    )
    .await
    .expect("the call of a dying server ends");
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(failure_code(&record), Some("mcp_connection_lost"));
    assert_eq!(
        record.model_text(),
        format!(
            "The MCP server `{SERVER}` was lost during the call of `server.exit` (Transport closed); the call may or may not have run."
        )
    );

    // The next call starts the server again.
    let record = executor.execute(ToolCallRequest::new("child.notes.add", "3", r#"{"text": "jam"}"#)).await;
    assert_eq!((record.status, record.content.text.as_str()), (CallStatus::Success, "jam (priority 1)"));
    imported.close().await;
}

/// A server process on `port`, killed when dropped.
struct ServerProcess(Child);

impl ServerProcess {
    fn start(name: &str, port: u16) -> (ServerProcess, String) {
        let mut child = Command::new(SERVER)
            .args(["--http", &format!("127.0.0.1:{port}"), "--name", name])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut url).unwrap();
        (ServerProcess(child), url.trim().to_owned())
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_host_runs_a_batch_across_two_server_processes_and_survives_one_being_killed() {
    let port_a = free_port();
    let (mut server_a, url_a) = ServerProcess::start("alpha", port_a);
    let (_server_b, url_b) = ServerProcess::start("beta", free_port());
    assert_eq!(url_a, format!("http://127.0.0.1:{port_a}/mcp"));

    let alpha = McpImport::http(&url_a).prefix("alpha.").connect().await.unwrap();
    let beta = McpImport::http(&url_b).prefix("beta.").connect().await.unwrap();
    let catalog = beta.add_to(alpha.add_to(ToolCatalog::builder())).build().unwrap();
    let executor = Executor::builder(catalog).concurrency(8).build();
    assert_eq!(executor.catalog().len(), 14);

    let batch = vec![
        ToolCallRequest::new("alpha.server.name", "1", "{}"),
        ToolCallRequest::new("beta.server.name", "2", "{}"),
        ToolCallRequest::new("alpha.notes.wait", "3", r#"{"steps": 300}"#),
        ToolCallRequest::new("beta.notes.wait", "4", r#"{"steps": "40"}"#),
        ToolCallRequest::new("beta.notes.add", "5", r#"{"text": "from beta", "priority": 3}"#),
    ];
    let killer = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        server_a.kill();
    };
    let (records, ()) =
        tokio::time::timeout(Duration::from_secs(30), async { tokio::join!(executor.execute_batch(batch), killer) })
            .await
            .expect("the batch ends though a server died");
    let summary: Vec<(CallStatus, &str)> = records.iter().map(|r| (r.status, r.content.text.as_str())).collect();
    assert_eq!(summary[0], (CallStatus::Success, "alpha"));
    assert_eq!(summary[1], (CallStatus::Success, "beta"));
    assert_eq!(records[2].status, CallStatus::Failed, "{:?}", records[2]);
    assert_eq!(failure_code(&records[2]), Some("mcp_connection_lost"), "{}", records[2].model_text());
    assert_eq!(summary[3], (CallStatus::Success, "waited 40 steps"));
    assert_eq!(summary[4], (CallStatus::Success, "from beta (priority 3)"));

    // Down: a failed record saying so, quickly.
    let record = executor.execute(ToolCallRequest::new("alpha.server.name", "6", "{}")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(failure_code(&record), Some("mcp_unreachable"), "{}", record.model_text());

    // Started again on the same port: the next call reconnects.
    let (_server_a, _) = ServerProcess::start("alpha", port_a);
    let record = executor.execute(ToolCallRequest::new("alpha.server.name", "7", "{}")).await;
    assert_eq!(
        (record.status, record.content.text.as_str()),
        (CallStatus::Success, "alpha"),
        "{}",
        record.model_text()
    );
}
