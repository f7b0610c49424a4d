//! What a running tool may ask whoever made its call: their model, for a message (sampling,
//! [`ToolContext::sample`]), and their user, to fill in a form made from a Rust type
//! (elicitation, [`ToolContext::elicit`]). Over MCP the client that made the call answers
//! (when it declared the capability); elsewhere the host's handlers do
//! ([`CallScope`](crate::CallScope), [`ExecutorBuilder`](crate::ExecutorBuilder)).
//!
//! [`ToolContext::sample`]: crate::ToolContext::sample
//! [`ToolContext::elicit`]: crate::ToolContext::elicit

// Layer 3c: uses the model, the schema settings and extraction (an answer is read as
// arguments are); the context hands these to tools.

mod elicitation;
mod form;
mod future;
mod roots;
mod sampling;

pub(crate) use elicitation::{elicit, elicitation_handler};
pub use elicitation::{Elicitation, ElicitationAnswer, ElicitationHandler, ElicitationRequest};
pub use form::form_schema;
pub use future::AskFuture;
pub(crate) use roots::roots_handler;
pub use roots::{Root, RootsHandler};
pub(crate) use sampling::sampling_handler;
pub use sampling::{
    ModelPreferences, SamplingContent, SamplingHandler, SamplingMessage, SamplingRequest, SamplingResponse,
    SamplingRole,
};
