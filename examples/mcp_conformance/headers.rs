//! Arguments mirrored into HTTP headers (SEP-2243): `#[param(header = "..")]` marks a parameter,
//! which a 2026-07-28 client then sends in the body and in the header `Mcp-Param-<name>` too,
//! for a load balancer to route on; the server refuses a call whose two differ. The suite's
//! `http-custom-header-server-validation` scenario sends such calls, valid and not.

use tool_core::prelude::*;

/// A tool with x-mcp-header annotations to test custom header mirroring and encoding
#[tool]
#[allow(clippy::too_many_arguments)] // the suite's parameters, one per kind of value
async fn test_custom_headers(
    /// Plain ASCII string value
    #[param(header = "Region")]
    region: String,
    /// Integer numeric value
    #[param(header = "Priority")]
    priority: i64,
    /// Boolean value
    #[param(header = "Verbose", default)]
    verbose: bool,
    /// Non-ASCII string value — requires Base64 encoding
    #[param(header = "NonAscii", default)]
    non_ascii_val: String,
    /// String with leading/trailing whitespace — requires Base64 encoding
    #[param(header = "Whitespace", default)]
    whitespace_val: String,
    /// Floating point value — no x-mcp-header annotation, should not be mirrored
    #[param(default)]
    float_val: f64,
    /// No x-mcp-header annotation - should not be mirrored
    query: String,
) -> String {
    format!(
        "region={region} priority={priority} verbose={verbose} non_ascii={non_ascii_val:?} \
         whitespace={whitespace_val:?} float={float_val} query={query}"
    )
}
