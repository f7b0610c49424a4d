//! The providers' rules for tool definitions (OpenAI's, Anthropic's, Gemini's and MCP's; the rule
//! ids, such as `O1`, are listed in `docs/providers.md`), as
//! checkers over definitions in a dialect's wire form.
//!
//! An oracle, independent of the exporters: it reads the JSON a request would carry and
//! reports each broken rule as a [`Violation`] with the rule's id, a JSON pointer and a
//! message. It changes nothing and repairs nothing.
//!
//! Pointers name the offending keyword when one is there (`/function/parameters/format`), and
//! the node when something is missing from it (an object without `additionalProperties`).
//! Beyond the providers' own rules, two hold in every dialect: a `format` that is not one of
//! JSON Schema's (`uint32`, `int64`, `double`, ...: exports drop them) is rule `FORMAT`, and a
//! local `$ref` that points at nothing is rule `SCHEMA` (`O7` in OpenAI's strict mode).

mod anthropic; // Anthropic's tool shape and schema rules (A1, A2, A4)
mod fields; // a tool object's name, keys and schema root
mod gemini; // Gemini's declarations, `parameters` and `parametersJsonSchema` (G1-G3)
mod mcp; // MCP's `tools/list` tool (rule `MCP`)
mod openai; // OpenAI's tool shapes and schema rules (O1-O9)
mod request; // what only a whole tools list can break: duplicate names, Anthropic's request limits
mod schema; // the walk over one schema document, and the rules of every dialect
mod violation; // one broken rule, and the list the checkers fill

pub use violation::Violation;

use serde_json::Value;

use self::anthropic::anthropic_tool;
use self::gemini::gemini_tool;
use self::mcp::mcp_tool;
use self::openai::openai_tool;
use self::request::{anthropic_deferral, anthropic_request_limits, duplicate_names};
use self::schema::{Doc, Profile};
use self::violation::Out;
use super::dialect::Dialect;

/// Checks one element of a request's tools list, in `dialect`'s shape, against the provider's
/// rules.
///
/// For [`Dialect::Gemini`] and [`Dialect::GeminiJsonSchema`] the element is either one
/// function declaration or a `{"functionDeclarations": [...]}` tool holding several. For
/// [`Dialect::JsonSchema`] it is the schema document itself.
pub fn check_tool(dialect: Dialect, tool: &Value) -> Vec<Violation> {
    let mut out = Out::default();
    match dialect {
        Dialect::OpenAiChat { strict } => openai_tool(tool, strict, false, &mut out),
        Dialect::OpenAiResponses { strict } => openai_tool(tool, strict, true, &mut out),
        Dialect::Anthropic { strict } => anthropic_tool(tool, strict, &mut out),
        Dialect::Gemini => gemini_tool(tool, Profile::GeminiParameters, &mut out),
        Dialect::GeminiJsonSchema => gemini_tool(tool, Profile::GeminiJsonSchema, &mut out),
        Dialect::Mcp => mcp_tool(tool, &mut out),
        Dialect::JsonSchema => Doc::new(tool, String::new(), Profile::Plain).check(&mut out),
    }
    out.0
}

/// Checks a request's whole tools list: every tool ([`check_tool`], pointers prefixed with the
/// tool's index), then what only the whole list can break.
///
/// - Two tools under one name (rule of the dialect's names: `O1`, `A1`, `G1`, `MCP`).
/// - Anthropic's deferral (A1): at least one tool not deferred (`defer_loading`), at most
///   10,000 deferred.
/// - Anthropic in strict mode (A4): at most 20 strict tools, 24 optional parameters and 16
///   parameters of a union type (`anyOf` or a type list), counted over every object of every
///   strict tool's schema.
///
/// OpenAI's size limits (O8) are per schema, as its documentation and its recorded error
/// messages state them, so [`check_tool`] applies them and nothing sums them across tools.
pub fn check_request(dialect: Dialect, tools: &[Value]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        violations.extend(
            check_tool(dialect, tool).into_iter().map(|v| Violation { pointer: format!("/{i}{}", v.pointer), ..v }),
        );
    }
    let mut out = Out::default();
    duplicate_names(dialect, tools, &mut out);
    if let Dialect::Anthropic { strict } = dialect {
        anthropic_deferral(tools, &mut out);
        if strict {
            anthropic_request_limits(tools, &mut out);
        }
    }
    violations.extend(out.0);
    violations
}
