//! Running a call of an idempotent tool again after a transient failure.

use std::time::Duration;

/// How the executor runs a call of an idempotent tool (annotated `idempotent` or
/// `read_only`) again after a transient failure
/// ([`ToolError::transient`](crate::ToolError::transient)): up to `max_retries` more tries,
/// waiting `initial`, then `factor` times longer each time up to `max`, each wait cut by a
/// random part up to `jitter` of it (so that many callers do not retry in step). The call's
/// time limit bounds the whole; a call of any other tool is never run twice.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Backoff {
    /// How many more tries after the first (0: none).
    pub max_retries: u32,
    /// The first wait.
    pub initial: Duration,
    /// How much longer each wait is than the one before.
    pub factor: f64,
    /// The longest wait.
    pub max: Duration,
    /// The part of each wait (0 to 1) that may be left out at random.
    pub jitter: f64,
}

impl Default for Backoff {
    /// Two more tries, after 200 ms and 400 ms (up to 5 s), with a jitter of a half.
    fn default() -> Self {
        Backoff {
            max_retries: 2,
            initial: Duration::from_millis(200),
            factor: 2.0,
            max: Duration::from_secs(5),
            jitter: 0.5,
        }
    }
}

impl Backoff {
    /// No retries.
    pub fn none() -> Self {
        Backoff { max_retries: 0, ..Backoff::default() }
    }

    /// `retries` more tries after `initial`, doubling, up to 5 s, with a jitter of a half.
    pub fn new(retries: u32, initial: Duration) -> Self {
        Backoff { max_retries: retries, initial, ..Backoff::default() }
    }

    /// The same with waits that double up to `max`.
    pub fn max(mut self, max: Duration) -> Self {
        self.max = max;
        self
    }

    /// The same with each wait `factor` times the one before.
    pub fn factor(mut self, factor: f64) -> Self {
        self.factor = factor.max(1.0);
        self
    }

    /// The same with each wait cut by a random part up to `jitter` (0 to 1) of it.
    pub fn jitter(mut self, jitter: f64) -> Self {
        self.jitter = jitter.clamp(0.0, 1.0);
        self
    }

    /// The wait before retry `retry` (1 for the first), `random` in `[0, 1)`.
    pub(crate) fn wait(&self, retry: u32, random: f64) -> Duration {
        let exponent = i32::try_from(retry.saturating_sub(1)).unwrap_or(i32::MAX);
        let full = self.initial.as_secs_f64() * self.factor.powi(exponent);
        let full = full.min(self.max.as_secs_f64());
        let cut = full * self.jitter * random.clamp(0.0, 1.0);
        Duration::from_secs_f64((full - cut).max(0.0))
    }
}

/// A number in `[0, 1)` for jitter: not for secrets, only to keep callers out of step.
pub(crate) fn jitter_random() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}
