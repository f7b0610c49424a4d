//! A conversation's lease on a stored state: held by one `&mut self` call at a time across
//! every process sharing the store, renewed while the call runs, and fencing its write, so that
//! a process that lost it (paused, cut off, too slow) cannot write.

use std::future::Future;
use std::time::Duration;

use crate::state::{random_id, Expect, SharedStore, StateError, StateKey, Version, Versioned, Write, Written};

/// The kind of key a lease lives under (its name is the stored type's).
pub const LEASE_KIND: &str = "lease";

/// How long a lease lives without being renewed: a process that stops (killed, cut off) holds
/// a conversation no longer than this. A running call renews it every third of it.
pub const LEASE_TTL: Duration = Duration::from_secs(10);

/// How long a call waits for a lease another call holds before it fails as busy: longer than
/// a lease lives, so that the lease of a process that stopped expires within the wait.
pub const LEASE_WAIT: Duration = Duration::from_secs(30);

/// The first pause between two tries for a held lease; each pause doubles, up to the last.
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const LAST_PAUSE: Duration = Duration::from_millis(50);

/// A lease held: the key and the version its write got, which fences the state's write.
pub(super) struct Lease {
    store: SharedStore,
    key: StateKey,
    version: Version,
    /// Whether it was released (else dropping it releases it in the background).
    released: bool,
}

/// What asking for a lease came to.
pub(super) enum Leased {
    /// Held, with the value of the key asked to be read with it (`None` when none was asked,
    /// or it has none).
    Held(Lease, Option<Versioned>),
    /// Another call held it all the wait.
    Busy,
    Failed(StateError),
}

impl Lease {
    /// Takes the lease at `key`, waiting up to `wait` while another holder has it; with
    /// `read`, reads that key in the same operation once the lease is taken (the state the
    /// lease guards, which nobody else writes while it is held).
    pub(super) async fn acquire(store: &SharedStore, key: StateKey, wait: Duration, read: Option<&StateKey>) -> Leased {
        let deadline = tokio::time::Instant::now() + wait;
        let token = random_id().into_bytes();
        let mut pause = FIRST_PAUSE;
        loop {
            let write = Write::new(token.clone(), LEASE_TTL).expect(Expect::Absent);
            let taken = match read {
                Some(read) => store.write_then_read(&key, write, read).await,
                None => store.write(&key, write).await.map(|written| (written, None)),
            };
            match taken {
                Ok((Written::Done(version), found)) => {
                    return Leased::Held(Lease { store: store.clone(), key, version, released: false }, found);
                }
                Ok((Written::Conflict(_) | Written::Fenced, _)) => {}
                Err(error) => return Leased::Failed(error),
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Leased::Busy;
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(LAST_PAUSE);
        }
    }

    /// Runs `work`, renewing the lease every third of its time to live until it is done. A
    /// renewal that finds the lease gone changes nothing: the write it fences will be refused.
    pub(super) async fn hold<F: Future>(&self, work: F) -> F::Output {
        let every = LEASE_TTL / 3;
        let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        tokio::pin!(work);
        loop {
            tokio::select! {
                biased;
                done = &mut work => return done,
                _ = renew.tick() => {
                    if let Err(error) = self.store.touch(&self.key, LEASE_TTL).await {
                        tracing::debug!(%error, "a lease was not renewed");
                    }
                }
            }
        }
    }

    /// Writes `write` at `key` fenced by the lease and, when it was done, gives the lease up
    /// in the same operation. When it was not, the lease is given up on its own (unless it was
    /// lost: it is no longer this holder's).
    pub(super) async fn commit(mut self, key: &StateKey, write: Write) -> Result<Written, StateError> {
        let write = write.fenced_by(self.key.clone(), self.version);
        let written = self.store.write_then_delete(key, write, &self.key, self.version).await;
        match written {
            Ok(Written::Done(_) | Written::Fenced) => self.released = true,
            Ok(Written::Conflict(_)) | Err(_) => self.release().await,
        }
        written
    }

    /// Gives the lease up (only if it is still this holder's).
    pub(super) async fn release(mut self) {
        self.released = true;
        if let Err(error) = self.store.delete(&self.key, Some(self.version)).await {
            // It expires on its own.
            tracing::debug!(%error, "a lease was not released");
        }
    }
}

impl Drop for Lease {
    /// A call stopped while it held the lease (its time limit, a cancellation, a panic) gives
    /// it up in the background, rather than make the next call wait for it to expire.
    fn drop(&mut self) {
        if self.released {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let (store, key, version) = (self.store.clone(), self.key.clone(), self.version);
        runtime.spawn(async move {
            let _ = store.delete(&key, Some(version)).await;
        });
    }
}
