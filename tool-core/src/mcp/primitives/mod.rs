//! The MCP primitives a server offers beside its tools: resources (fixed URIs and RFC 6570
//! level-1 templates, read by host functions), prompts (typed arguments read leniently, messages
//! made by host functions) and the completion of their arguments, with per-session resource
//! subscriptions and the host's handle to announce updates.

// Layer 10, inside `mcp`: `serve.rs` delegates the primitives' requests here; nothing here
// knows the server. `template` (URI templates) and `panics` use nothing of the others;
// `completion` uses `panics`; `resources` and `prompts` use both; `registry` uses them all.

mod completion;
mod panics;
mod prompts;
mod registry;
mod resources;
mod template;

pub use prompts::{Prompt, PromptError, PromptMessage};
pub use registry::McpPrimitives;
pub use resources::{Resource, ResourceContent, ResourceError, ResourceRequest, ResourceTemplate};
pub use template::UriTemplateError;
