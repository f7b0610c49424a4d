//! Why an import failed, and the remote tools it left out.

/// Why a server's tools could not be imported or reached.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum McpImportError {
    /// The child process could not be started.
    #[error("cannot start the MCP server `{server}`: {reason}")]
    Spawn {
        /// The program.
        server: String,
        /// What the system said.
        reason: String,
    },
    /// The MCP handshake failed.
    #[error("cannot connect to the MCP server `{server}`: {reason}")]
    Connect {
        /// The program or URL.
        server: String,
        /// What rmcp said.
        reason: String,
    },
    /// `tools/list` failed.
    #[error("cannot list the tools of the MCP server `{server}`: {reason}")]
    List {
        /// The program or URL.
        server: String,
        /// What rmcp said.
        reason: String,
    },
}

/// A remote tool left out of the import, and why: its name is not valid here, it is larger
/// than [`McpImportBuilder::max_tool_bytes`](crate::mcp::McpImportBuilder::max_tool_bytes), the server listed it twice, or the catalog it was
/// added to already has a tool of its name (a remote tool never replaces one of the host's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTool {
    /// The name the server gave.
    pub name: String,
    /// Why it could not become a tool here.
    pub reason: String,
}
