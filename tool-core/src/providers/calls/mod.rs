//! Tool calls in: each provider's whole (non-streamed) response read into
//! [`ToolCallRequest`](crate::ToolCallRequest)s, with the assistant's text and the stop reason beside them.
//!
//! Names come back through the export's [`NameMap`], and so do arguments that went out other
//! than declared (renamed properties, JSON text: [`NameMap::restore`] puts the declared form in
//! `arguments`); call ids are kept; `raw_arguments` is the
//! arguments text exactly as the provider sent it (OpenAI's `arguments` string), or, where the
//! provider sends an object (Anthropic's `input`, Gemini's `args`, MCP's `arguments`), that
//! object written by `serde_json` in the order received. What must go back with the result
//! unchanged is kept in `provider_data`: Gemini's `thoughtSignature` (and `generatedId: true`
//! when Gemini sent no id and the call got `gemini_call_{i}`), the Responses API's item `id`.
//!
//! This module must not extract arguments against a tool's declaration (the executor does), and
//! never panics: a response that is not in the provider's shape is a [`ResponseError`] that
//! names the provider, the JSON path and what was there.

mod anthropic; // Anthropic Messages
mod gemini; // Gemini, and the JSON paths of Vertex's streamed arguments
mod mcp; // MCP `tools/call` requests
mod openai; // OpenAI Chat Completions and the Responses API
mod read; // what a response holds, its errors, and the reader that names the place of each

pub use anthropic::anthropic;
pub use gemini::gemini;
pub use mcp::mcp;
pub use openai::{openai_chat, openai_responses};
pub use read::{ParsedCalls, ResponseError};

pub(super) use gemini::{gemini_block_reason, gemini_call, gemini_call_path, GeminiChunk, GeminiPart, PathStep};
pub(super) use mcp::mcp_call;
pub(super) use openai::{chat_content, responses_call, responses_stop_reason};
pub(super) use read::{describe, Path, Reader};

use serde_json::Value;

use super::dialect::Provider;
use super::names::NameMap;

/// Reads a whole response of `provider` (for MCP, a `tools/call` request) into its calls.
///
/// ```
/// use serde_json::json;
/// use tool_core::providers::calls::parse_response;
/// use tool_core::providers::names::NameMap;
/// use tool_core::providers::Provider;
///
/// let response = json!({"content": [
///     {"type": "text", "text": "Searching."},
///     {"type": "tool_use", "id": "toolu_1", "name": "memory_search", "input": {"query": "rust"}}
/// ], "stop_reason": "tool_use"});
/// let mut names = NameMap::identity();
/// names.insert("memory.search", "memory_search");
/// let parsed = parse_response(Provider::Anthropic, &response, &names).unwrap();
/// assert_eq!(parsed.calls[0].tool_name, "memory.search");
/// assert_eq!(parsed.calls[0].raw_arguments, r#"{"query":"rust"}"#);
/// assert_eq!(parsed.text, "Searching.");
/// assert_eq!(parsed.stop_reason.as_deref(), Some("tool_use"));
/// ```
pub fn parse_response(provider: Provider, response: &Value, names: &NameMap) -> Result<ParsedCalls, ResponseError> {
    match provider {
        Provider::OpenAiChat => openai_chat(response, names),
        Provider::OpenAiResponses => openai_responses(response, names),
        Provider::Anthropic => anthropic(response, names),
        Provider::Gemini => gemini(response, names),
        Provider::Mcp => mcp(response, names),
    }
}

// For the stream's tests, which build Vertex's paths as Gemini writes them.
#[cfg(test)]
pub(super) use gemini::parse_json_path;
