//! What a type whose methods are tools provides: how its instance is made and cleaned up, and
//! the bounds on its live instances.

use std::future::Future;
use std::time::Duration;

use crate::context::ToolContext;
use crate::model::ToolError;

/// The per-conversation state of a type whose methods are tools. `#[tool]` on the impl block
/// implements it: with `Default` (no key), or with `create = "name"` (an
/// `async fn name(ctx: &ToolContext) -> Result<Self, E>`) and `cleanup = "name"` (an
/// `async fn name(&mut self)`), `idle_timeout_ms = N` and `max_instances = N`.
pub trait ConversationState: Sized + Send + Sync + 'static {
    /// Makes the instance for the conversation of `ctx`'s call, on its first call. An error
    /// fails that call (its record says why) and the next call tries again.
    fn create(ctx: &ToolContext) -> impl Future<Output = Result<Self, ToolError>> + Send;

    /// Runs once before the instance is dropped: when the host ends the conversation, when it
    /// was idle too long, or when it is evicted to respect the cap.
    fn cleanup(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// How long an instance may stay unused, and how many may live at once; a bound left
    /// `None` is the store's (see [`Conversations::with_limits`](crate::Conversations::with_limits)).
    fn limits() -> StateLimits {
        StateLimits::default()
    }
}

/// Bounds on the live instances of one stateful type, in one store of instances (one
/// executor's [`Conversations`](crate::Conversations)). A bound left `None` is the store's,
/// and the store's is [`StateLimits::DEFAULT_IDLE_TIMEOUT`] and
/// [`StateLimits::DEFAULT_MAX_INSTANCES`] unless the host set another: memory stays bounded
/// when nobody sets anything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateLimits {
    /// An instance unused this long is cleaned up (checked when calls arrive, and by
    /// [`Conversations::evict_idle`](crate::Conversations::evict_idle)).
    pub idle_timeout: Option<Duration>,
    /// At most this many instances of the type live; a new conversation evicts the least
    /// recently used idle one, and is refused when every instance is busy.
    pub max_instances: Option<usize>,
}

impl StateLimits {
    /// The idle time of a type when neither its `#[tool]` nor the host sets one: 30 minutes.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

    /// The cap on a type's live instances when neither its `#[tool]` nor the host sets one.
    pub const DEFAULT_MAX_INSTANCES: usize = 10_000;

    /// These limits, each bound left `None` taken from `fallback`.
    pub(super) fn or(self, fallback: StateLimits) -> StateLimits {
        StateLimits {
            idle_timeout: self.idle_timeout.or(fallback.idle_timeout),
            max_instances: self.max_instances.or(fallback.max_instances),
        }
    }
}
