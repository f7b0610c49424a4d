//! REST tools against a real HTTP server on 127.0.0.1 (axum): every mapping (path, query,
//! headers, JSON body), every injection attempt, a slow endpoint, a flaky one, a 500, a body
//! that is not JSON, secrets kept out of records and errors, and registries in TOML and JSON.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::rest::{RestError, RestToolSpec, RestTools};
use tool_core::CallFailure;

const SECRET: &str = "s3cret-token-9f8e7d";

#[derive(Default)]
struct Counts {
    flaky: AtomicUsize,
}

/// Echoes what arrived: method, the raw path and query, the headers the tests look at, the body.
async fn echo(request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
    let header = |name: &str| parts.headers.get(name).map(|v| v.to_str().unwrap_or("(binary)").to_owned());
    let echoed = json!({
        "method": parts.method.as_str(),
        "path": parts.uri.path(),
        "query": parts.uri.query(),
        "authorization": header("authorization"),
        "trace": header("x-trace"),
        "body": serde_json::from_slice::<Value>(&body).ok(),
    });
    axum::Json(echoed).into_response()
}

async fn flaky(State(counts): State<Arc<Counts>>, _body: Bytes) -> Response {
    let n = counts.flaky.fetch_add(1, Ordering::SeqCst) + 1;
    if n % 3 != 0 {
        return (StatusCode::SERVICE_UNAVAILABLE, "try later").into_response();
    }
    axum::Json(json!({"attempt": n})).into_response()
}

async fn serve() -> (String, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let app = Router::new()
        .route("/api/echo/{*rest}", any(echo))
        .route("/api/flaky", any(flaky))
        .route(
            "/api/slow",
            any(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route("/api/boom", any(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "database exploded at row 7") }))
        .route("/api/text", any(|| async { "plain words ".repeat(2000) }))
        .route("/admin", any(|| async { "the admin page: must never be reached" }))
        .with_state(Arc::clone(&counts));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}/api"), counts)
}

fn item_spec(base: &str) -> RestToolSpec {
    let mut spec = RestToolSpec::new("items.get", "Get a user's items.", "GET", base, "/echo/users/{user}/items");
    spec.parameters = json!({
        "type": "object",
        "properties": {
            "user": {"type": "string"},
            "limit": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "trace": {"type": "string"},
            "extra": {"type": "string"}
        },
        "required": ["user"]
    });
    spec.query = vec!["limit".to_owned(), "tags".to_owned()];
    spec.header_parameters = BTreeMap::from([("X-Trace".to_owned(), "trace".to_owned())]);
    spec.headers = BTreeMap::from([("Authorization".to_owned(), "Bearer ${TOOL_REST_TEST_TOKEN}".to_owned())]);
    spec
}

fn executor_of(tools: Vec<DynamicTool>) -> Executor {
    let mut catalog = ToolCatalog::builder();
    for tool in tools {
        catalog = catalog.add_tool(tool);
    }
    Executor::new(catalog.build().unwrap())
}

fn set_token() {
    // Every test sets the same value, so tests running at once agree.
    std::env::set_var("TOOL_REST_TEST_TOKEN", SECRET);
}

async fn call(executor: &Executor, tool: &str, arguments: Value) -> ExecutionRecord {
    executor.execute(ToolCallRequest::new(tool, "1", arguments.to_string())).await
}

#[tokio::test]
async fn path_query_headers_and_the_rest_go_where_the_spec_says() {
    set_token();
    let (base, _) = serve().await;
    let executor = executor_of(vec![RestTools::new().build(&item_spec(&base)).unwrap()]);
    let record = call(
        &executor,
        "items.get",
        json!({"user": "ada", "limit": "5", "tags": ["a b", "c"], "trace": "t-1", "extra": "x"}),
    )
    .await;
    assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    assert_eq!(
        record.content.structured,
        Some(json!({
            "method": "GET",
            "path": "/api/echo/users/ada/items",
            "query": "limit=5&tags=a+b&tags=c&extra=x",
            "authorization": format!("Bearer {SECRET}"),
            "trace": "t-1",
            "body": null
        }))
    );
    // "5" was converted by the schema before the request was built.
    assert_eq!(record.warnings()[0].rule(), "string_to_integer");
}

#[tokio::test]
async fn a_post_sends_the_remaining_parameters_as_a_json_body() {
    set_token();
    let (base, _) = serve().await;
    let mut spec = RestToolSpec::new("notes.create", "Create a note.", "POST", &base, "/echo/notes/{folder}");
    spec.parameters = json!({
        "type": "object",
        "properties": {"folder": {"type": "string"}, "title": {"type": "string"}, "stars": {"type": "integer"}},
        "required": ["folder", "title"]
    });
    let executor = executor_of(vec![RestTools::new().build(&spec).unwrap()]);
    let record = call(&executor, "notes.create", json!({"folder": "inbox", "title": "hi", "stars": "3"})).await;
    let echoed = record.content.structured.unwrap();
    assert_eq!(
        (&echoed["method"], &echoed["path"], &echoed["body"]),
        (&json!("POST"), &json!("/api/echo/notes/inbox"), &json!({"title": "hi", "stars": 3}))
    );
}

#[tokio::test]
async fn no_value_can_change_where_the_request_goes() {
    set_token();
    let (base, _) = serve().await;
    let executor = executor_of(vec![RestTools::new().build(&item_spec(&base)).unwrap()]);
    let path_of = |record: &ExecutionRecord| record.content.structured.as_ref().map(|v| v["path"].clone());
    let cases = [
        ("../../admin", "/api/echo/users/..%2F..%2Fadmin/items"),
        ("a?b=1#frag", "/api/echo/users/a%3Fb%3D1%23frag/items"),
        ("with space/é", "/api/echo/users/with%20space%2F%C3%A9/items"),
        ("%2e%2e", "/api/echo/users/%252e%252e/items"),
        ("http://evil.example/x", "/api/echo/users/http%3A%2F%2Fevil.example%2Fx/items"),
    ];
    for (user, path) in cases {
        let record = call(&executor, "items.get", json!({"user": user})).await;
        assert_eq!(path_of(&record), Some(json!(path)), "{user}: {}", record.model_text());
    }
    for user in ["..", ".", ""] {
        let record = call(&executor, "items.get", json!({"user": user})).await;
        assert_eq!(record.status, CallStatus::Failed);
        assert_eq!(
            record.model_text(),
            format!("the path parameter `user` cannot be `{user}`: it would change the path")
        );
    }
    // A query value stays one value.
    let record = call(&executor, "items.get", json!({"user": "u", "extra": "x&admin=1"})).await;
    assert_eq!(record.content.structured.unwrap()["query"], "extra=x%26admin%3D1");
    // A header value cannot start another header.
    let record = call(&executor, "items.get", json!({"user": "u", "trace": "t\r\nX-Admin: 1"})).await;
    assert_eq!(
        record.model_text(),
        "the header parameter `trace` contains a line break or NUL, which a header value cannot"
    );
}

#[tokio::test]
async fn the_secret_never_appears_in_records_or_errors() {
    set_token();
    let (base, _) = serve().await;
    let mut boom = item_spec(&base);
    boom.name = "boom".to_owned();
    boom.path = "/boom".to_owned();
    let executor = executor_of(vec![RestTools::new().build(&boom).unwrap()]);
    let record = call(&executor, "boom", json!({"user": "u"})).await;
    assert_eq!(record.status, CallStatus::Failed);
    let everything = format!("{record:?} {} {}", serde_json::to_string(&record).unwrap(), record.model_text());
    assert!(!everything.contains(SECRET), "{everything}");
    let tool = RestTools::new().build(&item_spec(&base)).unwrap();
    assert!(!format!("{:?}", tool.definition()).contains(SECRET));
}

/// Calls a `GET` tool named `name` on `path` without arguments, its spec adjusted first.
async fn call_endpoint(name: &str, path: &str, adjust: impl FnOnce(&mut RestToolSpec)) -> ExecutionRecord {
    let (base, _) = serve().await;
    let mut spec = RestToolSpec::new(name, "An endpoint.", "GET", &base, path);
    adjust(&mut spec);
    let executor = executor_of(vec![RestTools::new().build(&spec).unwrap()]);
    call(&executor, name, json!({})).await
}

#[tokio::test]
async fn a_500_is_a_failed_record_with_the_status_for_the_model_and_the_body_for_the_host() {
    let record = call_endpoint("boom", "/boom", |_| {}).await;
    assert_eq!(record.model_text(), "The API of `boom` answered 500 Internal Server Error.");
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("http_500"));
    assert_eq!(error.internal_detail(), Some("database exploded at row 7"));
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["failure"]["error"]["internal_detail"], "database exploded at row 7");
    assert_eq!(json["content"]["text"], "The API of `boom` answered 500 Internal Server Error.");

    // A host that wants the model to read the body says so.
    let (base, _) = serve().await;
    let spec = RestToolSpec::new("boom", "An endpoint.", "GET", &base, "/boom");
    let catalog = ToolCatalog::builder().add_tool(RestTools::new().build(&spec).unwrap()).build().unwrap();
    let executor = Executor::builder(catalog).expose_error_details(true).build();
    let record = call(&executor, "boom", json!({})).await;
    assert_eq!(
        record.model_text(),
        "The API of `boom` answered 500 Internal Server Error.\nDetail: database exploded at row 7"
    );
}

#[tokio::test]
async fn a_refused_connection_tells_the_model_the_kind_and_the_host_the_os_error() {
    // A port that was just free: nothing listens there.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/api", listener.local_addr().unwrap());
    drop(listener);
    let spec = RestToolSpec::new("gone", "An endpoint.", "GET", &base, "/x");
    let executor = executor_of(vec![RestTools::new().build(&spec).unwrap()]);
    let record = call(&executor, "gone", json!({})).await;
    assert_eq!(
        record.model_text(),
        "The request of `gone` failed before an answer came: the connection could not be made."
    );
    let Some(CallFailure::ToolError { error }) = &record.failure else { panic!("{:?}", record.failure) };
    assert_eq!(error.code(), Some("http_unreachable"));
    let detail = error.internal_detail().unwrap();
    assert!(detail.starts_with("error sending request"), "{detail}");
    assert!(detail.contains("Connection refused"), "{detail}");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_text_cut_with_the_cut_said() {
    let record = call_endpoint("text", "/text", |_| {}).await;
    assert_eq!(record.content.structured, None);
    assert!(record.content.text.starts_with("plain words plain words"));
    assert!(record.content.text.ends_with("… [cut: 8000 more characters]"), "{}", &record.content.text[15_900..]);
}

#[tokio::test]
async fn a_slow_endpoint_is_a_timed_out_record() {
    let record = call_endpoint("slow", "/slow", |spec| spec.timeout_ms = Some(200)).await;
    assert_eq!(record.status, CallStatus::TimedOut);
}

#[tokio::test]
async fn only_idempotent_methods_are_retried() {
    let (base, counts) = serve().await;
    let flaky = |method: &str| {
        let mut spec = RestToolSpec::new(format!("flaky.{}", method.to_lowercase()), "Flaky.", method, &base, "/flaky");
        spec.retries = 2;
        spec.retry_backoff_ms = Some(10);
        RestTools::new().build(&spec).unwrap()
    };
    let executor = executor_of(vec![flaky("GET"), flaky("POST")]);
    let record = call(&executor, "flaky.get", json!({})).await;
    assert_eq!(record.content.structured, Some(json!({"attempt": 3})));
    let record = call(&executor, "flaky.post", json!({})).await;
    assert_eq!(record.model_text(), "The API of `flaky.post` answered 503 Service Unavailable.");
    assert_eq!(counts.flaky.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn registries_load_from_toml_and_json() {
    set_token();
    let (base, _) = serve().await;
    let toml = format!(
        r#"
[[tool]]
name = "users.get"
description = "Get a user."
base_url = "{base}"
path = "/echo/users/{{id}}"
tags = ["users"]
scopes = ["users:read"]
headers = {{ Authorization = "Bearer ${{TOOL_REST_TEST_TOKEN}}" }}

[tool.parameters]
type = "object"
required = ["id"]
properties.id = {{ type = "integer", description = "The user's id." }}
"#
    );
    let tools = RestTools::new().load_toml(&toml).unwrap();
    let json = json!({"tools": [{"name": "users.list", "description": "List users.", "base_url": base, "path": "/echo/users"}]});
    let mut tools_json = RestTools::new().load_json(&json.to_string()).unwrap();
    let mut all = tools;
    all.append(&mut tools_json);
    let executor = executor_of(all);
    let record = call(&executor, "users.get", json!({"id": "7"})).await;
    assert_eq!(record.content.structured.unwrap()["path"], "/api/echo/users/7");
    assert_eq!(executor.catalog().definition("users.get").unwrap().parameters[0].description, "The user's id.");
    assert_eq!(executor.catalog().definition("users.get").unwrap().scopes, ["users:read"]);
    let record = call(&executor, "users.list", json!({})).await;
    assert_eq!(record.content.structured.unwrap()["path"], "/api/echo/users");
}

#[test]
fn specs_that_cannot_work_are_refused_when_built() {
    let base = "http://127.0.0.1:9/api";
    let error = |spec: RestToolSpec| RestTools::new().build(&spec).err().map(|e| e.to_string());
    let mut undeclared = RestToolSpec::new("a", "A.", "GET", base, "/x/{id}");
    assert_eq!(
        error(undeclared.clone()),
        Some("the REST tool `a` is invalid: the path names `{id}`, which is not a parameter".to_owned())
    );
    undeclared.path = "/x".to_owned();
    undeclared.headers =
        BTreeMap::from([("Authorization".to_owned(), "Bearer ${TOOL_REST_UNSET_VARIABLE}".to_owned())]);
    assert_eq!(
        error(undeclared),
        Some("the REST tool `a` is invalid: the environment variable `TOOL_REST_UNSET_VARIABLE` is not set".to_owned())
    );
    assert_eq!(
        error(RestToolSpec::new("b", "B.", "GET", "ftp://host/x", "/y")),
        Some(
            "the REST tool `b` is invalid: the base URL `ftp://host/x` must be http(s)://host[:port][/path]".to_owned()
        )
    );
    assert_eq!(
        error(RestToolSpec::new("c", "C.", "FETCH IT", base, "/y")),
        Some("the REST tool `c` is invalid: `FETCH IT` is not an HTTP method".to_owned())
    );
    assert!(matches!(RestTools::new().load_toml("[[tool]]\nname = 1"), Err(RestError::Parse { format: "TOML", .. })));
}

/// Serves `app` on 127.0.0.1, on a port of its own.
async fn bind(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    address
}

fn redirect(to: String, status: u16) -> Response {
    Response::builder().status(status).header("location", to).body(axum::body::Body::empty()).unwrap()
}

/// A server on another port that counts what reaches it and keeps the keys it was sent.
async fn thief() -> (String, Arc<std::sync::Mutex<Vec<Option<String>>>>) {
    let stolen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = Arc::clone(&stolen);
    let app = Router::new().fallback(any(move |request: Request| {
        let kept = Arc::clone(&kept);
        async move {
            let key = request.headers().get("x-api-key").map(|v| v.to_str().unwrap_or("(binary)").to_owned());
            kept.lock().unwrap().push(key);
            "thanks"
        }
    }));
    (format!("http://{}/steal", bind(app).await), stolen)
}

fn keyed_spec(name: &str, base: &str, path: &str) -> RestToolSpec {
    let mut spec = RestToolSpec::new(name, "A keyed endpoint.", "GET", base, path);
    spec.headers = BTreeMap::from([("X-Api-Key".to_owned(), "${TOOL_REST_TEST_TOKEN}".to_owned())]);
    spec
}

fn failure_code(record: &ExecutionRecord) -> Option<String> {
    match &record.failure {
        Some(CallFailure::ToolError { error }) => error.code().map(str::to_owned),
        _ => None,
    }
}

#[tokio::test]
async fn a_redirect_to_another_port_never_receives_the_key() {
    set_token();
    let (steal, stolen) = thief().await;
    let to = steal.clone();
    let api = bind(Router::new().route("/api/go", any(move || std::future::ready(redirect(to.clone(), 302))))).await;
    let base = format!("http://{api}/api");
    for (tools, why) in [
        (RestTools::new(), "redirects are not followed"),
        (RestTools::new().follow_redirects(5), "it leaves the base URL"),
    ] {
        let executor = executor_of(vec![tools.build(&keyed_spec("go", &base, "/go")).unwrap()]);
        let record = call(&executor, "go", json!({})).await;
        assert_eq!(record.status, CallStatus::Failed);
        assert_eq!(failure_code(&record).as_deref(), Some("http_302"));
        assert_eq!(
            record.model_text(),
            format!("The API of `go` answered 302 Found (a redirect to `{steal}`, not followed: {why}).")
        );
    }
    assert_eq!(stolen.lock().unwrap().len(), 0, "the other port was reached: {:?}", stolen.lock().unwrap());
}

#[tokio::test]
async fn redirects_are_followed_only_when_allowed_and_only_under_the_base_url() {
    set_token();
    let app = Router::new()
        .route("/api/echo/{*rest}", any(echo))
        .route("/api/hop", any(|| std::future::ready(redirect("/api/echo/hopped?n=1".to_owned(), 302))))
        .route("/api/create", any(|| std::future::ready(redirect("echo/created".to_owned(), 303))))
        .route("/api/sideways", any(|| std::future::ready(redirect("/api-admin/items".to_owned(), 307))))
        .route("/api/loop", any(|| std::future::ready(redirect("/api/loop".to_owned(), 302))))
        .route("/api-admin/items", any(|| async { "the admin page: must never be reached" }));
    let address = bind(app).await;
    let base = format!("http://{address}/api");
    let mut tools = Vec::new();
    for path in ["/hop", "/sideways", "/loop"] {
        tools.push(RestTools::new().follow_redirects(2).build(&keyed_spec(&path[1..], &base, path)).unwrap());
    }
    let mut create = item_spec(&base);
    (create.name, create.method, create.path) = ("create".to_owned(), "POST".to_owned(), "/create".to_owned());
    tools.push(RestTools::new().follow_redirects(2).build(&create).unwrap());
    tools.push(RestTools::new().build(&keyed_spec("hop_off", &base, "/hop")).unwrap());
    let executor = executor_of(tools);

    // Inside the base URL, allowed: followed, the headers with it.
    let record = call(&executor, "hop", json!({})).await;
    assert_eq!(record.status, CallStatus::Success, "{}", record.model_text());
    let echoed = record.content.structured.unwrap();
    assert_eq!((&echoed["path"], &echoed["query"]), (&json!("/api/echo/hopped"), &json!("n=1")));
    // A 303 after a POST continues as a GET without the body.
    let record = call(&executor, "create", json!({"user": "u", "extra": "x"})).await;
    let echoed = record.content.structured.unwrap();
    assert_eq!(
        (&echoed["method"], &echoed["path"], &echoed["body"], &echoed["authorization"]),
        (&json!("GET"), &json!("/api/echo/created"), &Value::Null, &json!(format!("Bearer {SECRET}")))
    );
    // The same host and port, but a path beside the base path: not followed.
    let record = call(&executor, "sideways", json!({})).await;
    assert_eq!(
        record.model_text(),
        "The API of `sideways` answered 307 Temporary Redirect (a redirect to `/api-admin/items`, not followed: it leaves the base URL)."
    );
    let record = call(&executor, "loop", json!({})).await;
    assert_eq!(
        record.model_text(),
        "The API of `loop` answered 302 Found (a redirect to `/api/loop`, not followed: the limit of 2 redirects is reached)."
    );
    // Not allowed (the default): the redirect is the answer.
    let record = call(&executor, "hop_off", json!({})).await;
    assert_eq!(
        record.model_text(),
        "The API of `hop_off` answered 302 Found (a redirect to `/api/echo/hopped?n=1`, not followed: redirects are not followed)."
    );
}

#[tokio::test]
async fn a_silent_server_times_out() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    // Answers the headers, then one chunk of the body, then nothing.
    let stalls = bind(Router::new().route(
        "/api/stall",
        any(|| async {
            let first = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(Bytes::from("start"))]);
            let stream = futures_util::StreamExt::chain(first, futures_util::stream::pending());
            axum::body::Body::from_stream(stream)
        }),
    ))
    .await;
    let tools = RestTools::new().timeout(Duration::from_millis(300));
    let executor = executor_of(vec![
        tools.build(&RestToolSpec::new("silent", "Silent.", "GET", format!("http://{silent}/api"), "/x")).unwrap(),
        tools.build(&RestToolSpec::new("stall", "Stalls.", "GET", format!("http://{stalls}/api"), "/stall")).unwrap(),
    ]);
    for name in ["silent", "stall"] {
        let record = call(&executor, name, json!({})).await;
        assert_eq!(record.status, CallStatus::Failed);
        assert_eq!(
            record.model_text(),
            format!("The request of `{name}` timed out: no complete answer within 300 ms.")
        );
        assert_eq!(failure_code(&record).as_deref(), Some("http_timeout"));
    }
}

/// What a streamed body made, and whether the server dropped it (its client went away).
#[derive(Default)]
struct Produced {
    bytes: AtomicUsize,
    dropped: std::sync::atomic::AtomicBool,
}

struct DropFlag(Arc<Produced>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn a_gigabyte_chunked_body_is_cut_with_bounded_memory() {
    const GIGABYTE: usize = 1 << 30;
    const CHUNK: usize = 64 << 10;
    let produced = Arc::new(Produced::default());
    let made = Arc::clone(&produced);
    let gigabyte = any(move || {
        let guard = DropFlag(Arc::clone(&made));
        let chunk = Bytes::from(vec![b'a'; CHUNK]);
        let stream = futures_util::StreamExt::map(futures_util::stream::iter(0..GIGABYTE / CHUNK), move |_| {
            guard.0.bytes.fetch_add(CHUNK, Ordering::SeqCst);
            Ok::<_, std::convert::Infallible>(chunk.clone())
        });
        std::future::ready(
            Response::builder()
                .header("content-type", "text/plain")
                .body(axum::body::Body::from_stream(stream))
                .unwrap(),
        )
    });
    // 2 MiB of JSON, with its length said.
    let big_json = any(|| async { ([("content-type", "application/json")], format!("[{}0]", "0,".repeat(1 << 20))) });
    let address = bind(Router::new().route("/api/gigabyte", gigabyte).route("/api/json", big_json)).await;
    let base = format!("http://{address}/api");
    let mut json_spec = RestToolSpec::new("json", "Big JSON.", "GET", &base, "/json");
    json_spec.max_body_bytes = Some(1000);
    let executor = executor_of(vec![
        RestTools::new().build(&RestToolSpec::new("gigabyte", "A gigabyte.", "GET", &base, "/gigabyte")).unwrap(),
        RestTools::new().build(&json_spec).unwrap(),
    ]);

    let record = call(&executor, "gigabyte", json!({})).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(
        record.model_text(),
        format!(
            "{}… [cut: the body is longer than the limit of 1048576 bytes; the rest was not read]",
            "a".repeat(16_000)
        )
    );
    // The client hung up: the server stops making the body, far short of a gigabyte.
    for _ in 0..200 {
        if produced.dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(produced.dropped.load(Ordering::SeqCst), "the server is still sending");
    let sent = produced.bytes.load(Ordering::SeqCst);
    assert!(sent < 64 << 20, "the server made {sent} bytes before the client hung up");

    // A JSON body over the tool's own limit is not parsed: its start, with the cut said.
    let record = call(&executor, "json", json!({})).await;
    assert_eq!(record.content.structured, None);
    assert_eq!(
        record.model_text(),
        format!(
            "[{}… [cut: the body is longer than the limit of 1000 bytes (2097155 bytes by its Content-Length); the rest was not read and the JSON not parsed]",
            &"0,".repeat(500)[..999]
        )
    );
}

#[test]
fn a_placeholder_cannot_lengthen_the_base_path() {
    // `{x}/items` under `/api` with x = `-admin` would reach `/api-admin/items`.
    let mut spec = RestToolSpec::new("p", "P.", "GET", "http://127.0.0.1:9/api", "{x}/items");
    spec.parameters = json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
    assert_eq!(
        RestTools::new().build(&spec).err().map(|e| e.to_string()),
        Some("the REST tool `p` is invalid: the path `{x}/items` must start with `/`".to_owned())
    );
    spec.path = "items".to_owned();
    assert_eq!(
        RestTools::new().build(&spec).err().map(|e| e.to_string()),
        Some("the REST tool `p` is invalid: the path `items` must start with `/`".to_owned())
    );
}
