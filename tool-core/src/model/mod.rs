//! Layer 1, the model: plain data every other layer shares. What a tool is (its definition and
//! parameters), a call as the model sent it and what extraction made of it (warnings,
//! errors, and the ids of their rules), what a tool hands back (text, structured JSON, content blocks), and the JSON pointers that say where in the arguments.
//!
//! Nothing here depends on another module of the crate.

mod call;
mod content;
mod definition;
pub(crate) mod mcp_headers;
mod output;
mod principal;
pub(crate) mod pointer;
pub mod rules;
mod words;

pub(crate) use call::{received_text, truncate, Cut, RECEIVED_MAX_CHARS};
pub use call::{ArgumentError, ArgumentErrors, Extraction, Findings, ParseWarning, ToolCallRequest};
pub use content::{Audio, ContentBlock, EmbeddedResource, Image, ResourceContents, ResourceLink};
pub use definition::{
    is_valid_tool_name, Approval, Cardinality, EnumConstraint, IconTheme, SourceLocation, TaskSupport, ToolAnnotations,
    ToolDefinition, ToolIcon, ToolParameter, ValueKind,
};
pub(crate) use output::{cut_at, cut_saying, serialized_over};
pub use output::{ErrorKind, IntoToolOutput, Json, ToolError, ToolOutput};
pub use principal::Principal;
pub(crate) use words::{duration_words, human_bytes, panic_words};
