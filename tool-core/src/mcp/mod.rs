//! MCP with rmcp (the official Rust SDK), behind the `mcp` feature, both ways.
//!
//! Serving: any catalog as an MCP server, over stdio or streamable HTTP. `tools/list` is the MCP
//! export of the catalog, a page at a time; `tools/call` goes through lenient extraction and
//! the executor, so a client's sloppy arguments are recovered as in-process calls are, and
//! every failure (unknown tool, refused arguments, a tool error, a panic, a time-out, a
//! cancellation) is an `isError` result carrying the message written for the model, never a
//! JSON-RPC error the model cannot read. Beside the tools, a server offers the resources,
//! resource templates and prompts of its [`McpPrimitives`], with completion of their arguments.
//! A call that needs a person's approval is asked of the user of the calling client through
//! elicitation, when it takes forms and the host's executor has no approver of its own;
//! otherwise it ends pending, its result saying so
//! ([`McpServerBuilder::ask_approval_by_elicitation`]).
//! With [`McpServerBuilder::tool_search`] (feature `search`), the catalog's deferred tools are left out
//! of `tools/list` and found with a search tool.
//!
//! Importing: a server's tools (a child process over stdio, a streamable HTTP URL) become
//! tools of a catalog, called through the executor like local ones; deferred, with
//! [`McpImportBuilder::defer`], for a tool search to find.

mod approve; // approval of served calls by the client's user, or their pending state
mod ask;
mod capability; // -32021 for a 2026-07-28 request that needed a capability it did not declare
mod guard;
mod handles; // the conversations of requests outside any session (SEP-2567)
mod health; // the calls being served, which a drain waits for
mod http;
mod import;
mod mrtr; // questions asked in rounds of a call (protocol 2026-07-28)
mod trace; // MCP requests as spans, and W3C trace context in `_meta`
#[cfg(feature = "oauth")]
mod oauth; // the HTTP endpoint as an OAuth 2.1 resource server
mod primitives;
mod redact;
#[cfg(not(feature = "search"))]
#[path = "no_search.rs"]
mod search; // without the feature: every tool listed, no search
#[cfg(feature = "search")]
mod search; // the deferred tools served through a search tool
mod serve;
mod server_error;
mod tasks; // long calls answered with tasks (the MCP tasks extension)

pub use handles::DEFAULT_HANDLE_TTL;
pub use http::{McpHttpBuilder, McpHttpServer};
#[cfg(feature = "oauth")]
pub use import::{AuthorizationPrompt, OAuthClient};
pub use import::{McpCause, McpImport, McpImportBuilder, McpImportError, SkipReason, SkippedTool};
pub use mrtr::{DEFAULT_INPUT_STATE_TTL, DEFAULT_MAX_INPUT_ROUNDS};
pub use primitives::{
    McpPrimitives, Prompt, PromptError, PromptMessage, Resource, ResourceContent, ResourceError, ResourceRequest,
    ResourceTemplate, UriTemplateError,
};
pub use serve::{McpServer, McpServerBuilder, McpServerError};
#[cfg(feature = "search")]
pub use server_error::ToolSearchError;
pub use tasks::{DEFAULT_MAX_RUNNING_TASKS, DEFAULT_TASK_LEASE, DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_TTL};
