//! Why an MCP server could not be built or served.

use crate::providers::export::ExportError;

/// Why a catalog could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpServerError {
    /// A tool cannot be expressed in the MCP dialect.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// An exported tool is not a valid MCP tool object.
    #[error("the MCP export of `{tool}` is not a valid MCP tool: {source}")]
    InvalidTool {
        /// The tool.
        tool: String,
        /// What rmcp said.
        #[source]
        source: serde_json::Error,
    },
    /// The conversation header named is not a valid HTTP header name.
    #[error("`{name}` is not a valid HTTP header name for the conversation header: use letters, digits and `-`, such as `x-conversation-id`")]
    InvalidConversationHeader {
        /// The name given.
        name: String,
    },
    /// The keys given to seal `requestState` cannot be used.
    #[error("the keys for `requestState` cannot be used: {0} (give at least one key of 32 bytes or more, and name one of them active)")]
    RequestStateKeys(String),
    /// The transport failed to start the session.
    #[error("the MCP session could not start: {0}")]
    Session(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The task serving the session ended abnormally.
    #[error("the MCP session ended abnormally: {0}")]
    SessionEnded(#[source] tokio::task::JoinError),
    /// A tool that keeps state per conversation has a parameter named like the argument that
    /// carries conversation handles.
    #[error("`{tool}` has a parameter `{argument}`, the argument that carries conversation handles; name another with `McpServerBuilder::conversation_argument`")]
    HandleArgumentTaken {
        /// The tool.
        tool: String,
        /// The argument's name.
        argument: String,
    },
    /// The search tool over the deferred tools could not be added to the catalog.
    #[cfg(feature = "search")]
    #[error("the tool search cannot be served: {0}")]
    ToolSearch(#[source] ToolSearchError),
    /// The HTTP listener could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// Both a static bearer token and OAuth were given: one decides who may call.
    #[error("cannot listen on {address}: both a bearer token and OAuth were given; use one (`oauth(..)` for clients with OAuth, `bearer_token(..)` for a test bench)")]
    BearerAndOAuth {
        /// The address asked for.
        address: String,
    },
    /// The bearer token given is empty.
    #[error("cannot listen on {address}: the bearer token is empty; give `bearer_token(..)` a secret")]
    EmptyBearerToken {
        /// The address asked for.
        address: String,
    },
    /// The address is reachable beyond this machine and no bearer token was given.
    #[error(
        "cannot listen on {address}: a server reachable beyond this machine needs a bearer token: set `bearer_token(..)`, or call `allow_unauthenticated_remote(true)` to let anyone who can reach it call every tool"
    )]
    RemoteWithoutToken {
        /// The address asked for.
        address: String,
    },
}

/// Why the search tool could not be served.
#[cfg(feature = "search")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSearchError {
    /// The search tool the configuration made is not a valid tool.
    #[error("the search tool is not valid: {0}")]
    Invalid(#[source] crate::tool::DynamicToolError),
    /// The catalog already has a tool of the search tool's name.
    #[error(
        "the catalog already has a tool named `{name}`, the search tool's name: name the search tool otherwise (`.tool_search_with(|search| search.name(\"find_tools\"))`)"
    )]
    NameTaken {
        /// The name.
        name: String,
    },
    /// The catalog with the search tool added could not be built.
    #[error(transparent)]
    Catalog(#[from] crate::catalog::CatalogError),
}
