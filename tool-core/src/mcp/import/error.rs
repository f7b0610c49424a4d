//! Why an import failed, and the remote tools it left out.

use std::error::Error;
use std::fmt;

use crate::tool::DynamicToolError;

/// Why a server's tools could not be imported or reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpImportError {
    /// The child process could not be started.
    #[error("cannot start the MCP server `{server}`: {source}")]
    Spawn {
        /// The program.
        server: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The MCP handshake failed.
    #[error("cannot connect to the MCP server `{server}`: {reason}")]
    Connect {
        /// The program or URL.
        server: String,
        /// What went wrong, in words, the server's credentials left out.
        reason: String,
        /// rmcp's error, when one was the cause (not for a time-out or the backoff).
        #[source]
        source: Option<McpCause>,
    },
    /// `tools/list` failed.
    #[error("cannot list the tools of the MCP server `{server}`: {reason}")]
    List {
        /// The program or URL.
        server: String,
        /// What went wrong, in words, the server's credentials left out.
        reason: String,
        /// rmcp's error, when one was the cause (not for a bound the list went over).
        #[source]
        source: Option<McpCause>,
    },
}

/// The error under an import's failure (rmcp's, with its transport's beneath). Its text is the
/// failure's reason, the server's credentials left out; the errors inside may quote them (a
/// URL with its token), so it ends the chain of sources: a report of the chain never prints
/// them, and [`McpCause::get_ref`] still gives the error itself to a program that inspects it.
pub struct McpCause {
    text: String,
    error: Box<dyn Error + Send + Sync>,
}

impl McpCause {
    /// `error`, said as `text` (cleaned of credentials).
    pub(crate) fn new(text: String, error: impl Into<Box<dyn Error + Send + Sync>>) -> McpCause {
        McpCause { text, error: error.into() }
    }

    /// The error itself (an `rmcp::service::ServiceError`, an `rmcp::service::ClientInitializeError`...).
    pub fn get_ref(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.error
    }

    /// The error itself, owned.
    pub fn into_inner(self) -> Box<dyn Error + Send + Sync> {
        self.error
    }
}

impl fmt::Display for McpCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for McpCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpCause").field("text", &self.text).finish_non_exhaustive()
    }
}

impl Error for McpCause {}

/// A remote tool left out of the import, and why: its name is not valid here, it is larger
/// than [`McpImportBuilder::max_tool_bytes`](crate::mcp::McpImportBuilder::max_tool_bytes), the server listed it twice, or the catalog it was
/// added to already has a tool of its name (a remote tool never replaces one of the host's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTool {
    /// The name the server gave.
    pub name: String,
    /// Why it could not become a tool here.
    pub reason: SkipReason,
}

/// Why a remote tool could not become a tool here; its text says it for the host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkipReason {
    /// It is not a valid tool here (its name, with the prefix, most often).
    #[error("{0}")]
    Invalid(#[source] DynamicToolError),
    /// Its JSON, as listed, is larger than allowed.
    #[error("it takes more than {max_bytes} bytes of JSON as listed (`McpImportBuilder::max_tool_bytes`)")]
    TooLarge {
        /// [`McpImportBuilder::max_tool_bytes`](crate::mcp::McpImportBuilder::max_tool_bytes).
        max_bytes: usize,
    },
    /// The server lists a tool of its name before it.
    #[error("the server lists a tool of this name twice; the first is kept")]
    ListedTwice,
    /// The catalog it was added to already has a tool of its name.
    #[error(
        "the catalog already has a tool named `{name}` ({}, from {holder_source}); an imported tool never replaces another: give the import another prefix (`McpImportBuilder::prefix`)",
        if *.imported { "another imported tool" } else { "one of the host's tools" }
    )]
    NameTaken {
        /// The name, prefix included.
        name: String,
        /// Whether the tool holding it was imported too (else it is one of the host's).
        imported: bool,
        /// Where the tool holding it comes from ([`ToolDefinition::source`](crate::ToolDefinition::source)).
        holder_source: String,
    },
}
