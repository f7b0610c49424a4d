//! What each dialect accepts, as the rules the walk follows.

use super::keywords::{
    ANTHROPIC_STRICT_FORMATS, ANTHROPIC_STRICT_KEYWORDS, GEMINI_FORMATS, GEMINI_JSON_SCHEMA_KEYWORDS, GEMINI_KEYWORDS,
    OPENAI_STRICT_FORMATS, OPENAI_STRICT_KEYWORDS,
};
use crate::providers::dialect::Dialect;
use crate::providers::names::{NameRule, PropertyRule};

impl Dialect {
    pub(super) fn name_rule(self) -> NameRule {
        match self {
            Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } | Dialect::Anthropic { .. } => {
                NameRule::OPENAI_ANTHROPIC
            }
            Dialect::Gemini | Dialect::GeminiJsonSchema => NameRule::GEMINI,
            Dialect::Mcp | Dialect::JsonSchema => NameRule::MCP,
        }
    }

    pub(super) fn rules(self) -> Rules {
        match self {
            Dialect::OpenAiChat { strict } | Dialect::OpenAiResponses { strict } if strict => Rules::OPENAI_STRICT,
            Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } => Rules::OPENAI,
            Dialect::Anthropic { strict: true } => Rules::ANTHROPIC_STRICT,
            Dialect::Anthropic { strict: false } => Rules::ANTHROPIC,
            Dialect::Gemini => Rules::GEMINI,
            Dialect::GeminiJsonSchema => Rules::GEMINI_JSON_SCHEMA,
            Dialect::Mcp => Rules::MCP,
            Dialect::JsonSchema => Rules::JSON_SCHEMA,
        }
    }
}

/// How a dialect treats `$ref`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Refs {
    /// Kept, siblings and all.
    Keep,
    /// Kept, but a `$ref` with siblings is replaced by its definition merged with them (O7).
    NoSiblings,
    /// Kept; only `$`-prefixed siblings are allowed (G2).
    DollarSiblings,
    /// Replaced by the definitions (G3); recursion is cut after one level.
    Inline,
}

/// What a dialect accepts, for the walk.
#[derive(Clone, Copy)]
pub(super) struct Rules {
    /// The keywords kept (in any of the lists); `None` keeps any (after the fixed drops).
    pub(super) allowed: Option<&'static [&'static [&'static str]]>,
    /// The string formats kept; `None` keeps any.
    pub(super) formats: Option<&'static [&'static str]>,
    pub(super) refs: Refs,
    /// Closed objects, every property required, optional ones nullable (OpenAI strict).
    pub(super) all_required: bool,
    /// `additionalProperties: false` on every object (OpenAI and Anthropic strict).
    pub(super) closed_objects: bool,
    /// Maps (`additionalProperties`) and values of any type cannot be declared: sent as JSON
    /// text.
    pub(super) free_form_as_text: bool,
    /// `prefixItems` cannot be said: a tuple becomes a list of its element kinds.
    pub(super) tuples_as_lists: bool,
    /// `oneOf` is sent as `anyOf`.
    pub(super) one_of_as_any_of: bool,
    /// Null is `nullable: true` beside a single `type` (the OpenAPI subset).
    pub(super) openapi_nullable: bool,
    /// `const` is sent as a one-value `enum`.
    pub(super) const_as_enum: bool,
    /// Only string `enum` values are accepted.
    pub(super) string_enums: bool,
    /// A recursive type cannot be expressed.
    pub(super) no_recursion: bool,
    /// `minItems` above 1 cannot be said (Anthropic strict).
    pub(super) min_items_up_to_one: bool,
    /// Custom `x-` keywords are dropped.
    pub(super) drop_custom: bool,
    /// The root's `$schema` (the dialect of JSON Schema the tool declares) is kept.
    pub(super) keeps_dialect: bool,
    /// Keywords always moved into the description (O9: OpenAI strips `default`).
    pub(super) into_description: &'static [&'static str],
    /// Property names must match `^[A-Za-z_][A-Za-z0-9_]{0,63}$` (G1) or `^[a-zA-Z0-9_.-]{1,64}$`
    /// (A1); the others go out under a name that does.
    pub(super) property_names: Option<PropertyRule>,
}

impl Rules {
    pub(super) const BASE: Rules = Rules {
        allowed: None,
        formats: None,
        refs: Refs::Keep,
        all_required: false,
        closed_objects: false,
        free_form_as_text: false,
        tuples_as_lists: false,
        one_of_as_any_of: false,
        openapi_nullable: false,
        const_as_enum: false,
        string_enums: false,
        no_recursion: false,
        min_items_up_to_one: false,
        drop_custom: true,
        keeps_dialect: false,
        into_description: &[],
        property_names: None,
    };
    pub(super) const JSON_SCHEMA: Rules = Rules { drop_custom: false, ..Rules::BASE };
    /// MCP takes JSON Schema 2020-12 whole (SEP-1613, SEP-2106): the declared dialect and custom
    /// keywords stay, `x-mcp-header` among them (SEP-2243), which clients mirror into headers.
    pub(super) const MCP: Rules = Rules { drop_custom: false, keeps_dialect: true, ..Rules::BASE };
    pub(super) const OPENAI: Rules = Rules { refs: Refs::NoSiblings, into_description: &["default"], ..Rules::BASE };
    pub(super) const OPENAI_STRICT: Rules = Rules {
        allowed: Some(OPENAI_STRICT_KEYWORDS),
        formats: Some(OPENAI_STRICT_FORMATS),
        refs: Refs::NoSiblings,
        all_required: true,
        closed_objects: true,
        free_form_as_text: true,
        tuples_as_lists: true,
        one_of_as_any_of: true,
        ..Rules::BASE
    };
    pub(super) const ANTHROPIC: Rules = Rules { property_names: Some(PropertyRule::Anthropic), ..Rules::BASE };
    pub(super) const ANTHROPIC_STRICT: Rules = Rules {
        allowed: Some(ANTHROPIC_STRICT_KEYWORDS),
        formats: Some(ANTHROPIC_STRICT_FORMATS),
        closed_objects: true,
        free_form_as_text: true,
        tuples_as_lists: true,
        one_of_as_any_of: true,
        no_recursion: true,
        min_items_up_to_one: true,
        property_names: Some(PropertyRule::Anthropic),
        ..Rules::BASE
    };
    pub(super) const GEMINI: Rules = Rules {
        allowed: Some(GEMINI_KEYWORDS),
        formats: Some(GEMINI_FORMATS),
        refs: Refs::Inline,
        free_form_as_text: true,
        tuples_as_lists: true,
        one_of_as_any_of: true,
        openapi_nullable: true,
        const_as_enum: true,
        string_enums: true,
        property_names: Some(PropertyRule::Gemini),
        ..Rules::BASE
    };
    pub(super) const GEMINI_JSON_SCHEMA: Rules = Rules {
        allowed: Some(GEMINI_JSON_SCHEMA_KEYWORDS),
        refs: Refs::DollarSiblings,
        one_of_as_any_of: true,
        const_as_enum: true,
        property_names: Some(PropertyRule::Gemini),
        ..Rules::BASE
    };
}
