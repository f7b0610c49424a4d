//! Tool search over MCP both ways, against real peers (rmcp's client over an in-process pipe
//! and over streamable HTTP on 127.0.0.1). Serving: a catalog with deferred tools lists its
//! other tools and `search_tools`; a session's finds join its own `tools/list` (protocol
//! 2025-11-25, `notifications/tools/list_changed`) or come back as definitions (2026-07-28, a
//! stateless request), never reaching another session. Importing: a remote server's tools
//! deferred, for a `ToolSearch` to find.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tool_core::mcp::{McpImport, McpServer, McpServerError};
use tool_core::prelude::*;
use tool_core::search::ToolSearch;

#[path = "../src/mcp/tools.rs"]
mod tools;

use tools::{add_note, count_words};

/// A tool the catalog defers, answering with its name and arguments.
fn deferred(name: &str, description: &str, parameter: &str) -> DynamicTool {
    let answer = name.to_owned();
    DynamicTool::builder(name)
        .description(description)
        .input_schema(json!({
            "type": "object",
            "properties": {parameter: {"type": "string", "description": format!("The {parameter}.")}},
            "required": [parameter]
        }))
        .defer(true)
        .handler(move |arguments, _| {
            let text = format!("{answer} ran with {}", Value::Object(arguments));
            async move { ToolOutput::text(text) }
        })
        .build()
        .unwrap()
}

/// Two loaded tools and four deferred ones.
fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<add_note>()
        .add_declared::<count_words>()
        .add_tool(deferred("weather.forecast", "The weather forecast for a city. Day by day, a week ahead.", "city"))
        .add_tool(deferred("flights.book", "Book a flight between two airports.", "route"))
        .add_tool(deferred("orders.refund", "Refund an order, in full or in part.", "order"))
        .add_tool(deferred("calendar.add_event", "Add an event to the calendar.", "title"))
        .build()
        .unwrap()
}

fn searching() -> McpServer {
    McpServer::builder(Executor::new(catalog())).tool_search().build().unwrap()
}

/// Counts the `notifications/tools/list_changed` its session received.
#[derive(Clone, Default)]
struct Watcher(Arc<Mutex<usize>>);

impl Watcher {
    fn seen(&self) -> usize {
        *self.0.lock().unwrap()
    }
}

impl rmcp::ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        *self.0.lock().unwrap() += 1;
    }
}

type Client = RunningService<RoleClient, Watcher>;

/// A client of one new session of `server` over an in-process pipe, with `initialize`.
async fn session(server: &McpServer) -> (Client, Watcher) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let server = server.clone();
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let watcher = Watcher::default();
    (watcher.clone().serve(theirs).await.unwrap(), watcher)
}

async fn names<S: rmcp::service::Service<RoleClient>>(client: &RunningService<RoleClient, S>) -> Vec<String> {
    client.list_all_tools().await.unwrap().iter().map(|tool| tool.name.to_string()).collect()
}

async fn call<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    name: &str,
    arguments: Value,
) -> Value {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    let result = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    // The text the model reads is the structured content, as JSON.
    if let Some(structured) = result.get("structuredContent") {
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, structured);
    }
    result
}

/// The structured content of a successful call.
async fn search<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    query: &str,
    limit: u64,
) -> Value {
    let result = call(client, "search_tools", json!({"query": query, "limit": limit})).await;
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"].clone()
}

/// The MCP definitions the result of a search carries for a client without a list of its own.
fn weather_definition() -> Value {
    json!({
        "name": "weather.forecast",
        "description": "The weather forecast for a city. Day by day, a week ahead.",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city."}},
            "required": ["city"]
        }
    })
}

/// Waits (two seconds at most) until `watcher` saw `count` notifications.
async fn wait_for(watcher: &Watcher, count: usize) -> usize {
    for _ in 0..200 {
        if watcher.seen() >= count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    watcher.seen()
}

#[tokio::test]
async fn the_list_holds_the_loaded_tools_and_the_search_tool() {
    let (client, _) = session(&searching()).await;
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools"]);
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(
        serde_json::to_value(&listed[2]).unwrap(),
        json!({
            "name": "search_tools",
            "description": "Searches the tools that are not loaded yet. Call it when none of the tools you have does what the task needs: describe the action you need in a few words. The tools it finds can be called from your next step.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What the tool you need does, in a few words (`weather forecast for a city`, `refund an order`). Tool names work too."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "How many tools to return, best first (default 5, at most 20)."
                    }
                },
                "required": ["query"]
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        })
    );
    let info = client.peer_info().unwrap();
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert_eq!(serde_json::to_value(&info.capabilities.tools).unwrap(), json!({"listChanged": true}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_session_finds_tools_that_join_its_list_after_the_others_in_the_order_found() {
    // Two tools a page: the list is read a page at a time, the found tools on the last pages.
    let server = McpServer::builder(Executor::new(catalog())).page_size(2).tool_search().build().unwrap();
    let (client, watcher) = session(&server).await;

    let found = search(&client, "weather forecast for a city", 1).await;
    assert_eq!(
        found,
        json!({
            "query": "weather forecast for a city",
            "tools": [{"name": "weather.forecast", "description": "The weather forecast for a city."}],
            "message": "`weather.forecast` is now in your tool list: call it by name."
        })
    );
    assert_eq!(wait_for(&watcher, 1).await, 1);
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools", "weather.forecast"]);

    // Found later, listed later: the order found, not the catalog's.
    let found = search(&client, "book a flight", 1).await;
    assert_eq!(
        found,
        json!({
            "query": "book a flight",
            "tools": [{"name": "flights.book", "description": "Book a flight between two airports."}],
            "message": "`flights.book` is now in your tool list: call it by name."
        })
    );
    assert_eq!(wait_for(&watcher, 2).await, 2);
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools", "weather.forecast", "flights.book"]);

    // Found again: nothing changes, nobody is told.
    let found = search(&client, "forecast", 1).await;
    assert_eq!(found["message"], "`weather.forecast` is now in your tool list: call it by name.");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(watcher.seen(), 2);
    assert_eq!(names(&client).await.len(), 5);

    let forecast = call(&client, "weather.forecast", json!({"city": "Oslo"})).await;
    assert_eq!(
        forecast,
        json!({"content": [{"type": "text", "text": r#"weather.forecast ran with {"city":"Oslo"}"#}], "isError": false})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_deferred_tool_not_found_yet_can_still_be_called_by_name() {
    let (client, watcher) = session(&searching()).await;
    let refund = call(&client, "orders.refund", json!({"order": "A-17"})).await;
    assert_eq!(
        refund,
        json!({"content": [{"type": "text", "text": r#"orders.refund ran with {"order":"A-17"}"#}], "isError": false})
    );
    // Calling it does not list it: only a search does.
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools"]);
    assert_eq!(watcher.seen(), 0);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn several_finds_are_named_together_and_a_search_that_finds_nothing_changes_nothing() {
    let (client, watcher) = session(&searching()).await;
    let found = search(&client, "refund an order or book a flight", 2).await;
    assert_eq!(
        found,
        json!({
            "query": "refund an order or book a flight",
            "tools": [
                {"name": "orders.refund", "description": "Refund an order, in full or in part."},
                {"name": "flights.book", "description": "Book a flight between two airports."}
            ],
            "message": "`orders.refund` and `flights.book` are now in your tool list: call them by name."
        })
    );
    assert_eq!(wait_for(&watcher, 1).await, 1);
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools", "orders.refund", "flights.book"]);

    let nothing = search(&client, "xylophone", 3).await;
    assert_eq!(
        nothing,
        json!({
            "query": "xylophone",
            "tools": [],
            "message": "No tool matched. Try other words for the action (a verb and what it acts on), or go on without one."
        })
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(watcher.seen(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_http_sessions_never_see_each_others_finds() {
    let running = searching().http().start().await.unwrap();
    let connect = || async {
        let watcher = Watcher::default();
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(running.url());
        (watcher.clone().serve(transport).await.unwrap(), watcher)
    };
    let (first, first_watcher) = connect().await;
    let (second, second_watcher) = connect().await;

    let found = search(&first, "weather forecast", 1).await;
    assert_eq!(found["message"], "`weather.forecast` is now in your tool list: call it by name.");
    assert_eq!(wait_for(&first_watcher, 1).await, 1);
    assert_eq!(names(&first).await, ["notes.add", "notes.count", "search_tools", "weather.forecast"]);
    assert_eq!(names(&second).await, ["notes.add", "notes.count", "search_tools"]);

    let found = search(&second, "add an event to the calendar", 1).await;
    assert_eq!(found["message"], "`calendar.add_event` is now in your tool list: call it by name.");
    assert_eq!(wait_for(&second_watcher, 1).await, 1);
    assert_eq!(names(&second).await, ["notes.add", "notes.count", "search_tools", "calendar.add_event"]);
    assert_eq!(names(&first).await, ["notes.add", "notes.count", "search_tools", "weather.forecast"]);
    // Each was told of its own change only.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!((first_watcher.seen(), second_watcher.seen()), (1, 1));

    // A new session starts from the shared list.
    let (third, _) = connect().await;
    assert_eq!(names(&third).await, ["notes.add", "notes.count", "search_tools"]);
    for client in [first, second, third] {
        client.cancel().await.unwrap();
    }
    running.shutdown().await;
}

#[tokio::test]
async fn a_2026_07_28_client_gets_the_definitions_and_an_unchanged_list() {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    let server = searching();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let watcher = Watcher::default();
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = watcher.clone().serve_with_lifecycle(theirs, lifecycle).await.unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);

    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools"]);
    let found = search(&client, "weather forecast for a city", 1).await;
    assert_eq!(
        found,
        json!({
            "query": "weather forecast for a city",
            "tools": [weather_definition()],
            "message": "`weather.forecast` is not in your tool list: its entry is its definition; call it by name with the arguments its `inputSchema` describes."
        })
    );
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools"]);
    let forecast = call(&client, "weather.forecast", json!({"city": "Lima"})).await;
    assert_eq!(forecast["content"][0]["text"], r#"weather.forecast ran with {"city":"Lima"}"#);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(watcher.seen(), 0);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_2026_07_28_listen_stream_hears_of_a_replaced_catalog_but_not_of_a_search() {
    use rmcp::model::{ServerNotification, SubscriptionFilter};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    let server = searching();
    let replacing = server.clone();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = ().serve_with_lifecycle(theirs, lifecycle).await.unwrap();
    let mut stream = client.listen(SubscriptionFilter::builder().tools_list_changed().build()).await.unwrap();
    assert_eq!(stream.acknowledged().tools_list_changed, Some(true));

    search(&client, "weather forecast", 1).await;
    let quiet = tokio::time::timeout(Duration::from_millis(200), stream.next()).await;
    assert!(quiet.is_err(), "a search changed nothing to tell: {quiet:?}");

    replacing.replace(Executor::new(catalog())).await.unwrap();
    let next = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap().unwrap().unwrap();
    assert!(matches!(next, ServerNotification::ToolListChangedNotification(_)), "{next:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_request_gets_the_definitions_for_there_is_no_session_to_list_them_in() {
    let running = searching().http().stateless(true).start().await.unwrap();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(running.url());
    let client = ().serve(transport).await.unwrap();
    let found = search(&client, "book a flight", 1).await;
    assert_eq!(
        found,
        json!({
            "query": "book a flight",
            "tools": [{
                "name": "flights.book",
                "description": "Book a flight between two airports.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"route": {"type": "string", "description": "The route."}},
                    "required": ["route"]
                }
            }],
            "message": "`flights.book` is not in your tool list: its entry is its definition; call it by name with the arguments its `inputSchema` describes."
        })
    );
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools"]);
    client.cancel().await.unwrap();
    running.shutdown().await;
}

#[tokio::test]
async fn beyond_the_cap_a_session_gets_definitions_instead_of_a_longer_list() {
    let server =
        McpServer::builder(Executor::new(catalog())).max_discovered_per_session(1).tool_search().build().unwrap();
    let (client, watcher) = session(&server).await;
    let found = search(&client, "refund an order or weather forecast for a city", 2).await;
    assert_eq!(
        found,
        json!({
            "query": "refund an order or weather forecast for a city",
            "tools": [
                {"name": "weather.forecast", "description": "The weather forecast for a city."},
                {
                    "name": "orders.refund",
                    "description": "Refund an order, in full or in part.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"order": {"type": "string", "description": "The order."}},
                        "required": ["order"]
                    }
                }
            ],
            "message": "`weather.forecast` is now in your tool list: call it by name. Your tool list holds the most tools searches may add to it (1), so `orders.refund` is not in it: its entry is its definition; call it by name with the arguments its `inputSchema` describes."
        })
    );
    assert_eq!(wait_for(&watcher, 1).await, 1);
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools", "weather.forecast"]);
    // A tool found before is still in the list when the list is full.
    let found = search(&client, "forecast", 1).await;
    assert_eq!(found["message"], "`weather.forecast` is now in your tool list: call it by name.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn with_no_room_for_finds_every_session_gets_definitions() {
    let server =
        McpServer::builder(Executor::new(catalog())).max_discovered_per_session(0).tool_search().build().unwrap();
    let (client, watcher) = session(&server).await;
    let found = search(&client, "weather forecast for a city", 1).await;
    assert_eq!(
        found,
        json!({
            "query": "weather forecast for a city",
            "tools": [weather_definition()],
            "message": "`weather.forecast` is not in your tool list: its entry is its definition; call it by name with the arguments its `inputSchema` describes."
        })
    );
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "search_tools"]);
    assert_eq!(watcher.seen(), 0);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_search_tool_can_be_renamed_and_a_name_the_catalog_holds_is_refused() {
    let server = McpServer::builder(Executor::new(catalog()))
        .tool_search_with(|search| search.name("find_tools").default_limit(1))
        .build()
        .unwrap();
    let (client, _) = session(&server).await;
    assert_eq!(names(&client).await, ["find_tools", "notes.add", "notes.count"]);
    let result = call(&client, "find_tools", json!({"query": "refund"})).await;
    assert_eq!(result["structuredContent"]["message"], "`orders.refund` is now in your tool list: call it by name.");
    client.cancel().await.unwrap();

    let taken = McpServer::builder(Executor::new(catalog()))
        .tool_search_with(|search| search.name("notes.add"))
        .build()
        .err()
        .unwrap();
    assert!(matches!(taken, McpServerError::ToolSearch(_)));
    assert_eq!(
        taken.to_string(),
        "the tool search cannot be served: the catalog already has a tool named `notes.add`, the search tool's name: name the search tool otherwise (`.tool_search_with(|search| search.name(\"find_tools\"))`)"
    );
}

#[tokio::test]
async fn a_catalog_that_defers_nothing_is_served_whole_and_without_a_search_tool() {
    let loaded = ToolCatalog::builder().add_declared::<add_note>().add_declared::<count_words>().build().unwrap();
    let server = McpServer::builder(Executor::new(loaded)).tool_search().build().unwrap();
    let (client, _) = session(&server).await;
    assert_eq!(names(&client).await, ["notes.add", "notes.count"]);
    client.cancel().await.unwrap();

    // Without `tool_search`, deferral means nothing to MCP: every tool is listed.
    let (client, _) = session(&McpServer::new(Executor::new(catalog())).unwrap()).await;
    assert_eq!(
        names(&client).await,
        ["calendar.add_event", "flights.book", "notes.add", "notes.count", "orders.refund", "weather.forecast"]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_replaced_catalog_keeps_what_each_session_found_that_it_still_defers() {
    let server = searching();
    let (client, watcher) = session(&server).await;
    search(&client, "weather forecast", 1).await;
    search(&client, "refund an order", 1).await;
    assert_eq!(wait_for(&watcher, 2).await, 2);
    // The forecast is gone; the refund is kept loaded: listed with the others, once.
    let fewer = catalog().to_builder().remove("weather.forecast").keep_loaded("orders.refund").build().unwrap();
    server.replace(Executor::new(fewer)).await.unwrap();
    assert_eq!(wait_for(&watcher, 3).await, 3);
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "orders.refund", "search_tools"]);
    search(&client, "book a flight", 1).await;
    assert_eq!(names(&client).await, ["notes.add", "notes.count", "orders.refund", "search_tools", "flights.book"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_with_deferral_gives_deferred_tools_that_a_tool_search_finds() {
    let running = McpServer::new(Executor::new(catalog())).unwrap().http().start().await.unwrap();
    let imported = McpImport::http(running.url()).prefix("remote.").defer(true).connect().await.unwrap();
    let local = DynamicTool::builder("local.echo")
        .description("Echo the text back.")
        .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
        .handler(|arguments, _| async move { ToolOutput::text(Value::Object(arguments).to_string()) })
        .build()
        .unwrap();
    let catalog =
        imported.add_to(ToolCatalog::builder().add_tool(local)).keep_loaded("remote.notes.add").build().unwrap();
    let loaded: Vec<&str> = catalog.loaded().map(|d| d.name.as_str()).collect();
    assert_eq!(loaded, ["local.echo", "remote.notes.add"]);
    let deferred: Vec<&str> = catalog.deferred().map(|d| d.name.as_str()).collect();
    assert_eq!(
        deferred,
        [
            "remote.calendar.add_event",
            "remote.flights.book",
            "remote.notes.count",
            "remote.orders.refund",
            "remote.weather.forecast"
        ]
    );

    let search = ToolSearch::new(catalog.deferred());
    let hits: Vec<String> = search.search("count the words of a text", 1).into_iter().map(|hit| hit.name).collect();
    assert_eq!(hits, ["remote.notes.count"]);
    let hits: Vec<String> = search.search("refund", 1).into_iter().map(|hit| hit.name).collect();
    assert_eq!(hits, ["remote.orders.refund"]);

    // Found, it is called like any imported tool: over the connection.
    let executor = Executor::new(catalog);
    let record = executor.execute(ToolCallRequest::new("remote.orders.refund", "call-1", r#"{"order": "B-2"}"#)).await;
    assert_eq!(record.content.text, r#"orders.refund ran with {"order":"B-2"}"#);

    // Without `defer`, the same import is loaded.
    let plain = McpImport::http(running.url()).prefix("plain.").connect().await.unwrap();
    let catalog = plain.add_to(ToolCatalog::builder()).build().unwrap();
    assert_eq!(catalog.deferred().count(), 0);
    imported.close().await;
    plain.close().await;
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_serves_an_imported_servers_tools_through_its_search() {
    // The remote server lists all its tools; the gateway imports them deferred and serves them
    // through its search tool.
    let remote = McpServer::new(Executor::new(catalog())).unwrap().http().start().await.unwrap();
    let imported = McpImport::http(remote.url()).prefix("remote.").defer(true).connect().await.unwrap();
    let gateway = imported.add_to(ToolCatalog::builder().add_declared::<add_note>()).build().unwrap();
    let server = McpServer::builder(Executor::new(gateway)).tool_search().build().unwrap();
    let (client, watcher) = session(&server).await;
    assert_eq!(names(&client).await, ["notes.add", "search_tools"]);

    let found = search(&client, "refund an order", 1).await;
    assert_eq!(
        found,
        json!({
            "query": "refund an order",
            "tools": [{"name": "remote.orders.refund", "description": "Refund an order, in full or in part."}],
            "message": "`remote.orders.refund` is now in your tool list: call it by name."
        })
    );
    assert_eq!(wait_for(&watcher, 1).await, 1);
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(
        serde_json::to_value(&listed[2]).unwrap(),
        json!({
            "name": "remote.orders.refund",
            "description": "Refund an order, in full or in part.",
            "inputSchema": {
                "type": "object",
                "properties": {"order": {"type": "string", "description": "The order."}},
                "required": ["order"]
            }
        })
    );
    let refund = call(&client, "remote.orders.refund", json!({"order": "C-3"})).await;
    assert_eq!(
        refund,
        json!({"content": [{"type": "text", "text": r#"orders.refund ran with {"order":"C-3"}"#}], "isError": false})
    );
    client.cancel().await.unwrap();
    imported.close().await;
    remote.shutdown().await;
}
