//! Health and readiness of an HTTP server (the MCP server, the playground), for load balancers
//! and orchestrators: `GET /healthz` answers while the process serves, `GET /readyz` only while
//! it should be sent requests (not draining, its state store reachable).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::state::{Owner, SharedStore};

/// How long a store check's answer is kept: probes, however many, cost a store at most one
/// round trip per interval.
const CHECK_INTERVAL: Duration = Duration::from_secs(1);
/// How long a store check may take before the store counts as unreachable.
const CHECK_TIMEOUT: Duration = Duration::from_secs(1);

/// What readiness reads.
pub(crate) struct Health {
    draining: AtomicBool,
    store: SharedStore,
    /// The last store check: when, and whether the store answered.
    checked: Mutex<Option<(Instant, bool)>>,
}

impl Health {
    pub(crate) fn new(store: SharedStore) -> Arc<Health> {
        Arc::new(Health { draining: AtomicBool::new(false), store, checked: Mutex::new(None) })
    }

    /// From now on, not ready: the server drains.
    #[cfg(feature = "mcp")]
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Whether the store answers a read, checked at most once per [`CHECK_INTERVAL`].
    async fn store_reachable(&self) -> bool {
        if let Some((at, reachable)) = *self.checked.lock().unwrap_or_else(|e| e.into_inner())
            && at.elapsed() < CHECK_INTERVAL
        {
            return reachable;
        }
        let probe = Owner::everyone().key("health", "probe");
        let read = tokio::time::timeout(CHECK_TIMEOUT, self.store.read(&probe)).await;
        let reachable = matches!(read, Ok(Ok(_)));
        *self.checked.lock().unwrap_or_else(|e| e.into_inner()) = Some((Instant::now(), reachable));
        reachable
    }
}

/// `router` with `/healthz` and `/readyz`, outside every check of the MCP endpoint (a probe
/// carries no token).
pub(crate) fn routes(router: Router, health: Arc<Health>) -> Router {
    let probes =
        Router::new().route("/healthz", get(|| async { "ok" })).route("/readyz", get(ready)).with_state(health);
    router.merge(probes)
}

async fn ready(State(health): State<Arc<Health>>) -> Response {
    if health.draining.load(Ordering::Acquire) {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining").into_response();
    }
    if !health.store_reachable().await {
        // The store's kind only: its address and credentials stay out of the answer.
        let message = format!("the state store ({}) is unreachable", health.store.kind());
        return (StatusCode::SERVICE_UNAVAILABLE, message).into_response();
    }
    "ready".into_response()
}
