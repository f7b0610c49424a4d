//! Content blocks over MCP both ways: our server's results read by rmcp's client, a remote
//! rmcp server's image, audio, resource and link blocks read back by our import, and a
//! catalog served and imported over HTTP keeping every block as it was.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as McpBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, Resource, ResourceContents as McpResourceContents, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tool_core::mcp::{McpImport, McpServer};
use tool_core::prelude::*;
use tool_core::{ContentBlock, EmbeddedResource, Image, ResourceContents, ResourceLink};

const PNG: &[u8] = b"\x89PNG";

/// A chart, its data and a link to the year.
#[tool]
fn chart() -> ToolOutput {
    ToolOutput::text("The week:")
        .with_image(PNG, "image/png")
        .with_audio(b"RIFF", "audio/wav")
        .with_block(EmbeddedResource::text("file:///week.csv", "text/csv", "day,high\nmon,21"))
        .with_block(EmbeddedResource::blob("file:///week.pdf", "application/pdf", b"%PDF-1.7"))
        .with_block(ContentBlock::text("And the year:"))
        .with_block(ResourceLink::new("file:///year.csv", "year.csv").with_description("The whole year"))
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder().add_declared::<chart>().build().unwrap()
}

#[tokio::test]
async fn rmcps_client_reads_our_blocks_as_the_specification_types() {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let server = McpServer::new(Executor::new(catalog())).unwrap();
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = ().serve(theirs).await.unwrap();
    let result = client.call_tool(CallToolRequestParams::new("chart")).await.unwrap();
    let image = result.content[1].as_image().expect("an image block");
    assert_eq!((image.data.as_str(), image.mime_type.as_str()), ("iVBORw==", "image/png"));
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "content": [
                {"type": "text", "text": "The week:"},
                {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///week.csv", "mimeType": "text/csv", "text": "day,high\nmon,21"}},
                {"type": "resource", "resource": {"uri": "file:///week.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjc="}},
                {"type": "text", "text": "And the year:"},
                {"type": "resource_link", "uri": "file:///year.csv", "name": "year.csv", "description": "The whole year"},
            ],
            "isError": false,
        })
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tools_icons_are_served_in_tools_list_and_imported_back() {
    let icon = tool_core::ToolIcon::new("https://example.com/chart.png").mime_type("image/png").size("48x48");
    let tool = DynamicTool::builder("plot")
        .description("Plot the week.")
        .icon(icon.clone().theme(tool_core::IconTheme::Light))
        .handler(|_, _| async { Ok::<_, ToolError>(json!("plotted")) })
        .build()
        .unwrap();
    let server = McpServer::new(Executor::new(ToolCatalog::builder().add_tool(tool).build().unwrap())).unwrap();
    let running = server.http().start().await.unwrap();
    let client = ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(running.url())).await.unwrap();
    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(
        listed[0]["icons"],
        json!([{"src": "https://example.com/chart.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"}])
    );
    client.cancel().await.unwrap();
    let imported = McpImport::http(running.url()).connect().await.unwrap();
    let catalog = imported.add_to(ToolCatalog::builder()).build().unwrap();
    assert_eq!(catalog.definition("plot").unwrap().icons, vec![icon.theme(tool_core::IconTheme::Light)]);
    imported.close().await;
    running.shutdown().await;
}

#[tokio::test]
async fn a_catalog_served_and_imported_over_http_keeps_every_block() {
    let server = McpServer::new(Executor::new(catalog())).unwrap();
    let running = server.http().start().await.unwrap();
    let imported = McpImport::http(running.url()).connect().await.unwrap();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    let record = executor.execute(ToolCallRequest::new("chart", "call_1", "{}")).await;
    assert_eq!((record.content.text.as_str(), &record.content.blocks), ("The week:", &chart().blocks));
    assert!(record.content.metadata.is_empty(), "{:?}", record.content.metadata);
    imported.close().await;
    running.shutdown().await;
}

/// A remote server that answers every call with blocks made by rmcp's own constructors, one
/// of a kind the import does not know and an image whose data is not base64.
#[derive(Clone)]
struct Gallery;

impl ServerHandler for Gallery {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("gallery", "1.0.0");
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = tool_tests::no_parameters();
        // Icons a client may load, and one it must not (a script).
        let icons = vec![
            rmcp::model::Icon::new("https://example.com/gallery.svg").with_mime_type("image/svg+xml"),
            rmcp::model::Icon::new("javascript:alert(1)"),
            rmcp::model::Icon::new("data:image/png;base64,iVBORw==").with_sizes(vec!["16x16".to_owned()]),
        ];
        Ok(ListToolsResult::with_all_items(vec![
            McpTool::new("show", "Show the gallery.", Arc::clone(&schema)).with_icons(icons),
            McpTool::new("broken", "Show a broken picture.", schema),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let blocks = match request.name.as_ref() {
            "show" => vec![
                McpBlock::text("The gallery:"),
                McpBlock::text("Room one."),
                McpBlock::image("iVBORw==", "image/png"),
                McpBlock::audio("UklGRg==", "audio/wav"),
                McpBlock::resource(McpResourceContents::text("a note", "test://note")),
                McpBlock::resource(
                    McpResourceContents::blob("JVBERi0xLjc=", "test://doc").with_mime_type("application/pdf"),
                ),
                McpBlock::resource_link(Resource::new("test://room-two", "Room two").with_mime_type("text/html")),
            ],
            _ => vec![McpBlock::text("Look:"), McpBlock::image("not base64!", "image/png")],
        };
        Ok(CallToolResult::success(blocks).into())
    }
}

#[tokio::test]
async fn our_import_reads_a_remote_servers_blocks_back_as_content_blocks() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["127.0.0.1".to_owned()])
        .with_cancellation_token(stop.child_token());
    let service = StreamableHttpService::new(|| Ok(Gallery), Arc::new(LocalSessionManager::default()), config);
    let router = axum::Router::new().route_service("/mcp", service);
    let shutdown = stop.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, router).with_graceful_shutdown(async move { shutdown.cancelled().await }).await.unwrap();
    });

    let imported = McpImport::http(format!("http://{address}/mcp")).connect().await.unwrap();
    let executor = Executor::new(imported.add_to(ToolCatalog::builder()).build().unwrap());
    // The icons a client may load are kept; the script is dropped.
    assert_eq!(
        executor.catalog().definition("show").unwrap().icons,
        vec![
            tool_core::ToolIcon::new("https://example.com/gallery.svg").mime_type("image/svg+xml"),
            tool_core::ToolIcon::new("data:image/png;base64,iVBORw==").size("16x16"),
        ]
    );
    let record = executor.execute(ToolCallRequest::new("show", "call_1", "{}")).await;
    assert_eq!(record.status, CallStatus::Success);
    // The text blocks before the first other block are the text, one a line.
    assert_eq!(record.content.text, "The gallery:\nRoom one.");
    let note = EmbeddedResource::text("test://note", "text/plain", "a note");
    let doc = EmbeddedResource::blob("test://doc", "application/pdf", b"%PDF-1.7");
    assert_eq!(doc.contents, ResourceContents::Blob("JVBERi0xLjc=".to_owned()));
    assert_eq!(
        record.content.blocks,
        vec![
            ContentBlock::Image(Image::png(PNG)),
            tool_core::Audio::wav(b"RIFF").into(),
            note.into(),
            doc.into(),
            ResourceLink::new("test://room-two", "Room two").with_mime_type("text/html").into(),
        ]
    );
    assert!(record.content.metadata.is_empty());

    // A block that cannot be read is said in its place (here, as the text before any other
    // block, a line of the text), and the server's content kept for the host.
    let record = executor.execute(ToolCallRequest::new("broken", "call_2", "{}")).await;
    assert_eq!(record.status, CallStatus::Success);
    assert_eq!(
        record.content.text,
        "Look:\n[a `image` block of the server's result was not read: it has data that is not base64 (standard \
         alphabet, padded): Invalid symbol 32, offset 3]"
    );
    assert_eq!(record.content.blocks, vec![]);
    assert_eq!(
        record.content.metadata["mcp_content"],
        json!([{"type": "text", "text": "Look:"}, {"type": "image", "data": "not base64!", "mimeType": "image/png"}])
    );
    imported.close().await;
    stop.cancel();
    let _ = task.await;
}
