//! Resources, resource templates, prompts and completions served beside the tools (the `mcp`
//! feature), read by rmcp's own client over in-process pipes: the lists a page at a time, the
//! content readers give, MCP's error for each mistake, subscriptions per session, prompt
//! arguments read leniently, and completions capped at MCP's 100.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, CompletionContext, GetPromptRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams, Reference, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::ServiceExt;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tool_core::mcp::{
    McpPrimitives, McpServer, McpServerBuilder, Prompt, PromptError, PromptMessage, Resource, ResourceContent,
    ResourceError, ResourceTemplate,
};
use tool_core::prelude::*;
use tool_core::{Audio, EmbeddedResource, Image};

/// An MCP client that keeps the notifications it receives, by method.
#[derive(Clone, Default)]
struct Keeper(Arc<Mutex<Vec<String>>>);

impl Keeper {
    fn seen(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Waits (a second at most) until `count` notifications came.
    async fn wait_for(&self, count: usize) -> Vec<String> {
        for _ in 0..100 {
            if self.0.lock().unwrap().len() >= count {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.seen()
    }
}

impl rmcp::ClientHandler for Keeper {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(format!("updated {}", params.uri));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push("resources changed".to_owned());
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push("prompts changed".to_owned());
    }
}

type Client = RunningService<RoleClient, Keeper>;

/// A client of one new session of `server`.
async fn session(server: &McpServer) -> (Client, Keeper) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let server = server.clone();
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let keeper = Keeper::default();
    let client = keeper.clone().serve(theirs).await.unwrap();
    (client, keeper)
}

fn server_of(primitives: McpPrimitives) -> McpServer {
    server_builder(primitives).build().unwrap()
}

fn server_builder(primitives: McpPrimitives) -> McpServerBuilder {
    let catalog = ToolCatalog::builder().build().unwrap();
    McpServer::builder(Executor::new(catalog)).primitives(primitives)
}

#[derive(Deserialize, JsonSchema)]
struct Greeting {
    /// Who to greet.
    name: String,
    /// How many times.
    times: u32,
    /// Shout it.
    loud: Option<bool>,
}

fn greet(args: Greeting) -> Result<Vec<PromptMessage>, PromptError> {
    let mut text = vec![format!("Hello, {}!", args.name); args.times as usize].join(" ");
    if args.loud == Some(true) {
        text = text.to_uppercase();
    }
    Ok(vec![PromptMessage::user(text), PromptMessage::assistant("Hello back.")])
}

fn primitives() -> McpPrimitives {
    McpPrimitives::new()
        .resource(
            Resource::new("docs://readme", "readme", |_| Ok(ResourceContent::text("# Readme")))
                .title("README")
                .description("The project's README.")
                .mime_type("text/markdown"),
        )
        .resource(
            Resource::new("docs://logo", "logo", |_| Ok(ResourceContent::binary(vec![0u8, 1, 2, 255])))
                .mime_type("image/png")
                .size(4),
        )
        .resource(Resource::new("docs://broken", "broken", |_| Err(ResourceError::new("the disk is gone"))))
        .resource(Resource::new_async("docs://panics", "panics", |_| async { panic!("reader bug") }))
        .resource_template(
            ResourceTemplate::new("notes://{folder}/{id}", "note", |request| {
                match (request.variable("folder"), request.variable("id")) {
                    (Some("work"), Some(id)) => {
                        Ok(ResourceContent::text(format!("note {id} of {}", request.uri())).mime_type("text/plain"))
                    }
                    _ => Err(ResourceError::not_found()),
                }
            })
            .unwrap()
            .description("A note, by folder and id.")
            .complete("id", |partial, given| {
                let folder = given.get("folder").map_or("?", String::as_str);
                (0..150).map(|i| format!("{folder}-{partial}{i}")).collect()
            }),
        )
        .prompt(
            Prompt::with_arguments("greet", greet)
                .title("Greeting")
                .description("Greets someone.")
                .complete("name", |partial, _| {
                    ["Ada", "Alan", "Grace"]
                        .iter()
                        .filter(|n| n.starts_with(partial))
                        .map(|n| (*n).to_owned())
                        .collect()
                })
                .complete("loud", |_, _| panic!("completer bug")),
        )
        .prompt(Prompt::new("show", || {
            Ok(vec![
                PromptMessage::user(Image::png([1u8, 2, 3])),
                PromptMessage::user(EmbeddedResource::text("docs://readme", "text/markdown", "# Readme")),
                PromptMessage::assistant(Audio::new([4u8], "audio/wav")),
            ])
        }))
        .prompt(Prompt::new("refuses", || Err(PromptError::invalid_arguments("it is Sunday"))))
        .prompt(Prompt::new("panics", || panic!("prompt bug")))
}

/// The JSON-RPC error of a failed request.
fn error_of<T: std::fmt::Debug>(result: Result<T, ServiceError>) -> Value {
    match result {
        Err(ServiceError::McpError(error)) => serde_json::to_value(error).unwrap(),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn read(uri: &str) -> ReadResourceRequestParams {
    ReadResourceRequestParams::new(uri)
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = value else { panic!("an object") };
    map
}

#[tokio::test]
async fn capabilities_are_declared_only_for_what_the_host_offers() {
    let (bare, _) = session(&server_of(McpPrimitives::new())).await;
    let info = serde_json::to_value(bare.peer_info().unwrap()).unwrap();
    let capabilities = info["capabilities"].as_object().unwrap();
    assert!(!capabilities.contains_key("resources") && !capabilities.contains_key("prompts"), "{info}");
    assert!(!capabilities.contains_key("completions"), "{info}");
    let error = error_of(bare.list_resources(None).await);
    assert_eq!(error, json!({"code": -32601, "message": "this server offers no resources"}));
    bare.cancel().await.unwrap();

    let (client, _) = session(&server_of(primitives())).await;
    let info = serde_json::to_value(client.peer_info().unwrap()).unwrap();
    assert_eq!(info["capabilities"]["resources"], json!({"subscribe": true, "listChanged": true}));
    assert_eq!(info["capabilities"]["prompts"], json!({"listChanged": true}));
    assert_eq!(info["capabilities"]["completions"], json!({}));
    client.cancel().await.unwrap();

    // Prompts without completers: no completions capability.
    let only_prompt = McpPrimitives::new().prompt(Prompt::new("p", || Ok(vec![PromptMessage::user("hi")])));
    let (client, _) = session(&server_of(only_prompt)).await;
    let info = serde_json::to_value(client.peer_info().unwrap()).unwrap();
    assert!(info["capabilities"].get("completions").is_none() && info["capabilities"].get("resources").is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn lists_come_a_page_at_a_time() {
    let (client, _) = session(&server_builder(primitives()).page_size(3).build().unwrap()).await;
    let first = serde_json::to_value(client.list_resources(None).await.unwrap()).unwrap();
    assert_eq!(
        first,
        json!({
            "resources": [
                {"uri": "docs://readme", "name": "readme", "title": "README", "description": "The project's README.", "mimeType": "text/markdown"},
                {"uri": "docs://logo", "name": "logo", "mimeType": "image/png", "size": 4},
                {"uri": "docs://broken", "name": "broken"},
            ],
            "nextCursor": "3",
        })
    );
    let cursor = PaginatedRequestParams::default().with_cursor(Some("3".into()));
    let second = serde_json::to_value(client.list_resources(Some(cursor)).await.unwrap()).unwrap();
    assert_eq!(second, json!({"resources": [{"uri": "docs://panics", "name": "panics"}]}));
    let bad = PaginatedRequestParams::default().with_cursor(Some("9".into()));
    assert_eq!(
        error_of(client.list_resources(Some(bad)).await),
        json!({"code": -32602, "message": "unknown cursor `9`"})
    );

    let templates = serde_json::to_value(client.list_resource_templates(None).await.unwrap()).unwrap();
    assert_eq!(
        templates,
        json!({"resourceTemplates": [{"uriTemplate": "notes://{folder}/{id}", "name": "note", "description": "A note, by folder and id."}]})
    );

    let prompts = serde_json::to_value(client.list_prompts(None).await.unwrap()).unwrap();
    assert_eq!(
        prompts,
        json!({
            "prompts": [
                {
                    "name": "greet", "title": "Greeting", "description": "Greets someone.",
                    "arguments": [
                        {"name": "name", "description": "Who to greet.", "required": true},
                        {"name": "times", "description": "How many times.", "required": true},
                        {"name": "loud", "description": "Shout it.", "required": false},
                    ],
                },
                {"name": "show"},
                {"name": "refuses"},
            ],
            "nextCursor": "3",
        })
    );
    assert_eq!(client.list_all_prompts().await.unwrap().len(), 4);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_read_gives_the_readers_content_or_mcps_error() {
    let (client, _) = session(&server_of(primitives())).await;
    let text = serde_json::to_value(client.read_resource(read("docs://readme")).await.unwrap()).unwrap();
    assert_eq!(text, json!({"contents": [{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# Readme"}]}));
    let binary = serde_json::to_value(client.read_resource(read("docs://logo")).await.unwrap()).unwrap();
    assert_eq!(binary, json!({"contents": [{"uri": "docs://logo", "mimeType": "image/png", "blob": "AAEC/w=="}]}));
    let note = serde_json::to_value(client.read_resource(read("notes://work/a%20b")).await.unwrap()).unwrap();
    assert_eq!(
        note,
        json!({"contents": [{"uri": "notes://work/a%20b", "mimeType": "text/plain", "text": "note a b of notes://work/a%20b"}]})
    );

    assert_eq!(
        error_of(client.read_resource(read("docs://readm")).await),
        json!({"code": -32002, "message": "there is no resource `docs://readm`; did you mean `docs://readme`?", "data": {"uri": "docs://readm"}})
    );
    // The template matches, and its reader says there is no such note.
    assert_eq!(
        error_of(client.read_resource(read("notes://home/1")).await),
        json!({"code": -32002, "message": "there is no resource `notes://home/1`", "data": {"uri": "notes://home/1"}})
    );
    assert_eq!(
        error_of(client.read_resource(read("docs://broken")).await),
        json!({"code": -32603, "message": "reading the resource `docs://broken` failed: the disk is gone", "data": {"uri": "docs://broken"}})
    );
    assert_eq!(
        error_of(client.read_resource(read("docs://panics")).await),
        json!({"code": -32603, "message": "reading the resource `docs://panics` failed: its reader panicked", "data": {"uri": "docs://panics"}})
    );
    // The session outlives the panic.
    assert_eq!(client.read_resource(read("docs://readme")).await.unwrap().contents.len(), 1);

    let long = format!("docs://{}", "x".repeat(5000));
    assert_eq!(
        error_of(client.read_resource(read(&long)).await),
        json!({"code": -32602, "message": "the URI is 5007 bytes long, and this server takes URIs of at most 4096 bytes (the host sets it with `max_uri_bytes`)"})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
#[allow(deprecated)] // `resources/subscribe`: served to clients of protocols before 2026-07-28
async fn an_update_reaches_the_sessions_subscribed_to_it_only() {
    let primitives = primitives().max_subscriptions_per_session(2);
    let server = server_of(primitives.clone());
    let (watching, watcher) = session(&server).await;
    let (idle, bystander) = session(&server).await;

    watching.subscribe(SubscribeRequestParams::new("docs://readme")).await.unwrap();
    watching.subscribe(SubscribeRequestParams::new("notes://work/7")).await.unwrap();
    assert_eq!(primitives.resource_updated("docs://readme").await, 1);
    assert_eq!(primitives.resource_updated("notes://work/7").await, 1);
    assert_eq!(primitives.resource_updated("docs://logo").await, 0);
    assert_eq!(watcher.wait_for(2).await, ["updated docs://readme", "updated notes://work/7"]);
    idle.list_resources(None).await.unwrap();
    assert_eq!(bystander.seen(), Vec::<String>::new());

    // The bound on subscriptions per session, and MCP's error for an unknown URI.
    assert_eq!(
        error_of(watching.subscribe(SubscribeRequestParams::new("docs://logo")).await),
        json!({
            "code": -32602,
            "message": "this session is subscribed to 2 resources, the most this server keeps for one session (the host sets it with `max_subscriptions_per_session`); unsubscribe from one first",
            "data": {"uri": "docs://logo"},
        })
    );
    assert_eq!(
        error_of(idle.subscribe(SubscribeRequestParams::new("docs://nothing")).await),
        json!({"code": -32002, "message": "there is no resource `docs://nothing`", "data": {"uri": "docs://nothing"}})
    );

    watching.unsubscribe(UnsubscribeRequestParams::new("docs://readme")).await.unwrap();
    assert_eq!(primitives.resource_updated("docs://readme").await, 0);
    watching.subscribe(SubscribeRequestParams::new("docs://logo")).await.unwrap();

    // A session that left is told nothing.
    watching.cancel().await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(primitives.resource_updated("docs://logo").await, 0);
    idle.cancel().await.unwrap();
}

#[tokio::test]
async fn changing_the_set_tells_every_session() {
    let primitives = primitives();
    let server = server_of(primitives.clone());
    let (first, one) = session(&server).await;
    let (second, two) = session(&server).await;
    // A request after `initialize`: the server has taken the session's `initialized` notice.
    second.list_all_prompts().await.unwrap();
    primitives.add_prompt(Prompt::new("later", || Ok(vec![PromptMessage::user("late")]))).await;
    assert!(primitives.remove_resource("docs://broken").await);
    assert!(!primitives.remove_resource("docs://broken").await);
    assert_eq!(one.wait_for(2).await, ["prompts changed", "resources changed"]);
    assert_eq!(two.wait_for(2).await, ["prompts changed", "resources changed"]);
    let later = first.get_prompt(GetPromptRequestParams::new("later")).await.unwrap();
    assert_eq!(
        serde_json::to_value(later).unwrap(),
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "late"}}]})
    );
    assert_eq!(second.list_all_resources().await.unwrap().len(), 3);
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn a_prompt_reads_its_string_arguments_leniently() {
    let (client, _) = session(&server_of(primitives())).await;
    let get = GetPromptRequestParams::new("greet").with_arguments(arguments(json!({"name": "Ada", "times": "2"})));
    let result = serde_json::to_value(client.get_prompt(get).await.unwrap()).unwrap();
    assert_eq!(result["description"], "Greets someone.");
    assert_eq!(
        result["messages"],
        json!([
            {"role": "user", "content": {"type": "text", "text": "Hello, Ada! Hello, Ada!"}},
            {"role": "assistant", "content": {"type": "text", "text": "Hello back."}},
        ])
    );
    let warnings = &result["_meta"]["tool-core/parse_warnings"];
    assert_eq!(warnings.as_array().unwrap().len(), 1, "{result}");
    assert_eq!(warnings[0]["pointer"], "/times");
    assert_eq!(warnings[0]["received"], "\"2\"");

    let loud = GetPromptRequestParams::new("greet")
        .with_arguments(arguments(json!({"name": "Ada", "times": "1", "loud": "true"})));
    let result = serde_json::to_value(client.get_prompt(loud).await.unwrap()).unwrap();
    assert_eq!(result["messages"][0]["content"]["text"], "HELLO, ADA!");

    let missing = GetPromptRequestParams::new("greet").with_arguments(arguments(json!({"name": "Ada"})));
    assert_eq!(
        error_of(client.get_prompt(missing).await),
        json!({
            "code": -32602,
            "message": "the prompt `greet` needs the argument `times`, which the request left out",
            "data": {"prompt": "greet", "missing": ["times"]},
        })
    );
    let none = GetPromptRequestParams::new("greet");
    assert_eq!(
        error_of(client.get_prompt(none).await)["message"],
        "the prompt `greet` needs the arguments `name`, `times`, which the request left out"
    );
    let wrong = GetPromptRequestParams::new("greet").with_arguments(arguments(json!({"name": "Ada", "times": "many"})));
    assert_eq!(
        error_of(client.get_prompt(wrong).await),
        json!({"code": -32602, "message": "the arguments of the prompt `greet` cannot be used: invalid_type at `times`: expected an integer, got \"many\""})
    );

    let long = GetPromptRequestParams::new("greet")
        .with_arguments(arguments(json!({"name": "a".repeat(70_000), "times": "1"})));
    assert_eq!(
        error_of(client.get_prompt(long).await),
        json!({"code": -32602, "message": "the argument `name` is 70000 bytes long, and this server takes at most 65536 (the host sets it with `max_argument_bytes`)"})
    );
    let long_key = GetPromptRequestParams::new("greet").with_arguments(arguments(json!({"k".repeat(70_000): "1"})));
    assert_eq!(
        error_of(client.get_prompt(long_key).await),
        json!({"code": -32602, "message": "an argument's name is 70000 bytes long, and this server takes at most 65536 (the host sets it with `max_argument_bytes`)"})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_give_rich_content_and_mcps_errors() {
    let (client, _) = session(&server_of(primitives())).await;
    let show = serde_json::to_value(client.get_prompt(GetPromptRequestParams::new("show")).await.unwrap()).unwrap();
    assert_eq!(
        show,
        json!({"messages": [
            {"role": "user", "content": {"type": "image", "data": "AQID", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "docs://readme", "mimeType": "text/markdown", "text": "# Readme"}}},
            {"role": "assistant", "content": {"type": "audio", "data": "BA==", "mimeType": "audio/wav"}},
        ]})
    );
    assert_eq!(
        error_of(client.get_prompt(GetPromptRequestParams::new("gret")).await),
        json!({"code": -32602, "message": "there is no prompt `gret`; did you mean `greet`?", "data": {"name": "gret"}})
    );
    assert_eq!(
        error_of(client.get_prompt(GetPromptRequestParams::new("refuses")).await),
        json!({"code": -32602, "message": "the prompt `refuses` cannot use these arguments: it is Sunday"})
    );
    assert_eq!(
        error_of(client.get_prompt(GetPromptRequestParams::new("panics")).await),
        json!({"code": -32603, "message": "making the prompt `panics` failed: it panicked"})
    );
    assert!(client.get_prompt(GetPromptRequestParams::new("show")).await.is_ok());
    client.cancel().await.unwrap();

    // A block the host built wrong is refused, not sent for the client to trip on.
    let broken = McpPrimitives::new().prompt(Prompt::new("broken", || {
        Ok(vec![PromptMessage::user("Look:"), PromptMessage::user(Image::from_base64("not base64!", "image/png"))])
    }));
    let (client, _) = session(&server_of(broken)).await;
    assert_eq!(
        error_of(client.get_prompt(GetPromptRequestParams::new("broken")).await),
        json!({"code": -32603, "message": "making the prompt `broken` failed: the image block of message 1 has data \
                that is not base64 (standard alphabet, padded): Invalid symbol 32, offset 3"})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn completions_come_from_the_hosts_completers_capped_at_one_hundred() {
    let (client, _) = session(&server_of(primitives())).await;
    let complete = |reference: Reference, name: &str, value: &str| {
        CompleteRequestParams::new(reference, ArgumentInfo::new(name, value))
    };
    let names = client.complete(complete(Reference::for_prompt("greet"), "name", "A")).await.unwrap();
    assert_eq!(
        serde_json::to_value(names).unwrap(),
        json!({"completion": {"values": ["Ada", "Alan"], "total": 2, "hasMore": false}})
    );
    // An argument without a completer has no candidates.
    let times = client.complete(complete(Reference::for_prompt("greet"), "times", "")).await.unwrap();
    assert_eq!(
        serde_json::to_value(times).unwrap(),
        json!({"completion": {"values": [], "total": 0, "hasMore": false}})
    );

    let mut given = CompletionContext::new();
    given.arguments = Some(HashMap::from([("folder".to_owned(), "work".to_owned())]));
    let ids = client
        .complete(complete(Reference::for_resource("notes://{folder}/{id}"), "id", "x").with_context(given))
        .await
        .unwrap();
    let ids = serde_json::to_value(ids).unwrap();
    assert_eq!(ids["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(ids["completion"]["values"][0], "work-x0");
    assert_eq!((ids["completion"]["total"].clone(), ids["completion"]["hasMore"].clone()), (json!(150), json!(true)));

    assert_eq!(
        error_of(client.complete(complete(Reference::for_prompt("greet"), "loud", "t")).await),
        json!({"code": -32603, "message": "completing the argument `loud` of the prompt `greet` failed: its completer panicked"})
    );
    assert_eq!(
        error_of(client.complete(complete(Reference::for_prompt("greet"), "nmae", "")).await),
        json!({"code": -32602, "message": "the prompt `greet` has no argument `nmae`; its arguments are `name`, `times`, `loud`"})
    );
    let tight = server_of(primitives().max_argument_bytes(8));
    let (small, _) = session(&tight).await;
    assert_eq!(
        error_of(small.complete(complete(Reference::for_prompt("greet"), "name", "Ada Lovelace")).await),
        json!({"code": -32602, "message": "the completed value is 12 bytes long, and this server takes at most 8 (the host sets it with `max_argument_bytes`)"})
    );
    small.cancel().await.unwrap();
    assert_eq!(
        error_of(client.complete(complete(Reference::for_prompt("great"), "name", "")).await),
        json!({"code": -32602, "message": "there is no prompt `great`; did you mean `greet`?", "data": {"name": "great"}})
    );
    assert_eq!(
        error_of(client.complete(complete(Reference::for_resource("notes://{id}"), "id", "")).await),
        json!({"code": -32602, "message": "there is no resource template `notes://{id}`; the templates are `notes://{folder}/{id}`", "data": {"uri": "notes://{id}"}})
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)] // `resources/subscribe`: served to clients of protocols before 2026-07-28
async fn a_stateless_server_refuses_subscriptions_it_could_never_honour() {
    let running = server_of(primitives()).http().stateless(true).start().await.unwrap();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(running.url());
    let client = ().serve(transport).await.unwrap();
    let read = client.read_resource(read("docs://readme")).await.unwrap();
    assert_eq!(read.contents.len(), 1);
    assert_eq!(
        error_of(client.subscribe(SubscribeRequestParams::new("docs://readme")).await),
        json!({"code": -32600, "message": "this server keeps no sessions (stateless HTTP), so it cannot tell a client when a resource changes; read the resource again instead"})
    );
    client.cancel().await.unwrap();
    running.shutdown().await;
}

#[tokio::test]
async fn a_listen_stream_gets_the_updates_and_changes_it_asked_for() {
    use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    let primitives = primitives();
    let server = server_of(primitives.clone());
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(ours).await.unwrap();
        let _ = running.waiting().await;
    });
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::LATEST] };
    let client = ().serve_with_lifecycle(theirs, lifecycle).await.unwrap();
    let wanted = SubscriptionFilter::builder()
        .resource_subscriptions(["docs://readme", "docs://nothing"])
        .prompts_list_changed()
        .resources_list_changed()
        .build();
    let mut stream = client.listen(wanted).await.unwrap();
    let acknowledged = stream.acknowledged();
    assert_eq!(acknowledged.resource_subscriptions.as_deref(), Some(&["docs://readme".to_owned()][..]));
    assert_eq!((acknowledged.prompts_list_changed, acknowledged.resources_list_changed), (Some(true), Some(true)));

    // Not asked for: no notification; asked for: each in order.
    primitives.resource_updated("docs://logo").await;
    primitives.resource_updated("docs://readme").await;
    primitives.add_prompt(Prompt::new("later", || Ok(vec![PromptMessage::user("late")]))).await;
    let mut seen = Vec::new();
    for _ in 0..2 {
        let next = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap().unwrap().unwrap();
        seen.push(match next {
            ServerNotification::ResourceUpdatedNotification(updated) => format!("updated {}", updated.params.uri),
            ServerNotification::PromptListChangedNotification(_) => "prompts changed".to_owned(),
            other => format!("{other:?}"),
        });
    }
    assert_eq!(seen, ["updated docs://readme", "prompts changed"]);
    client.cancel().await.unwrap();
}

#[test]
fn the_primitives_show_what_they_offer_when_debugged() {
    let shown = format!("{:?}", primitives().max_uri_bytes(10));
    assert!(
        shown.starts_with(r#"McpPrimitives { resources: [Resource { uri: "docs://readme", name: "readme", .. }, "#),
        "{shown}"
    );
    assert!(
        shown.contains(r#"templates: [ResourceTemplate { uri_template: "notes://{folder}/{id}", name: "note", .. }]"#),
        "{shown}"
    );
    assert!(shown.contains(r#"Prompt { name: "greet", arguments: ["name", "times", "loud"], .. }"#), "{shown}");
}
