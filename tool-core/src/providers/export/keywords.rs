//! The keywords and string formats each dialect takes, and the keywords that constrain values.

/// The structure both strict modes accept (O6, A4).
pub(super) const STRICT_STRUCTURE: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$defs",
    "$ref",
    "description",
    "pattern",
    "format",
];
pub(super) const OPENAI_STRICT_KEYWORDS: &[&[&str]] = &[
    STRICT_STRUCTURE,
    &["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"],
];
pub(super) const OPENAI_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
pub(super) const ANTHROPIC_STRICT_KEYWORDS: &[&[&str]] = &[STRICT_STRUCTURE, &["allOf", "default", "minItems"]];
pub(super) const ANTHROPIC_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
pub(super) const GEMINI_KEYWORDS: &[&[&str]] = &[&[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "anyOf",
    "default",
    "example",
    "propertyOrdering",
]];
pub(super) const GEMINI_FORMATS: &[&str] = &["enum", "date-time"];
pub(super) const GEMINI_JSON_SCHEMA_KEYWORDS: &[&[&str]] = &[&[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
]];

/// Keywords that constrain values: when a dialect cannot carry one, the model is told in the
/// description (and our validation still enforces it).
pub(super) const CONSTRAINTS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
    "examples",
    "example",
    "const",
    "enum",
];
