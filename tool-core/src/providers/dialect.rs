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

impl Dialect {
    /// Every dialect, strict and not.
    pub const ALL: [Dialect; 10] = [
        Dialect::OpenAiChat { strict: false },
        Dialect::OpenAiChat { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::OpenAiResponses { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
        Dialect::JsonSchema,
    ];

    /// The dialect in words, for messages.
    pub fn label(self) -> &'static str {
        match self {
            Dialect::OpenAiChat { strict: true } => "OpenAI Chat Completions (strict)",
            Dialect::OpenAiChat { strict: false } => "OpenAI Chat Completions",
            Dialect::OpenAiResponses { strict: true } => "the OpenAI Responses API (strict)",
            Dialect::OpenAiResponses { strict: false } => "the OpenAI Responses API",
            Dialect::Anthropic { strict: true } => "Anthropic (strict)",
            Dialect::Anthropic { strict: false } => "Anthropic",
            Dialect::Gemini => "Gemini `parameters`",
            Dialect::GeminiJsonSchema => "Gemini `parametersJsonSchema`",
            Dialect::Mcp => "MCP",
            Dialect::JsonSchema => "JSON Schema",
        }
    }
}
