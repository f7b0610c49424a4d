//! Stateful tools: methods of a type whose instance lives for one conversation.
//!
//! `#[tool]` on an impl block collects its `#[tool]` methods. The instance of the type is made
//! on a conversation's first call to any of them ([`ConversationState::create`]), used by every
//! later call of that conversation, and never by another. Calls to `&mut self` methods of one
//! conversation run one at a time, in the order their arguments were bound (the order of a
//! batch); `&self` calls overlap; conversations run in parallel. The instances live in the
//! executor's store ([`Conversations`]; the executor sets it in place while it binds a call),
//! so executors never share one; the store ends one conversation or all, running each
//! instance's [`ConversationState::cleanup`] once, and an idle time and a cap on live instances,
//! by default 30 minutes and 10,000 per type, keep a long-running host's memory bounded.
//!
//! With `#[tool(shared_state)]` the state lives in the executor's state store instead
//! (`stored.rs`): serialized with its schema version, read at each call, and written back by a
//! `&mut self` call under the conversation's lease (`lease.rs`), so that processes sharing the
//! store serve a conversation alike; the slot in this process then only orders the calls.

mod lease;
mod queue;
mod registry;
mod state;
mod store;
mod stored;

#[doc(hidden)]
pub use registry::StoredType;
pub use state::{ConversationState, StateLimits};
pub use store::Conversations;
#[doc(hidden)]
pub use store::{reserve, run_exclusive, run_shared, Turn};
pub use stored::DEFAULT_MAX_STATE_BYTES;
#[doc(hidden)]
pub use stored::{reserve_stored, run_stored_exclusive, run_stored_shared, stored_type, SharedState, Storable};
