//! What a drain of the streamable HTTP server waits for: the calls being served, counted. The
//! probes themselves are the accept loop's (`listen::health`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The calls a server is serving, counted, so that a drain can wait until the last one's
/// record is made.
#[derive(Default)]
pub(super) struct Running {
    count: AtomicUsize,
    settled: tokio::sync::Notify,
}

/// One call counted while it lives.
pub(super) struct Serving<'a>(&'a Running);

impl Running {
    pub(super) fn enter(&self) -> Serving<'_> {
        self.count.fetch_add(1, Ordering::AcqRel);
        Serving(self)
    }

    /// Returns once no call is served, or after `limit`.
    pub(super) async fn settled(&self, limit: Duration) {
        let waited = tokio::time::timeout(limit, async {
            loop {
                let notified = self.settled.notified();
                if self.count.load(Ordering::Acquire) == 0 {
                    return;
                }
                notified.await;
            }
        });
        let _ = waited.await;
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.settled.notify_waiters();
        }
    }
}
