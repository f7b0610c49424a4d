//! REST tools, behind the `rest` feature: HTTP endpoints declared in a TOML or JSON registry
//! file, in code, or imported from an OpenAPI 3.0/3.1 document, each a [`DynamicTool`](crate::DynamicTool) whose calls go through the same
//! extraction and executor as any tool, sent with reqwest (rustls).
//!
//! A call cannot change where its request goes: path values are percent-encoded as one
//! segment, query values are encoded, header values with line breaks are refused, and the
//! finished URL must lie under the configured base URL, segment by segment. Redirects are not
//! followed unless the host allows them, and then only under the base URL. Secrets come from
//! environment variables named in header values and never appear in records, traces or errors.
//! An API cannot hold a call or fill memory: requests time out and bodies are read up to a
//! byte limit (see [`RestTools`]).

mod call;
mod error;
mod openapi;
mod spec;
mod tools;

pub use error::RestError;
pub use openapi::{openapi_specs, OpenApiOptions};
pub use spec::RestToolSpec;
pub use tools::RestTools;
