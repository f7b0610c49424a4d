//! Which provider a response comes from, and which dialect definitions go out in.

/// A provider whose calls we parse and whose result messages we render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions: `{"type":"function","function":{name, description, parameters, strict}}`.
    OpenAiChat {
        /// Strict mode: every property required, optional ones nullable, closed objects.
        strict: bool,
    },
    /// OpenAI Responses API: flat `{"type":"function", name, description, parameters, strict}`.
    OpenAiResponses {
        /// Strict mode, as for Chat Completions.
        strict: bool,
    },
    /// Anthropic Messages: `{name, description, input_schema, strict?}`.
    Anthropic {
        /// Strict tool use: closed objects, and only the keywords it supports.
        strict: bool,
    },
    /// Gemini `functionDeclarations` with `parameters` (the OpenAPI 3.0 subset).
    Gemini,
    /// Gemini `functionDeclarations` with `parametersJsonSchema` (the JSON Schema keywords it accepts).
    GeminiJsonSchema,
    /// MCP `tools/list` tool objects (`inputSchema`, `outputSchema`, `annotations`, `title`).
    Mcp,
    /// Plain JSON Schema 2020-12, one document per tool.
    JsonSchema,
}
