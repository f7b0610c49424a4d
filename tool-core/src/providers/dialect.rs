//! Which provider a response comes from, and which dialect definitions go out in.

/// A provider whose calls we parse and whose result messages we render.
///
/// One provider may take definitions in several [`Dialect`]s (strict or not, Gemini's two
/// schema fields); [`Dialect::provider`] says whose a dialect is.
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
///
/// A dialect is one [`Provider`]'s form of definitions (with its options, such as strict mode),
/// or plain JSON Schema, which is no provider's: [`Dialect::provider`] goes from one to the other.
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

impl Dialect {
    /// Every dialect, strict and not. A slice: a dialect added later makes it longer without
    /// changing its type.
    pub const ALL: &'static [Dialect] = &[
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

    /// The provider that takes definitions in this dialect, whose responses
    /// [`calls`](super::calls) and [`stream`](super::stream) read and whose result messages
    /// [`results`](super::results) writes; `None` for [`Dialect::JsonSchema`], which is no
    /// provider's.
    ///
    /// ```
    /// use tool_core::providers::{Dialect, Provider};
    ///
    /// assert_eq!(Dialect::Anthropic { strict: true }.provider(), Some(Provider::Anthropic));
    /// assert_eq!(Dialect::GeminiJsonSchema.provider(), Some(Provider::Gemini));
    /// assert_eq!(Dialect::JsonSchema.provider(), None);
    /// ```
    pub fn provider(self) -> Option<Provider> {
        match self {
            Dialect::OpenAiChat { .. } => Some(Provider::OpenAiChat),
            Dialect::OpenAiResponses { .. } => Some(Provider::OpenAiResponses),
            Dialect::Anthropic { .. } => Some(Provider::Anthropic),
            Dialect::Gemini | Dialect::GeminiJsonSchema => Some(Provider::Gemini),
            Dialect::Mcp => Some(Provider::Mcp),
            Dialect::JsonSchema => None,
        }
    }

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
