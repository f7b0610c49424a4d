//! Replicas behind a load balancer, as processes: two or three `example_replicas` servers
//! (`examples/replicas.rs`: the `tools` command line with `serve-mcp --state redis://..
//! --stateless --conversation-header x-conversation-id`), one real `redis-server`, and a real
//! nginx in front (round robin, no affinity). Each test skips with one line when Redis or nginx
//! is missing (`.ci/run` installs both, and makes a skip fail).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use tool_tests::nginx::Nginx;
use tool_tests::redis_server::RedisServer;

type Client = RunningService<RoleClient, ()>;

/// One replica process; killed with SIGKILL when dropped (or by [`Replica::kill`]).
struct Replica {
    child: Child,
    url: String,
}

/// The keys the replicas of the 2026-07-28 tests seal `requestState` with.
const STATE_KEYS: &str = "old=an old key of thirty-two bytes or more\nnew=a new key of thirty-two bytes or more";

impl Replica {
    fn start(name: &str, state: &str) -> Replica {
        Replica::start_with(name, state, &["--conversation-header", "x-conversation-id"])
    }

    /// A replica of conversations named by handles, sealing rounds with [`STATE_KEYS`].
    fn with_handles(name: &str, state: &str) -> Replica {
        Replica::start_with(name, state, &["--request-state-keys-env", "STATE_KEYS"])
    }

    fn start_with(name: &str, state: &str, args: &[&str]) -> Replica {
        let mut child = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
            .env("REPLICA", name)
            .env("STATE_KEYS", STATE_KEYS)
            .args(["serve-mcp", "--http", "127.0.0.1:0", "--json", "--state", state, "--stateless"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the replica starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("its stdout")).read_line(&mut line).expect("its first line");
        let url = serde_json::from_str::<Value>(&line).unwrap_or_else(|_| panic!("a JSON line: {line:?}"))["url"]
            .as_str()
            .expect("the url")
            .to_owned();
        Replica { child, url }
    }

    /// `kill -9`: the process ends at once, whatever it was doing.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn client(url: &str, conversation: &str) -> Client {
    let headers = HashMap::from([("x-conversation-id".parse().unwrap(), conversation.parse().unwrap())]);
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("the client connects")
}

/// A client that names no conversation.
async fn outside_any_conversation(url: &str) -> Client {
    ().serve(StreamableHttpClientTransport::from_uri(url)).await.expect("the client connects")
}

/// A call's text and whether it is an error.
async fn call(client: &Client, tool: &str, arguments: Value) -> (String, bool) {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.as_object().unwrap().clone());
    let result = serde_json::to_value(client.call_tool(params).await.expect("an answer")).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    (text, result["isError"] == Value::Bool(true))
}

/// Redis and two replicas; `None` (after one SKIPPED line) without Redis.
fn two_replicas(test: &str) -> Option<(RedisServer, Replica, Replica)> {
    let redis = RedisServer::start(test)?;
    let a = Replica::start("A", &redis.url());
    let b = Replica::start("B", &redis.url());
    Some((redis, a, b))
}

fn total(text: &str) -> u64 {
    text.split_once(' ').map_or(text, |(total, _)| total).parse().unwrap_or_else(|_| panic!("a total: {text:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_alternating_between_two_replicas_keeps_every_increment() {
    let Some((_redis, a, b)) = two_replicas("replicas::alternating") else { return };
    let clients = [client(&a.url, "alternating").await, client(&b.url, "alternating").await];
    for i in 1..=100u64 {
        let (text, error) = call(&clients[(i % 2) as usize], "tally.add", json!({ "by": 1 })).await;
        let replica = if i % 2 == 0 { "A" } else { "B" };
        assert_eq!((text, error), (format!("{i} (replica {replica})"), false));
    }
    assert_eq!(call(&clients[0], "tally.get", json!({})).await, (r#"{"result":100}"#.to_owned(), false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_nginx_round_robin_both_replicas_serve_one_conversation_and_none_is_lost() {
    let Some((_redis, a, b)) = two_replicas("replicas::nginx") else { return };
    let upstreams = [a.url.as_str(), b.url.as_str()].map(|url| {
        let authority = url.trim_start_matches("http://").trim_end_matches("/mcp");
        authority.parse().expect("host:port")
    });
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nginx-{}", std::process::id()));
    let Some(nginx) = Nginx::start("replicas::nginx", &upstreams, dir) else { return };
    let client = client(&format!("http://{}/mcp", nginx.address()), "through-nginx").await;
    let mut served = HashMap::new();
    for i in 1..=100u64 {
        let (text, error) = call(&client, "tally.add", json!({ "by": 1 })).await;
        assert!(!error, "{text}");
        assert_eq!(total(&text), i, "{text}");
        *served.entry(text.rsplit_once("replica ").unwrap().1.trim_end_matches(')').to_owned()).or_insert(0) += 1;
    }
    assert_eq!(served.len(), 2, "round robin reaches both replicas: {served:?}");
    assert_eq!(served.values().sum::<u32>(), 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_concurrent_calls_of_one_conversation_across_replicas_lose_no_update() {
    let Some((_redis, a, b)) = two_replicas("replicas::concurrent") else { return };
    let clients = Arc::new([client(&a.url, "concurrent").await, client(&b.url, "concurrent").await]);
    let calls: Vec<_> = (0..64)
        .map(|i| {
            let clients = Arc::clone(&clients);
            tokio::spawn(async move { call(&clients[i % 2], "tally.add", json!({ "by": 1 })).await })
        })
        .collect();
    let mut succeeded = Vec::new();
    let mut reported = Vec::new();
    for call in calls {
        let (text, error) = call.await.unwrap();
        if error {
            reported.push(text)
        } else {
            succeeded.push(total(&text))
        }
    }
    // Every success saw a total of its own: no two calls committed over the same state.
    succeeded.sort_unstable();
    let expected: Vec<u64> = (1..=succeeded.len() as u64).collect();
    assert_eq!(succeeded, expected, "reported: {reported:?}");
    let (stored, _) = call(&clients[0], "tally.get", json!({})).await;
    assert_eq!(stored, format!(r#"{{"result":{}}}"#, succeeded.len()), "reported: {reported:?}");
    assert_eq!(succeeded.len(), 64, "the calls wait for the conversation's lease in turn: {reported:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_call_leaves_the_last_committed_state_and_its_call_is_not_replayed() {
    let Some((_redis, mut a, b)) = two_replicas("replicas::kill") else { return };
    let on_a = client(&a.url, "killed").await;
    let on_b = client(&b.url, "killed").await;
    assert_eq!(call(&on_a, "tally.add", json!({ "by": 5 })).await, ("5 (replica A)".to_owned(), false));
    // A slow call holds the conversation on A; A dies before it commits.
    let slow = tokio::spawn(async move {
        let params = CallToolRequestParams::new("tally.slow_add")
            .with_arguments(json!({ "by": 1000, "ms": 5000 }).as_object().unwrap().clone());
        on_a.call_tool(params).await.map(|_| ())
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    a.kill();
    assert!(slow.await.unwrap().is_err(), "the client of the killed replica is told its call failed");
    // B goes on from the last committed state once the dead replica's lease runs out.
    let started = Instant::now();
    assert_eq!(call(&on_b, "tally.add", json!({ "by": 1 })).await, ("6 (replica B)".to_owned(), false));
    assert!(started.elapsed() < Duration::from_secs(30), "waited {:?} for the lease", started.elapsed());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let stored = call(&on_b, "tally.get", json!({})).await;
    assert_eq!(stored, (r#"{"result":6}"#.to_owned(), false), "the slow call never ran again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_holds_across_replicas() {
    let Some((_redis, a, b)) = two_replicas("replicas::rate") else { return };
    let clients = [client(&a.url, "rate").await, client(&b.url, "rate").await];
    let mut answers = Vec::new();
    for i in 0..8 {
        answers.push(call(&clients[i % 2], "replica.ping", json!({})).await);
    }
    let passed = answers.iter().filter(|(_, error)| !error).count();
    assert_eq!(passed, 5, "5 calls a minute across both replicas: {answers:?}");
    for (text, error) in &answers[5..] {
        assert!(error, "{text}");
        assert!(
            text.starts_with(
                "`replica.ping` was not run: its rate limit (5 calls per minute per tool) is reached. Try again in "
            ),
            "{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_stopped_calls_that_need_state_fail_closed_and_recover_when_it_is_back() {
    let Some((mut redis, a, _b)) = two_replicas("replicas::redis_down") else { return };
    let client = client(&a.url, "down").await;
    assert_eq!(call(&client, "tally.add", json!({ "by": 2 })).await, ("2 (replica A)".to_owned(), false));
    redis.stop();
    let (text, error) = call(&client, "tally.add", json!({ "by": 1 })).await;
    assert!(error);
    assert_eq!(text, "The call could not run: the state it needs is unavailable right now. Try again in a moment.");
    // A call outside any conversation, of a tool without state, needs nothing of the store (a
    // call in a conversation does: its retry budget is counted there).
    let outside = outside_any_conversation(&a.url).await;
    assert_eq!(call(&outside, "replica.name", json!({})).await, ("A".to_owned(), false), "a stateless call still runs");
    redis.start_again();
    // The connection manager reconnects; the server kept nothing (`--save ""`), so the tally
    // starts again.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (text, error) = call(&client, "tally.add", json!({ "by": 1 })).await;
        if !error {
            assert_eq!(text, "1 (replica A)");
            break;
        }
        assert!(Instant::now() < deadline, "still failing 20 s after Redis came back: {text}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// What `serve-mcp` prints and returns when it cannot start.
fn refused(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_example_replicas"))
        .args(["serve-mcp", "--http", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the replica runs");
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn serve_mcp_refuses_a_store_it_cannot_reach_or_read_and_never_prints_its_password() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let (code, stderr) = refused(&["--state", "redis://:hunter2@127.0.0.1:1"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("error: --state: the redis state store is unavailable: "), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert_eq!(
        refused(&["--state-env", "TOOL_TEST_NO_SUCH_VARIABLE"], &[]),
        (
            Some(2),
            "error: --state-env TOOL_TEST_NO_SUCH_VARIABLE: the environment variable `TOOL_TEST_NO_SUCH_VARIABLE` is not set (or not text)\n"
                .to_owned()
        )
    );
    assert_eq!(
        refused(&["--state-env", "TOOL_TEST_EMPTY"], &[("TOOL_TEST_EMPTY", "")]),
        (Some(2), "error: the state store's URL is empty; give a secret\n".to_owned())
    );
    let (code, stderr) = refused(&["--state", "memcached://127.0.0.1:1"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("error: --state: "), "{stderr}");
}

/// A 2026-07-28 client over streamable HTTP that fills in forms with the name Ada.
#[derive(Clone)]
struct Ada;

impl rmcp::ClientHandler for Ada {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities.elicitation =
            Some(rmcp::model::ElicitationCapability::new().with_form(rmcp::model::FormElicitationCapability::new()));
        info
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let answer = rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept);
        Ok(answer.with_content(json!({"name": "Ada"})))
    }
}

async fn client_2026(url: &str) -> RunningService<RoleClient, Ada> {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = Ada.serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle).await.unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    client
}

async fn call_2026(client: &RunningService<RoleClient, Ada>, tool: &str, arguments: Value) -> Value {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.as_object().unwrap().clone());
    serde_json::to_value(client.call_tool(params).await.expect("an answer")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_nginx_a_2026_client_answers_rounds_and_threads_a_handle_across_replicas() {
    let Some(redis) = RedisServer::start("replicas::rounds") else { return };
    let (a, b) = (Replica::with_handles("A", &redis.url()), Replica::with_handles("B", &redis.url()));
    let upstreams = [a.url.as_str(), b.url.as_str()].map(|url| {
        let authority = url.trim_start_matches("http://").trim_end_matches("/mcp");
        authority.parse().expect("host:port")
    });
    let dir =
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nginx-rounds-{}", std::process::id()));
    let Some(nginx) = Nginx::start("replicas::rounds", &upstreams, dir) else { return };
    let client = client_2026(&format!("http://{}/mcp", nginx.address())).await;
    // Each greeting takes two rounds, and round robin sends each request to the other replica
    // than the last: the rounds of every call are served by both replicas, which share the
    // keys and the store. A call of `replica.name` in between shifts which one completes.
    let mut served = HashMap::new();
    for _ in 0..6 {
        let result = call_2026(&client, "replica.greet", json!({})).await;
        let text = result["content"][0]["text"].as_str().unwrap().to_owned();
        let completed = text.strip_prefix("Hello Ada (replica ").expect("a greeting").trim_end_matches(')').to_owned();
        let next = call_2026(&client, "replica.name", json!({})).await;
        assert_ne!(next["content"][0]["text"].as_str().unwrap(), completed, "round robin alternates");
        *served.entry(completed).or_insert(0) += 1;
    }
    assert_eq!(served, HashMap::from([("A".to_owned(), 3), ("B".to_owned(), 3)]));
    // A handle given by one replica goes on with the same tally on the other.
    let first = call_2026(&client, "tally.add", json!({"by": 1})).await;
    let handle = first["_meta"]["tool-core/conversation"].as_str().expect("a handle").to_owned();
    for i in 2..=10u64 {
        let result = call_2026(&client, "tally.add", json!({"by": 1, "conversation": handle})).await;
        assert_eq!(total(result["content"][0]["text"].as_str().unwrap()), i, "{result}");
    }
    client.cancel().await.unwrap();
}

#[test]
fn serve_mcp_refuses_request_state_keys_it_cannot_use_without_printing_them() {
    let (code, stderr) = refused(&["--request-state-keys-env", "KEYS"], &[("KEYS", "k1=short")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the request state key `k1` (line 1) is 5 bytes long; a key needs at least 32"),
        "{stderr}"
    );
    let (code, stderr) = refused(&["--request-state-keys-env", "KEYS"], &[("KEYS", "no equals sign here")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "the request state keys: line 1 is not `id=secret` (one key per line, the first the one that seals)"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("short") && !stderr.contains("equals sign"), "{stderr}");
}

#[test]
fn serve_mcp_refuses_a_task_lease_out_of_bounds() {
    for lease in ["0", "0.01", "a while", "100000"] {
        let (code, stderr) = refused(&["--task-lease", lease], &[]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "invalid value '{lease}' for '--task-lease <SECONDS>': `{lease}` is not a number of seconds from 0.03 to 86400"
            )),
            "{stderr}"
        );
    }
}

/// A 2026-07-28 client that declares the tasks extension and takes forms.
#[derive(Clone)]
struct Tasking;

impl rmcp::ClientHandler for Tasking {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = Ada.get_info();
        let extensions = info.capabilities.extensions.get_or_insert_with(Default::default);
        extensions.insert(rmcp::model::TASKS_EXTENSION_ID.to_owned(), Default::default());
        info
    }
}

async fn tasking_client(url: &str) -> RunningService<RoleClient, Tasking> {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    Tasking.serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle).await.unwrap()
}

/// Polls the task through `client` until `done` says so (at most 20 seconds). A poll that
/// nginx answers 502 (it sent it to a replica that was killed, which it then leaves out) is
/// made again, as a client polling a task does.
async fn poll_task(client: &RunningService<RoleClient, Tasking>, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let polled = client.get_task(rmcp::model::GetTaskParams::new(id)).await;
        assert!(Instant::now() < deadline, "the task never got there: {polled:?}");
        let task = match polled {
            Ok(polled) => serde_json::to_value(polled.task).unwrap(),
            Err(error) if error.to_string().contains("502") => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(error) => panic!("tasks/get failed: {error}"),
        };
        if done(&task) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_while_a_task_waits_for_approval_leaves_it_to_the_other_through_nginx() {
    let Some(redis) = RedisServer::start("replicas::task_takeover") else { return };
    let lease = ["--request-state-keys-env", "STATE_KEYS", "--task-lease", "1"];
    let (mut a, b) = (Replica::start_with("A", &redis.url(), &lease), Replica::start_with("B", &redis.url(), &lease));
    let upstreams = [a.url.as_str(), b.url.as_str()].map(|url| {
        let authority = url.trim_start_matches("http://").trim_end_matches("/mcp");
        authority.parse().expect("host:port")
    });
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nginx-tasks-{}", std::process::id()));
    let Some(nginx) = Nginx::start("replicas::task_takeover", &upstreams, dir) else { return };

    // Replica A accepts the call and runs it: it waits for the user's approval.
    let on_a = tasking_client(&a.url).await;
    let params =
        CallToolRequestParams::new("replica.deploy").with_arguments(json!({"build": 7}).as_object().unwrap().clone());
    let rmcp::model::CallToolResponse::Task(created) = on_a.call_tool_once(params).await.unwrap() else {
        panic!("expected a task")
    };
    let id = created.task.task_id.clone();
    // Polled through nginx, round robin: both replicas answer for it from the store.
    let through = tasking_client(&format!("http://{}/mcp", nginx.address())).await;
    let waiting = |task: &Value| task["status"] == "input_required";
    let asked = poll_task(&through, &id, waiting).await;
    let (key, question) =
        asked["inputRequests"].as_object().unwrap().iter().next().map(|(k, q)| (k.clone(), q.clone())).unwrap();
    assert!(
        question["params"]["message"].as_str().unwrap().starts_with("Allow the tool `replica.deploy` to run"),
        "{question}"
    );
    for _ in 0..4 {
        assert_eq!(poll_task(&through, &id, |_| true).await["status"], "input_required");
    }

    // A dies. Once its lease lapses, B (the one nginx reaches now) runs the call again from the
    // top: the same question, open under the same key.
    a.kill();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = poll_task(&through, &id, waiting).await;
    assert_eq!(again["inputRequests"][&key], question, "{again}");
    let approve = std::collections::BTreeMap::from([(key, json!({"action": "accept", "content": {"approve": true}}))]);
    through.update_task(rmcp::model::UpdateTaskParams::new(&id, approve)).await.unwrap();
    let ended =
        poll_task(&through, &id, |task| task["status"] != "input_required" && task["status"] != "working").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(ended["result"]["content"][0]["text"], "deployed build 7 (replica B)");
    drop(b);
}
