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
//! - `GET /healthz` and `GET /readyz`: the process's probes (`ready`, or `503` while its state
//!   store does not answer);
//! - `POST /api/pending/{id}/approve` with `{}`, or `{"arguments": text}` to run the call with
//!   edited arguments (JSON, read and checked again as the model's were), and
//!   `POST /api/pending/{id}/deny` with `{"reason": text}` (1 to [`MAX_REASON_BYTES`] bytes):
//!   the record of a call that waited for approval.
//!
//! Started with `--scopes`, the page is a caller whose access token grants those OAuth scopes
//! and no others, held to the rules of an MCP server with OAuth: the tools needing a scope it
//! lacks are neither listed nor found, and their calls are refused (`403`, the scopes named).
//!
//! A call that ends pending is kept in the executor's store, under its pending call's id
//! (`pending_id` in the call's answer, 32 hexadecimal characters), with its record as the page
//! was given it and the list of the calls that wait: the page answers it by that id and never
//! sends the call back, so a page cannot run arguments a person did not see, nor call a tool
//! that was not asked for, by editing a stored call; edited arguments are a
//! [`Decision::ApproveWith`], which the executor reads and checks again. A call is answered
//! once (the executor takes the stored call once); the server keeps the latest
//! [`MAX_PENDING`], at most [`MAX_PENDING_BYTES`] of their records as JSON, and drops the
//! oldest for a new one, its pending call with it.
//!
//! It answers only requests whose `Host` is the address it listens on or a loopback name (a
//! page elsewhere cannot reach it through DNS rebinding), and calls only with a JSON body
//! (which a cross-origin page cannot send without a preflight the server never approves)
//! from its own page (a POST with another `Origin` is refused). Every answer forbids framing
//! (`frame-ancestors 'none'`, `X-Frame-Options: DENY`) and limits the page to its own
//! scripts, styles and API (`Content-Security-Policy`). Connections are bounded and slow
//! clients cut off as for the MCP server.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::{FromRef, Path, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::commands::{call, hit_json, Out};
use crate::catalog::ToolCatalog;
use crate::document::definition_json;
use crate::executor::{ExecutionRecord, Executor, DEFAULT_PENDING_TTL, PENDING_KIND};
use crate::listen::{self, MAX_CONNECTIONS, READ_TIMEOUT};
use crate::model::ToolDefinition;
use crate::policy::Decision;
use crate::search::{highlight, ToolSearch, MAX_QUERY_BYTES};
use crate::state::{Expect, Owner, StateError, Write, Written};

const INDEX: &str = include_str!("playground/index.html");
const SCRIPT: &str = include_str!("playground/app.js");
const STYLE: &str = include_str!("playground/app.css");

/// Serves the playground on `address` until Ctrl-C. Its search goes over `searched`: the
/// executor's catalog with the command line's deferral.
pub(super) async fn serve(
    executor: Executor,
    searched: ToolCatalog,
    address: SocketAddr,
    granted: Option<BTreeSet<String>>,
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
    let app = router(executor, searched, bound, granted);
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

/// The kind of the playground's keys in the executor's store: the list of the calls that wait
/// (name [`LIST`]) and each call's record as the page was given it (named by its id).
const KIND: &str = "playground";

/// The name of the list of waiting calls: each call's id and its record's size as JSON,
/// oldest first.
const LIST: &str = "waiting";

/// How many times a change of the list is tried again when another answer changed it first.
const MAX_TRIES: usize = 64;

/// A waiting call in the list: its id, its record's size as JSON, and when it expires (in
/// milliseconds since the Unix epoch).
#[derive(Serialize, Deserialize)]
struct Entry {
    id: String,
    size: usize,
    expires: u64,
}

/// Why the kept pending calls could not be read or changed.
enum Kept {
    /// No call waits under the id.
    Unknown,
    /// The store failed.
    Store(String),
}

impl From<StateError> for Kept {
    fn from(error: StateError) -> Kept {
        Kept::Store(error.to_string())
    }
}
/// What the handlers share: the executor (whose store keeps the calls that wait for approval)
/// and the search over the catalog, made once.
#[derive(Clone)]
struct App {
    executor: Executor,
    /// The catalog searched, with the command line's deferral.
    searched: ToolCatalog,
    /// Every tool.
    all: Arc<ToolSearch>,
    /// The deferred tools, as the search tool sees them.
    deferred: Arc<ToolSearch>,
    /// The scopes the page's caller is granted, when it plays one (`--scopes`).
    granted: Option<Arc<BTreeSet<String>>>,
}

impl App {
    /// The scopes of `definition` the page's caller lacks (none when it plays no caller).
    fn missing<'a>(&self, definition: &'a ToolDefinition) -> Vec<&'a str> {
        let Some(granted) = &self.granted else { return Vec::new() };
        definition.scopes.iter().filter(|scope| !granted.contains(*scope)).map(String::as_str).collect()
    }

    /// Whether the page's caller may see and call `definition`.
    fn allows(&self, definition: &ToolDefinition) -> bool {
        self.missing(definition).is_empty()
    }
}

impl FromRef<App> for Executor {
    fn from_ref(app: &App) -> Executor {
        app.executor.clone()
    }
}

fn router(executor: Executor, searched: ToolCatalog, bound: SocketAddr, granted: Option<BTreeSet<String>>) -> Router {
    let mut app = App {
        all: Arc::new(ToolSearch::new(std::iter::empty())),
        deferred: Arc::new(ToolSearch::new(std::iter::empty())),
        executor,
        searched,
        granted: granted.map(Arc::new),
    };
    // The tools the caller may not call are not found either.
    app.all = Arc::new(ToolSearch::new(app.searched.definitions().filter(|d| app.allows(d))));
    app.deferred = Arc::new(ToolSearch::new(app.searched.deferred().filter(|d| app.allows(d))));
    let router = Router::new()
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
        .with_state(app.clone());
    // A probe of the process (a supervisor's) answers too: not ready while the store is down.
    crate::listen::health::routes(router, crate::listen::health::Health::new(app.executor.store().clone()))
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

/// The catalog as the JSON document `tools export --format json` writes (the tools the page's
/// caller may call).
async fn tools(State(app): State<App>) -> Response {
    let listed = app.executor.catalog().definitions().filter(|d| app.allows(d)).map(definition_json);
    Json(json!({ "tools": listed.collect::<Vec<_>>() })).into_response()
}

#[derive(Deserialize)]
struct CallBody {
    tool: String,
    arguments: String,
}

async fn run_call(State(app): State<App>, Json(body): Json<CallBody>) -> Response {
    if let Some(definition) = app.executor.catalog().definition(&body.tool) {
        let missing = app.missing(definition);
        if !missing.is_empty() {
            let message = format!(
                "the access token lacks the scope {}, which the tool `{}` needs",
                missing.join(" "),
                definition.name
            );
            return (StatusCode::FORBIDDEN, message).into_response();
        }
    }
    let record = call(&app.executor, &body.tool, body.arguments, None, None).await;
    app.answer(&record).await
}

impl App {
    /// A record for the page; a pending call's record is kept, and its id given as
    /// `pending_id`.
    async fn answer(&self, record: &ExecutionRecord) -> Response {
        let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
        let Some(pending) = &record.pending else { return Json(value).into_response() };
        value["pending_id"] = Value::from(pending.id.clone());
        match self.keep(&pending.id, &value, pending.expires_at_ms).await {
            Ok(()) => Json(value).into_response(),
            Err(Kept::Store(error)) => store_failed(&error),
            // Keeping a call never asks for one that waits.
            Err(Kept::Unknown) => store_failed("the call could not be listed"),
        }
    }

    /// Keeps `record` under `id` until `expires_at_ms`, dropping the oldest while there are
    /// [`MAX_PENDING`] or they would take more than [`MAX_PENDING_BYTES`]; the newest is always
    /// kept. A dropped call no longer waits: its pending call is removed from the store too.
    async fn keep(&self, id: &str, record: &Value, expires_at_ms: Option<u64>) -> Result<(), Kept> {
        let bytes = serde_json::to_vec(record).unwrap_or_default();
        let size = bytes.len();
        let expires = expires_at_ms.unwrap_or_else(|| now_ms().saturating_add(DEFAULT_PENDING_TTL.as_millis() as u64));
        let store = self.executor.store();
        store.write(&Owner::everyone().key(KIND, id), Write::new(bytes, time_left(expires))).await?;
        let dropped = self
            .change_list(|list| {
                let mut dropped = Vec::new();
                let mut total: usize = list.iter().map(|entry| entry.size).sum();
                while list.len() >= MAX_PENDING || (!list.is_empty() && total + size > MAX_PENDING_BYTES) {
                    let oldest = list.remove(0);
                    total -= oldest.size;
                    dropped.push(oldest.id);
                }
                list.push(Entry { id: id.to_owned(), size, expires });
                Some(dropped)
            })
            .await?;
        for id in dropped {
            store.delete(&Owner::everyone().key(KIND, id.clone()), None).await?;
            store.delete(&Owner::everyone().key(PENDING_KIND, id), None).await?;
        }
        Ok(())
    }

    /// Changes the list of waiting calls with `change` (which returns `None` to leave it as it
    /// is: [`Kept::Unknown`]), by compare-and-set, tried again when another answer changed it
    /// first; the calls past their time are left out.
    async fn change_list<R>(&self, mut change: impl FnMut(&mut Vec<Entry>) -> Option<R>) -> Result<R, Kept> {
        let store = self.executor.store();
        let key = Owner::everyone().key(KIND, LIST);
        for _ in 0..MAX_TRIES {
            let found = store.read(&key).await?;
            let (mut list, expect) = match &found {
                Some(found) => (read_list(&found.value)?, Expect::Version(found.version)),
                None => (Vec::new(), Expect::Absent),
            };
            let now = now_ms();
            list.retain(|entry| entry.expires > now);
            let Some(outcome) = change(&mut list) else { return Err(Kept::Unknown) };
            let bytes = serde_json::to_vec(&list).unwrap_or_default();
            // The list lives as long as the call that lives longest in it.
            let ttl = time_left(list.iter().map(|entry| entry.expires).max().unwrap_or(now));
            if let Written::Done(_) = store.write(&key, Write::new(bytes, ttl).expect(expect)).await? {
                return Ok(outcome);
            }
        }
        Err(Kept::Store(format!("the list of waiting calls changed {MAX_TRIES} times while this answer was made")))
    }

    /// The list of waiting calls, oldest first.
    async fn list(&self) -> Result<Vec<Entry>, Kept> {
        let now = now_ms();
        match self.executor.store().read(&Owner::everyone().key(KIND, LIST)).await? {
            Some(found) => Ok(read_list(&found.value)?.into_iter().filter(|entry| entry.expires > now).collect()),
            None => Ok(Vec::new()),
        }
    }

    /// Runs the pending call `id` with the person's decision, once: read from the store, then
    /// taken off the list, so that of two answers only one reaches the executor (which takes
    /// the stored call once) and a store that fails before leaves the call waiting and listed.
    async fn resume(&self, id: &str, decision: Decision) -> Response {
        let pending = match self.executor.pending(id, &Owner::everyone()).await {
            Ok(Some(pending)) => pending,
            Ok(None) => return unknown_pending(id),
            Err(error) => return store_failed(&error.to_string()),
        };
        let taken = self
            .change_list(|list| {
                let at = list.iter().position(|entry| entry.id == id)?;
                list.remove(at);
                Some(())
            })
            .await;
        match taken {
            Ok(()) => {}
            Err(Kept::Unknown) => return unknown_pending(id),
            Err(Kept::Store(error)) => return store_failed(&error),
        }
        // The page's copy of the record; should the store fail to forget it now, it expires
        // with the call.
        let _ = self.executor.store().delete(&Owner::everyone().key(KIND, id), None).await;
        let record = self.executor.resume(pending, decision).await;
        self.answer(&record).await
    }

    async fn is_pending(&self, id: &str) -> Result<bool, Kept> {
        Ok(self.list().await?.iter().any(|entry| entry.id == id))
    }

    /// The records of the calls that wait, newest first.
    async fn records(&self) -> Result<Vec<Value>, Kept> {
        let mut records = Vec::new();
        for entry in self.list().await?.into_iter().rev() {
            if let Some(found) = self.executor.store().read(&Owner::everyone().key(KIND, entry.id)).await? {
                // A record the store holds that does not read is not shown.
                if let Ok(record) = serde_json::from_slice::<Value>(&found.value) {
                    records.push(record);
                }
            }
        }
        Ok(records)
    }
}

/// The list of waiting calls as stored.
fn read_list(bytes: &[u8]) -> Result<Vec<Entry>, Kept> {
    serde_json::from_slice(bytes)
        .map_err(|error| Kept::Store(format!("the list of waiting calls does not read: {error}")))
}

fn now_ms() -> u64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(now.as_millis()).unwrap_or(u64::MAX)
}

/// How long until `expires_at_ms` (at least a millisecond: a store keeps nothing for no time).
fn time_left(expires_at_ms: u64) -> Duration {
    Duration::from_millis(expires_at_ms.saturating_sub(now_ms()).max(1))
}

fn store_failed(error: &str) -> Response {
    let message = format!("the store that keeps the calls waiting for approval failed: {error}");
    (StatusCode::SERVICE_UNAVAILABLE, message).into_response()
}

fn unknown_pending(id: &str) -> Response {
    let message = format!(
        "no call waits for approval under the id `{id}`: it was answered already, expired, or was dropped for newer \
         ones (the playground keeps the latest {MAX_PENDING}, {} MiB in all)",
        MAX_PENDING_BYTES >> 20
    );
    (StatusCode::NOT_FOUND, message).into_response()
}

/// The records of the calls that wait for approval, newest first.
async fn waiting(State(app): State<App>) -> Response {
    match app.records().await {
        Ok(records) => Json(json!({ "pending": records })).into_response(),
        Err(Kept::Store(error)) => store_failed(&error),
        // Listing never asks for one call.
        Err(Kept::Unknown) => store_failed("the calls could not be listed"),
    }
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
            Err(error) => match app.is_pending(&id).await {
                Ok(true) => {
                    let message = format!("the edited arguments are not JSON: {error}");
                    return (StatusCode::BAD_REQUEST, message).into_response();
                }
                Ok(false) | Err(Kept::Unknown) => return unknown_pending(&id),
                Err(Kept::Store(error)) => return store_failed(&error),
            },
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
    match app.is_pending(&id).await {
        Ok(true) => {}
        Ok(false) | Err(Kept::Unknown) => return unknown_pending(&id),
        Err(Kept::Store(error)) => return store_failed(&error),
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
