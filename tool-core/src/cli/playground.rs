//! The playground (feature `playground`): a local page that lists the catalog, renders a form
//! per tool from its parameter list and schema, keeps the form and the raw JSON arguments in
//! step, runs calls through the executor and shows their records. The page is static HTML, CSS
//! and JavaScript embedded in the binary (no build step, no CDN); axum serves it and its API:
//!
//! - `GET /api/tools`: every definition (with its kind);
//! - `POST /api/call` with `{"tool": name, "arguments": text}`: the call's record;
//! - `POST /api/search` with `{"query": text, "limit"?: 1 to 50 (10), "deferred"?: bool}`: the
//!   ranking, each tool with its score, the words it matched and its texts with those words
//!   marked (`marks` in characters); a query over [`MAX_QUERY_BYTES`] or a limit out of range
//!   is refused (400);
//! - `GET /api/pending`: the records of the calls that wait for approval, newest first;
//! - `POST /api/pending/{id}/approve` with `{}`, or `{"arguments": text}` to run the call with
//!   edited arguments (JSON, read and checked again as the model's were), and
//!   `POST /api/pending/{id}/deny` with `{"reason": text}` (1 to [`MAX_REASON_BYTES`] bytes):
//!   the record of a call that waited for approval.
//!
//! A call that ends pending is kept by the server, under an id it makes (`pending_id` in the
//! call's answer): the page answers it by that id and never sends the call back, so a page
//! cannot run arguments a person did not see, nor call a tool that was not asked for, by
//! editing a stored call; edited arguments are a [`Decision::ApproveWith`], which the
//! executor reads and checks again. A call is answered once; the server keeps the latest
//! [`MAX_PENDING`], at most [`MAX_PENDING_BYTES`] of their records as JSON, and drops the
//! oldest for a new one.
//!
//! It answers only requests whose `Host` is the address it listens on or a loopback name (a
//! page elsewhere cannot reach it through DNS rebinding), and calls only with a JSON body
//! (which a cross-origin page cannot send without a preflight the server never approves)
//! from its own page (a POST with another `Origin` is refused). Every answer forbids framing
//! (`frame-ancestors 'none'`, `X-Frame-Options: DENY`) and limits the page to its own
//! scripts, styles and API (`Content-Security-Policy`). Connections are bounded and slow
//! clients cut off as for the MCP server.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{FromRef, Path, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::commands::{call, hit_json, Out};
use crate::catalog::ToolCatalog;
use crate::document::definition_json;
use crate::executor::{ExecutionRecord, Executor};
use crate::listen::{self, MAX_CONNECTIONS, READ_TIMEOUT};
use crate::policy::{Decision, PendingCall};
use crate::search::{highlight, ToolSearch, MAX_QUERY_BYTES};

const INDEX: &str = include_str!("playground/index.html");
const SCRIPT: &str = include_str!("playground/app.js");
const STYLE: &str = include_str!("playground/app.css");

/// Serves the playground on `address` until Ctrl-C. Its search goes over `searched`: the
/// executor's catalog with the command line's deferral.
pub(super) async fn serve(
    executor: Executor,
    searched: ToolCatalog,
    address: SocketAddr,
    json: bool,
    out: Out<'_>,
) -> std::io::Result<i32> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    let bound = listener.local_addr()?;
    let url = format!("http://{bound}/");
    if json {
        writeln!(out, "{}", json!({ "url": url }))?;
    } else {
        writeln!(out, "playground at {url} (Ctrl-C stops)")?;
    }
    out.flush()?;
    let app = router(executor, searched, bound);
    let stop = CancellationToken::new();
    let on_signal = stop.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        on_signal.cancel();
    });
    listen::serve(listener, app, MAX_CONNECTIONS, READ_TIMEOUT, stop).await;
    Ok(0)
}

/// The most tools one search of the page returns.
const MAX_SEARCH_LIMIT: usize = 50;

/// The most pending calls the playground keeps; a new one drops the oldest.
pub(super) const MAX_PENDING: usize = 100;

/// The most bytes the kept pending calls may take, as JSON: a call's body may be 2 MiB (axum's
/// limit), and a hundred such calls would hold hundreds of megabytes.
pub(super) const MAX_PENDING_BYTES: usize = 16 << 20;

/// The longest reason a person may give for a denial, in bytes (the model reads it).
pub(super) const MAX_REASON_BYTES: usize = 2048;

/// The calls that wait for approval, oldest first, each under the id the server gave it.
#[derive(Default)]
struct PendingCalls {
    /// The number of the last id given.
    next: u64,
    /// Each call's record as the page was given it (with its `pending_id`), and its size as
    /// JSON. The pending call to resume is read from the record the server made, never from
    /// what a page sends.
    calls: VecDeque<(String, Value, usize)>,
    /// The sizes together.
    bytes: usize,
}

impl PendingCalls {
    /// Keeps the record of a pending call (`size` bytes as JSON) under a new id, dropping the
    /// oldest while there are [`MAX_PENDING`] or they would take more than
    /// [`MAX_PENDING_BYTES`]; returns the record with its `pending_id`. The newest is always
    /// kept.
    fn keep(&mut self, mut record: Value, size: usize) -> Value {
        while self.calls.len() >= MAX_PENDING || (!self.calls.is_empty() && self.bytes + size > MAX_PENDING_BYTES) {
            if let Some((_, _, dropped)) = self.calls.pop_front() {
                self.bytes -= dropped;
            }
        }
        self.next += 1;
        let id = self.next.to_string();
        record["pending_id"] = Value::from(id.clone());
        self.calls.push_back((id, record.clone(), size));
        self.bytes += size;
        record
    }

    /// The pending call with this id, no longer kept: it is answered once.
    fn take(&mut self, id: &str) -> Option<PendingCall> {
        let at = self.calls.iter().position(|(kept, ..)| kept == id)?;
        let (_, mut record, size) = self.calls.remove(at)?;
        self.bytes -= size;
        serde_json::from_value(record["pending"].take()).ok()
    }

    fn contains(&self, id: &str) -> bool {
        self.calls.iter().any(|(kept, ..)| kept == id)
    }

    /// The records of the calls that wait, newest first.
    fn records(&self) -> Vec<Value> {
        self.calls.iter().rev().map(|(_, record, _)| record.clone()).collect()
    }
}

/// The length of `value` as JSON, counted without writing it out.
fn json_size(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// What the handlers share: the executor, the search over the catalog, made once, and the
/// calls that wait for approval.
#[derive(Clone)]
struct App {
    executor: Executor,
    pending: Arc<Mutex<PendingCalls>>,
    /// The catalog searched, with the command line's deferral.
    searched: ToolCatalog,
    /// Every tool.
    all: Arc<ToolSearch>,
    /// The deferred tools, as the search tool sees them.
    deferred: Arc<ToolSearch>,
}

impl FromRef<App> for Executor {
    fn from_ref(app: &App) -> Executor {
        app.executor.clone()
    }
}

fn router(executor: Executor, searched: ToolCatalog, bound: SocketAddr) -> Router {
    let app = App {
        all: Arc::new(ToolSearch::new(searched.definitions())),
        deferred: Arc::new(ToolSearch::new(searched.deferred())),
        executor,
        pending: Arc::default(),
        searched,
    };
    Router::new()
        .route("/", get(|| async { page(INDEX, "text/html; charset=utf-8") }))
        .route("/app.js", get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }))
        .route("/app.css", get(|| async { page(STYLE, "text/css; charset=utf-8") }))
        .route("/api/tools", get(tools))
        .route("/api/call", post(run_call))
        .route("/api/search", post(search))
        .route("/api/pending", get(waiting))
        .route("/api/pending/{id}/approve", post(approve))
        .route("/api/pending/{id}/deny", post(deny))
        .layer(middleware::from_fn_with_state(bound, local_host_only))
        .layer(middleware::from_fn(protect_page))
        .with_state(app)
}

/// The page runs only its own script and style, talks only to its own server, and cannot be
/// framed by another site (clickjacking).
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; \
                      base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Adds the page's security headers to every answer.
async fn protect_page(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

fn page(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response()
}

/// The catalog as the JSON document `tools export --format json` writes.
async fn tools(State(executor): State<Executor>) -> Response {
    let document = json!({ "tools": executor.catalog().definitions().map(definition_json).collect::<Vec<_>>() });
    Json(document).into_response()
}

#[derive(Deserialize)]
struct CallBody {
    tool: String,
    arguments: String,
}

async fn run_call(State(app): State<App>, Json(body): Json<CallBody>) -> Json<Value> {
    let record = call(&app.executor, &body.tool, body.arguments, None, None).await;
    app.answer(&record)
}

impl App {
    /// A record for the page; a pending call is kept, and its id given as `pending_id`.
    fn answer(&self, record: &ExecutionRecord) -> Json<Value> {
        let value = serde_json::to_value(record).unwrap_or(Value::Null);
        if record.pending.is_none() {
            return Json(value);
        }
        // Measured before the lock: a call may be megabytes.
        let size = json_size(&value);
        Json(self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).keep(value, size))
    }

    /// Runs the pending call `id` with the person's decision, once.
    async fn resume(&self, id: &str, decision: Decision) -> Response {
        let taken = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take(id);
        let Some(pending) = taken else { return unknown_pending(id) };
        let record = self.executor.resume(pending, decision).await;
        self.answer(&record).into_response()
    }

    fn is_pending(&self, id: &str) -> bool {
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).contains(id)
    }
}

fn unknown_pending(id: &str) -> Response {
    let message = format!(
        "no call waits for approval under the id `{id}`: it was answered already, or dropped for newer ones (the \
         playground keeps the latest {MAX_PENDING}, {} MiB in all)",
        MAX_PENDING_BYTES >> 20
    );
    (StatusCode::NOT_FOUND, message).into_response()
}

/// The records of the calls that wait for approval, newest first.
async fn waiting(State(app): State<App>) -> Json<Value> {
    let records = app.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).records();
    Json(json!({ "pending": records }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    /// Edited arguments, as JSON text; left out, the call runs as the model asked.
    arguments: Option<String>,
}

/// Approves a pending call, as asked or with edited arguments.
async fn approve(State(app): State<App>, Path(id): Path<String>, Json(body): Json<ApproveBody>) -> Response {
    let decision = match body.arguments {
        None => Decision::Approve,
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(arguments) => Decision::approve_with(arguments),
            // Said before the call is taken: the person can fix the text and approve again.
            Err(error) if app.is_pending(&id) => {
                let message = format!("the edited arguments are not JSON: {error}");
                return (StatusCode::BAD_REQUEST, message).into_response();
            }
            Err(_) => return unknown_pending(&id),
        },
    };
    app.resume(&id, decision).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DenyBody {
    reason: String,
}

/// Denies a pending call; the model reads the reason.
async fn deny(State(app): State<App>, Path(id): Path<String>, Json(body): Json<DenyBody>) -> Response {
    if !app.is_pending(&id) {
        return unknown_pending(&id);
    }
    let reason = body.reason.trim();
    if reason.is_empty() {
        return (StatusCode::BAD_REQUEST, "a denial needs a reason: the model reads it").into_response();
    }
    if reason.len() > MAX_REASON_BYTES {
        let message = format!("the reason is longer than {MAX_REASON_BYTES} bytes");
        return (StatusCode::BAD_REQUEST, message).into_response();
    }
    app.resume(&id, Decision::deny(reason)).await
}

#[derive(Deserialize)]
struct SearchBody {
    query: String,
    limit: Option<usize>,
    #[serde(default)]
    deferred: bool,
}

/// The ranking for a query, with why each tool matched and its texts marked where it did.
async fn search(State(app): State<App>, Json(body): Json<SearchBody>) -> Response {
    if body.query.len() > MAX_QUERY_BYTES {
        let message = format!("the query is longer than {MAX_QUERY_BYTES} bytes");
        return (StatusCode::BAD_REQUEST, message).into_response();
    }
    let limit = body.limit.unwrap_or(10);
    if !(1..=MAX_SEARCH_LIMIT).contains(&limit) {
        let message = format!("`limit` must be from 1 to {MAX_SEARCH_LIMIT}");
        return (StatusCode::BAD_REQUEST, message).into_response();
    }
    let index = if body.deferred { &app.deferred } else { &app.all };
    let catalog = &app.searched;
    let tools: Vec<Value> = index
        .search(&body.query, limit)
        .iter()
        .map(|hit| {
            let mut value = hit_json(hit, catalog.is_deferred(&hit.name));
            let marked = catalog.definition(&hit.name).map(|d| highlight(index, d, hit)).unwrap_or_default();
            value["highlights"] = marked
                .iter()
                .map(|h| {
                    // The page counts characters, not bytes.
                    let at = |byte: usize| h.text[..byte].chars().count();
                    let marks: Vec<[usize; 2]> = h.marks.iter().map(|m| [at(m.start), at(m.end)]).collect();
                    json!({"field": h.field, "text": h.text, "marks": marks})
                })
                .collect();
            value
        })
        .collect();
    Json(json!({"query": body.query, "searched": index.len(), "tools": tools})).into_response()
}

/// Refuses a request whose `Host` is neither the bound address nor a loopback name, and a
/// POST sent by another page.
async fn local_host_only(State(bound): State<SocketAddr>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let port = bound.port();
    let allowed = host == bound.to_string()
        || [format!("localhost:{port}"), format!("127.0.0.1:{port}"), format!("[::1]:{port}")]
            .iter()
            .any(|h| h == host);
    if !allowed {
        return (StatusCode::FORBIDDEN, "the playground answers only on its own address").into_response();
    }
    // A browser names the page that sends a POST; only the playground's own may call. Clients
    // that are not browsers send no `Origin`.
    if request.method() == Method::POST {
        let origin = request.headers().get(header::ORIGIN).map(|o| o.to_str().unwrap_or(""));
        if origin.is_some_and(|origin| origin != format!("http://{host}")) {
            return (StatusCode::FORBIDDEN, "the playground accepts calls only from its own page").into_response();
        }
    }
    next.run(request).await
}
