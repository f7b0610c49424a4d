//! Serving a catalog: the rmcp server handler.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult, ErrorCode, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer, RunningService, ServiceExt};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;

use crate::executor::Executor;
use crate::model::ToolCallRequest;
use crate::providers::results::mcp_result;
use crate::providers::{export, Dialect, ExportError, NameMap};

/// How many tools a `tools/list` page holds unless told otherwise.
const PAGE: usize = 100;

/// The requests of the MCP specification. One of them that reaches
/// [`ServerHandler::on_custom_request`] is one whose `params` rmcp could not read.
const SPECIFIED: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// A catalog served over MCP: its executor's tools, exported once.
///
/// ```no_run
/// use tool_core::mcp::McpServer;
/// use tool_core::prelude::*;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let executor = Executor::new(ToolCatalog::global()?.clone());
/// McpServer::new(executor)?.serve_stdio().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    executor: Executor,
    tools: Arc<[McpTool]>,
    names: Arc<NameMap>,
    page: usize,
}

/// Why a catalog could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpServerError {
    /// A tool cannot be expressed in the MCP dialect.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// An exported tool is not a valid MCP tool object.
    #[error("the MCP export of `{tool}` is not a valid MCP tool: {reason}")]
    InvalidTool {
        /// The tool.
        tool: String,
        /// What rmcp said.
        reason: String,
    },
    /// The transport failed to start the session.
    #[error("the MCP session could not start: {0}")]
    Session(String),
}

impl McpServer {
    /// Serves every tool of `executor`'s catalog, exported in the MCP dialect.
    pub fn new(executor: Executor) -> Result<McpServer, McpServerError> {
        let exported = export(Dialect::Mcp, executor.catalog().definitions())?;
        let tools = exported
            .tools
            .into_iter()
            .map(|tool| {
                let name = tool["name"].as_str().unwrap_or_default().to_owned();
                serde_json::from_value::<McpTool>(tool)
                    .map_err(|e| McpServerError::InvalidTool { tool: name, reason: e.to_string() })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(McpServer { executor, tools: tools.into(), names: Arc::new(exported.names), page: PAGE })
    }

    /// How many tools one `tools/list` page holds (at least one).
    pub fn page_size(mut self, tools: usize) -> McpServer {
        self.page = tools.max(1);
        self
    }

    /// Serves over a byte stream (a child process's pipes, a socket), until the client leaves.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<RunningService<RoleServer, McpServer>, McpServerError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        ServiceExt::serve(self, transport).await.map_err(|e| McpServerError::Session(e.to_string()))
    }

    /// Serves over this process's standard input and output, until the client leaves.
    pub async fn serve_stdio(self) -> Result<(), McpServerError> {
        let running = self.serve(rmcp::transport::stdio()).await?;
        running.waiting().await.map_err(|e| McpServerError::Session(e.to_string()))?;
        Ok(())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("tool-core", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The cursor is the index of the page's first tool, as text.
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start < self.tools.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor `{cursor}`"), None))?,
        };
        let end = (start + self.page).min(self.tools.len());
        let mut result = ListToolsResult::with_all_items(self.tools[start..end].to_vec());
        result.next_cursor = (end < self.tools.len()).then(|| end.to_string());
        Ok(result)
    }

    /// A request rmcp could not read as any it knows: a specified method whose `params` are
    /// malformed is invalid params (-32602), anything else an unknown method (-32601).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method;
        Err(if SPECIFIED.contains(&method.as_str()) {
            ErrorData::invalid_params(format!("the params of `{method}` are not valid for it"), None)
        } else {
            ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("there is no method `{method}`"), None)
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let raw = request.arguments.map_or_else(|| "{}".to_owned(), |arguments| Value::Object(arguments).to_string());
        let mut call = ToolCallRequest::new(request.name.to_string(), context.id.to_string(), raw);
        self.names.restore(&mut call);
        let record = self.executor.execute_cancellable(call, &context.ct).await;
        // Structured content is wrapped exactly as the exported output schema is.
        let catalog = self.executor.catalog();
        let output_schema = catalog.definition(&record.request.tool_name).and_then(|d| d.output_schema.as_ref());
        let message = mcp_result(&record, output_schema);
        let result = serde_json::from_value::<CallToolResult>(message)
            .map_err(|e| ErrorData::internal_error(format!("the result is not a valid MCP result: {e}"), None))?;
        Ok(result.into())
    }
}
