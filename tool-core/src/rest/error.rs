//! Why REST tools could not be built.

use crate::tool::DynamicToolError;

/// Why REST tools could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RestError {
    /// The registry file could not be read.
    #[error("cannot read `{path}`: {reason}")]
    Read {
        /// The file.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// The registry is not valid TOML or JSON of the expected shape.
    #[error("the REST tool registry is not valid {format}: {reason}")]
    Parse {
        /// `TOML` or `JSON`.
        format: &'static str,
        /// Where and why.
        reason: String,
    },
    /// A tool's spec cannot work.
    #[error("the REST tool `{tool}` is invalid: {reason}")]
    Invalid {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
    /// The tool could not be built as a dynamic tool.
    #[error(transparent)]
    Tool(#[from] DynamicToolError),
}
