//! Stateful tools: methods of a type whose instance lives for one conversation.
//!
//! `#[tool]` on an impl block collects its `#[tool]` methods. The instance of the type is made
//! on a conversation's first call to any of them ([`ConversationState::create`]), used by every
//! later call of that conversation, and never by another. Calls to `&mut self` methods of one
//! conversation run one at a time, in the order their arguments were bound (the order of a
//! batch); `&self` calls overlap; conversations run in parallel. [`Conversations`] ends one
//! conversation or all, running each instance's [`ConversationState::cleanup`] once; an idle
//! time and a cap on live instances keep a long-running host's memory bounded.

mod queue;
mod state;
mod store;

pub use state::{ConversationState, StateLimits};
pub use store::Conversations;
#[doc(hidden)]
pub use store::{reserve, run_exclusive, run_shared, Turn};
