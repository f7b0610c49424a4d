//! An HTTP server's accept loop, for the MCP server and the playground: a cap on open
//! connections and a time limit for a request's header, so that clients that open connections
//! and send nothing cannot exhaust the server. Each bound is the caller's. Beside it, the
//! servers' health probes (`health.rs`).

pub(crate) mod health; // `/healthz` and `/readyz`

use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// Connections open at once, by default; more wait, unaccepted, in the system's queue.
pub(crate) const MAX_CONNECTIONS: usize = 1024;
/// The time a client has to send a request's header, by default.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A count a semaphore can hold: at least one, at most what tokio allows.
pub(crate) fn permits(count: usize) -> usize {
    count.clamp(1, Semaphore::MAX_PERMITS)
}

/// Serves `router` on `listener` until `stop`: at most `max_connections` open at once (the
/// others wait in the listener's queue, holding no descriptor of ours), each closed when a
/// request's header has not arrived within `read_timeout`. Returns when every connection has
/// ended.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
    read_timeout: Duration,
    stop: CancellationToken,
) {
    let max = permits(max_connections);
    let slots = Arc::new(Semaphore::new(max));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(read_timeout);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&slots).acquire_owned() => permit,
            () = stop.cancelled() => break,
        };
        let Ok(permit) = permit else { break };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // The peer gave up before being accepted: nothing to wait for. Anything
                    // else (no descriptors left) passes with time.
                    if !matches!(
                        error.kind(),
                        std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                    ) {
                        tracing::warn!(target: "tools", %error, "accepting a connection failed; retrying in a second");
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_secs(1)) => {}
                            () = stop.cancelled() => break,
                        }
                    }
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(router.clone()));
        let stop = stop.clone();
        tokio::spawn(async move {
            let _slot = permit;
            let mut connection = pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    // Every slot back: every connection has ended.
    let _ = slots.acquire_many(u32::try_from(max).unwrap_or(u32::MAX)).await;
}

/// Whether a server listening on `address` can be reached from other machines (an
/// unspecified address, 0.0.0.0 or ::, listens on every interface).
pub(crate) fn beyond_loopback(address: SocketAddr) -> bool {
    !address.ip().to_canonical().is_loopback()
}
