//! Every provider's dialect: tool definitions out, tool calls in, results back.
//!
//! - [`export()`] turns tool definitions into the exact request fragment of OpenAI (Chat
//!   Completions and Responses, strict or not), Anthropic, Gemini (`parameters` or
//!   `parametersJsonSchema`), MCP `tools/list`, or plain JSON Schema 2020-12, with a
//!   per-tool [`ConversionReport`] of what the dialect could not say and a [`NameMap`] for the
//!   names it refuses and the arguments it cannot take as declared.
//! - [`calls`] parses each provider's response into [`ToolCallRequest`](crate::ToolCallRequest)s
//!   (names mapped back, ids, raw arguments verbatim); [`stream`] does the same one streamed
//!   event at a time.
//! - [`results`] renders [`ExecutionRecord`](crate::ExecutionRecord)s as each provider's
//!   tool-result message.
//! - [`check`] holds the providers' rules (PROVIDERS.md: O1-O9, A1-A4, G1-G3, MCP) as checkers
//!   over exported definitions.

pub mod calls;
pub mod check;
mod export;
pub mod names;
pub mod results;
pub mod stream;

pub use export::{
    export, export_with, ConversionNote, ConversionReport, ExportError, ExportOptions, ExportProblem, Exported,
    NameCollisions, NoteAction,
};
pub use names::{ArgumentMap, NameMap};

/// A provider whose calls we parse and whose result messages we render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions.
    OpenAiChat,
    /// OpenAI Responses API.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini (Gemini API and Vertex AI).
    Gemini,
    /// Model Context Protocol (`tools/call`).
    Mcp,
}

/// The form tool definitions are exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI Chat Completions: `{"type":"function","function":{name, description, parameters, strict}}`.
    OpenAiChat {
        /// Strict mode (O4-O7): every property required, optional ones nullable, closed objects.
        strict: bool,
    },
    /// OpenAI Responses API: flat `{"type":"function", name, description, parameters, strict}`.
    OpenAiResponses {
        /// Strict mode, as for Chat Completions.
        strict: bool,
    },
    /// Anthropic Messages: `{name, description, input_schema, strict?}`.
    Anthropic {
        /// Strict tool use (A4): closed objects, and only the keywords it supports.
        strict: bool,
    },
    /// Gemini `functionDeclarations` with `parameters` (the OpenAPI 3.0 subset, G3).
    Gemini,
    /// Gemini `functionDeclarations` with `parametersJsonSchema` (G2).
    GeminiJsonSchema,
    /// MCP `tools/list` tool objects (`inputSchema`, `outputSchema`, `annotations`, `title`).
    Mcp,
    /// Plain JSON Schema 2020-12, one document per tool.
    JsonSchema,
}
