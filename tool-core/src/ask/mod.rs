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
mod sampling;

use std::future::Future;
use std::pin::Pin;

pub(crate) use elicitation::{elicit, elicitation_handler};
pub use elicitation::{Elicitation, ElicitationAnswer, ElicitationHandler, ElicitationRequest};
pub(crate) use sampling::sampling_handler;
pub use sampling::{
    ModelPreferences, SamplingContent, SamplingHandler, SamplingMessage, SamplingRequest, SamplingResponse,
    SamplingRole,
};

/// What an asking handler returns: the answer, later.
pub type AskFuture<T> = Pin<Box<dyn Future<Output = Result<T, crate::model::ToolError>> + Send + 'static>>;

/// The form MCP's `elicitation/create` takes for the type `T`: a flat object of text, number,
/// integer, boolean and choice fields, as [`ToolContext::elicit`](crate::ToolContext::elicit)
/// sends it. An error (code `invalid_form`) names the field no MCP form can ask for.
pub fn form_schema<T: schemars::JsonSchema>() -> Result<serde_json::Value, crate::model::ToolError> {
    form::Form::of::<T>().map(|form| form.requested)
}
