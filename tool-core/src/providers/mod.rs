//! Every provider's dialect: tool definitions out, tool calls in, results back.
//!
//! Each part is a module of its own, and its items are named through it; only the two words
//! every part speaks, [`Dialect`] and [`Provider`], are here:
//!
//! - [`export`] turns tool definitions into the exact request fragment of OpenAI (Chat
//!   Completions and Responses, strict or not), Anthropic, Gemini (`parameters` or
//!   `parametersJsonSchema`), MCP `tools/list`, or plain JSON Schema 2020-12
//!   ([`export::export`]), with a per-tool [`ConversionReport`](export::ConversionReport) of
//!   what the dialect could not say and a [`NameMap`](names::NameMap) for the names it refuses
//!   and the arguments it cannot take as declared.
//! - [`names`] holds the names each provider accepts and that map back.
//! - [`calls`] parses each provider's response into [`ToolCallRequest`](crate::ToolCallRequest)s
//!   (names mapped back, ids, raw arguments verbatim); [`stream`] does the same one streamed
//!   event at a time.
//! - [`results`] renders [`ExecutionRecord`](crate::ExecutionRecord)s as each provider's
//!   tool-result message.
//! - [`check`] holds the providers' rules (OpenAI's, Anthropic's, Gemini's and MCP's, each
//!   named by an id such as `O1`, defined in the rule-id table of the guide
//!   `docs/providers.md`) as checkers over exported definitions.

pub mod calls;
pub mod check;
mod dialect;
pub mod export;
pub mod names;
pub mod results;
pub mod stream;

pub use dialect::{Dialect, Provider};
